"""Slow clients: an ordinary client's GET latency while N connections send their head slowly, N stall in
the TLS handshake (none authenticated) and M send a request body slowly (half with the admin's certificate,
half anonymous), and when and how the server ends them.

    python bench/slow_clients_bench.py                        # both backends, 1,000 + 1,000 + 1,000
    python bench/slow_clients_bench.py --backend sqlite --slow 1000 --stalled 1000 --slow-bodies 1000

Per backend: start the real server (default settings), open N TLS connections without a client certificate
that send `GET /api HTTP/1.1\\r\\nHost: x\\r\\n` and then one header byte every 5 s (the head never ends),
N TCP connections that send half a ClientHello record header and then nothing, and M TLS connections that send
the complete head of a POST of a ConfigMap with `Content-Length: 100000` and then one body byte every 5 s.
Meanwhile the ordinary client does 200 GETs of one object on a keep-alive connection and 50 on new connections
(a TLS handshake each), and its latencies are printed, with the machine's load and this generator's CPU. Then
the slow connections are watched until the server closes them (--read-header-timeout, 32 s, for the heads;
--request-timeout, 60 s, for the bodies, answered 504).

First, on the same server, --anonymous-bodies TLS connections (default 1,000) without a client certificate are
opened, then each sends, all in a burst, the head of the same POST and the first bytes of its body, and holds
back the rest: the server refuses each from its head (403) without waiting for the body. Printed: when the last
was answered, counted from the first and from the last head sent, and an ordinary client's GET latency on a
keep-alive connection meanwhile.
"""

from __future__ import annotations

import argparse
import select
import socket
import ssl
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    Conn,
    MachineLoad,
    add_server_args,
    backends,
    bench_server,
    fmt_ms,
    header,
    health,
    summary,
    write_json,
)
from tests.e2e import closed_by_server


def anonymous_context(server) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(server.ca_file))


def admin_context(server) -> ssl.SSLContext:
    ctx = anonymous_context(server)
    ctx.load_cert_chain(*server.client_cert)
    return ctx


