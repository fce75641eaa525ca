"""Micro-benchmark of watch fan-out designs, without the app: thread-per-watcher vs. one writer thread.

    python bench/fanout_micro.py --watchers 500 --events 200 --interval 0.02

A bare TLS server in this process (self-signed certificate, no HTTP routing, no database) accepts N
connections from the same watcher clients as watch_bench.py (bench/watchers.py, separate processes),
answers each with a chunked HTTP/1.1 200 and then streams W small ADDED event lines, one every INTERVAL:

  threads   one thread per connection, each waiting on its own Condition + deque, woken by a "hub" thread
            that offers every event to every subscription (the shape of app/storage/hub.py + app/api/watch.py,
            minus Flask, werkzeug and gunicorn's response layers: a lower bound for the current design);
  loop      one thread writes the event, framed once, to every connection in turn (what an event-loop or
            dedicated fan-out thread per worker would do).

Latency = client recv time - time the event was produced (both CLOCK_MONOTONIC). Also reports the CPU
seconds and context switches of this process while streaming.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import os
import socket
import ssl
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import context_switches, fmt_ms, header, summary
from bench.watchers import WatcherPool


def self_signed(directory: Path) -> tuple[str, str]:
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fanout-micro")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return str(cert_file), str(key_file)


@dataclass
class FakeServer:
    """What WatcherPool needs from a RunningServer."""

    port: int
    ca_file: str
    client_cert: tuple[str, str]


def chunk(line: bytes) -> bytes:
    return b"%x\r\n" % len(line) + line + b"\r\n"


def event(i: int, pad: str) -> bytes:
    return (
        b'{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"ev-%05d","resourceVersion":"%d"},'
        b'"data":{"k":"%s"}}}\n' % (i, i, pad.encode())
    )


class Sub:
    def __init__(self) -> None:
        self.queue: collections.deque = collections.deque()
        self.cond = threading.Condition()
        self.closed = False

    def offer(self, item: bytes) -> None:
        with self.cond:
            self.queue.append(item)
            self.cond.notify()

    def take(self, timeout: float) -> list[bytes]:
        with self.cond:
            if not self.queue and not self.closed:
                self.cond.wait(timeout)
            items = list(self.queue)
            self.queue.clear()
            return items


HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"


def run(mode: str, watchers: int, events: int, interval: float, procs: int, pad: str, tmp: Path) -> dict:
    cert, key = self_signed(tmp)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    listener = socket.create_server(("127.0.0.1", 0), backlog=1024)
    port = listener.getsockname()[1]
    conns: list[ssl.SSLSocket] = []

    def accept_all() -> None:
        while len(conns) < watchers:
            raw, _ = listener.accept()
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock = ctx.wrap_socket(raw, server_side=True)
            sock.recv(65536)  # the GET request
            conns.append(sock)

    acceptor = threading.Thread(target=accept_all, daemon=True)
    acceptor.start()
    pool = WatcherPool(FakeServer(port, cert, (cert, key)), "/watch", watchers, procs, "ev-")
    acceptor.join(timeout=120)
    subs: list[Sub] = []
    threads: list[threading.Thread] = []
    stop = threading.Event()

    def serve(sock: ssl.SSLSocket, sub: Sub) -> None:
        sock.sendall(HEAD)
        while not stop.is_set():
            for line in sub.take(1.0):
                sock.sendall(chunk(line))

    if mode == "threads":
        for sock in conns:
            sub = Sub()
            subs.append(sub)
            t = threading.Thread(target=serve, args=(sock, sub), daemon=True)
            t.start()
            threads.append(t)
    else:
        for sock in conns:
            sock.sendall(HEAD)
    # a marker event so every client has seen its stream start
    marker = event(99999, "marker")
    for sock, sub in zip(conns, subs or [None] * len(conns)):
        sub.offer(marker) if sub else sock.sendall(chunk(marker))
    live, _ = pool.wait_marker("ev-99999", timeout=60)
    time.sleep(1.0)

    produced = []
    cpu0, ctx0 = sum(os.times()[:2]), context_switches(os.getpid())
    begin = time.monotonic() + 0.05
    for i in range(events):
        delay = begin + i * interval - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        line = event(i, pad)
        produced.append(time.monotonic())
        if mode == "threads":
            for sub in subs:
                sub.offer(line)
        else:
            framed = chunk(line)
            for sock in conns:
                sock.sendall(framed)
    end = event(99998, "end")
    for sock, sub in zip(conns, subs or [None] * len(conns)):
        sub.offer(end) if sub else sock.sendall(chunk(end))
    pool.wait_marker("ev-99998", timeout=60)
    cpu, switches = sum(os.times()[:2]) - cpu0, context_switches(os.getpid())
    results, _ = pool.finish()
    stop.set()
    for sock in conns:
        sock.close()
    listener.close()
    latencies, missing = [], 0
    for i in range(events):
        got = [r["events"].get(f"ev-{i:05d}") for r in results]
        missing += sum(g is None for g in got)
        latencies.extend(g[1] - produced[i] for g in got if g is not None)
    return {
        "mode": mode,
        "live": live,
        "missing": missing,
        "latency": summary(latencies),
        "cpu_s": cpu,
        "cpu_us_per_delivery": cpu * 1e6 / max(1, len(latencies)),
        "voluntary_switches": switches[0] - ctx0[0],
        "involuntary_switches": switches[1] - ctx0[1],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--watchers", type=int, default=500)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--interval", type=float, default=0.02)
    parser.add_argument("--client-procs", type=int, default=2)
    parser.add_argument("--modes", default="threads,loop")
    args = parser.parse_args()
    header("fanout_micro")
    pad = "x" * 300
    for mode in args.modes.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            out = run(mode, args.watchers, args.events, args.interval, args.client_procs, pad, Path(tmp))
        print(
            f"{mode:8s} {out['live']} live, missing {out['missing']}: {fmt_ms(out['latency'])}; "
            f"CPU {out['cpu_s']:.2f} s "
            f"({out['cpu_us_per_delivery']:.0f} us/delivery), context switches {out['voluntary_switches']} "
            f"voluntary, {out['involuntary_switches']} involuntary"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
