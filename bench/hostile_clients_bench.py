"""Hostile clients: refused writes, slow bodies, abrupt closes (RST) and half-closed connections, all at once for
--seconds (default 300), against the real server; counted: worker deaths (worker process ids before and after,
and the server log), connection errors of the refused and of an ordinary client, and the ordinary client's GET
latency meanwhile, with this generator's CPU and the machine's load.

    python bench/hostile_clients_bench.py                      # both backends, 5 minutes each
    python bench/hostile_clients_bench.py --backend sqlite --seconds 60

The mix, each kind in its own threads, every loop bounded by the deadline:
- refused: clients whose certificate RBAC refuses repeat PUTs of a Lease and POSTs of ConfigMaps (bodies from
  100 B to 120 KiB, keep-alive sessions) and GETs of Secrets; every answer must be 403.
- slow bodies: the head of a POST and part of its body, then nothing for up to 2 s, then a close (half of them
  anonymous: refused from the head).
- resets: a TLS connection that sends a head, part of a head, or half a ClientHello, then closes with RST
  (SO_LINGER 0).
- half-closed: a whole request (refused POST or admin GET), then shutdown(SHUT_WR), the answer read to its end.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import socket
import ssl
import struct
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import requests
from orch_apiserver import pki

from bench.common import MachineLoad, add_server_args, backends, bench_server, header, summary, write_json
from tests.e2e import RunningServer, child_pids

LEASE = "/apis/coordination.orch.io/v1/namespaces/kube-node-lease/leases/n1"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
SECRETS = "/api/v1/namespaces/kube-system/secrets"


class Tally:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.counts: Counter[str] = Counter()
        self.latencies: list[float] = []

    def add(self, what: str) -> None:
        with self.lock:
            self.counts[what] += 1


def body(size: int) -> bytes:
    return json.dumps(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v" * size}}
    ).encode()


def tls(server: RunningServer, cert: tuple[str, str] | None) -> ssl.SSLSocket:
    ctx = ssl.create_default_context(cafile=str(server.ca_file))
    if cert is not None:
        ctx.load_cert_chain(*cert)
    return ctx.wrap_socket(
        socket.create_connection(("127.0.0.1", server.port), timeout=30), server_hostname="127.0.0.1"
    )


def reset(sock: socket.socket) -> None:
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def post_head(length: int) -> bytes:
    head = f"POST {CONFIGMAPS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {length}"
    return (head + "\r\n\r\n").encode()


def refused(server: RunningServer, nobody: tuple[str, str], until: float, tally: Tally) -> None:
    rng = random.Random()
    with server.new_session(cert=nobody) as session:
        while time.monotonic() < until:
            size = rng.randrange(100, 120_000)
            calls = [("PUT", LEASE, body(size)), ("POST", CONFIGMAPS, body(size)), ("GET", SECRETS, None)]
            method, path, data = rng.choice(calls)
            try:
                answer = session.request(method, path, data=data, headers={"Content-Type": "application/json"})
                tally.add(f"refused {answer.status_code}")
            except requests.RequestException as err:
                tally.add(f"refused error {type(err).__name__}")


def slow_bodies(server: RunningServer, admin: tuple[str, str], until: float, tally: Tally) -> None:
    rng = random.Random()
    while time.monotonic() < until:
        try:
            sock = tls(server, admin if rng.random() < 0.5 else None)
            sock.sendall(post_head(100_000) + body(10)[:-1])
            time.sleep(rng.uniform(0, 2))  # the body's pace: nothing more comes
            (reset if rng.random() < 0.5 else socket.socket.close)(sock)
            tally.add("slow body sent")
        except OSError as err:
            tally.add(f"slow body error {type(err).__name__}")


def resets(server: RunningServer, admin: tuple[str, str], until: float, tally: Tally) -> None:
    rng = random.Random()
    while time.monotonic() < until:
        try:
            kind = rng.choice(["head", "part of a head", "half a hello"])
            if kind == "half a hello":
                sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
                sock.sendall(b"\x16\x03\x01\x02")
            else:
                sock = tls(server, admin)
                sock.sendall(post_head(5000) if kind == "head" else b"GET /api/v1/namespaces HTTP/1.1\r\nHo")
            time.sleep(rng.uniform(0, 0.05))
            reset(sock)
            tally.add(f"reset after {kind}")
        except OSError as err:
            tally.add(f"reset error {type(err).__name__}")


def half_closed(server: RunningServer, admin: tuple[str, str], until: float, tally: Tally) -> None:
    rng = random.Random()
    while time.monotonic() < until:
        try:
            sock = tls(server, None if rng.random() < 0.5 else admin)
            data = body(rng.randrange(10, 50_000))
            sock.sendall(post_head(len(data)) + data)
            socket.socket.shutdown(sock, socket.SHUT_WR)  # below TLS: no close_notify, and reads still decrypt
        except OSError as err:
            tally.add(f"half-closed error {type(err).__name__}")
            continue
        answer, ending = b"", ""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except ssl.SSLError as err:  # OpenSSL's server answers a TCP end without close_notify with an alert
            ending = f", then {err.reason}"
        except OSError as err:
            ending = f", then {type(err).__name__}"
        sock.close()
        tally.add(f"half-closed {answer[9:12].decode(errors='replace') or 'no answer'}{ending}")


def ordinary(server: RunningServer, until: float, tally: Tally) -> None:
    with server.new_session() as session:
        while time.monotonic() < until:
            started = time.monotonic()
            try:
                answer = session.get("/api/v1/namespaces/default")
                tally.add(f"ordinary {answer.status_code}")
                with tally.lock:
                    tally.latencies.append(time.monotonic() - started)
            except requests.RequestException as err:
                tally.add(f"ordinary error {type(err).__name__}")
            time.sleep(0.05)


def run(server: RunningServer, args: argparse.Namespace) -> dict[str, Any]:
    tmp = server.data_dir
    ca = pki.load_pair(tmp / "pki" / "ca.crt", tmp / "pki" / "ca.key")
    pki.write_pair(pki.issue_client_cert(ca, "nobody", ["team"]), tmp / "nobody.crt", tmp / "nobody.key")
    nobody, admin = (str(tmp / "nobody.crt"), str(tmp / "nobody.key")), server.client_cert
    workers_before = child_pids(server.process.pid)
    tally = Tally()
    until = time.monotonic() + args.seconds
    plan = [(refused, (nobody,), 4), (slow_bodies, (admin,), 8), (resets, (admin,), 2), (half_closed, (admin,), 2)]
    threads = [threading.Thread(target=ordinary, args=(server, until, tally))]
    threads += [
        threading.Thread(target=f, args=(server, *extra, until, tally)) for f, extra, n in plan for _ in range(n)
    ]
    load, cpu0 = MachineLoad(), resource.getrusage(resource.RUSAGE_SELF)
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    ours = cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime
    log = server.log()
    workers_after = child_pids(server.process.pid)
    return {
        "seconds": args.seconds,
        "worker_deaths_logged": len(re.findall(r"Worker \(pid:\d+\) (?:exited|was sent)", log)),
        "worker_exceptions_logged": log.count("Exception in worker process"),
        "connections_closed_as_inconsistent": log.count("its state is inconsistent"),
        "workers_replaced": len(workers_before - workers_after),
        "answers": dict(sorted(tally.counts.items())),
        "ordinary_get_s": summary(tally.latencies),
        "generator_cpu_s": ours,
        "machine": load.report(ours),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    add_server_args(parser)
    parser.add_argument("--seconds", type=float, default=300.0)
    args = parser.parse_args()
    results: dict[str, Any] = {"header": header("hostile clients")}
    for backend in backends(args.backend):
        with bench_server(backend, args.workers, args.threads, keep=args.keep) as server:
            results[backend] = result = run(server, args)
        print(f"## {backend}\n{json.dumps(result, indent=2)}", flush=True)
    write_json(args.json, results)


if __name__ == "__main__":
    main()
