"""Watch delivery latency: W writes spaced INTERVAL apart, seen by 1 and by 500 concurrent watchers.

    python bench/watch_bench.py                          # both backends, 1 and 500 watchers, 200 writes
    python bench/watch_bench.py --backend postgresql --watchers 500 --writes 200 --interval 0.02

Per backend: start the real server (default --workers 2 --threads 300), then per watcher count:
  1. open the watches (`GET /api/v1/namespaces/bench/configmaps?watch=1&resourceVersion=<rv>&timeoutSeconds=600`,
     HTTP/1.1 over TLS with the admin certificate) from separate client processes (bench/watchers.py: raw
     non-blocking SSL sockets in one epoll loop per process, timestamp per recv(), parsing after the run);
  2. write a sentinel configmap and wait until every stream has received it (so every watch is live);
  3. the writer (this process, one keep-alive connection) POSTs W configmaps on a fixed schedule, one every
     INTERVAL s, recording time.monotonic() just before each request is sent and after its response;
  4. a closing sentinel, then the watchers hand back their recordings.
Latency of one (watcher, write) pair = time the watcher read the last byte of that object's ADDED line
minus the time just before the POST was sent (also reported: minus the time the POST's response arrived).
Also: events missing, per-write time until the LAST watcher had it, CPU seconds of server / postgres /
watcher processes during the writes, and the server's health afterwards.

With --node-selectors, as node agents watch: watcher i watches pods with fieldSelector spec.nodeName=node-i, and
write i creates a pod bound to node-(i mod watchers), so each write is for exactly one watcher (a watch is live
once its response headers arrived: it resumes from the listed resourceVersion); also counted: events a watcher
received for another node's pods (must be 0).

    python bench/watch_bench.py --backend postgresql --watchers 5000 --node-selectors --writes 1000 \
        --interval 0.01 --client-procs 2
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    NAMESPACE,
    Conn,
    MachineLoad,
    PostgresCpu,
    add_server_args,
    backends,
    bench_server,
    configmap,
    ensure_namespace,
    fmt_ms,
    header,
    health,
    server_usage,
    summary,
    wait_for_quiet,
    worker_pids,
    write_json,
)
from bench.watchers import WatcherPool

COLLECTION = f"/api/v1/namespaces/{NAMESPACE}/configmaps"
LIVE_TIMEOUT = 60.0  # seconds for every watch to receive the opening sentinel
PROFILE_RATE = 100  # py-spy samples per second; it is slow with hundreds of threads


def collection(namespace: str, resource: str = "configmaps") -> str:
    return f"/api/v1/namespaces/{namespace}/{resource}"


def pod(name: str, node: str, data_bytes: int) -> dict:
    """A pod already bound to `node` (as the scheduler leaves it), with about data_bytes of annotations."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "bench"}, "annotations": {"pad": "x" * max(0, data_bytes)}},
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": "registry.example/pause:3.9"}]},
    }


def current_revision(conn: Conn) -> str:
    status, body = conn.request("GET", f"{COLLECTION}?limit=1")
    if status != 200:
        raise RuntimeError(f"list: HTTP {status}")
    return json.loads(body)["metadata"]["resourceVersion"]


def post(conn: Conn, name: str, data_bytes: int, path: str = COLLECTION, node: str | None = None) -> None:
    obj = pod(name, node, data_bytes) if node is not None else configmap(name, data_bytes)
    status, body = conn.request("POST", path, json.dumps(obj).encode())
    if status != 201:
        raise RuntimeError(f"create {name}: HTTP {status} {body[:300]!r}")


