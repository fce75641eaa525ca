"""Server-side apply of large real-world manifests (issue 38 item 8), against the real server and stock kubectl.

    python bench/ssa_bench.py [--backend sqlite|postgresql|both] [--runs 5] [--json FILE]
    python bench/ssa_bench.py --in-process [--backend sqlite] [--runs 7] [--profile NAME-SUBSTRING]

--in-process: the Flask app in this process (SQLite file, or a scratch PostgreSQL database), each CRD applied once
then re-applied unchanged `--runs` times as kubectl sends it; prints the median CPU seconds (this process) per
no-op apply, and with --profile the cProfile of one no-op apply of the first CRD whose name contains it.

Each backend gets two fresh servers (`--api-domain k8s.io`, so stock kubectl finds apiextensions.k8s.io):
  server 1: (c) argo-cd's install.yaml with `kubectl apply --server-side` on an empty server, then (a) every large
            CRD of tests/e2e/data applied server-side once and re-applied unchanged (a no-op apply) `--runs` times,
            as kubectl sends it (a PATCH of application/apply-patch+yaml with a JSON body, fieldManager=kubectl),
            plus one `kubectl apply --server-side` of the same file (kubectl's start-up and discovery included);
  server 2: (c) the same install.yaml with client-side `kubectl apply`, then (b) each CRD moved from client-side to
            server-side apply (`kubectl apply --server-side` on what client-side apply created; kubectl then moves
            the client-side manager's fields to its own, as upstream kubectl does), then the rest of the install
            (with --force-conflicts, as argo-cd's upgrade guide says: defaulted atomic fields conflict otherwise).
A CRD whose client-side apply is refused (a last-applied annotation over 256 KiB) has no (b) figure. Each figure is
wall seconds and the server's CPU seconds (all its processes), with the machine's load average: this machine is
shared, so compare CPU seconds, or wall times taken at a similar load. Run by hand; no assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from orch_apiserver.goyaml import load_all

from bench.common import (
    REPO_ROOT,
    Conn,
    RunningServer,
    add_server_args,
    backends,
    bench_server,
    server_cpu,
    wait_for_quiet,
)

DATA = REPO_ROOT / "tests" / "e2e" / "data"
INSTALL = DATA / "argo-cd" / "install.yaml"
CRD_FILES = sorted(
    [*DATA.glob("crds/*.yaml"), *DATA.glob("large-crds/*.yaml"), *DATA.glob("alertmanagerconfigs/*.yaml")]
)
NAMESPACE = "argocd"
CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
TOKEN = "bench-token"


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f}"


def _crds() -> list[tuple[str, dict[str, Any]]]:
    """(source, CRD) for argo-cd's CRDs (from install.yaml) and each CRD file of tests/e2e/data."""
    out = [
        (f"argo-cd/install.yaml#{doc['metadata']['name']}", doc)
        for doc in yaml.safe_load_all(INSTALL.read_text())
        if doc and doc.get("kind") == "CustomResourceDefinition"
    ]
    for path in CRD_FILES:
        for doc in load_all(path.read_text()):  # go-yaml's rules: `- =` is the string "=" there
            if doc and doc.get("kind") == "CustomResourceDefinition":
                out.append((str(path.relative_to(DATA)), doc))
    return out


@dataclass
class Took:
    """Wall seconds, and the server's CPU seconds (all its processes): the latter is what to compare on a busy
    machine, where other processes stretch wall times."""

    wall: float
    cpu: float
    ok: bool = True
    error: str = ""

    def __str__(self) -> str:
        text = f"{self.wall:6.2f} s wall, {self.cpu:6.2f} s server CPU"
        return text if self.ok else f"FAILED ({text}): {self.error[-300:]}"


def measured(server: RunningServer, call: Callable[[], Any]) -> tuple[Any, Took]:
    cpu0, started = server_cpu(server), time.monotonic()
    result = call()
    return result, Took(time.monotonic() - started, server_cpu(server) - cpu0)


class Kubectl:
    def __init__(self, server: RunningServer) -> None:
        self.server = server
        self.cache = Path(tempfile.mkdtemp(prefix="orch-bench-kubecache-"))

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = ["kubectl", "--kubeconfig", str(self.server.kubeconfig), "--cache-dir", str(self.cache), *args]
        return subprocess.run(command, text=True, capture_output=True, timeout=900, check=False)

    def timed(self, *args: str) -> Took:
        done, took = measured(self.server, lambda: self.run(*args))
        if done.returncode:
            took.ok, took.error = False, done.stderr.strip()
        return took

    def close(self) -> None:
        shutil.rmtree(self.cache, ignore_errors=True)


