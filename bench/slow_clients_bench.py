"""Slow clients: an ordinary client's GET latency while N connections send their head slowly and N stall in
the TLS handshake (none authenticated), and when the server closes them.

    python bench/slow_clients_bench.py                        # both backends, 1,000 + 1,000
    python bench/slow_clients_bench.py --backend sqlite --slow 1000 --stalled 1000

Per backend: start the real server (default settings), open N TLS connections without a client certificate
that send `GET /api HTTP/1.1\\r\\nHost: x\\r\\n` and then one header byte every 5 s (the head never ends),
and N TCP connections that send half a ClientHello record header and then nothing. Meanwhile the ordinary
client does 200 GETs of one object on a keep-alive connection and 50 on new connections (a TLS handshake
each), and its latencies are printed. Then the slow connections are watched until the server closes them
(--read-header-timeout, 32 s by default).
"""

from __future__ import annotations

import argparse
import socket
import ssl
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import Conn, add_server_args, fmt_ms, health, run_each_backend, summary
from tests.e2e import closed_by_server


def anonymous_context(server) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(server.ca_file))


def run(server, slow: int, stalled: int) -> dict:
    ctx = anonymous_context(server)
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
    print(
        f"  {slow} slow-head and {stalled} stalled-handshake connections open after {time.monotonic() - opened:.1f} s"
    )
    stop = threading.Event()

    def trickle() -> None:  # one more header byte now and then: the head grows, never ends
        while not stop.wait(5.0):
            for sock in slow_socks:
                try:
                    sock.setblocking(True)
                    sock.send(b"X")
                except (OSError, ssl.SSLError):
                    pass

    trickler = threading.Thread(target=trickle, daemon=True)
    trickler.start()
    conn = Conn(server)
    conn.request("GET", "/readyz")
    kept: list[float] = []
    for _ in range(200):
        start = time.monotonic()
        status, _ = conn.request("GET", "/api/v1/namespaces/default")
        if status == 200:
            kept.append(time.monotonic() - start)
        time.sleep(0.02)
    conn.close()
    fresh: list[float] = []
    for _ in range(50):
        start = time.monotonic()
        one = Conn(server)
        status, _ = one.request("GET", "/api/v1/namespaces/default")
        if status == 200:
            fresh.append(time.monotonic() - start)
        one.close()
    print(f"  GET on a keep-alive connection ({len(kept)}/200 answered): {fmt_ms(summary(kept))}")
    print(f"  GET on a new connection, TLS handshake included ({len(fresh)}/50 answered): {fmt_ms(summary(fresh))}")
    deadline = time.monotonic() + 90
    everyone = slow_socks + stalled_socks
    while time.monotonic() < deadline and not all(closed_by_server(s) for s in everyone):
        time.sleep(1.0)
    still_open = sum(not closed_by_server(s) for s in everyone)
    closed_after = time.monotonic() - opened
    stop.set()
    for sock in everyone:
        sock.close()
    print(
        f"  slow connections closed by the server {closed_after:.0f} s after the first was opened; "
        f"{still_open} still open; health: {health(server)}"
    )
    return {
        "slow": slow,
        "stalled": stalled,
        "get_keepalive": summary(kept),
        "get_new_connection": summary(fresh),
        "answered": [len(kept), len(fresh)],
        "all_closed_after_s": closed_after,
        "still_open": still_open,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_server_args(parser)
    parser.add_argument("--slow", type=int, default=1000)
    parser.add_argument("--stalled", type=int, default=1000)
    args = parser.parse_args()
    run_each_backend("slow_clients_bench", args, lambda server: run(server, args.slow, args.stalled))
    return 0


if __name__ == "__main__":
    sys.exit(main())
