"""`orch-apiserver backup` beside a running server and `orch-apiserver restore` once it is stopped, on both stores:
the restored server holds what was written before the backup, its revisions continue above everything handed out
before, and clients holding older resourceVersions are told to relist (410)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from . import REPO_ROOT, SHARED_SERVER_ARGS, RunningServer, scratch_database, server_env, start_server

pytestmark = pytest.mark.e2e
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "orch_apiserver.cli", *args]
    return subprocess.run(command, cwd=REPO_ROOT, env=server_env(), capture_output=True, text=True, timeout=120)


@contextlib.contextmanager
def store_of(kind: str) -> Iterator[list[str]]:
    """The flags naming a store of `kind` (beside --data-dir): none for SQLite, a scratch database's URL else."""
    if kind == "sqlite":
        yield []
        return
    from orch_apiserver.storage.schema import ensure_schema

    with scratch_database() as url:
        ensure_schema(url, upgrade=True)
        yield ["--database-url", url]


def create(server: RunningServer, name: str) -> int:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"name": name}}
    response = server.session.post(CONFIGMAPS, json=body)
    assert response.status_code == 201, response.text
    return int(response.json()["metadata"]["resourceVersion"])


def start(data: Path, store: list[str]) -> RunningServer:
    url = store[1] if store else None
    return start_server(data, SHARED_SERVER_ARGS, database_url=url)


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_backup_then_restore_with_the_cli(tmp_path: Path, kind: str):
    data, file = tmp_path / "data", tmp_path / "backup.jsonl.gz"
    with store_of(kind) as store:
        server = start(data, store)
        try:
            before = [create(server, f"before-{i}") for i in range(20)]
            made = cli("backup", str(file), "--data-dir", str(data), *store)
            assert made.returncode == 0, made.stderr
            assert "revision" in made.stdout and "pki/sa.key" in made.stdout
            after = [create(server, f"after-{i}") for i in range(5)]  # acknowledged, but not in the backup
            refused = cli("restore", str(file), "--replace", "--data-dir", str(data), *store)
            assert refused.returncode == 1
            assert "stop" in refused.stderr and "not restored" in refused.stderr
            assert "Traceback" not in refused.stderr
        finally:
            server.stop()
        handed_out = max(before + after)

        needs_replace = cli("restore", str(file), "--data-dir", str(data), *store)
        assert needs_replace.returncode == 1 and "--replace" in needs_replace.stderr
        restored = cli("restore", str(file), "--replace", "--data-dir", str(data), *store)
        assert restored.returncode == 0, restored.stderr

        server = start(data, store)
        try:
            listed = server.get(CONFIGMAPS).json()
            names = {item["metadata"]["name"] for item in listed["items"]}
            assert {f"before-{i}" for i in range(20)} <= names
            assert not any(name.startswith("after-") for name in names)
            assert int(listed["metadata"]["resourceVersion"]) > handed_out
            assert create(server, "after-restore") > handed_out

            # a client holding a resourceVersion from before the restore relists (410 Gone, reason Expired)
            exact = server.get(CONFIGMAPS, params={"resourceVersion": str(handed_out), "resourceVersionMatch": "Exact"})
            assert exact.status_code == 410, exact.text
            watch = server.get(CONFIGMAPS, params={"watch": "1", "resourceVersion": str(max(before))}, stream=True)
            with watch:
                if watch.status_code == 200:
                    event = json.loads(next(watch.iter_lines()))
                    assert event["type"] == "ERROR", event
                    status = event["object"]
                else:
                    status = watch.json()
            assert status["code"] == 410 and status["reason"] in ("Expired", "Gone"), status
        finally:
            server.stop()
