"""Watchers that do not read: server memory after N unread watches while W objects of B bytes are written.

    python bench/unread_watch_bench.py                       # both backends, 50 watches, 5,000 x 2 KiB
    python bench/unread_watch_bench.py --backend postgresql --watchers 50 --writes 5000 --data-bytes 2048

Per backend: start the real server (default settings: --workers 2 --threads 32), warm it up (the same writes
into another namespace, so the workers' arenas and caches have grown), sum the workers' VmRSS; open N watches
on the (empty) collection (raw TLS sockets with a 4 KiB receive buffer that read the response head and then nothing),
write W configmaps with B bytes of data (8 writer connections), sum VmRSS again. Then each watch is read to
its end: a watch the server ended shows the end of its chunked body or a closed connection. The server's
health and an ordinary GET's latency are printed last.
"""

from __future__ import annotations

import argparse
import socket
import ssl
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    NAMESPACE,
    Conn,
    add_server_args,
    create_configmaps,
    ensure_namespace,
    health,
    rss_kib,
    run_each_backend,
    ssl_context,
    worker_pids,
)

COLLECTION = f"/api/v1/namespaces/{NAMESPACE}/configmaps"


def open_unread_watch(server, ctx: ssl.SSLContext) -> ssl.SSLSocket:
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: the window stays small
    raw.connect(("127.0.0.1", server.port))
    sock = ctx.wrap_socket(raw, server_hostname="127.0.0.1")
    sock.sendall(f"GET {COLLECTION}?watch=1&timeoutSeconds=900 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1024)
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"watch: {head[:200]!r}")
    return sock


def read_to_end(sock: ssl.SSLSocket, timeout: float) -> tuple[str, int]:
    """Read what the server sent; 'ended' (last chunk), 'closed' (connection closed) or 'open' (still streaming)."""
    sock.settimeout(timeout)
    total = 0
    tail = b""
    try:
        while True:
            data = sock.recv(1 << 20)
            if not data:
                return "closed", total
            total += len(data)
            tail = (tail + data)[-16:]
            if tail.endswith(b"\r\n0\r\n\r\n"):
                return "ended", total
    except TimeoutError:
        return "open", total
    except (OSError, ssl.SSLError):
        return "closed", total


def workers_rss_mib(server) -> float:
    return sum(rss_kib(pid) for pid in worker_pids(server)) / 1024


def run(server, watchers: int, writes: int, data_bytes: int) -> dict:
    conn = Conn(server)
    ensure_namespace(conn)
    ensure_namespace(conn, "warm")  # warmed elsewhere: the watched collection starts empty
    warm = create_configmaps(server, min(writes, 2000), data_bytes, namespace="warm", prefix="warm")
    time.sleep(2)
    before = workers_rss_mib(server)
    ctx = ssl_context(server)
    socks = [open_unread_watch(server, ctx) for _ in range(watchers)]
    seconds = create_configmaps(server, writes, data_bytes, prefix="load")
    time.sleep(2)
    after = workers_rss_mib(server)
    ends = [read_to_end(s, timeout=10) for s in socks]
    for s in socks:
        s.close()
    start = time.monotonic()
    status, _ = conn.request("GET", "/api/v1/namespaces/default")
    get_ms = (time.monotonic() - start) * 1000
    conn.close()
    outcome = {kind: sum(1 for k, _ in ends if k == kind) for kind in ("ended", "closed", "open")}
    result = {
        "watchers": watchers,
        "writes": writes,
        "data_bytes": data_bytes,
        "warm_up_s": warm,
        "writes_s": seconds,
        "rss_before_mib": before,
        "rss_after_mib": after,
        "rss_added_mib": after - before,
        "watch_outcome": outcome,
        "bytes_read_per_watch_max": max((n for _, n in ends), default=0),
        "get_after_ms": get_ms,
        "get_status": status,
    }
    print(
        f"  workers' RSS {before:.1f} MiB before, {after:.1f} MiB after {writes} writes of {data_bytes} B with "
        f"{watchers} unread watches: +{after - before:.1f} MiB ({seconds:.1f} s of writes)"
    )
    print(
        f"  the unread watches afterwards: {outcome} (most bytes any of them had received: "
        f"{result['bytes_read_per_watch_max'] / 1024:.0f} KiB)"
    )
    print(f"  GET afterwards: HTTP {status} in {get_ms:.1f} ms; health: {health(server)}")
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_server_args(parser)
    parser.add_argument("--watchers", type=int, default=50)
    parser.add_argument("--writes", type=int, default=5000)
    parser.add_argument("--data-bytes", type=int, default=2048)
    args = parser.parse_args()
    run_each_backend(
        "unread_watch_bench", args, lambda server: run(server, args.watchers, args.writes, args.data_bytes)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
