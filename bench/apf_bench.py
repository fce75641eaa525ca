"""API Priority and Fairness under a noisy tenant: a client flooding LISTs and creates at full speed vs a node's
Lease heartbeat and a system:masters GET.

    python bench/apf_bench.py                                  # both backends, APF on, 20 s
    python bench/apf_bench.py --backend postgresql --noisy-procs 4 --noisy-threads 16 --duration 30 --compare

Per backend: the real server (--workers x --threads) with a token file (user `noisy`; `system:node:n1` in
system:nodes), both bound to cluster-admin. Then for --duration seconds, at once:
  - the noisy tenant: --noisy-procs processes x --noisy-threads keep-alive connections, each alternating a LIST of
    the bench namespace's ConfigMaps and a create of one (small) ConfigMap, back to back;
  - a node heartbeat: GET then PUT of its Lease in orch-node-lease, every --interval s (PUT latency reported);
  - an admin (system:masters, client certificate) GET of a namespace every --interval s.
Reported: heartbeat and masters p50/p99/max, their failures, the noisy tenant's answers by code (429 from APF,
anything else, client timeouts), load average, CPU seconds of the generator (this process and its children) and
of the server. --compare runs the same with --enable-priority-and-fairness=false (the in-flight limits).
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import resource
import socket
import ssl
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    MachineLoad,
    add_server_args,
    backends,
    bench_server,
    fmt_ms,
    header,
    server_usage,
    summary,
    write_json,
)

NAMESPACE = "apf-bench"
LEASES = "/apis/coordination.orch.io/v1/namespaces/orch-node-lease/leases"
TOKENS = {"noisy": "noisy-bench-token", "node": "node-bench-token"}
CLIENT_TIMEOUT = 30.0


class Client:
    """One keep-alive HTTPS connection with a bearer token, or the admin certificate."""

    def __init__(self, port: int, ca_file: str, token: str | None = None, cert: tuple[str, str] | None = None):
        self.ctx = ssl.create_default_context(cafile=ca_file)
        if cert is not None:
            self.ctx.load_cert_chain(*cert)
        self.port, self.token = port, token
        self.http: http.client.HTTPSConnection | None = None

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        headers = {"Accept": "application/json", "User-Agent": "orch-apf-bench"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        payload = json.dumps(body).encode() if body is not None else None
        if payload is not None:
            headers["Content-Type"] = "application/json"
        if self.http is None:
            self.http = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx, timeout=CLIENT_TIMEOUT)
            self.http.connect()
            self.http.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            self.http.request(method, path, body=payload, headers=headers)
            resp = self.http.getresponse()
            data = resp.read()
            if resp.will_close:
                self.close()
            return resp.status, data
        except (OSError, http.client.HTTPException):
            self.close()
            raise

    def close(self) -> None:
        if self.http is not None:
            self.http.close()
            self.http = None


def noisy_process(port: int, ca_file: str, threads: int, until: float, out: Any) -> None:
    """One generator process: `threads` connections flooding LISTs and creates until `until` (wall clock)."""
    codes: Counter[str] = Counter()
    lock = threading.Lock()

    def flood(index: int) -> None:
        client = Client(port, ca_file, TOKENS["noisy"])
        n = 0
        while time.time() < until:
            n += 1
            try:
                if n % 2:
                    status, _ = client.request("GET", f"/api/v1/namespaces/{NAMESPACE}/configmaps?limit=500")
                else:
                    name = f"noisy-{os.getpid()}-{index}-{n}-{uuid.uuid4().hex[:4]}"
                    body = {"metadata": {"name": name}, "data": {"k": "v" * 64}}
                    status, _ = client.request("POST", f"/api/v1/namespaces/{NAMESPACE}/configmaps", body)
                key = str(status)
            except TimeoutError:
                key = "client-timeout"
            except (OSError, http.client.HTTPException):
                key = "connection-error"
            with lock:
                codes[key] += 1

    workers = [threading.Thread(target=flood, args=(i,), daemon=True) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out.put({"codes": dict(codes), "cpu_s": usage.ru_utime + usage.ru_stime})


def prober(sample: Any, interval: float, until: float, latencies: list[float], failures: Counter) -> None:
    while time.time() < until:
        started = time.monotonic()
        try:
            status = sample()
        except TimeoutError:
            status = "client-timeout"
        except (OSError, http.client.HTTPException):
            status = "connection-error"
        latencies.append(time.monotonic() - started)
        if status != 200:
            failures[str(status)] += 1
        time.sleep(max(0.0, interval - (time.monotonic() - started)))


def prepare(server: Any, apf: bool) -> None:
    admin = Client(server.port, str(server.ca_file), cert=server.client_cert)
    admin.request("POST", "/api/v1/namespaces", {"metadata": {"name": NAMESPACE}})
    admin.request(
        "POST",
        "/apis/rbac.authorization.orch.io/v1/clusterrolebindings",
        {
            "metadata": {"name": "apf-bench"},
            "roleRef": {"apiGroup": "rbac.authorization.orch.io", "kind": "ClusterRole", "name": "cluster-admin"},
            "subjects": [
                {"apiGroup": "rbac.authorization.orch.io", "kind": "User", "name": "noisy"},
                {"apiGroup": "rbac.authorization.orch.io", "kind": "Group", "name": "system:nodes"},
            ],
        },
    )
    node = Client(server.port, str(server.ca_file), TOKENS["node"])
    node.request("POST", LEASES, {"metadata": {"name": "n1"}, "spec": {"holderIdentity": "n1"}})
    schema = "/apis/flowcontrol.apiserver.orch.io/v1beta2/flowschemas/global-default"
    for _ in range(600 if apf else 0):  # the bootstrap configuration exists (else all is the imagined catch-all)
        if admin.request("GET", schema)[0] == 200:
            break
        time.sleep(0.1)


def run(server: Any, args: argparse.Namespace, apf: bool) -> dict[str, Any]:
    prepare(server, apf)
    until = time.time() + args.duration
    before = server_usage(server)
    load = MachineLoad()
    queue: Any = multiprocessing.Queue()
    procs = [
        multiprocessing.Process(
            target=noisy_process, args=(server.port, str(server.ca_file), args.noisy_threads, until, queue)
        )
        for _ in range(args.noisy_procs)
    ]
    for proc in procs:
        proc.start()
    node = Client(server.port, str(server.ca_file), TOKENS["node"])
    admin = Client(server.port, str(server.ca_file), cert=server.client_cert)

    def heartbeat() -> int:
        status, body = node.request("GET", f"{LEASES}/n1")
        if status != 200:
            return status
        lease = json.loads(body)
        lease["spec"]["renewTime"] = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())
        return node.request("PUT", f"{LEASES}/n1", lease)[0]

    def masters() -> int:
        return admin.request("GET", f"/api/v1/namespaces/{NAMESPACE}")[0]

    results: dict[str, Any] = {}
    probes = {}
    for name, sample in (("heartbeat", heartbeat), ("masters", masters)):
        latencies: list[float] = []
        failures: Counter[str] = Counter()
        probes[name] = (latencies, failures)
        threading.Thread(target=prober, args=(sample, args.interval, until, latencies, failures), daemon=True).start()
    noisy: Counter[str] = Counter()
    generator_cpu = 0.0
    for _ in procs:
        got = queue.get(timeout=args.duration + 120)
        noisy.update(got["codes"])
        generator_cpu += got["cpu_s"]
    for proc in procs:
        proc.join(60)
    time.sleep(args.interval * 2)  # the probes' last round
    usage = server_usage(server) - before
    own = resource.getrusage(resource.RUSAGE_SELF)
    generator_cpu += own.ru_utime + own.ru_stime
    machine = load.report(usage.cpu + generator_cpu)
    for name, (latencies, failures) in probes.items():
        stats = summary(latencies)
        results[name] = {"latency": stats, "requests": len(latencies), "failures": dict(failures)}
        print(f"  {name:9} {len(latencies):5} requests  {fmt_ms(stats)}  failures {dict(failures) or 0}")
    total = sum(noisy.values())
    print(f"  noisy     {total:5} requests  {dict(sorted(noisy.items()))}  ({total / args.duration:.0f}/s)")
    print(
        f"  server CPU {usage.cpu:.1f} s, generator CPU {generator_cpu:.1f} s over {machine['wall_s']:.1f} s; "
        f"load average {machine['loadavg_1m']:.2f}, other processes {machine['others_s']:.1f} CPU s"
    )
    results.update({"noisy": dict(noisy), "server_cpu_s": usage.cpu, "generator_cpu_s": generator_cpu, **machine})
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_server_args(parser)
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of flooding")
    parser.add_argument("--noisy-procs", type=int, default=2, help="generator processes of the noisy tenant")
    parser.add_argument("--noisy-threads", type=int, default=16, help="connections per generator process")
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between heartbeats (and masters GETs)")
    parser.add_argument("--compare", action="store_true", help="also run with --enable-priority-and-fairness=false")
    args = parser.parse_args()
    results: dict[str, Any] = {"info": header("apf_bench"), "args": vars(args), "runs": {}}
    tokens = Path(tempfile.mkdtemp(prefix="orch-apf-bench-")) / "tokens.csv"
    tokens.write_text(f'{TOKENS["noisy"]},noisy,2001\n{TOKENS["node"]},system:node:n1,2002,"system:nodes"\n')
    modes = ["true", "false"] if args.compare else ["true"]
    for backend in backends(args.backend):
        for apf in modes:
            print(f"\n## {backend}: {args.workers} workers x {args.threads} threads, priority and fairness {apf}")
            extra = ["--token-auth-file", str(tokens), f"--enable-priority-and-fairness={apf}"]
            with bench_server(backend, args.workers, args.threads, extra=extra, keep=args.keep) as server:
                results["runs"][f"{backend}/apf={apf}"] = run(server, args, apf == "true")
    write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
