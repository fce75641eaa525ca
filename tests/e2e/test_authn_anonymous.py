"""The real server with anonymous access off (set through ORCH_ANONYMOUS_AUTH): no credentials, no service."""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from . import REPO_ROOT, RunningServer, server_env, start_server

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def closed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = start_server(tmp_path_factory.mktemp("closed"), env={"ORCH_ANONYMOUS_AUTH": "false"})
    yield running
    running.stop()


def test_requests_without_credentials_are_401(closed_server: RunningServer) -> None:
    with closed_server.new_session(cert=None) as anonymous:
        for path in ("/readyz", "/api/v1/namespaces", "/version"):
            response = anonymous.get(path)
            assert response.status_code == 401, path
            assert response.json()["reason"] == "Unauthorized"
    assert closed_server.get("/api/v1/namespaces").status_code == 200  # the admin certificate still works


def test_kubectl_without_credentials_is_refused(closed_server: RunningServer, kubectl: str) -> None:
    result = subprocess.run(
        [
            kubectl,
            "--kubeconfig",
            "/dev/null",
            "--server",
            closed_server.url,
            "--certificate-authority",
            str(closed_server.ca_file),
            "get",
            "namespaces",
        ],
        check=False,
        cwd=REPO_ROOT,
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode != 0
    # on a 401 without credentials kubectl asks for a user name (and finds no input)
    assert "Unauthorized" in result.stderr or "Please enter Username" in result.stdout


def test_the_signing_key_was_made_at_start_up(closed_server: RunningServer) -> None:
    key = Path(closed_server.data_dir) / "pki" / "sa.key"
    assert key.exists() and stat.S_IMODE(os.stat(key).st_mode) == 0o600
