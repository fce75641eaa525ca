"""Memory per CRD (issue 38 item 10): worker RSS while three projects' CRDs and examples are applied, and deleted.

    python bench/crd_memory_bench.py                      # both backends, 2 workers, kubectl apply --server-side
    python bench/crd_memory_bench.py --backend sqlite --json out.json
    python bench/crd_memory_bench.py --in-process         # tracemalloc: what one worker keeps per CRD, and why

Real server (`--api-domain k8s.io`, the CRD files are unmodified): read every gunicorn worker's VmRSS after a
warm-up, then after applying each project's CRDs with the stock kubectl (`apply --server-side`, waiting until they
are Established and every worker serves them, then fetching /openapi/v2 and every /openapi/v3 group version on
several connections as kubectl and clients do), after creating one example object of each kind, and after
deleting the examples and the CRDs. (after - before) / CRDs of a project is its cost per CRD, per worker.

`--in-process` builds the app as tests/conftest.py does (SQLite, no background threads) and compares tracemalloc
snapshots around each CRD's establishment and the documents built for it, so the holders are named by module.
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    Conn,
    add_server_args,
    backends,
    bench_server,
    create_configmaps,
    ensure_namespace,
    header,
    health,
    rss_kib,
    worker_pids,
    write_json,
)
from tests.e2e import RunningServer

DATA = Path(__file__).resolve().parents[1] / "tests" / "e2e" / "data"
PROJECTS: dict[str, list[Path]] = {
    "cert-manager": sorted((DATA / "crds").glob("cert-manager.io_*.yaml")),
    "prometheus-operator": [
        *sorted((DATA / "crds").glob("monitoring.coreos.com_*.yaml")),
        DATA / "large-crds" / "monitoring.coreos.com_alertmanagers.yaml",
        DATA / "alertmanagerconfigs" / "monitoring.coreos.com_alertmanagerconfigs.yaml",
    ],
    "argo-cd": [DATA / "argo-cd" / "install.yaml"],
}
EXAMPLE_NS = "examples"
ARGO_NS = "argocd"  # install.yaml's namespaced objects carry no namespace: kubectl's -n puts them here
EXAMPLES: list[dict[str, Any]] = [
    {"apiVersion": "monitoring.coreos.com/v1", "kind": "Alertmanager", "metadata": {"name": "main"}, "spec": {}},
    {
        "apiVersion": "monitoring.coreos.com/v1alpha1",
        "kind": "AlertmanagerConfig",
        "metadata": {"name": "web"},
        "spec": {"route": {"receiver": "null"}, "receivers": [{"name": "null"}]},
    },
    {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "AppProject",
        "metadata": {"name": "team"},
        "spec": {"sourceRepos": ["*"], "destinations": [{"namespace": "*", "server": "*"}]},
    },
    {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "guestbook"},
        "spec": {
            "project": "team",
            "source": {"repoURL": "https://example.test/apps.git", "path": "guestbook", "targetRevision": "HEAD"},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": "guestbook"},
        },
    },
]


def crds_of(paths: list[Path]) -> list[dict[str, Any]]:
    from orch_apiserver import goyaml

    docs = [doc for path in paths for doc in goyaml.load_all(path.read_text())]
    return [doc for doc in docs if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition"]


def examples() -> list[dict[str, Any]]:
    from tests.e2e.test_real_world_crds import OBJECTS

    return [*OBJECTS, *EXAMPLES]


def kubectl(server: RunningServer, *args: str, stdin: str = "") -> str:
    done = subprocess.run(
        ["kubectl", "--kubeconfig", str(server.kubeconfig), *args],
        input=stdin,
        text=True,
        capture_output=True,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"kubectl {' '.join(args)}: {done.stderr.strip()[:500]}")
    return done.stdout


def poll(check: Callable[[], bool], timeout: float = 60.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.2)


def served_path(crd: dict[str, Any]) -> str:
    spec = crd["spec"]
    version = next(v["name"] for v in spec["versions"] if v.get("storage"))
    where = f"namespaces/{EXAMPLE_NS}/" if spec.get("scope") == "Namespaced" else ""
    return f"/apis/{spec['group']}/{version}/{where}{spec['names']['plural']}"


def on_every_worker(server: RunningServer, path: str, connections: int = 8) -> list[int]:
    """GET `path` on several fresh connections (gunicorn spreads them over the workers): every worker serves it."""
    statuses = []
    for _ in range(connections):
        conn = Conn(server, timeout=300)
        try:
            statuses.append(conn.request("GET", path)[0])
        finally:
            conn.close()
    return statuses


def fetch_documents(server: RunningServer) -> None:
    """What kubectl and clients read after CRDs change: discovery, /openapi/v2 and every /openapi/v3 document."""
    on_every_worker(server, "/apis")
    on_every_worker(server, "/openapi/v2")
    conn = Conn(server, timeout=300)
    try:
        _, body = conn.request("GET", "/openapi/v3")
    finally:
        conn.close()
    for path in json.loads(body).get("paths", {}):
        on_every_worker(server, f"/openapi/v3/{path}", connections=4)


def workers_rss(server: RunningServer, settle: float) -> dict[str, Any]:
    time.sleep(settle)  # let the workers' background threads finish what the last step started
    pids = worker_pids(server)
    per = {pid: rss_kib(pid) for pid in pids}
    return {"workers_kib": per, "master_kib": rss_kib(server.process.pid), "total_kib": sum(per.values())}


def show(step: str, state: dict[str, Any]) -> None:
    workers = ", ".join(f"{kib / 1024:.0f}" for kib in state["workers_kib"].values())
    print(
        f"  {step:<34} workers [{workers}] MiB, sum {state['total_kib'] / 1024:.0f}, master "
        f"{state['master_kib'] / 1024:.0f}",
        flush=True,
    )


def run_server(server: RunningServer, settle: float) -> dict[str, Any]:
    conn = Conn(server, timeout=300)
    for name in (EXAMPLE_NS, ARGO_NS):
        ensure_namespace(conn, name)
    create_configmaps(server, 64, 200, threads=16, namespace=EXAMPLE_NS, prefix="warm")  # every worker warmed up
    fetch_documents(server)
    steps = {"baseline": workers_rss(server, settle)}
    show("baseline", steps["baseline"])
    counts = {}
    previous = steps["baseline"]
    for project, paths in PROJECTS.items():
        crds = crds_of(paths)
        counts[project] = len(crds)
        for path in paths:
            kubectl(server, "apply", "--server-side", "-n", ARGO_NS, "-f", str(path))
        for crd in crds:
            kubectl(server, "wait", "--for", "condition=established", f"crd/{crd['metadata']['name']}", "--timeout=60s")
            poll(lambda crd=crd: set(on_every_worker(server, served_path(crd))) == {200}, what=served_path(crd))
        fetch_documents(server)
        state = steps[project] = workers_rss(server, settle)
        show(f"{project} ({len(crds)} CRDs)", state)
        per_crd = {
            pid: (kib - previous["workers_kib"].get(pid, kib)) / 1024 / len(crds)
            for pid, kib in state["workers_kib"].items()
        }
        state["mib_per_crd_per_worker"] = per_crd
        print("    MiB per CRD per worker: " + ", ".join(f"{v:.1f}" for v in per_crd.values()))
        previous = state
    for obj in examples():
        kubectl(server, "apply", "--server-side", "-n", EXAMPLE_NS, "-f", "-", stdin=json.dumps(obj))
    fetch_documents(server)
    steps["examples"] = workers_rss(server, settle)
    show("examples (8 objects)", steps["examples"])
    kubectl(
        server,
        "delete",
        "-n",
        EXAMPLE_NS,
        "-f",
        "-",
        stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": examples()}),
    )
    names = [crd["metadata"]["name"] for paths in PROJECTS.values() for crd in crds_of(paths)]
    kubectl(server, "delete", "crd", *names, "--wait=true", "--timeout=120s")
    fetch_documents(server)
    steps["deleted"] = workers_rss(server, settle)
    show("CRDs and examples deleted", steps["deleted"])
    print(f"  health: {health(server)}")
    conn.close()
    return {"crds": counts, "steps": steps}


# -- in process: who holds what ------------------------------------------------------------------------


def run_in_process(frames: int, top: int) -> dict[str, Any]:
    """tracemalloc around each CRD of the three projects, in one app as the tests build it."""
    from orch_apiserver.context import services
    from orch_apiserver.storage import schema

    from tests.conftest import admin_app

    crds = [(project, crd) for project, paths in PROJECTS.items() for crd in crds_of(paths)]
    tmp = Path(tempfile.mkdtemp(prefix="orch-crd-mem-"))
    url = f"sqlite:///{tmp}/orch.db"
    schema.upgrade(url)
    app = admin_app(url, tmp, API_DOMAIN="k8s.io", BACKGROUND=False)
    client = app.test_client()
    base = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

    def documents() -> None:
        client.get("/apis")
        client.get("/openapi/v2")
        for path in client.get("/openapi/v3").get_json()["paths"]:
            client.get(f"/openapi/v3/{path}")

    def snapshot() -> tracemalloc.Snapshot:
        gc.collect()
        return tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])

    tracemalloc.start(frames)  # before the first documents: what a CRD's change frees is then counted too
    documents()
    first = previous = snapshot()
    per_crd: list[dict[str, Any]] = []
    for project, crd in crds:
        made = client.post(base, json=crd)
        assert made.status_code == 201, made.get_json()
        body = made.get_json()
        body["status"] = {
            "acceptedNames": crd["spec"]["names"],
            "conditions": [{"type": "Established", "status": "True", "reason": "Bench", "message": ""}],
        }
        assert client.put(f"{base}/{crd['metadata']['name']}/status", json=body).status_code == 200
        assert client.get(served_path(crd)).status_code == 200
        del made, body  # the last responses are not what the worker keeps
        documents()
        now = snapshot()
        diff = now.compare_to(previous, "filename")
        kept = sum(d.size_diff for d in diff) / 2**20
        holders = {d.traceback[0].filename.rsplit("/app/", 1)[-1]: d.size_diff / 2**20 for d in diff[:top]}
        print(
            f"  {project:<20} {crd['metadata']['name']:<45} kept {kept:6.2f} MiB: "
            + ", ".join(f"{k} {v:.2f}" for k, v in holders.items() if abs(v) >= 0.05),
            flush=True,
        )
        per_crd.append({"project": project, "crd": crd["metadata"]["name"], "kept_mib": kept, "holders": holders})
        previous = now
    total = sum(d.size_diff for d in previous.compare_to(first, "filename")) / 2**20
    print(f"  all {len(crds)} CRDs: {total:.1f} MiB kept")
    for crd in reversed([c for _, c in crds]):
        path = f"{base}/{crd['metadata']['name']}"
        assert client.delete(path).status_code == 200
        left = client.get(path)
        if left.status_code == 200:  # no CRD controller runs here: drop its finalizer as the controller would
            body = left.get_json()
            body["metadata"]["finalizers"] = []
            assert client.put(path, json=body).status_code == 200
    with app.app_context():
        services().catalog.catch_up()
    documents()
    after = sum(d.size_diff for d in snapshot().compare_to(first, "filename")) / 2**20
    print(f"  after deleting them: {after:.1f} MiB still held")
    tracemalloc.stop()
    app.extensions["orch.stop"]()
    return {"per_crd": per_crd, "total_mib": total, "after_delete_mib": after}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_server_args(parser, workers=2, threads=32)
    parser.add_argument("--settle", type=float, default=3.0, help="seconds to wait before each RSS reading")
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment for the server (e.g. MALLOC_ARENA_MAX=2); repeatable",
    )
    parser.add_argument("--in-process", action="store_true", help="tracemalloc in one in-process app instead")
    parser.add_argument("--frames", type=int, default=1, help="tracemalloc frames kept (--in-process)")
    parser.add_argument("--top", type=int, default=6, help="holders shown per CRD (--in-process)")
    args = parser.parse_args()
    results: dict[str, Any] = {"info": header("crd_memory_bench"), "args": vars(args), "backends": {}}
    if args.in_process:
        results["in_process"] = run_in_process(args.frames, args.top)
        write_json(args.json, results)
        return 0
    for backend in backends(args.backend):
        print(f"\n## {backend}: {args.workers} workers x {args.threads} threads")
        extra = ["--api-domain", "k8s.io"]
        env = dict(item.split("=", 1) for item in args.server_env)
        with bench_server(backend, args.workers, args.threads, extra=extra, keep=args.keep, env=env) as server:
            results["backends"][backend] = run_server(server, args.settle)
    write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
