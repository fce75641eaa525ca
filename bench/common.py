"""Shared helpers for the hand-run benchmarks in bench/ (not tests: no timing assertions).

Everything talks to 127.0.0.1 only. The server is the real one (`python -m orch_apiserver.cli`, gunicorn gthread),
started through the e2e harness in tests/e2e/__init__.py, on SQLite (a temporary data directory) or on a
scratch PostgreSQL database (`orch_e2e_*`, created, migrated and dropped here).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import shutil
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from tests.e2e import RunningServer, scratch_database, start_server  # noqa: E402 - after the path is set

CLK_TCK = os.sysconf("SC_CLK_TCK")
NAMESPACE = "bench"
IDLE_RECONNECT = 20.0  # seconds


# -- statistics -------------------------------------------------------------------------------------


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of a non-empty sequence."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-p * len(ordered) // 100))))
    return ordered[rank - 1]


def summary(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "min": min(values),
        "median": statistics.median(values),
        "mean": statistics.fmean(values),
        "p90": percentile(values, 90),
        "p99": percentile(values, 99),
        "max": max(values),
    }


def fmt_ms(stats: dict[str, float], keys: Sequence[str] = ("median", "p90", "p99", "max")) -> str:
    if not stats.get("n"):
        return "n=0"
    parts = [f"{k} {stats[k] * 1000:.1f}" for k in keys]
    return f"n={stats['n']}  " + "  ".join(parts) + " ms"


# -- server lifecycle -------------------------------------------------------------------------------


def add_server_args(parser: argparse.ArgumentParser, workers: int = 2, threads: int = 32) -> None:
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--workers", type=int, default=workers, help="gunicorn workers of the server started")
    parser.add_argument("--threads", type=int, default=threads, help="threads per worker")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    parser.add_argument("--keep", action="store_true", help="keep the temporary data directory (server log)")
    parser.add_argument(
        "--quiet-wait",
        type=float,
        default=120.0,
        metavar="S",
        help="before each measurement wait up to S s for the machine to be idle (0: don't)",
    )


def backends(choice: str) -> list[str]:
    return ["sqlite", "postgresql"] if choice == "both" else [choice]


@contextlib.contextmanager
def bench_server(
    backend: str,
    workers: int,
    threads: int,
    extra: Sequence[str] = (),
    keep: bool = False,
    env: dict[str, str] | None = None,
) -> Iterator[RunningServer]:
    """Start the real server (fresh SQLite file or fresh migrated PostgreSQL database); stop and clean up."""
    data_dir = Path(tempfile.mkdtemp(prefix=f"orch-bench-{backend}-"))
    args = ["--workers", str(workers), "--threads", str(threads), *extra]
    try:
        if backend == "sqlite":
            server = start_server(data_dir, args, env=env)
            try:
                yield server
            finally:
                server.stop()
        else:
            from orch_apiserver.storage.schema import ensure_schema

            with scratch_database() as url:
                ensure_schema(url, upgrade=True)
                server = start_server(data_dir, args, env=env, database_url=url)
                try:
                    yield server
                finally:
                    server.stop()
    finally:
        if keep:
            print(f"# kept {data_dir}", file=sys.stderr)
        else:
            shutil.rmtree(data_dir, ignore_errors=True)


def ssl_context(server: RunningServer) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(server.ca_file))
    ctx.load_cert_chain(*server.client_cert)
    return ctx


class Conn:
    """One keep-alive HTTPS connection (http.client: far less per-request overhead than requests)."""

    def __init__(self, server: RunningServer, ctx: ssl.SSLContext | None = None, timeout: float = 120.0):
        self.port = server.port
        self.ctx = ctx or ssl_context(server)
        self.timeout = timeout
        self.http: http.client.HTTPSConnection | None = None
        self.last_used = 0.0

    def _connect(self) -> http.client.HTTPSConnection:
        if self.http is not None and time.monotonic() - self.last_used > IDLE_RECONNECT:
            self.close()  # the server drops idle keep-alive connections after 30 s
        if self.http is None:
            self.http = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx, timeout=self.timeout)
            self.http.connect()
            self.http.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self.http

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        payload = json.dumps(body).encode() if body is not None and not isinstance(body, bytes) else body
        headers = {"Accept": "application/json", "User-Agent": "orch-bench"}
        if payload is not None:
            headers["Content-Type"] = "application/json"
        for attempt in range(2):
            conn = self._connect()
            try:
                conn.request(method, path, body=payload, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                self.last_used = time.monotonic()
                if resp.will_close:
                    self.close()
                return resp.status, data
            except (http.client.RemoteDisconnected, ConnectionError, ssl.SSLEOFError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.http is not None:
            self.http.close()
            self.http = None


def ensure_namespace(conn: Conn, name: str = NAMESPACE) -> None:
    status, body = conn.request(
        "POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
    )
    if status not in (201, 409):
        raise RuntimeError(f"creating namespace {name}: HTTP {status} {body[:300]!r}")


def configmap(name: str, data_bytes: int) -> dict:
    """A ConfigMap whose `data` holds about data_bytes bytes (5 keys)."""
    per = max(1, data_bytes // 5 - 10)
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "labels": {"app": "bench", "tier": "x"}},
        "data": {f"k{i}": (f"{name}-{i}-" * 40)[:per] for i in range(5)},
    }


def create_configmaps(
    server: RunningServer, count: int, data_bytes: int, threads: int = 8, namespace: str = NAMESPACE, prefix: str = "cm"
) -> float:
    """POST `count` configmaps from `threads` threads, each on its own keep-alive connection; returns seconds."""
    ctx = ssl_context(server)
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    bodies = [json.dumps(configmap(f"{prefix}-{i:06d}", data_bytes)).encode() for i in range(count)]
    errors: list[str] = []
    next_index = iter(range(count))
    lock = threading.Lock()

    def work() -> None:
        conn = Conn(server, ctx)
        try:
            while True:
                with lock:
                    i = next(next_index, None)
                if i is None or errors:
                    return
                status, body = conn.request("POST", path, bodies[i])
                if status != 201:
                    errors.append(f"HTTP {status}: {body[:300]!r}")
        finally:
            conn.close()

    started = time.monotonic()
    pool = [threading.Thread(target=work) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    if errors:
        raise RuntimeError(f"{len(errors)} creates failed, first: {errors[0]}")
    return time.monotonic() - started


# -- process inspection -----------------------------------------------------------------------------


def children(pid: int) -> list[int]:
    """The children of `pid`; none once it has exited (a server being restarted)."""
    out: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                out.extend(int(p) for p in (task / "children").read_text().split())
    return sorted(set(out))


def worker_pids(server: RunningServer) -> list[int]:
    """gunicorn workers: the children of the master (the `python -m orch_apiserver.cli` process itself)."""
    return children(server.process.pid)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def thread_count(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return 0


def cpu_times(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of one process, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK


def cpu_seconds(pid: int) -> float:
    return sum(cpu_times(pid))


def context_switches(pid: int) -> tuple[int, int]:
    """(voluntary, involuntary) context switches summed over the process's threads."""
    vol = invol = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            for line in (task / "status").read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    vol += int(line.split()[1])
                elif line.startswith("nonvoluntary_ctxt_switches:"):
                    invol += int(line.split()[1])
    return vol, invol


