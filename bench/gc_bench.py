"""The garbage collector against the store's size (issue 39): a cascading delete with 100,000 objects stored, and the
collector's CPU per unrelated write, on SQLite and PostgreSQL. In process (no HTTP): the app's registry and watch
hub, the collector run by its real ControllerLoop (an elector that always leads), the store filled through the
registry.

    python bench/gc_bench.py --backend both --objects 100000
    python bench/gc_bench.py --collector before   # the collector of the last commit (git show HEAD:...)

Per store size (--sizes, default 1000 and --objects): the start-up (the collector's first list), then `--runs`
cascades of an owner with `--dependents` dependents, Background then Foreground (blockOwnerDeletion), each timed
from the DELETE call until the change that removes the last object arrives (a watch of the namespace), then the
CPU seconds of the collector's thread and of the watch hub's thread (where the collector's filter runs) per
unrelated write (an update of an unowned ConfigMap). The machine's load average is printed with each figure.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from tests.e2e import scratch_database  # noqa: E402 - after the path is set

NAMESPACES = 100
OWNED_SHARE = 0.01  # of the filler, owned by a few owners: the graph holds some edges


class AlwaysLeads:
    """The elector of a single process: it always holds the lease."""

    renew_seconds = 5.0

    def try_acquire_or_renew(self) -> bool:
        return True

    def release(self) -> None:
        pass


def collector_class(which: str) -> type:
    if which == "current":
        from orch_apiserver.controllers.garbagecollector import GarbageCollector

        return GarbageCollector
    source = subprocess.run(
        ["git", "show", "HEAD:app/controllers/garbagecollector.py"], cwd=REPO_ROOT, capture_output=True, text=True
    ).stdout
    name = "orch_apiserver.controllers._gc_before"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "orch_apiserver.controllers"
    sys.modules[name] = module
    exec(compile(source, "HEAD:app/controllers/garbagecollector.py", "exec"), module.__dict__)
    return module.GarbageCollector


@contextlib.contextmanager
def store(backend: str) -> Iterator[str]:
    if backend == "postgresql":
        with scratch_database() as url:
            from orch_apiserver.storage import schema

            schema.upgrade(url)
            yield url
        return
    with tempfile.TemporaryDirectory(prefix="gc-bench-") as directory:
        from orch_apiserver.storage import schema

        url = f"sqlite:///{directory}/orch.db"
        schema.upgrade(url)
        yield url


def thread_cpu(thread: threading.Thread) -> float:
    assert thread.ident is not None
    return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))


def load() -> str:
    return "load {:.1f}/{:.1f}/{:.1f}".format(*os.getloadavg())


class Bench:
    def __init__(self, url: str, data_dir: str, collector: type) -> None:
        from orch_apiserver import create_app
        from orch_apiserver.controllers.base import Context, ControllerLoop
        from orch_apiserver.controllers.manager import ensure_namespaced_policy

        self.app = create_app(
            {
                "DATABASE_URL": url,
                "DATA_DIR": data_dir,
                "CONTROLLERS": "",
                "AGGREGATION": False,
                "WATCH_POLL_INTERVAL": 0.05,
            }
        )
        assert self.app.test_client().get("/livez").status_code in (200, 401, 403)  # the first request starts it
        svc = self.app.extensions["orch"]
        self.registry, self.hub = svc.registry, svc.hub
        self.ctx = Context(svc.registry, svc.naming, svc.hub, self.app.extensions["orch.auth"])
        ensure_namespaced_policy(self.ctx)
        self.configmaps = self.ctx.kind("", "configmaps")
        self.namespaces = self.ctx.kind("", "namespaces")
        self.collector_type = collector
        self.loop: Any = None
        self.filled = 0
        self._ControllerLoop = ControllerLoop

    # -- the store --------------------------------------------------------------------------------------

    def fill_to(self, objects: int) -> float:
        """Objects per second while filling the store up to `objects` ConfigMaps, 1 % of them owned by 10 owners.
        Written in bulk, straight into the tables (a registry create costs ~2-15 ms: 100,000 would take minutes):
        copies of one object the registry made, each with its own key, name, uid and revision, in the change
        log as well, so the store stays what a series of creates leaves behind."""
        import sqlalchemy as sa
        from orch_apiserver.registry.keys import object_key
        from orch_apiserver.storage.models import changes, sequence
        from orch_apiserver.storage.models import objects as objects_table

        started = time.monotonic()
        added = objects - self.filled
        if self.filled == 0:
            for n in range(NAMESPACES):
                self.registry.create(self.namespaces, None, {"metadata": {"name": f"fill-{n}"}})
            self.template = self.registry.create(self.configmaps, "fill-0", {"metadata": {"name": "template"}})
            self.owners = [self.make(f"fill-{n}", "owner") for n in range(10)]
        engine = self.registry.storage.engine
        while self.filled < objects:
            batch = range(self.filled, min(objects, self.filled + 10_000))
            with engine.begin() as conn:
                rv = conn.execute(sa.select(sequence.c.rv).where(sequence.c.id == 1).with_for_update()).scalar_one()
                rows, logged, now = [], [], time.time()
                for i in batch:
                    rv += 1
                    ns = f"fill-{i % NAMESPACES}"
                    md = {**self.template["metadata"], "name": f"cm-{i}", "namespace": ns, "uid": str(uuid.uuid4())}
                    md["resourceVersion"] = str(rv)
                    if i % 100 == 1 and i % NAMESPACES < 10:
                        md["ownerReferences"] = [self.ref(self.owners[i % NAMESPACES])]
                    data = json.dumps({**self.template, "metadata": md, "data": {"k": "v" * 64}})
                    key = object_key(self.configmaps, ns, md["name"])
                    rows.append({"key": key, "rv": rv, "data": data})
                    logged.append(
                        {"rv": rv, "key": key, "type": "ADDED", "data": data, "prev": None, "created_at": now}
                    )
                conn.execute(objects_table.insert(), rows)
                conn.execute(changes.insert(), logged)
                conn.execute(sequence.update().where(sequence.c.id == 1).values(rv=rv))
            self.filled = batch.stop
        return added / max(time.monotonic() - started, 1e-9)

    def make(self, ns: str, name: str, owner: dict | None = None, block: bool = False) -> dict:
        md: dict[str, Any] = {"name": name}
        if owner is not None:
            md["ownerReferences"] = [self.ref(owner, block)]
        return self.registry.create(self.configmaps, ns, {"metadata": md})

    @staticmethod
    def ref(owner: dict, block: bool = False) -> dict:
        md = owner["metadata"]
        return {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "name": md["name"],
            "uid": md["uid"],
            "blockOwnerDeletion": block,
        }

    # -- the collector ----------------------------------------------------------------------------------

    def start_collector(self) -> float:
        """Seconds from the loop's start to the end of its first sync (the list of everything)."""
        self.collector = self.collector_type(self.ctx)
        synced = threading.Event()
        sync = self.collector.sync

        def first_sync_noted() -> None:
            sync()
            synced.set()

        self.collector.sync = first_sync_noted
        started = time.monotonic()
        self.loop = self._ControllerLoop(self.collector, AlwaysLeads())
        self.loop.start()
        synced.wait(600)
        return time.monotonic() - started

    def stop_collector(self) -> None:
        if self.loop is not None:
            self.loop.stopping.set()
            self.loop.wake()
            self.loop.stop()
            self.loop = None

    def cascade(self, run: int, dependents: int, policy: str) -> float:
        """Seconds from the owner's DELETE until the last of it and its dependents is gone."""
        from orch_apiserver.registry.informer import ChangeFeed
        from orch_apiserver.registry.keys import collection_prefix
        from orch_apiserver.registry.options import DeleteOptions

        ns = f"fill-{run % NAMESPACES}"
        owner = self.make(ns, f"cascade-{policy.lower()}-{run}")
        names = {owner["metadata"]["name"]}
        for d in range(dependents):
            made = self.make(ns, f"cascade-{policy.lower()}-{run}-{d}", owner, block=policy == "Foreground")
            names.add(made["metadata"]["name"])
        time.sleep(0.5)  # the collector has taken the creations
        feed = ChangeFeed(self.registry, [collection_prefix(self.configmaps, ns)])
        feed.open()
        try:
            options = DeleteOptions.parse({"propagationPolicy": policy}, {}, False, self.ctx.naming.meta_group)
            started = time.monotonic()
            self.registry.delete(self.configmaps, ns, owner["metadata"]["name"], options)
            left = set(names)
            deadline = started + 120
            while left and time.monotonic() < deadline:
                for change in feed.take(1.0):
                    if change.type == "DELETED":
                        left.discard(change.key.rsplit("/", 1)[1])
            if left:  # recorded as never (the collector of the last commit takes minutes at 100,000 objects)
                print(f"{len(left)} of {len(names)} objects left after 120 s", flush=True)
                return float("inf")
            return time.monotonic() - started
        finally:
            feed.close()

    def unrelated_writes(self, writes: int) -> dict[str, float]:
        """CPU µs of the collector's thread and of the hub's thread per update of an unowned ConfigMap."""
        ns, name = "fill-99", f"unrelated-{self.filled}"
        self.make(ns, name)
        hub_thread = self.hub._thread  # the thread that runs every subscription's filter
        time.sleep(0.5)
        gc_thread = self.loop._thread
        gc_before, hub_before = thread_cpu(gc_thread), thread_cpu(hub_thread)
        started = time.monotonic()
        for i in range(writes):
            current = self.registry.get(self.configmaps, ns, name)
            current["data"] = {"n": str(i)}
            self.registry.update(self.configmaps, ns, name, current)
        elapsed = time.monotonic() - started
        time.sleep(0.5)  # the last changes are dispatched
        return {
            "collector_us_per_write": (thread_cpu(gc_thread) - gc_before) / writes * 1e6,
            "hub_us_per_write": (thread_cpu(hub_thread) - hub_before) / writes * 1e6,
            "writes_per_s": writes / elapsed,
        }

    def close(self) -> None:
        self.stop_collector()
        self.app.extensions["orch.stop"]()


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def run_backend(backend: str, args: argparse.Namespace) -> list[dict]:
    results = []
    collector = collector_class(args.collector)
    with store(backend) as url, tempfile.TemporaryDirectory(prefix="gc-bench-data-") as data_dir:
        bench = Bench(url, data_dir, collector)
        try:
            for size in args.sizes:
                bench.stop_collector()
                rate = bench.fill_to(size)
                print(f"[{backend}] store filled to {size} ConfigMaps ({rate:.0f}/s) {load()}", flush=True)
                rss = rss_mib()
                start = bench.start_collector()
                row: dict[str, Any] = {
                    "backend": backend,
                    "collector": args.collector,
                    "objects": size,
                    "start_s": start,
                    "rss_after_start_mib": rss_mib() - rss,
                    "load_before": os.getloadavg(),
                }
                print(f"[{backend}] {size}: collector started (first list) in {start:.2f} s {load()}", flush=True)
                for policy in ("Background", "Foreground"):
                    times = [bench.cascade(run, args.dependents, policy) for run in range(args.runs)]
                    row[policy] = times
                    print(
                        f"[{backend}] {size}: {policy} cascade of {args.dependents}: median "
                        f"{statistics.median(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms {load()}",
                        flush=True,
                    )
                row.update(bench.unrelated_writes(args.writes))
                row["load_after"] = os.getloadavg()
                print(
                    f"[{backend}] {size}: per unrelated write: collector {row['collector_us_per_write']:.1f} µs, "
                    f"hub thread {row['hub_us_per_write']:.1f} µs ({row['writes_per_s']:.0f} writes/s) {load()}",
                    flush=True,
                )
                results.append(row)
        finally:
            bench.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--objects", type=int, default=100_000)
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=None)
    parser.add_argument("--dependents", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--writes", type=int, default=1000)
    parser.add_argument("--collector", choices=["current", "before"], default="current")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    args.sizes = args.sizes or sorted({1000, args.objects})
    backends = ["sqlite", "postgresql"] if args.backend == "both" else [args.backend]
    results = [row for backend in backends for row in run_backend(backend, args)]
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
