"""Every verb over HTTP: throughput and latency of GET, create, update (PUT), merge patch, apply and delete of
ConfigMaps, with `wrk` at 1 and 8 connections (issue 18's "every verb has a figure").

    python bench/verbs_bench.py --backend postgresql [--connections 1,8] [--seconds 8] [--verbs get,create]

The server is started as ../shared/perf/side-by-side.sh starts it (a bearer token of a system:masters user);
each verb's requests carry ~450 bytes of data, as that script's creates. Objects updated, patched and applied
to are a pool made beforehand (50 per wrk thread, cycled); the objects deleted are made by a create phase of
twice the delete phase's length, so that deletes never run out. Printed per verb and connection count:
requests/s, mean, p50, p95 and p99 latency (wrk's histogram), responses that were not 2xx, and the CPU per
request of the server (master and workers, user + system) and of PostgreSQL (0 on SQLite). Run by hand; no assertions.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    NAMESPACE,
    Conn,
    add_server_args,
    backends,
    bench_server,
    ensure_namespace,
    header,
    postgres_cpu,
    server_usage,
    wait_for_quiet,
    write_json,
)

TOKEN = "verbs-bench-token"
POOL = 50  # objects per wrk thread that update, patch and apply cycle through
THREADS = 2  # wrk threads (capped by the connection count)
DATA = "x" * 400
VERBS = ("get", "create", "update", "patch", "apply", "delete")

# One script for every verb: each wrk thread names its objects <prefix>-<thread>-<n>; done() prints the
# latency percentiles wrk's own report lacks (p95).
LUA = r"""
local verb, prefix, pool, data, token = "%(verb)s", "%(prefix)s", %(pool)d, "%(data)s", "%(token)s"
local base = "/api/v1/namespaces/%(namespace)s/configmaps"
local counter, id = 0, 0
local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  id = wrk.thread:get("id") or 0
end

local function name(n) return prefix .. "-" .. id .. "-" .. n end

local function body(n, extra)
  return '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"' .. n .. '"},"data":{"a":"' .. data
    .. '","n":"' .. extra .. '"}}'
end

