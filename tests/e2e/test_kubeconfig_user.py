"""Onboarding a second person: `orch-apiserver kubeconfig user NAME --group G` and kubectl with the result."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from . import REPO_ROOT, RunningServer


def _kubeconfig_user(server: RunningServer, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "orch_apiserver.cli",
            "kubeconfig",
            "user",
            *args,
            "--data-dir",
            str(server.data_dir),
            "--secure-port",
            str(server.port),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_user_kubeconfig_authenticates_with_its_groups(server: RunningServer, kubectl: str, tmp_path: Path):
    out = tmp_path / "alice.kubeconfig"
    done = _kubeconfig_user(server, "alice", "--group", "reviewers", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert out.stat().st_mode & 0o077 == 0  # it holds a private key

    def kubectl_get_namespaces() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [kubectl, "--kubeconfig", str(out), "get", "namespaces", "-o", "name"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    denied = kubectl_get_namespaces()
    assert denied.returncode != 0
    assert 'User "alice" cannot list resource "namespaces"' in denied.stderr
    group = next(g["name"] for g in server.get("/apis").json()["groups"] if g["name"].startswith("rbac."))
    binding = {
        "apiVersion": f"{group}/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "reviewers-view-test"},
        "roleRef": {"apiGroup": group, "kind": "ClusterRole", "name": "view"},
        "subjects": [{"apiGroup": group, "kind": "Group", "name": "reviewers"}],
    }
    created = server.session.post(f"/apis/{group}/v1/clusterrolebindings", json=binding)
    assert created.status_code == 201, created.text
    try:
        # the view role does not cover namespaces (cluster-scoped), so check what it does cover
        allowed = subprocess.run(
            [kubectl, "--kubeconfig", str(out), "get", "configmaps", "-A", "-o", "name"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert allowed.returncode == 0, allowed.stderr
    finally:
        server.session.delete(f"/apis/{group}/v1/clusterrolebindings/reviewers-view-test")


def test_stdout_and_refusals(server: RunningServer, tmp_path: Path):
    printed = _kubeconfig_user(server, "bob")
    assert printed.returncode == 0, printed.stderr
    config = yaml.safe_load(printed.stdout)
    assert config["users"][0]["name"] == "bob"
    assert config["clusters"][0]["cluster"]["server"] == server.url
    reserved = _kubeconfig_user(server, "system:admin")
    assert reserved.returncode == 2 and "reserved system: prefix" in reserved.stderr
    nowhere = subprocess.run(
        [
            sys.executable,
            "-m",
            "orch_apiserver.cli",
            "kubeconfig",
            "user",
            "carol",
            "--data-dir",
            str(tmp_path / "empty"),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert nowhere.returncode == 1 and "no cluster CA" in nowhere.stderr


def test_the_server_url_is_the_one_the_data_directory_server_advertises(any_server: RunningServer):
    """Without address flags the URL is the one the server wrote into its admin.kubeconfig (its port, not 6443)."""

    def server_of(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "orch_apiserver.cli", "kubeconfig", "user", "dave", "--data-dir"]
            + [str(any_server.data_dir), *args],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return yaml.safe_load(done.stdout)["clusters"][0]["cluster"]["server"]

    assert server_of() == any_server.url
    assert server_of("--server", "https://lb.example.com:443") == "https://lb.example.com:443"
    assert server_of("--external-hostname", "lb.example.com") == "https://lb.example.com:6443"  # flags say so