def start_profilers(server, out_dir: str, tag: str, seconds: float, tool: str) -> list:
    """Profile the gunicorn workers during the writes: `py-spy` (pip install py-spy; collapsed Python stacks,
    --gil: only the thread holding the GIL; slow with hundreds of threads, so it gets few samples) or `perf`
    (native: interpreter, OpenSSL, kernel; `perf report -i FILE --no-children --sort dso,sym`)."""
    import subprocess

    Path(out_dir).mkdir(parents=True, exist_ok=True)
    pids = worker_pids(server)
    duration = str(max(1, round(seconds)))
    if tool == "perf":
        out = Path(out_dir) / f"{tag}.perf.data"
        cmd = [
            "perf",
            "record",
            "-F",
            "499",
            "-g",
            "-o",
            str(out),
            "-p",
            ",".join(map(str, pids)),
            "--",
            "sleep",
            duration,
        ]
        return [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    procs = []
    for pid in pids:
        out = Path(out_dir) / f"{tag}-{pid}.txt"
        cmd = [
            "py-spy",
            "record",
            "--pid",
            str(pid),
            "--duration",
            duration,
            "--rate",
            str(PROFILE_RATE),
            "--format",
            "raw",
            "--nonblocking",
            "--output",
            str(out),
        ] + (["--gil"] if tool == "py-spy-gil" else [])
        procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    return procs


def write_on_schedule(
    server,
    conn: Conn,
    prefix: str,
    writes: int,
    interval: float,
    data_bytes: int,
    begin: float,
    threads: int,
    paths: list[str],
    nodes: int = 0,
) -> tuple[list[float], list[float]]:
    """POST write i at begin + i*interval from `threads` writer threads (write i on thread i % threads, each
    with its own keep-alive connection), so that a slow POST does not push the later ones back; a thread
    whose previous POST is still running sends late. Returns the send and response times."""
    sent = [0.0] * writes
    answered = [0.0] * writes
    errors: list[Exception] = []

    def writer(k: int, connection: Conn) -> None:
        try:
            for i in range(k, writes, threads):
                delay = begin + i * interval - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                sent[i] = time.monotonic()
                node = f"node-{i % nodes}" if nodes else None
                post(connection, f"{prefix}{i:05d}", data_bytes, paths[i % len(paths)], node)
                answered[i] = time.monotonic()
        except (OSError, RuntimeError) as err:  # re-raised below
            errors.append(err)

    conns = [conn] + [Conn(server) for _ in range(threads - 1)]
    for extra in conns[1:]:
        extra.request("GET", "/readyz")  # connect (TLS handshake) before the schedule starts
    pool = [threading.Thread(target=writer, args=(k, c)) for k, c in enumerate(conns)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    for extra in conns[1:]:
        extra.close()
    if errors:
        raise errors[0]
    return sent, answered


PROBE_INTERVAL = 0.05


class GetProbe:
    """An ordinary client during the writes: GET one object every PROBE_INTERVAL on a keep-alive connection."""

    def __init__(self, server) -> None:
        self.conn = Conn(server)
        self.conn.request("GET", "/readyz")  # connected before the measurement
        self.latencies: list[float] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.done.wait(PROBE_INTERVAL):
            start = time.monotonic()
            status, _ = self.conn.request("GET", "/api/v1/namespaces/default")
            if status == 200:
                self.latencies.append(time.monotonic() - start)

    def stop(self) -> list[float]:
        self.done.set()
        self.thread.join()
        self.conn.close()
        return self.latencies


def scenario(
    server,
    conn: Conn,
    tag: str,
    watchers: int,
    procs: int,
    writes: int,
    interval: float,
    data_bytes: int,
    profile_dir: str | None = None,
    profile_tool: str = "perf",
    quiet_wait: float = 0.0,
    writer_threads: int = 4,
    namespaces: int = 1,
    node_selectors: bool = False,
) -> dict:
    prefix = f"ev-{tag}-"
    spaces = [NAMESPACE] if namespaces == 1 else [f"{NAMESPACE}-{k}" for k in range(namespaces)]
    for space in spaces:
        ensure_namespace(conn, space)
    collections = [collection(space, "pods" if node_selectors else "configmaps") for space in spaces]
    rv = current_revision(conn)
    paths = [f"{collections[i % namespaces]}?watch=1&resourceVersion={rv}&timeoutSeconds=600" for i in range(watchers)]
    if node_selectors:
        paths = [f"{path}&fieldSelector=spec.nodeName%3Dnode-{i}" for i, path in enumerate(paths)]
    t_open = time.monotonic()
    pool = WatcherPool(server, paths, watchers, procs, prefix)

    def post_everywhere(name: str) -> None:
        if node_selectors:  # no one object reaches every watcher
            return
        for path in collections:
            post(conn, name, data_bytes, path)

    try:
        post_everywhere(f"start-{tag}")
        start_marker = "200 OK" if node_selectors else f"start-{tag}"
        live, _ = pool.wait_marker(start_marker, timeout=LIVE_TIMEOUT)
        t_live = time.monotonic() - t_open
        print(f"  {watchers} watchers in {len(pool.procs)} client process(es): {live} live after {t_live:.1f} s")
        time.sleep(1.0)
        if quiet_wait:
            wait_for_quiet(quiet_wait)
        _, client_cpu0 = pool.wait_marker("no-such-marker", timeout=0)
        profilers = start_profilers(server, profile_dir, tag, writes * interval, profile_tool) if profile_dir else []
        usage0, pg, machine = server_usage(server), PostgresCpu(), MachineLoad()
        self_cpu0 = sum(os.times()[:2])
        begin = time.monotonic() + 0.05
        probe = GetProbe(server)
        sent, answered = write_on_schedule(
            server,
            conn,
            prefix,
            writes,
            interval,
            data_bytes,
            begin,
            writer_threads,
            collections,
            watchers if node_selectors else 0,
        )
        write_window = time.monotonic() - begin
        get_latencies = probe.stop()
        post_everywhere(f"end-{tag}")
        if node_selectors:  # the last write's one watcher has it, or 10 s passed
            time.sleep(2.0)
            done, client_cpu1 = pool.wait_marker(f"{prefix}{writes - 1:05d}", timeout=10)
        else:
            done, client_cpu1 = pool.wait_marker(f"end-{tag}", timeout=60)
        usage, pg_used = server_usage(server) - usage0, pg.used()
        load = machine.report(usage.cpu + pg_used + (client_cpu1 - client_cpu0) + sum(os.times()[:2]) - self_cpu0)
        for profiler in profilers:
            profiler.wait(timeout=600)
    finally:
        results, _ = pool.finish()
    # flush: the server only notices a closed idle watch when it next writes to it
    for j in range(2):
        post_everywhere(f"flush-{tag}-{j}")

    from_send, from_response, last_per_write = [], [], []
    missing = 0
    bad = [r for r in results if r["status"] != 200]
    foreign = 0  # events a node's watcher received for another node's pods
    if node_selectors:
        for k, r in enumerate(results):
            foreign += sum(1 for name in r["events"] if int(name[len(prefix) :]) % watchers != k)
    for i in range(writes):
        name = f"{prefix}{i:05d}"
        latest = None
        audience = [results[i % watchers]] if node_selectors else results[i % namespaces :: namespaces]
        for r in audience:  # the watchers write i is for
            got = r["events"].get(name)
            if got is None or got[0] != "ADDED":
                missing += 1
                continue
            from_send.append(got[1] - sent[i])
            from_response.append(got[1] - answered[i])
            latest = got[1] if latest is None else max(latest, got[1])
        if latest is not None:
            last_per_write.append(latest - sent[i])
    out = {
        "watchers": watchers,
        "namespaces": namespaces,
        "client_procs": len(pool.procs),
        "live": live,
        "ended": done,
        "bad_streams": [(r["status"], r["error"]) for r in bad][:5],
        "writes": writes,
        "interval_s": interval,
        "write_window_s": write_window,
        "missing_events": missing,
        "foreign_events": foreign,
        "post_latency": summary([a - s for s, a in zip(sent, answered)]),
        "get_latency_during_writes": summary(get_latencies),
        "send_lag_behind_schedule": summary([s - (begin + i * interval) for i, s in enumerate(sent)]),
        "delivery_from_send": summary(from_send),
        "delivery_from_response": summary(from_response),
        "all_watchers_have_it": summary(last_per_write),
        "cpu_s": {
            "server": usage.cpu,
            "server_user": usage.user,
            "server_system": usage.system,
            "postgres": pg_used,
            "watcher_clients": client_cpu1 - client_cpu0,
        },
        "machine": load,
        "server_context_switches": {"voluntary": usage.voluntary, "involuntary": usage.involuntary},
        "server_cpu_us_per_delivery": (usage.cpu * 1e6 / len(from_send)) if from_send else None,
    }
    print(
        f"  POST latency: {fmt_ms(out['post_latency'])}; {writer_threads} writer threads, sends late by "
        f"{fmt_ms(out['send_lag_behind_schedule'], ('median', 'max'))}; writes took {write_window:.1f} s"
    )
    print(
        f"  GET /api/v1/namespaces/default meanwhile (every {PROBE_INTERVAL * 1000:.0f} ms, own connection): "
        f"{fmt_ms(out['get_latency_during_writes'])}"
    )
    print(f"  delivery (send -> watcher read): {fmt_ms(out['delivery_from_send'])}")
    print(f"  delivery (POST response -> watcher read): {fmt_ms(out['delivery_from_response'])}")
    print(f"  per write, until the last watcher had it: {fmt_ms(out['all_watchers_have_it'])}")
    cpu = out["cpu_s"]
    print(
        f"  missing events {missing}, other nodes' events {foreign}, bad streams {len(bad)}; "
        f"over the {write_window:.1f} s of writes CPU s: "
        f"server {cpu['server']:.2f} (user {cpu['server_user']:.2f}, sys {cpu['server_system']:.2f}), "
        f"postgres {cpu['postgres']:.2f}, watcher clients {cpu['watcher_clients']:.2f}; server context switches "
        f"{usage.voluntary} voluntary, {usage.involuntary} involuntary; "
        f"{(out['server_cpu_us_per_delivery'] or 0):.0f} us server CPU per delivered event (writes included)"
    )
    print(
        f"  machine: {load['machine_busy_s']:.1f} of {load['capacity_s']:.1f} core-seconds busy, other processes "
        f"{load['others_s']:.1f} s, load average {load['loadavg_1m']:.1f}"
    )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_server_args(parser, workers=2, threads=32)  # the default server: open watches hold no thread
    parser.add_argument("--watchers", default="1,500", help="comma-separated watcher counts, run in turn")
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--interval", type=float, default=0.02, help="seconds between writes")
    parser.add_argument("--client-procs", type=int, default=2, help="watcher client processes (max)")
    parser.add_argument("--data-bytes", type=int, default=200, help="approximate data size of each object")
    parser.add_argument(
        "--namespaces",
        type=int,
        default=1,
        help="spread the watchers (watcher i on namespace i %% N) and the writes (round robin) over N "
        "namespaces: each write then reaches watchers/N watches",
    )
    parser.add_argument(
        "--writer-threads",
        type=int,
        default=4,
        help="writer threads (connections) keeping the write schedule when POSTs are slow",
    )
    parser.add_argument(
        "--node-selectors",
        action="store_true",
        help="watch pods, watcher i with fieldSelector spec.nodeName=node-i; write i is a pod bound to node-(i mod W)",
    )
    parser.add_argument("--profile-dir", help="profile the workers during the writes, output here")
    parser.add_argument("--profile-tool", choices=["perf", "py-spy", "py-spy-gil"], default="perf")
    args = parser.parse_args()

    counts = [int(c) for c in args.watchers.split(",") if c.strip()]
    results = {"info": header("watch_bench"), "args": vars(args), "backends": {}}
    for backend in backends(args.backend):
        print(
            f"\n## {backend}: {args.workers} workers x {args.threads} threads, {args.writes} writes every "
            f"{args.interval * 1000:.0f} ms"
        )
        runs = []
        with bench_server(backend, args.workers, args.threads, keep=args.keep) as server:
            conn = Conn(server)
            ensure_namespace(conn)
            for n, count in enumerate(counts):
                print(f"### {count} watcher(s)")
                runs.append(
                    scenario(
                        server,
                        conn,
                        f"{n}w{count}",
                        count,
                        args.client_procs,
                        args.writes,
                        args.interval,
                        args.data_bytes,
                        args.profile_dir,
                        args.profile_tool,
                        args.quiet_wait,
                        args.writer_threads,
                        args.namespaces,
                        args.node_selectors,
                    )
                )
                state = health(server)
                print(f"  health: {state}")
                runs[-1]["health"] = str(state)
            conn.close()
        results["backends"][backend] = runs
    write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