@dataclass
class ServerUsage:
    user: float
    system: float
    voluntary: int
    involuntary: int

    def __sub__(self, other: ServerUsage) -> ServerUsage:
        return ServerUsage(
            self.user - other.user,
            self.system - other.system,
            self.voluntary - other.voluntary,
            self.involuntary - other.involuntary,
        )

    @property
    def cpu(self) -> float:
        return self.user + self.system


def server_usage(server: RunningServer) -> ServerUsage:
    """CPU and context switches of the gunicorn master and its workers (threads included)."""
    user = system = 0.0
    vol = invol = 0
    for pid in [server.process.pid, *worker_pids(server)]:
        with contextlib.suppress(OSError):
            u, s = cpu_times(pid)
            v, i = context_switches(pid)
            user, system, vol, invol = user + u, system + s, vol + v, invol + i
    return ServerUsage(user, system, vol, invol)


def server_cpu(server: RunningServer) -> float:
    return server_usage(server).cpu


def postgres_cpu_by_pid() -> dict[int, float]:
    out: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if (entry / "comm").read_text().strip() == "postgres":
                out[int(entry.name)] = cpu_seconds(int(entry.name))
    return out


class PostgresCpu:
    """CPU seconds used by postgres processes between start() and stop() (backends that exited meanwhile
    are not counted after their last sample, so this is a lower bound)."""

    def __init__(self) -> None:
        self.before = postgres_cpu_by_pid()

    def used(self) -> float:
        after = postgres_cpu_by_pid()
        return sum(cpu - self.before.get(pid, 0.0) for pid, cpu in after.items())


