"""Memory per idle watcher, and memory after bursts of concurrent large LISTs.

    python bench/memory_bench.py                   # both backends, 500 watches, --workers 2 --threads 32
    python bench/memory_bench.py --backend postgresql --watchers 500
    python bench/memory_bench.py --lists           # 20 concurrent full LISTs of 2,000 ConfigMaps, two bursts
    python bench/memory_bench.py --lists --full    # issue 40's size: 20,000 ConfigMaps (26 MB per list)
    python bench/memory_bench.py --lists --server-arg=--max-list-memory=0 --server-env MALLOC_ARENA_MAX=8

--lists: create the objects, read every worker's RSS when idle, send --concurrent full LISTs at once (each client
its own connection, reading and discarding the body), sample RSS every 50 ms meanwhile (the peak), then read
RSS again --after seconds later; twice. Printed per worker and in total, with the load average and the CPU the
generator (this process) used, since the machine is shared.

Per backend: start the real server, warm it up (a few lists and writes), then read VmRSS of every
gunicorn worker (the children of the master pid, /proc/<pid>/status) and sum it. Open N watches on one
collection (bench/watchers.py, separate client processes), write one sentinel object and wait until every
watch has received it (so each is a live subscription with its thread, not a queued connection), let the
server settle for a few seconds, and sum the workers' RSS again: (after - before) / N is the cost of one
watcher. The round is repeated once after closing the first watches (the server frees a closed watch's
thread at its next write, so two flush writes follow the close): the first round includes creating the
worker threads and growing malloc arenas, the second one mostly reuses them.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import resource
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    NAMESPACE,
    Conn,
    MachineLoad,
    add_server_args,
    backends,
    bench_server,
    configmap,
    create_configmaps,
    ensure_namespace,
    header,
    health,
    rss_kib,
    ssl_context,
    thread_count,
    worker_pids,
    write_json,
)
from bench.watchers import WatcherPool

COLLECTION = f"/api/v1/namespaces/{NAMESPACE}/configmaps"


def smaps_breakdown(pid: int) -> dict[str, int]:
    """Resident KiB by kind of mapping: thread stacks (anonymous 8 MiB mappings: the default pthread stack),
    [heap] (main malloc arena), other anonymous memory (thread malloc arenas, Python's obmalloc arenas,
    mmapped buffers) and file-backed (code, shared libraries)."""
    out = {"thread_stacks": 0, "heap": 0, "other_anon": 0, "file": 0}
    size = 0
    name = ""
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        first = line.split(None, 1)[0]
        if "-" in first and not first.endswith(":"):
            parts = line.split()
            name = parts[5] if len(parts) > 5 else ""
        elif first == "Size:":
            size = int(line.split()[1])
        elif first == "Rss:":
            rss = int(line.split()[1])
            if not name:
                out["thread_stacks" if size == 8192 else "other_anon"] += rss
            elif name == "[heap]":
                out["heap"] += rss
            elif not name.startswith("["):
                out["file"] += rss
    return out


def workers_state(server) -> dict:
    pids = worker_pids(server)
    kinds: dict[str, int] = {}
    for pid in pids:
        for kind, kib in smaps_breakdown(pid).items():
            kinds[kind] = kinds.get(kind, 0) + kib
    return {
        "pids": pids,
        "rss_kib": {p: rss_kib(p) for p in pids},
        "threads": {p: thread_count(p) for p in pids},
        "total_rss_kib": sum(rss_kib(p) for p in pids),
        "by_kind_kib": kinds,
    }


def post(conn: Conn, name: str) -> None:
    status, body = conn.request("POST", COLLECTION, json.dumps(configmap(name, 200)).encode())
    if status != 201:
        raise RuntimeError(f"create {name}: HTTP {status} {body[:200]!r}")


def one_round(server, conn: Conn, tag: str, watchers: int, procs: int, settle: float) -> dict:
    time.sleep(settle)
    before = workers_state(server)
    _, body = conn.request("GET", f"{COLLECTION}?limit=1")
    rv = json.loads(body)["metadata"]["resourceVersion"]
    pool = WatcherPool(
        server, f"{COLLECTION}?watch=1&resourceVersion={rv}&timeoutSeconds=600", watchers, procs, "none-"
    )
    try:
        post(conn, f"mem-{tag}")
        live, _ = pool.wait_marker(f"mem-{tag}", timeout=120)
        time.sleep(settle)
        after = workers_state(server)
    finally:
        pool.finish()
    for j in range(2):
        post(conn, f"mem-{tag}-flush-{j}")
    time.sleep(settle)
    closed = workers_state(server)
    per = (after["total_rss_kib"] - before["total_rss_kib"]) / max(1, live)
    print(
        f"  round {tag}: {live}/{watchers} live; worker RSS before {before['total_rss_kib'] / 1024:.1f} MiB "
        f"(threads {sum(before['threads'].values())}), with watches {after['total_rss_kib'] / 1024:.1f} MiB "
        f"(threads {sum(after['threads'].values())}, per worker {list(after['threads'].values())}), "
        f"after closing {closed['total_rss_kib'] / 1024:.1f} MiB -> {per:.1f} KiB per watcher"
    )
    kinds = {
        k: (after["by_kind_kib"][k] - before["by_kind_kib"].get(k, 0)) / max(1, live) for k in after["by_kind_kib"]
    }
    print("    per watcher by kind of memory (KiB): " + ", ".join(f"{k} {v:.1f}" for k, v in kinds.items()))
    return {
        "kib_per_watcher_by_kind": kinds,
        "live": live,
        "before": before,
        "with_watches": after,
        "after_close": closed,
        "kib_per_watcher": per,
    }


def list_discarding(server, ctx, path: str) -> tuple[int, int]:
    """GET path on a fresh connection, reading the body in 1 MiB reads and dropping it: (status, bytes)."""
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=ctx, timeout=600)
    try:
        conn.request("GET", path, headers={"Accept": "application/json", "User-Agent": "orch-bench"})
        resp = conn.getresponse()
        size = 0
        while chunk := resp.read(1 << 20):
            size += len(chunk)
        return resp.status, size
    finally:
        conn.close()


class RssPeak:
    """Samples every worker's RSS every `interval` seconds in a thread; the highest per worker and in total."""

    def __init__(self, pids: list[int], interval: float = 0.05) -> None:
        self.pids, self.interval = pids, interval
        self.per_worker = dict.fromkeys(pids, 0)
        self.total = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            now = {p: rss_kib(p) for p in self.pids}
            for p, kib in now.items():
                self.per_worker[p] = max(self.per_worker[p], kib)
            self.total = max(self.total, sum(now.values()))
            self._stop.wait(self.interval)

    def __enter__(self) -> RssPeak:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def database_connections(server) -> int | None:
    """Connections to the server's PostgreSQL database now (pg_stat_activity); None on SQLite."""
    if not server.database_url:
        return None
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(server.database_url)
    with psycopg.connect(host=url.host, port=url.port or 5432, user=url.username, dbname="postgres") as admin:
        row = admin.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (url.database,)).fetchone()
    return int(row[0]) if row else 0