def _apply(conn: Conn, name: str, body: bytes) -> None:
    """One server-side apply as kubectl sends it (its JSON, fieldManager=kubectl, strict field validation)."""
    conn._connect()
    assert conn.http is not None
    conn.http.request(
        "PATCH",
        f"{CRD_PATH}/{name}?fieldManager=kubectl&fieldValidation=Strict",
        body=body,
        headers={"Content-Type": "application/apply-patch+yaml", "Accept": "application/json"},
    )
    resp = conn.http.getresponse()
    data = resp.read()
    conn.last_used = time.monotonic()
    if resp.status not in (200, 201):
        raise RuntimeError(f"apply of {name}: HTTP {resp.status} {data[:400]!r}")


def _write(doc: dict[str, Any], directory: Path) -> Path:
    path = directory / f"{doc['metadata']['name']}.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def _record(results: dict[str, Any], key: str, took: Took) -> Took:
    results[key] = {"wall_s": took.wall, "server_cpu_s": took.cpu, "ok": took.ok}
    return took


def server_side(backend: str, args: argparse.Namespace, results: dict[str, Any]) -> None:
    with bench_server(backend, args.workers, args.threads, ["--api-domain", "k8s.io"], keep=args.keep) as server:
        kubectl, scratch = Kubectl(server), Path(tempfile.mkdtemp(prefix="orch-bench-ssa-"))
        conn = Conn(server)
        try:
            kubectl.run("create", "namespace", NAMESPACE)
            wait_for_quiet(args.quiet_wait)
            took = kubectl.timed("apply", "--server-side", "-n", NAMESPACE, "-f", str(INSTALL))
            print(
                f"  (c) install.yaml, kubectl apply --server-side: {_record(results, 'install_ssa', took)}  ({_load()})"
            )
            print(f"  (a) no-op server-side apply, per request (PATCH as kubectl sends it; mean of {args.runs})")
            for source, doc in _crds():
                name, body = doc["metadata"]["name"], json.dumps(doc).encode()
                _, first = measured(server, lambda: _apply(conn, name, body))  # noqa: B023 - called at once
                wait_for_quiet(args.quiet_wait)
                _, noop = measured(server, lambda: [_apply(conn, name, body) for _ in range(args.runs)])  # noqa: B023
                noop = Took(noop.wall / args.runs, noop.cpu / args.runs)
                by_kubectl = kubectl.timed("apply", "--server-side", "-f", str(_write(doc, scratch)))
                results.setdefault("noop", {})[source] = {
                    "bytes": len(body),
                    "first": {"wall_s": first.wall, "server_cpu_s": first.cpu},
                    "noop": {"wall_s": noop.wall, "server_cpu_s": noop.cpu},
                    "kubectl_noop": {"wall_s": by_kubectl.wall, "server_cpu_s": by_kubectl.cpu, "ok": by_kubectl.ok},
                }
                print(
                    f"      {source:68} {len(body) / 1024:4.0f} KiB  first: {first}\n{'':82}no-op: {noop}\n"
                    f"{'':76}kubectl no-op: {by_kubectl}  ({_load()})",
                    flush=True,
                )
        finally:
            conn.close()
            kubectl.close()
            shutil.rmtree(scratch, ignore_errors=True)


def client_side_then_move(backend: str, args: argparse.Namespace, results: dict[str, Any]) -> None:
    with bench_server(backend, args.workers, args.threads, ["--api-domain", "k8s.io"], keep=args.keep) as server:
        kubectl, scratch = Kubectl(server), Path(tempfile.mkdtemp(prefix="orch-bench-csa-"))
        try:
            kubectl.run("create", "namespace", NAMESPACE)
            wait_for_quiet(args.quiet_wait)
            took = kubectl.timed("apply", "-n", NAMESPACE, "-f", str(INSTALL))
            failed = [line for line in took.error.splitlines() if line.strip()]
            took.ok = True  # kubectl applied the rest; the refused objects are listed
            print(
                f"  (c) install.yaml, kubectl apply (client-side): {_record(results, 'install_csa', took)}  ({_load()})"
                + (f"\n      {len(failed)} refused, first: {failed[0][:160]}" if failed else "")
            )
            print("  (b) each CRD moved from client-side to server-side apply (kubectl apply --server-side)")
            moves: dict[str, Any] = results.setdefault("move", {})
            for source, doc in _crds():
                path = _write(doc, scratch)
                if not source.startswith("argo-cd/"):
                    created = kubectl.run("apply", "-f", str(path))
                    if created.returncode:
                        print(f"      {source:68} client-side apply refused: {created.stderr.strip()[-110:]}")
                        continue
                wait_for_quiet(args.quiet_wait)
                took = kubectl.timed("apply", "--server-side", "-f", str(path))
                print(f"      {source:68} {_record(moves, source, took)}")
            wait_for_quiet(args.quiet_wait)
            took = kubectl.timed("apply", "--server-side", "--force-conflicts", "-n", NAMESPACE, "-f", str(INSTALL))
            print(
                "  (b) the rest of install.yaml moved, --server-side --force-conflicts (argo-cd's upgrade guide): "
                f"{_record(results, 'install_move', took)}  ({_load()})"
            )
        finally:
            kubectl.close()
            shutil.rmtree(scratch, ignore_errors=True)