def machine_busy() -> float:
    """CPU seconds all processes on the machine have used since boot (non-idle time, /proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / CLK_TCK


class MachineLoad:
    """Busy CPU seconds of the whole machine over an interval, to see what OTHER processes took meanwhile
    (this machine is shared: a concurrent test run distorts every number here)."""

    def __init__(self) -> None:
        self.busy0, self.t0 = machine_busy(), time.monotonic()

    def report(self, ours: float) -> dict[str, float]:
        busy, wall = machine_busy() - self.busy0, time.monotonic() - self.t0
        return {
            "wall_s": wall,
            "machine_busy_s": busy,
            "capacity_s": wall * (os.cpu_count() or 1),
            "others_s": max(0.0, busy - ours),
            "loadavg_1m": os.getloadavg()[0],
        }


def wait_for_quiet(max_wait: float, idle_cores: float = 0.3, window: float = 1.0, needed: int = 3) -> float:
    """Wait (at most max_wait s) until the whole machine used less than idle_cores for `needed` windows in a
    row, so a concurrent test run on this shared machine does not land inside a measurement. Returns the
    busy cores of the last window (printed as a warning when still busy)."""
    deadline = time.monotonic() + max_wait
    calm = 0
    busy = 0.0
    while True:
        before = machine_busy()
        time.sleep(window)
        busy = (machine_busy() - before) / window
        calm = calm + 1 if busy < idle_cores else 0
        if calm >= needed:
            return busy
        if time.monotonic() >= deadline:
            print(
                f"  WARNING: machine still busy ({busy:.2f} cores used by other processes) after waiting "
                f"{max_wait:.0f} s; numbers below are disturbed",
                flush=True,
            )
            return busy


def postgres_cpu() -> float:
    """CPU seconds of the postgres processes alive now (only meaningful as a difference over live pids)."""
    return sum(postgres_cpu_by_pid().values())


@dataclass
class Health:
    ready: bool
    workers: list[int]
    log_problems: list[str]

    def __str__(self) -> str:
        problems = "; ".join(self.log_problems[:3]) or "none"
        return f"readyz={'ok' if self.ready else 'FAILED'} workers={self.workers} log problems: {problems}"


def health(server: RunningServer) -> Health:
    conn = Conn(server, timeout=10)
    try:
        status, _ = conn.request("GET", "/readyz")
    except OSError:
        status = 0
    finally:
        conn.close()
    bad = [
        line.strip()
        for line in server.log().splitlines()
        if any(word in line for word in ("Traceback", "[ERROR]", "[CRITICAL]", "WORKER TIMEOUT", "exited"))
    ]
    return Health(status == 200, worker_pids(server), bad)


def git_commit() -> str:
    if os.environ.get("BENCH_COMMIT"):  # set when benchmarking an exported snapshot (no .git)
        return os.environ["BENCH_COMMIT"]
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def header(title: str) -> dict[str, Any]:
    info = {
        "bench": title,
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
        "commit": git_commit(),
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
    }
    print(f"# {title}  {info['date']}  commit {info['commit']}  python {info['python']}  cpus {info['cpus']}")
    return info


def write_json(path: str | None, payload: Any) -> None:
    if path:
        Path(path).write_text(json.dumps(payload, indent=2, default=str) + "\n")
        print(f"# results written to {path}")


def run_each_backend(title: str, args: argparse.Namespace, run: Callable[[RunningServer], Any]) -> None:
    """The usual main: per backend asked for (--backend), a server of --workers x --threads, `run` on it;
    the results to --json."""
    results: dict[str, Any] = {"info": header(title), "args": vars(args), "backends": {}}
    for backend in backends(args.backend):
        print(f"\n## {backend}: {args.workers} workers x {args.threads} threads")
        with bench_server(backend, args.workers, args.threads, keep=args.keep) as server:
            results["backends"][backend] = run(server)
    write_json(args.json, results)
