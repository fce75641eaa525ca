"""Start-up of the test server (app.testing.TestServer) against the CLI, as a test author meets it.

Measures, N times each, from the call to the first successful authenticated request:
  testserver        `TestServer().start()` in this process (the pytest fixture does exactly this)
  testserver+crds   the same with CRD files to install and wait for (skipped when the server has no CRDs)
  cli               `orch-apiserver` in a subprocess (gunicorn), until `GET /readyz` answers 200
plus the time of `TestServer.reset()` after a test made 20 objects. Run: `python bench/testserver_start.py`.
Imports are paid once per process and are reported on their own line.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
"""


def _summary(name: str, values: list[float]) -> str:
    values = sorted(values)
    return (
        f"{name:18s} n={len(values)} min {values[0] * 1000:7.0f} ms  median {statistics.median(values) * 1000:7.0f} ms"
        f"  max {values[-1] * 1000:7.0f} ms"
    )


def time_testserver(runs: int, crds: list[Path]) -> list[float]:
    from orch_apiserver.testing import TestServer

    times = []
    for _ in range(runs):
        began = time.perf_counter()
        server = TestServer(crds=crds).start()
        server.manifests.raw_get("/api/v1/namespaces/default")
        times.append(time.perf_counter() - began)
        server.stop()
    return times


def time_reset(objects: int) -> float:
    from orch_apiserver.testing import TestServer

    with TestServer() as server:
        namespace = server.create_namespace()
        server.apply(
            [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i}"}} for i in range(objects)],
            namespace=namespace,
        )
        began = time.perf_counter()
        server.reset()
        return time.perf_counter() - began


def time_cli(runs: int) -> list[float]:
    from tests.e2e import start_server

    times = []
    for _ in range(runs):
        began = time.perf_counter()
        running = start_server(Path(tempfile.mkdtemp(prefix="orch-bench-cli-")))
        times.append(time.perf_counter() - began)
        running.stop()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-cli", action="store_true", help="skip the CLI comparison")
    args = parser.parse_args()
    began = time.perf_counter()
    import orch_apiserver.factory
    import orch_apiserver.testing  # noqa: F401 - what a test session imports once

    print(f"{'imports (once)':18s} {(time.perf_counter() - began) * 1000:7.0f} ms")
    print(_summary("testserver", time_testserver(args.runs, [])))
    with tempfile.TemporaryDirectory() as directory:
        crd = Path(directory) / "widgets.yaml"
        crd.write_text(CRD)
        try:
            print(_summary("testserver+crds", time_testserver(args.runs, [crd])))
        except Exception as err:  # noqa: BLE001 - a server without CRDs: say so, measure the rest
            print(f"{'testserver+crds':18s} not measured: {str(err).splitlines()[0][:160]}")
    print(f"{'reset (20 objects)':18s} {time_reset(20) * 1000:7.1f} ms")
    if not args.no_cli:
        print(_summary("cli", time_cli(args.runs)))


if __name__ == "__main__":
    main()