def _in_process_app(url: str, data_dir: Path) -> Any:
    from orch_apiserver import create_app
    from orch_apiserver.storage.schema import ensure_schema

    tokens = data_dir / "tokens.csv"
    tokens.write_text(f'{TOKEN},bench,1,"system:masters"\n')
    ensure_schema(url, upgrade=True)
    settings = {"DATABASE_URL": url, "DATA_DIR": str(data_dir), "TOKEN_AUTH_FILE": str(tokens), "API_DOMAIN": "k8s.io"}
    return create_app(settings)


def _in_process_run(url: str, args: argparse.Namespace) -> None:
    import cProfile
    import pstats
    import statistics

    data_dir = Path(tempfile.mkdtemp(prefix="orch-bench-ssa-inproc-"))
    app = _in_process_app(url, data_dir)
    client = app.test_client()
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/apply-patch+yaml"}
    try:
        for source, doc in _crds():
            name, body = doc["metadata"]["name"], json.dumps(doc).encode()
            path = f"{CRD_PATH}/{name}?fieldManager=kubectl&fieldValidation=Strict"

            def apply() -> None:
                resp = client.patch(path, data=body, headers=headers)  # noqa: B023 - called at once
                if resp.status_code not in (200, 201):
                    raise RuntimeError(f"apply of {name}: {resp.status_code} {resp.get_data()[:300]!r}")  # noqa: B023

            apply()
            times = []
            for _ in range(args.runs):
                cpu0 = time.process_time()
                apply()
                times.append(time.process_time() - cpu0)
            print(f"  {source:68} {len(body) / 1024:5.0f} KiB  no-op: {statistics.median(times):.3f} s CPU (median)")
            if args.profile and args.profile in name:
                profiler = cProfile.Profile()
                profiler.runcall(apply)
                pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
                args.profile = None
    finally:
        app.extensions["orch.stop"]()
        shutil.rmtree(data_dir, ignore_errors=True)


def in_process(args: argparse.Namespace) -> None:
    for backend in backends(args.backend):
        print(f"== {backend}, in process ({_load()})", flush=True)
        if backend == "sqlite":
            with tempfile.TemporaryDirectory(prefix="orch-bench-ssa-db-") as directory:
                _in_process_run(f"sqlite:///{directory}/orch.db", args)
        else:
            from tests.e2e import scratch_database

            with scratch_database() as url:
                _in_process_run(url, args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_server_args(parser)
    parser.add_argument("--runs", type=int, default=5, help="no-op applies per CRD")
    parser.add_argument("--in-process", action="store_true", help="the app in this process, CPU time per no-op")
    parser.add_argument("--profile", help="--in-process: cProfile one no-op apply of this CRD (name substring)")
    args = parser.parse_args()
    if args.in_process:
        in_process(args)
        return
    if shutil.which("kubectl") is None:
        sys.exit("kubectl is not on PATH")
    everything: dict[str, Any] = {"commit": os.environ.get("BENCH_COMMIT", "work tree")}
    for backend in backends(args.backend):
        results: dict[str, Any] = {}
        print(f"== {backend} ({_load()}, {os.cpu_count()} cores)", flush=True)
        server_side(backend, args, results)
        client_side_then_move(backend, args, results)
        ssa, csa = results["install_ssa"], results["install_csa"]
        print(
            f"  install.yaml server-side / client-side: {ssa['wall_s'] / csa['wall_s']:.2f}x wall, "
            f"{ssa['server_cpu_s'] / csa['server_cpu_s']:.2f}x server CPU"
        )
        everything[backend] = results
    if args.json:
        Path(args.json).write_text(json.dumps(everything, indent=2))


if __name__ == "__main__":
    main()
