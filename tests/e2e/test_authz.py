"""RBAC end to end: kubectl as the admin (system:masters) and as a restricted user through `--as`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.e2e import RunningServer, start_server
from tests.e2e.test_kubectl import Kubectl


@pytest.fixture(scope="module")
def rbac_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = start_server(tmp_path_factory.mktemp("orch-rbac"), args=["--authorization-mode", "RBAC"])
    yield running
    running.stop()


@pytest.fixture
def kc(rbac_server: RunningServer, kubectl: str, tmp_path: Path) -> Kubectl:
    return Kubectl(kubectl, rbac_server.kubeconfig, tmp_path)


RBAC = "rbac.authorization.orch.io"


def _binding(name: str, cluster_role: str) -> dict:
    """(`kubectl create rolebinding` posts to the upstream group, so the object is written out here.)"""
    return {
        "apiVersion": f"{RBAC}/v1",
        "kind": "RoleBinding",
        "metadata": {"name": name, "namespace": "team"},
        "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": cluster_role},
        "subjects": [{"apiGroup": RBAC, "kind": "User", "name": "bob"}],
    }


def _can(kc: Kubectl, verb: str, resource: str, *extra: str) -> bool:
    """A SelfSubjectAccessReview through `kubectl create` (`kubectl auth can-i` posts to the upstream group)."""
    review = {
        "apiVersion": "authorization.orch.io/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {"verb": verb, "resource": resource, "namespace": "team"}},
    }
    out = kc.ok("create", "--validate=false", "-f", "-", "-o", "json", *extra, input=json.dumps(review))
    return json.loads(out)["status"]["allowed"]


def test_anonymous_health_checks_but_no_discovery(rbac_server: RunningServer) -> None:
    for path in ("/healthz", "/livez", "/readyz", "/version"):
        assert requests.get(rbac_server.url + path, verify=str(rbac_server.ca_file), timeout=10).status_code == 200
    response = requests.get(rbac_server.url + "/api/v1/namespaces", verify=str(rbac_server.ca_file), timeout=10)
    assert response.status_code == 403
    assert response.json()["message"] == (
        'namespaces is forbidden: User "system:anonymous" cannot list resource '
        '"namespaces" in API group "" at the cluster scope'
    )


def test_admin_and_restricted_user(kc: Kubectl) -> None:
    kc.ok("create", "namespace", "team")
    kc.ok("create", "configmap", "cfg", "-n", "team", "--from-literal=a=b")
    err = kc.fails("get", "configmaps", "-n", "team", "--as=bob")
    assert (
        'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "team"'
    ) in err
    assert _can(kc, "list", "configmaps") is True
    assert _can(kc, "list", "configmaps", "--as=bob") is False
    kc.ok("create", "--validate=false", "-f", "-", input=json.dumps(_binding("bob-view", "view")))
    assert "cfg" not in kc.fails("get", "secrets", "-n", "team", "--as=bob")
    assert "cfg" in kc.ok("get", "configmaps", "-n", "team", "--as=bob")
    assert _can(kc, "list", "pods", "--as=bob") is True
    assert _can(kc, "delete", "pods", "--as=bob") is False
    role = {
        "apiVersion": f"{RBAC}/v1",
        "kind": "Role",
        "metadata": {"name": "r", "namespace": "team"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["delete"]}],
    }
    err = kc.fails("create", "--validate=false", "-f", "-", "--as=bob", input=json.dumps(role))
    assert "forbidden" in err