def slow_body_head(length: int) -> bytes:
    return (
        "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode() + b'{"apiVersion":"v1",'


def answer_of(sock: ssl.SSLSocket) -> bytes | None:
    """The status line the server sent on `sock` (b"" when it closed it without one), None while it sent nothing
    (a TLS 1.3 session ticket makes the socket readable too)."""
    try:
        sock.setblocking(False)
        return sock.recv(4096).split(b"\r\n", 1)[0]
    except (BlockingIOError, ssl.SSLWantReadError):
        return None
    except (OSError, ssl.SSLError):
        return b""


def timed_get(conn: Conn, latencies: list[float]) -> None:
    """An ordinary client's GET of one object; its latency is kept when it was answered 200."""
    start = time.monotonic()
    status, _ = conn.request("GET", "/api/v1/namespaces/default")
    if status == 200:
        latencies.append(time.monotonic() - start)


def refused_bodies(server, count: int) -> dict:
    """`count` anonymous slow bodies at once: how soon all are refused, and an ordinary GET's latency meanwhile."""
    ctx = anonymous_context(server)
    socks: list[ssl.SSLSocket] = []
    answered_at: dict[ssl.SSLSocket, float] = {}
    answers: dict[bytes, int] = {}
    opened = threading.Event()
    latencies: list[float] = []

    def collect() -> None:  # one owner per socket once it is in `socks`: this thread reads, the opener no more
        while not opened.is_set() or len(answered_at) < len(socks):
            for sock in [s for s in list(socks) if s not in answered_at and readable(s)]:
                line = answer_of(sock)
                if line is not None:
                    answered_at[sock] = time.monotonic()
                    answers[line] = answers.get(line, 0) + 1
            time.sleep(0.01)

    def get_meanwhile() -> None:
        conn = Conn(server)
        conn.request("GET", "/readyz")
        while not opened.is_set() or len(answered_at) < len(socks):
            timed_get(conn, latencies)
            time.sleep(0.01)
        conn.close()

    connected = [
        ctx.wrap_socket(socket.create_connection(("127.0.0.1", server.port)), server_hostname="127.0.0.1")
        for _ in range(count)
    ]  # handshakes first: what follows is the server's answer to a burst of heads
    threads = [threading.Thread(target=collect, daemon=True), threading.Thread(target=get_meanwhile, daemon=True)]
    for thread in threads:
        thread.start()
    load = MachineLoad()
    first = time.monotonic()
    for sock in connected:
        sock.sendall(slow_body_head(100_000) + b" " * 1000)
        socks.append(sock)
    last = time.monotonic()
    opened.set()
    for thread in threads:
        thread.join(timeout=300)
    machine = load.report(0.0)
    done = max(answered_at.values(), default=last)
    for sock in socks:
        sock.close()
    told = ", ".join(f"{n} x {line.decode(errors='replace') or 'nothing'}" for line, n in answers.items())
    print(
        f"  {count} anonymous slow bodies: all answered {done - first:.1f} s after the first head was sent "
        f"({done - last:.1f} s after the last; sending the heads took {last - first:.1f} s): {told}"
    )
    print(f"  GET on a keep-alive connection meanwhile ({len(latencies)} answered): {fmt_ms(summary(latencies))}")
    print(
        f"  meanwhile: load average {machine['loadavg_1m']:.1f}, machine busy {machine['machine_busy_s']:.1f} of "
        f"{machine['capacity_s']:.1f} CPU-s"
    )
    return {
        "anonymous_bodies": count,
        "all_answered_after_first_s": done - first,
        "all_answered_after_last_s": done - last,
        "sending_s": last - first,
        "answers": {line.decode(errors="replace"): n for line, n in answers.items()},
        "get_keepalive": summary(latencies),
        "machine": machine,
    }


def run(server, slow: int, stalled: int, slow_bodies: int = 0) -> dict:
    ctx = anonymous_context(server)
    with_cert = admin_context(server)
    generator_cpu = time.process_time()
    opened = time.monotonic()
    slow_socks = []
    for _ in range(slow):
        sock = ctx.wrap_socket(socket.create_connection(("127.0.0.1", server.port)), server_hostname="127.0.0.1")
        sock.sendall(b"GET /api HTTP/1.1\r\nHost: x\r\n")
        slow_socks.append(sock)
    stalled_socks = []
    for _ in range(stalled):
        sock = socket.create_connection(("127.0.0.1", server.port))
        sock.sendall(b"\x16\x03\x01")
        stalled_socks.append(sock)
    body_socks = []
    for index in range(slow_bodies):  # every other one authenticated
        context = with_cert if index % 2 else ctx
        sock = context.wrap_socket(socket.create_connection(("127.0.0.1", server.port)), server_hostname="127.0.0.1")
        sock.sendall(slow_body_head(100_000))
        body_socks.append(sock)
    bodies_opened = time.monotonic()
    print(
        f"  {slow} slow-head, {stalled} stalled-handshake and {slow_bodies} slow-body connections open after "
        f"{time.monotonic() - opened:.1f} s"
    )
    stop = threading.Event()

    def trickle() -> None:  # one more byte now and then: the head or body grows, never ends
        while not stop.wait(5.0):
            for sock in slow_socks + body_socks:
                with io_lock:  # an SSL socket is not to be used by two threads at once
                    if sock in answered:
                        continue  # a write now could reset the connection before its answer is read
                    try:
                        sock.setblocking(True)
                        sock.send(b"X" if sock not in body_set else b" ")
                    except (OSError, ssl.SSLError):
                        pass

    body_set = set(body_socks)
    answered: set[ssl.SSLSocket] = set()
    io_lock = threading.Lock()
    trickler = threading.Thread(target=trickle, daemon=True)
    trickler.start()
    load = MachineLoad()
    measuring_cpu = time.process_time()
    conn = Conn(server)
    conn.request("GET", "/readyz")
    kept: list[float] = []
    for _ in range(200):
        timed_get(conn, kept)
        time.sleep(0.02)
    conn.close()
    fresh: list[float] = []
    for _ in range(50):
        one = Conn(server)  # its TLS handshake is part of the GET's time: the request opens the connection
        timed_get(one, fresh)
        one.close()
    machine = load.report(0.0)
    measured_cpu = time.process_time() - measuring_cpu
    answers: dict[bytes, int] = {}
    bodies_closed_after = 0.0
    pending_bodies = list(body_socks)

    def collect_answers() -> None:
        nonlocal bodies_closed_after
        for sock in [s for s in pending_bodies if readable(s)]:
            with io_lock:
                line = answer_of(sock)
                if line is None:
                    continue
                answered.add(sock)
            pending_bodies.remove(sock)
            answers[line] = answers.get(line, 0) + 1
            bodies_closed_after = time.monotonic() - bodies_opened

    collect_answers()
    with io_lock:
        alive = (
            sum(not closed_by_server(s) for s in slow_socks),
            sum(not closed_by_server(s) for s in stalled_socks),
            len(pending_bodies),
        )
    print(f"  still open after the GETs: {alive[0]} slow heads, {alive[1]} stalled handshakes, {alive[2]} slow bodies")
    print(f"  GET on a keep-alive connection ({len(kept)}/200 answered): {fmt_ms(summary(kept))}")
    print(f"  GET on a new connection, TLS handshake included ({len(fresh)}/50 answered): {fmt_ms(summary(fresh))}")
    print(
        f"  meanwhile: load average {machine['loadavg_1m']:.1f}, machine busy {machine['machine_busy_s']:.1f} of "
        f"{machine['capacity_s']:.1f} CPU-s, this generator {measured_cpu:.1f} CPU-s"
    )
    deadline = time.monotonic() + 200  # the longest --server-timeouts used, 120 s, and some
    everyone = slow_socks + stalled_socks
    while time.monotonic() < deadline and (pending_bodies or not all(closed_by_server(s) for s in everyone)):
        collect_answers()
        time.sleep(0.5)
    still_open = sum(not closed_by_server(s) for s in everyone) + len(pending_bodies)
    closed_after = time.monotonic() - opened
    stop.set()
    for sock in everyone + body_socks:
        sock.close()
    print(
        f"  slow connections closed by the server {closed_after:.0f} s after the first was opened; "
        f"{still_open} still open; health: {health(server)}"
    )
    if slow_bodies:
        told = ", ".join(f"{count} x {line.decode(errors='replace') or 'nothing'}" for line, count in answers.items())
        print(f"  slow bodies ended {bodies_closed_after:.0f} s after the last was opened: {told}")
    print(f"  generator CPU in all: {time.process_time() - generator_cpu:.1f} s")
    return {
        "slow": slow,
        "stalled": stalled,
        "get_keepalive": summary(kept),
        "get_new_connection": summary(fresh),
        "answered": [len(kept), len(fresh)],
        "all_closed_after_s": closed_after,
        "still_open": still_open,
        "slow_bodies": slow_bodies,
        "slow_body_answers": {line.decode(errors="replace"): count for line, count in answers.items()},
        "slow_bodies_ended_after_s": bodies_closed_after,
        "machine_during_gets": machine,
        "open_after_gets": alive,
        "generator_cpu_during_gets_s": measured_cpu,
    }


def readable(sock: ssl.SSLSocket) -> bool:
    """The server has sent something or closed `sock` (without consuming what it sent)."""
    waiter = select.poll()  # not select(): descriptors here go past 1,024
    waiter.register(sock.fileno(), select.POLLIN)
    return bool(waiter.poll(0)) or sock.pending() > 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_server_args(parser)
    parser.add_argument("--slow", type=int, default=1000)
    parser.add_argument("--stalled", type=int, default=1000)
    parser.add_argument("--slow-bodies", type=int, default=1000)
    parser.add_argument("--anonymous-bodies", type=int, default=1000, help="refused from their heads (0: skip)")
    parser.add_argument(
        "--server-timeouts",
        metavar="DURATION",
        help="the server's --read-header-timeout and --request-timeout (default: its defaults); on a loaded machine "
        "opening 3,000 TLS connections can take longer than 32 s, and the first ones would be gone before the GETs",
    )
    args = parser.parse_args()
    extra = ["--read-header-timeout", args.server_timeouts, "--request-timeout", args.server_timeouts]
    results: dict = {"info": header("slow_clients_bench"), "args": vars(args), "backends": {}}
    for backend in backends(args.backend):
        print(f"\n## {backend}: {args.workers} workers x {args.threads} threads")
        with bench_server(
            backend, args.workers, args.threads, extra=extra if args.server_timeouts else (), keep=args.keep
        ) as server:
            result = refused_bodies(server, args.anonymous_bodies) if args.anonymous_bodies else {}
            if args.slow or args.stalled or args.slow_bodies:
                result.update(run(server, args.slow, args.stalled, args.slow_bodies))
            results["backends"][backend] = result
    write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
