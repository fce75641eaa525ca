"""Memory per idle watcher: worker RSS before and after opening N idle watches.

    python bench/memory_bench.py                   # both backends, 500 watches, --workers 2 --threads 300
    python bench/memory_bench.py --backend postgresql --watchers 500

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
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    NAMESPACE,
    Conn,
    add_server_args,
    backends,
    bench_server,
    configmap,
    create_configmaps,
    ensure_namespace,
    header,
    health,
    rss_kib,
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
    args = parser.parse_args()
    env = dict(item.split("=", 1) for item in args.server_env)

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


if __name__ == "__main__":
    sys.exit(main())
