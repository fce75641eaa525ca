"""Custom objects against ConfigMaps: create, get and list of N objects of each, same server, same client.

    python bench/custom_bench.py                       # both backends, 2,000 objects of each
    python bench/custom_bench.py --backend sqlite --objects 1000

The custom kind has a schema of the size real CRDs have at their top (a dozen typed, validated fields with
a default, under spec and status with the status subresource); each object carries the same ~500 bytes of
data as the ConfigMaps (a string field). One keep-alive connection, sequential requests (latency, not
throughput); then `--runs` full lists of each kind.
"""

from __future__ import annotations

import argparse
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
    ensure_namespace,
    fmt_ms,
    header,
    summary,
    wait_for_quiet,
    write_json,
)

GROUP = "bench.example.com"
FIELDS = {f"field{i}": {"type": "string", "maxLength": 64} for i in range(8)}
CRD = {
    "apiVersion": "apiextensions.orch.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"widgets.{GROUP}"},
    "spec": {
        "group": GROUP,
        "scope": "Namespaced",
        "names": {"plural": "widgets", "kind": "Widget"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "subresources": {"status": {}},
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "properties": {
                                    **FIELDS,
                                    "replicas": {"type": "integer", "minimum": 0, "default": 1},
                                    "mode": {"type": "string", "enum": ["fast", "slow"]},
                                    "payload": {"type": "string"},
                                },
                            },
                            "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}},
                        },
                    }
                },
            }
        ],
    },
}


def timed(conn: Conn, method: str, path: str, body: object = None, want: int = 200) -> float:
    started = time.perf_counter()
    status, data = conn.request(method, path, body)
    elapsed = time.perf_counter() - started
    assert status == want, (status, data[:300])
    return elapsed


def run_kind(conn: Conn, kind: str, count: int, runs: int) -> dict[str, dict[str, float]]:
    payload = "x" * 500
    if kind == "configmaps":
        base = f"/api/v1/namespaces/{NAMESPACE}/configmaps"
        make = lambda i: {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"o{i}"},
            "data": {"payload": payload},
        }
    else:
        base = f"/apis/{GROUP}/v1/namespaces/{NAMESPACE}/widgets"
        make = lambda i: {
            "apiVersion": f"{GROUP}/v1",
            "kind": "Widget",
            "metadata": {"name": f"o{i}"},
            "spec": {"mode": "fast", "field0": "a", "payload": payload},
        }
    creates = [timed(conn, "POST", base, make(i), 201) for i in range(count)]
    gets = [timed(conn, "GET", f"{base}/o{i}") for i in range(count)]
    lists = [timed(conn, "GET", base) for _ in range(runs)]
    return {"create": summary(creates), "get": summary(gets), "list": summary(lists)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_server_args(parser)
    parser.add_argument("--objects", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    results: dict[str, object] = header("custom objects vs configmaps")
    for backend in backends(args.backend):
        with bench_server(backend, args.workers, args.threads, keep=args.keep) as server:
            conn = Conn(server)
            ensure_namespace(conn)
            started = time.monotonic()
            status, body = conn.request("POST", "/apis/apiextensions.orch.io/v1/customresourcedefinitions", CRD)
            assert status == 201, body[:300]
            while conn.request("GET", f"/apis/{GROUP}/v1")[0] != 200:  # established, then in this worker's catalog
                assert time.monotonic() - started < 30, "the CRD was never served"
                time.sleep(0.01)
            served = time.monotonic() - started
            results[f"{backend}/crd_served_after"] = served
            print(f"{backend:10} CRD created -> served: {served * 1000:.0f} ms")
            wait_for_quiet(args.quiet_wait)
            for kind in ("configmaps", "widgets"):
                stats = run_kind(conn, kind, args.objects, args.runs)
                results[f"{backend}/{kind}"] = stats
                for op, values in stats.items():
                    print(f"{backend:10} {kind:10} {op:6} {fmt_ms(values)}")
    write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
