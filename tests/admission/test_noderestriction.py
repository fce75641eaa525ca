"""NodeRestriction in process, through HTTP with static tokens (nodes n1 and n2, an unidentifiable node, a
system:nodes member that is no node): the refusals tests/e2e/test_node_authorizer.py does not make, each with
the reference's message, and who is not restricted."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver.naming import Naming

from tests.conftest import make_app

NAMING = Naming()
USERS = {
    "admin": ("admin", "system:masters"),
    "n1": ("system:node:n1", "system:nodes"),
    "n2": ("system:node:n2", "system:nodes"),
    "nameless": ("system:node:", "system:nodes"),
    "member": ("agent", "system:nodes,system:masters"),
}
PODS = "/api/v1/namespaces/default/pods"
MERGE = {"Content-Type": "application/merge-patch+json"}


def as_user(name: str, **headers: str) -> dict[str, str]:
    return {"Authorization": f"Bearer token-{name}", **headers}


@pytest.fixture
def api(sqlite_url: str, tmp_path: Path) -> Iterator[Any]:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text("".join(f'token-{n},{user},uid-{n},"{groups}"\n' for n, (user, groups) in USERS.items()))
    app = make_app(sqlite_url, tmp_path, TOKEN_AUTH_FILE=str(tokens))  # the default Node,RBAC
    yield app.test_client()
    app.extensions["orch.stop"]()


def refused(answer: Any, message: str) -> None:
    assert answer.status_code == 403, answer.get_json()
    assert answer.get_json()["message"] == message


def _pod(api: Any, name: str, node: str, **spec: object) -> dict:
    body = {"metadata": {"name": name}, "spec": {"nodeName": node, "containers": [{"name": "c", "image": "i"}], **spec}}
    made = api.post(PODS, json=body, headers=as_user("admin"))
    assert made.status_code == 201, made.get_json()
    return made.get_json()


def test_tokens_evictions_and_pod_updates_only_for_pods_bound_to_the_node(api: Any) -> None:
    account = {"metadata": {"name": "sa"}}
    assert (
        api.post("/api/v1/namespaces/default/serviceaccounts", json=account, headers=as_user("admin")).status_code
        == 201
    )
    on_n2 = _pod(api, "on-n2", "n2", serviceAccountName="sa", automountServiceAccountToken=False)
    on_n1 = _pod(api, "on-n1", "n1", serviceAccountName="sa", automountServiceAccountToken=False)
    token = "/api/v1/namespaces/default/serviceaccounts/sa/token"

    def request(ref: dict | None) -> dict:
        return {
            "apiVersion": f"{NAMING.group('authentication')}/v1",
            "kind": "TokenRequest",
            "spec": {"boundObjectRef": ref},
        }

    ref = {"apiVersion": "v1", "kind": "Pod", "name": "on-n1"}
    refused(
        api.post(token, json=request(None), headers=as_user("n1")),
        'serviceaccounts "sa" is forbidden: node requested token not bound to a pod',
    )
    refused(
        api.post(token, json=request(ref), headers=as_user("n1")),
        'serviceaccounts "sa" is forbidden: node requested token with a pod binding without a uid',
    )
    assert (
        api.post(token, json=request({**ref, "uid": on_n1["metadata"]["uid"]}), headers=as_user("n1")).status_code
        == 201
    )
    # n2 has the edge to the account through its own pod, so it is admission that refuses a pod on n1
    other = {**ref, "uid": on_n1["metadata"]["uid"]}
    refused(
        api.post(token, json=request(other), headers=as_user("n2")),
        'serviceaccounts "sa" is forbidden: node requested token bound to a pod scheduled on a different node',
    )
    assert on_n2

    eviction = {"apiVersion": f"{NAMING.group('policy')}/v1", "kind": "Eviction", "metadata": {"name": "on-n2"}}
    refused(
        api.post(f"{PODS}/on-n2/eviction", json=eviction, headers=as_user("n1")),
        'pods "on-n2" is forbidden: node n1 can only evict pods with spec.nodeName set to itself',
    )
    refused(
        api.patch(f"{PODS}/on-n1", json={"metadata": {"labels": {"a": "b"}}}, headers=as_user("n1", **MERGE)),
        # the system:node rules do not let it get so far
        'pods "on-n1" is forbidden: User "system:node:n1" cannot patch resource "pods" in API group "" in the '
        'namespace "default"',
    )


def test_mirror_pods_reference_nothing_and_claims_change_only_their_status(api: Any) -> None:
    assert api.post("/api/v1/nodes", json={"metadata": {"name": "n1"}}, headers=as_user("n1")).status_code == 201
    uid = api.get("/api/v1/nodes/n1", headers=as_user("admin")).get_json()["metadata"]["uid"]
    owner = {"apiVersion": "v1", "kind": "Node", "name": "n1", "uid": uid, "controller": True}
    mirror = {
        "metadata": {"name": "m", "annotations": {NAMING.key("config.mirror"): "x"}, "ownerReferences": [owner]},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i"}]},
    }
    with_secret = {**mirror, "spec": {**mirror["spec"], "volumes": [{"name": "s", "secret": {"secretName": "s"}}]}}
    refused(
        api.post(PODS, json=with_secret, headers=as_user("n1")),
        'pods "m" is forbidden: node "n1" can not create pods that reference secrets',
    )
    stray = {**mirror, "metadata": {**mirror["metadata"], "ownerReferences": [{**owner, "uid": "other"}]}}
    refused(
        api.post(PODS, json=stray, headers=as_user("n1")),
        f'pods "m" is forbidden: node n1 UID mismatch: expected other got {uid}',
    )
    unowned = {**mirror, "metadata": {**mirror["metadata"], "ownerReferences": [{**owner, "controller": False}]}}
    refused(
        api.post(PODS, json=unowned, headers=as_user("n1")),
        'pods "m" is forbidden: node "n1" can only create pods with a controller owner reference set to itself',
    )

    claim = {
        "metadata": {"name": "c"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    claims = "/api/v1/namespaces/default/persistentvolumeclaims"
    assert api.post(claims, json=claim, headers=as_user("admin")).status_code == 201
    _pod(api, "user", "n1", volumes=[{"name": "c", "persistentVolumeClaim": {"claimName": "c"}}])
    status = {"status": {"conditions": [{"type": "Resizing", "status": "True"}]}}
    assert api.patch(f"{claims}/c/status", json=status, headers=as_user("n1", **MERGE)).status_code == 200
    refused(
        api.patch(f"{claims}/c/status", json={"status": {"phase": "Lost"}}, headers=as_user("n1", **MERGE)),
        'persistentvolumeclaims "c" is forbidden: node "n1" is not allowed to update fields other than '
        "status.capacity and status.conditions: status.phase",
    )


def test_who_is_restricted(api: Any) -> None:
    lease = {"metadata": {"name": "x"}, "spec": {"holderIdentity": "x"}}
    leases = f"/apis/{NAMING.group('coordination')}/v1/namespaces/{NAMING.node_lease_namespace}/leases"
    refused(
        api.post(leases, json=lease, headers=as_user("nameless")),
        # the Node mode has no opinion on an unidentifiable node and RBAC grants it nothing
        'leases.coordination.orch.io is forbidden: User "system:node:" cannot create resource "leases" in API '
        f'group "coordination.orch.io" in the namespace "{NAMING.node_lease_namespace}": '
        'unknown node for user "system:node:"',
    )
    # a member of system:nodes whose name is no node's is not a node: here an admin, unrestricted
    assert api.post(leases, json=lease, headers=as_user("member")).status_code == 201
    assert (
        api.post(
            "/api/v1/nodes",
            json={"metadata": {"name": "n9", "labels": {"node-restriction.orch.io/a": "b"}}},
            headers=as_user("member"),
        ).status_code
        == 201
    )