def generator_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def mib(kib: float) -> str:
    return f"{kib / 1024:.0f}"


def list_bursts(server, args: argparse.Namespace) -> dict:
    conn = Conn(server)
    ensure_namespace(conn)
    print(f"  creating {args.objects} ConfigMaps of ~{args.object_bytes} bytes ...")
    create_configmaps(server, args.objects, args.object_bytes, threads=8, prefix="burst")
    _, body = conn.request("GET", COLLECTION)
    list_bytes = len(body)
    del body
    conn.close()
    time.sleep(args.settle)
    pids = worker_pids(server)
    idle = {p: rss_kib(p) for p in pids}
    idle_connections = database_connections(server)
    print(
        f"  one list: {list_bytes / 1e6:.1f} MB; idle RSS per worker (MiB) "
        f"{[mib(v) for v in idle.values()]}, total {mib(sum(idle.values()))}; database connections {idle_connections}"
    )
    ctx = ssl_context(server)
    bursts = []
    for n in range(args.bursts):
        load, cpu0 = MachineLoad(), generator_cpu()
        started = time.monotonic()
        with RssPeak(pids) as peak, ThreadPoolExecutor(args.concurrent) as clients:
            answers = list(clients.map(lambda _: list_discarding(server, ctx, COLLECTION), range(args.concurrent)))
        took = time.monotonic() - started
        statuses = sorted({status for status, _ in answers})
        whole = sum(1 for status, size in answers if status == 200 and size == list_bytes)
        time.sleep(args.after)
        after = {p: rss_kib(p) for p in pids}
        connections_after = database_connections(server)
        gen_cpu = generator_cpu() - cpu0
        machine = load.report(gen_cpu)
        result = {
            "seconds": took,
            "statuses": statuses,
            "whole_answers": whole,
            "idle_kib": idle,
            "peak_kib": peak.per_worker,
            "peak_total_kib": peak.total,
            "after_kib": after,
            "after_total_kib": sum(after.values()),
            "database_connections_after": connections_after,
            "generator_cpu_s": gen_cpu,
            "machine": machine,
        }
        bursts.append(result)
        print(
            f"  burst {n + 1}: {args.concurrent} lists in {took:.1f} s, {whole} whole, statuses {statuses}; "
            f"RSS MiB idle {mib(sum(idle.values()))} -> peak {mib(peak.total)} "
            f"(per worker {[mib(v) for v in peak.per_worker.values()]}) -> after {args.after:.0f} s "
            f"{mib(sum(after.values()))} (per worker {[mib(v) for v in after.values()]}, "
            f"{100 * (sum(after.values()) / sum(idle.values()) - 1):+.0f} % of idle); "
            f"load {machine['loadavg_1m']:.2f}, generator CPU {gen_cpu:.1f} s, others {machine['others_s']:.1f} s; "
            f"database connections {connections_after}"
        )
    return {"list_bytes": list_bytes, "idle_database_connections": idle_connections, "bursts": bursts}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_server_args(parser, workers=2, threads=32)  # the default server: open watches hold no thread
    parser.add_argument("--watchers", type=int, default=500)
    parser.add_argument("--client-procs", type=int, default=2)
    parser.add_argument("--settle", type=float, default=3.0, help="seconds to wait before each RSS reading")
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment for the server (e.g. MALLOC_ARENA_MAX=2); repeatable",
    )
    parser.add_argument("--lists", action="store_true", help="bursts of concurrent full LISTs instead of watches")
    parser.add_argument("--full", action="store_true", help="--lists at issue 40's size: 20,000 objects")
    parser.add_argument("--objects", type=int, default=2000, help="--lists: ConfigMaps in the listed namespace")
    parser.add_argument("--object-bytes", type=int, default=850, help="--lists: data bytes per object (1.3 KB JSON)")
    parser.add_argument("--concurrent", type=int, default=20, help="--lists: LISTs sent at once per burst")
    parser.add_argument("--bursts", type=int, default=2)
    parser.add_argument("--after", type=float, default=60.0, help="--lists: seconds after a burst to read RSS")
    parser.add_argument(
        "--server-arg", action="append", default=[], metavar="ARG", help="extra server flag, e.g. --max-list-memory=1Gi"
    )
    args = parser.parse_args()
    env = dict(item.split("=", 1) for item in args.server_env)
    if args.full:
        args.objects = 20000
    if args.lists:
        return lists_main(args, env)

    results = {"info": header("memory_bench"), "args": vars(args), "backends": {}}
    for backend in backends(args.backend):
        print(f"\n## {backend}: {args.workers} workers x {args.threads} threads, {args.watchers} idle watches")
        with bench_server(backend, args.workers, args.threads, keep=args.keep, env=env) as server:
            conn = Conn(server)
            ensure_namespace(conn)
            # warm-up on many connections at once, so that every worker has served requests (lazy imports,
            # caches, database pools, TLS client-certificate code) before the baseline is read
            create_configmaps(server, 64, 200, threads=16, prefix="warm")
            for _ in range(5):
                conn.request("GET", COLLECTION)
            rounds = [one_round(server, conn, f"r{r}", args.watchers, args.client_procs, args.settle) for r in range(2)]
            state = health(server)
            print(f"  health: {state}")
            conn.close()
        results["backends"][backend] = {"rounds": rounds, "health": str(state)}
    write_json(args.json, results)
    return 0


def lists_main(args: argparse.Namespace, env: dict[str, str]) -> int:
    results = {"info": header("memory_bench --lists"), "args": vars(args), "backends": {}}
    for backend in backends(args.backend):
        print(
            f"\n## {backend}: {args.workers} workers x {args.threads} threads, {args.bursts} bursts of "
            f"{args.concurrent} LISTs of {args.objects} ConfigMaps {' '.join(args.server_arg)}"
        )
        with bench_server(backend, args.workers, args.threads, args.server_arg, keep=args.keep, env=env) as server:
            results["backends"][backend] = list_bursts(server, args)
            print(f"  health: {health(server)}")
    print(f"# loadavg now {os.getloadavg()}")
    write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
