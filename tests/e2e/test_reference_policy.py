"""The reference's default RBAC policy on a real server in the k8s.io domain: the grants stock components
rely on (`kubectl auth can-i --as`), the listed ClusterRoles, and reconciliation at restart."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from tests.authz.test_reference_policy import EXPECTED_CLUSTER_ROLES, _rules

from . import RunningServer, start_server


def can_i(kubectl: str, server: RunningServer, *args: str) -> bool:
    done = subprocess.run(
        [kubectl, "--kubeconfig", str(server.kubeconfig), "auth", "can-i", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.stdout.strip() in ("yes", "no"), done.stdout + done.stderr
    return done.stdout.strip() == "yes"


@pytest.mark.parametrize(
    ("who", "question", "allowed"),
    [
        ("system:kube-scheduler", ["create", "pods", "--subresource", "binding", "-n", "default"], True),
        ("system:kube-scheduler", ["watch", "nodes"], True),
        ("system:kube-scheduler", ["delete", "nodes"], False),
        ("system:kube-proxy", ["list", "endpointslices.discovery.k8s.io", "--all-namespaces"], True),
        ("system:kube-proxy", ["get", "secrets", "-n", "default"], False),
        ("system:kube-controller-manager", ["watch", "deployments.apps", "--all-namespaces"], True),
        (
            "system:serviceaccount:kube-system:generic-garbage-collector",
            ["delete", "configmaps", "-n", "default"],
            True,
        ),
        (
            "system:serviceaccount:kube-system:namespace-controller",
            ["update", "namespaces", "--subresource", "finalize"],
            True,
        ),
        (
            "system:serviceaccount:kube-system:bootstrap-signer",
            ["update", "configmaps/cluster-info", "-n", "kube-public"],
            True,
        ),
        (
            "system:serviceaccount:kube-system:bootstrap-signer",
            ["update", "configmaps/other", "-n", "kube-public"],
            False,
        ),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_stock_components_get_their_grants(
    kubectl: str, k8s_server: RunningServer, who: str, question: list[str], allowed: bool
):
    assert can_i(kubectl, k8s_server, *question, "--as", who) is allowed


def test_a_v1_23_server_s_cluster_roles_are_listed(kubectl: str, k8s_server: RunningServer):
    listed: Any = json.loads(
        subprocess.run(
            [kubectl, "--kubeconfig", str(k8s_server.kubeconfig), "get", "clusterroles", "-o", "json"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
    )
    assert {item["metadata"]["name"] for item in listed["items"]} >= EXPECTED_CLUSTER_ROLES


def test_a_user_s_edit_of_an_autoupdated_role_is_repaired_at_restart(tmp_path):
    path = "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:kube-dns"
    kept = "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:heapster"
    server = start_server(tmp_path / "data", ["--api-domain", "k8s.io"])
    try:
        role = server.get(path).json()
        role["rules"] = []
        assert server.session.put(path, json=role).status_code == 200
        frozen = server.get(kept).json()
        frozen["rules"] = frozen["rules"][:1]
        frozen["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"] = "false"
        assert server.session.put(kept, json=frozen).status_code == 200
    finally:
        server.stop()
    server = start_server(tmp_path / "data", ["--api-domain", "k8s.io"])
    try:
        assert server.get(path).json()["rules"] == _rules("system:kube-dns")
        assert len(server.get(kept).json()["rules"]) == 1
    finally:
        server.stop()
