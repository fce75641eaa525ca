"""What --enable-fault-injection costs a request (issue 58): in-process GETs of one ConfigMap through the whole
handler chain (Flask test client, admin certificate), with the flag off, on with no Fault, and on with N Faults
none of which selects the request (each is listed and matched per request).

    python bench/fault_overhead_bench.py                       # SQLite, 2000 GETs per case
    python bench/fault_overhead_bench.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/bench --faults 20

Reported per case: mean and p99 microseconds per GET, and the load average when the run ended.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from orch_apiserver.faults.manifest import fault_manifest

from tests.conftest import admin_app, session_ca  # noqa: F401


def run_case(url: str, data_dir: str, enabled: bool, faults: int, requests: int) -> list[float]:
    app = admin_app(url, Path(data_dir), FAULT_INJECTION=enabled, BACKGROUND=False)
    try:
        client = app.test_client()
        client.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "bench"}})
        for i in range(faults):
            manifest = fault_manifest(f"other-{i}", "testing.orch.io/v1alpha1", names=[f"nothing-{i}"], error=500)
            assert client.post("/apis/testing.orch.io/v1alpha1/faults", json=manifest).status_code == 201
        path = "/api/v1/namespaces/default/configmaps/bench"
        for _ in range(100):  # warm up
            client.get(path)
        took = []
        for _ in range(requests):
            start = time.perf_counter()
            assert client.get(path).status_code == 200
            took.append(time.perf_counter() - start)
        client.delete(path)
        for i in range(faults):
            client.delete(f"/apis/testing.orch.io/v1alpha1/faults/other-{i}")
        return took
    finally:
        app.extensions["orch.stop"]()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=None, help="a migrated store (default: a fresh SQLite file)")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--faults", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        url = args.database_url
        if url is None:
            from orch_apiserver.storage.schema import ensure_schema

            url = f"sqlite:///{os.path.join(data_dir, 'bench.db')}"
            ensure_schema(url, upgrade=True)
        for label, enabled, faults in (
            ("flag off", False, 0),
            ("flag on, no Fault", True, 0),
            (f"flag on, {args.faults} Faults not matching", True, args.faults),
        ):
            took = run_case(url, data_dir, enabled, faults, args.requests)
            p99 = sorted(took)[int(len(took) * 0.99)]
            print(f"{label:32s} mean {statistics.mean(took) * 1e6:7.0f} us   p99 {p99 * 1e6:7.0f} us")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