function request()
  counter = counter + 1
  local h = {["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json"}
  if verb == "get" then
    return wrk.format("GET", base .. "/" .. name(counter %% pool), h)
  elseif verb == "create" then
    return wrk.format("POST", base, h, body(name(counter), "0"))
  elseif verb == "update" then
    return wrk.format("PUT", base .. "/" .. name(counter %% pool), h, body(name(counter %% pool), tostring(counter)))
  elseif verb == "patch" then
    h["Content-Type"] = "application/merge-patch+json"
    return wrk.format("PATCH", base .. "/" .. name(counter %% pool), h, '{"data":{"n":"' .. counter .. '"}}')
  elseif verb == "apply" then
    h["Content-Type"] = "application/apply-patch+yaml"
    local path = base .. "/" .. name(counter %% pool) .. "?fieldManager=bench&force=true"
    return wrk.format("PATCH", path, h, body(name(counter %% pool), tostring(counter)))
  else
    return wrk.format("DELETE", base .. "/" .. name(counter), h)
  end
end

function done(summary, latency, requests)
  io.write(string.format("LATENCY_US mean=%%f p50=%%d p95=%%d p99=%%d\n", latency.mean, latency:percentile(50),
    latency:percentile(95), latency:percentile(99)))
end
"""


def _script(directory: Path, verb: str, prefix: str) -> Path:
    path = directory / f"{verb}-{prefix}.lua"
    params = {"verb": verb, "prefix": prefix, "pool": POOL, "data": DATA, "token": TOKEN, "namespace": NAMESPACE}
    path.write_text(LUA % params)
    return path


def _wrk(url: str, script: Path, connections: int, seconds: int) -> dict[str, Any]:
    threads = min(THREADS, connections)
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "-s", str(script), url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    total = re.search(r"(\d+) requests in", out)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    lat = re.search(r"LATENCY_US mean=([\d.]+) p50=(\d+) p95=(\d+) p99=(\d+)", out)
    if rate is None or total is None or lat is None:
        raise RuntimeError(f"unexpected wrk output:\n{out}")
    return {
        "rate": float(rate.group(1)),
        "requests": int(total.group(1)),
        "non_2xx": int(bad.group(1)) if bad else 0,
        "socket_errors": errors.group(1) if errors else "",
        "mean_ms": float(lat.group(1)) / 1000,
        "p50_ms": int(lat.group(2)) / 1000,
        "p95_ms": int(lat.group(3)) / 1000,
        "p99_ms": int(lat.group(4)) / 1000,
    }


def _make_pool(server: Any, prefix: str) -> None:
    conn = Conn(server)
    try:
        for thread in range(THREADS):
            for i in range(POOL):
                name = f"{prefix}-{thread}-{i}"
                body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"a": DATA}}
                status, text = conn.request("POST", f"/api/v1/namespaces/{NAMESPACE}/configmaps", body)
                if status not in (201, 409):
                    raise RuntimeError(f"creating {name}: HTTP {status} {text[:200]!r}")
    finally:
        conn.close()


def run(server: Any, args: argparse.Namespace, scripts: Path) -> dict[str, Any]:
    conn = Conn(server)
    ensure_namespace(conn)
    conn.close()
    _make_pool(server, "pool")
    url = f"https://127.0.0.1:{server.port}"
    results: dict[str, Any] = {}
    for connections in args.connections:
        for verb in args.verbs:
            if verb == "delete":  # the objects to delete, named as the delete phase will name them
                _wrk(url, _script(scripts, "create", f"gone{connections}"), connections, 2 * args.seconds)
            prefix = f"gone{connections}" if verb == "delete" else "pool"
            if verb == "create":
                prefix = f"new{connections}"
            if args.quiet_wait:
                wait_for_quiet(args.quiet_wait)
            before, pg_before = server_usage(server), postgres_cpu()
            figures = _wrk(url, _script(scripts, verb, prefix), connections, args.seconds)
            used, pg_used = server_usage(server) - before, postgres_cpu() - pg_before
            figures["server_cpu_us"] = used.cpu / max(1, figures["requests"]) * 1e6
            figures["postgres_cpu_us"] = pg_used / max(1, figures["requests"]) * 1e6
            results[f"{verb}@{connections}"] = figures
            print(
                f"{verb:7} c={connections:<3} {figures['rate']:8.0f}/s  mean {figures['mean_ms']:6.2f} ms  "
                f"p50 {figures['p50_ms']:6.2f}  p95 {figures['p95_ms']:6.2f}  p99 {figures['p99_ms']:6.2f} ms  "
                f"CPU/request: server {figures['server_cpu_us']:5.0f} us, "
                f"PostgreSQL {figures['postgres_cpu_us']:4.0f} us"
                + (f"  non-2xx {figures['non_2xx']}" if figures["non_2xx"] else "")
                + (f"  socket errors {figures['socket_errors']}" if figures["socket_errors"] else ""),
                flush=True,
            )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_server_args(parser)
    parser.add_argument("--connections", default="1,8", help="comma-separated wrk connection counts")
    parser.add_argument("--seconds", type=int, default=8, help="seconds per verb and connection count")
    parser.add_argument("--verbs", default=",".join(VERBS), help="comma-separated, of: " + ", ".join(VERBS))
    args = parser.parse_args()
    args.connections = [int(c) for c in args.connections.split(",")]
    args.verbs = [v for v in args.verbs.split(",") if v]
    if unknown := set(args.verbs) - set(VERBS):
        parser.error(f"unknown verbs: {', '.join(sorted(unknown))}")
    if shutil.which("wrk") is None:
        sys.exit("wrk is needed: apt-get install -y wrk")
    results: dict[str, Any] = {"info": header("every verb over HTTP (wrk)"), "args": vars(args), "backends": {}}
    with tempfile.TemporaryDirectory() as tmp:
        scripts = Path(tmp)
        tokens = scripts / "tokens.csv"
        tokens.write_text(f'{TOKEN},bench,1,"system:masters"\n')
        for backend in backends(args.backend):
            print(f"\n## {backend}: {args.workers} workers x {args.threads} threads")
            extra = ["--token-auth-file", str(tokens)]
            with bench_server(backend, args.workers, args.threads, extra=extra, keep=args.keep) as server:
                results["backends"][backend] = run(server, args, scripts)
    write_json(args.json, results)


if __name__ == "__main__":
    main()
