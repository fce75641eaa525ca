"""`orch-apiserver pki init` and a first start that trusts the front-proxy CA it creates (README.md's proxy recipe
without a start, stop and second start)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path

import pytest
from orch_apiserver import pki
from orch_apiserver.storage.schema import ensure_schema

from . import REPO_ROOT, ApiSession, scratch_database, server_env, start_server


def test_pki_init_prepares_without_a_database_and_keeps_what_it_made(tmp_path: Path):
    data = tmp_path / "data"
    command = [
        sys.executable,
        "-m",
        "orch_apiserver.cli",
        "pki",
        "init",
        "--data-dir",
        str(data),
        "--tls-san",
        "orch.example.com",
        "--database-url",
        "postgresql+psycopg://nobody@127.0.0.1:1/none",  # never reached: pki init touches no database
    ]

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            command, cwd=REPO_ROOT, env=server_env(), capture_output=True, text=True, timeout=120, check=False
        )

    first = run()
    assert first.returncode == 0, first.stderr
    assert "serving certificate: 127.0.0.1, localhost, orch.example.com" in first.stdout
    assert f"admin credentials for https://127.0.0.1:6443 in {data / 'admin.kubeconfig'}" in first.stdout
    kept = ("ca.crt", "serving.crt", "front-proxy-ca.crt", "front-proxy-client.crt", "sa.key")
    before = {name: (data / "pki" / name).read_bytes() for name in kept}
    again = run()
    assert again.returncode == 0, again.stderr
    assert before == {name: (data / "pki" / name).read_bytes() for name in kept}


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_a_first_start_trusts_the_front_proxy_ca_it_creates(tmp_path: Path, store: str):
    data = tmp_path / "data"
    with contextlib.ExitStack() as stack:
        url = None
        if store == "postgresql":
            url = stack.enter_context(scratch_database())
            ensure_schema(url, upgrade=True)
        server = start_server(
            data,
            [
                "--requestheader-client-ca-file",
                str(data / "pki" / "front-proxy-ca.crt"),
                "--requestheader-username-headers",
                "X-Remote-User",
                "--requestheader-group-headers",
                "X-Remote-Group",
            ],
            database_url=url,
        )
        stack.callback(server.stop)
        front_proxy = (str(data / "pki" / "front-proxy-client.crt"), str(data / "pki" / "front-proxy-client.key"))
        assert pki.signed_by(
            pki.load_certificates(front_proxy[0])[0], pki.load_certificates(str(data / "pki" / "front-proxy-ca.crt"))[0]
        )
        proxy = ApiSession(server.url, str(server.ca_file), front_proxy)
        proxy.headers["X-Remote-User"] = "jane"
        refused = proxy.get("/api/v1/namespaces")
        assert refused.status_code == 403, refused.text
        assert 'User "jane" cannot list resource "namespaces"' in refused.json()["message"]
        proxy.headers["X-Remote-Group"] = "system:masters"
        assert proxy.get("/api/v1/namespaces").status_code == 200
