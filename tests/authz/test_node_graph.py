"""The Node authorizer's graph and decisions, in process on each store: which node may read what, following
writes as they are committed (edges added and removed by a pod's own change), and the reference's reasons."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from orch_apiserver.auth.authz import Attributes
from orch_apiserver.auth.node import NodeAuthorizer
from orch_apiserver.auth.node.graph import pod_edges
from orch_apiserver.naming import Naming
from orch_apiserver.user import UserInfo

from tests.conftest import _shutdown, admin_app, wait_for

NAMING = Naming()
N1 = UserInfo("system:node:n1", groups=("system:nodes", "system:authenticated"))
N2 = UserInfo("system:node:n2", groups=("system:nodes", "system:authenticated"))


def pod(name: str, node: str | None, **spec: object) -> dict:
    body: dict = {"containers": [{"name": "c", "image": "pause"}], **spec}
    if node:
        body["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": body}


def test_a_pod_links_its_node_to_everything_it_references() -> None:
    spec = {
        "serviceAccountName": "sa",
        "imagePullSecrets": [{"name": "pull"}],
        "volumes": [
            {"name": "v1", "secret": {"secretName": "vol-secret"}},
            {"name": "v2", "configMap": {"name": "vol-cm"}},
            {"name": "v3", "persistentVolumeClaim": {"claimName": "claim"}},
            {
                "name": "v4",
                "projected": {"sources": [{"secret": {"name": "p-secret"}}, {"configMap": {"name": "p-cm"}}]},
            },
            {"name": "v5", "csi": {"driver": "d", "nodePublishSecretRef": {"name": "csi-secret"}}},
            {"name": "eph", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
        ],
        "initContainers": [{"name": "i", "envFrom": [{"secretRef": {"name": "init-secret"}}]}],
        "containers": [
            {
                "name": "c",
                "env": [
                    {"name": "A", "valueFrom": {"secretKeyRef": {"name": "env-secret", "key": "k"}}},
                    {"name": "B", "valueFrom": {"configMapKeyRef": {"name": "env-cm", "key": "k"}}},
                ],
                "envFrom": [{"configMapRef": {"name": "from-cm"}}],
            }
        ],
        "ephemeralContainers": [{"name": "e", "envFrom": [{"secretRef": {"name": "debug-secret"}}]}],
    }
    edges = pod_edges(pod("p", "n1", **spec))
    assert edges is not None and edges.node == "n1"
    assert {(kind, name) for kind, _, name in edges.refs} == {
        ("serviceaccount", "sa"),
        ("secret", "pull"),
        ("secret", "vol-secret"),
        ("configmap", "vol-cm"),
        ("persistentvolumeclaim", "claim"),
        ("secret", "p-secret"),
        ("configmap", "p-cm"),
        ("secret", "csi-secret"),
        ("persistentvolumeclaim", "p-eph"),
        ("secret", "init-secret"),
        ("secret", "env-secret"),
        ("configmap", "env-cm"),
        ("configmap", "from-cm"),
        ("secret", "debug-secret"),
    }
    assert {ns for _, ns, _ in edges.refs} == {"default"}
    assert pod_edges(pod("unbound", None, serviceAccountName="sa")) is None


@pytest.fixture
def node_app(database_url: str, tmp_path) -> Iterator:
    flask_app = admin_app(database_url, tmp_path)
    yield flask_app
    _shutdown(flask_app)


def _authorizer(flask_app) -> NodeAuthorizer:
    return next(a for a in flask_app.extensions["orch.authz"].authorizers if isinstance(a, NodeAuthorizer))


def _get(user: UserInfo, resource: str, name: str, namespace: str = "default", group: str = "", verb: str = "get"):
    return Attributes(user, verb, group=group, version="v1", resource=resource, namespace=namespace, name=name)


def test_reads_follow_the_graph_as_pods_are_bound_changed_and_deleted(node_app) -> None:
    client, authorizer = node_app.test_client(), _authorizer(node_app)
    secret = _get(N1, "secrets", "s1")
    assert not authorizer.authorize(secret).allowed  # the graph is listed on first use: empty
    decision = authorizer.authorize(secret)
    assert decision.no_opinion and decision.reason == "no relationship found between node 'n1' and this object"

    volumes = [
        {"name": "s", "secret": {"secretName": "s1"}},
        {"name": "c", "persistentVolumeClaim": {"claimName": "pvc"}},
    ]
    created = client.post("/api/v1/namespaces/default/pods", json=pod("p1", "n1", volumes=volumes))
    assert created.status_code == 201, created.get_json()
    wait_for(lambda: authorizer.authorize(secret).allowed)
    assert not authorizer.authorize(_get(N2, "secrets", "s1")).allowed  # another node: no edge
    assert authorizer.authorize(_get(N1, "persistentvolumeclaims", "pvc")).allowed

    # a volume bound to the claim is readable through it; an attachment to the node is its own
    pv = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "pv1"},
        "spec": {
            "capacity": {"storage": "1Gi"},
            "accessModes": ["ReadWriteOnce"],
            "hostPath": {"path": "/tmp/pv1"},
            "claimRef": {"namespace": "default", "name": "pvc"},
        },
    }
    assert client.post("/api/v1/persistentvolumes", json=pv).status_code == 201
    wait_for(lambda: authorizer.authorize(_get(N1, "persistentvolumes", "pv1", "")).allowed)
    assert not authorizer.authorize(_get(N2, "persistentvolumes", "pv1", "")).allowed
    storage = NAMING.group("storage")
    attachment = {
        "apiVersion": f"{storage}/v1",
        "kind": "VolumeAttachment",
        "metadata": {"name": "va1"},
        "spec": {"attacher": "csi.example", "nodeName": "n2", "source": {"persistentVolumeName": "pv1"}},
    }
    assert client.post(f"/apis/{storage}/v1/volumeattachments", json=attachment).status_code == 201
    wait_for(lambda: authorizer.authorize(_get(N2, "volumeattachments", "va1", "", storage)).allowed)
    assert not authorizer.authorize(_get(N1, "volumeattachments", "va1", "", storage)).allowed

    # the pod drops the secret: the edge goes with it; deleting the pod drops the rest
    patched = client.patch(
        "/api/v1/namespaces/default/pods/p1",
        json={"metadata": {"labels": {"changed": "yes"}}},
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert patched.status_code == 200
    assert authorizer.authorize(secret).allowed  # an unrelated change keeps the edges
    assert client.delete("/api/v1/namespaces/default/pods/p1", json={"gracePeriodSeconds": 0}).status_code == 200
    wait_for(lambda: not authorizer.authorize(_get(N1, "persistentvolumeclaims", "pvc")).allowed)
    assert not authorizer.authorize(secret).allowed
    assert not authorizer.authorize(_get(N1, "persistentvolumes", "pv1", "")).allowed


def test_two_pods_on_a_node_keep_a_shared_secret_until_the_last_goes(node_app) -> None:
    client, authorizer = node_app.test_client(), _authorizer(node_app)
    env = [{"name": "c", "image": "pause", "envFrom": [{"secretRef": {"name": "shared"}}]}]
    for name in ("a", "b"):
        assert client.post("/api/v1/namespaces/default/pods", json=pod(name, "n1", containers=env)).status_code == 201
    shared = _get(N1, "secrets", "shared")
    wait_for(lambda: authorizer.authorize(shared).allowed)
    assert client.delete("/api/v1/namespaces/default/pods/a", json={"gracePeriodSeconds": 0}).status_code == 200
    wait_for(lambda: authorizer.graph.size()["pods"] == 1)
    assert authorizer.authorize(shared).allowed
    assert client.delete("/api/v1/namespaces/default/pods/b", json={"gracePeriodSeconds": 0}).status_code == 200
    wait_for(lambda: not authorizer.authorize(shared).allowed)


@pytest.mark.parametrize(
    ("attributes", "reason"),
    [
        (_get(N1, "secrets", "s", verb="update"), "can only read resources of this type"),
        (_get(N1, "secrets", "", verb="list"), "No Object name found"),
        (_get(N1, "secrets", "s", namespace=""), "can only read namespaced object of this type"),
        (_get(N1, "persistentvolumes", "pv", "", verb="list"), "can only get individual resources of this type"),
        (_get(N1, "serviceaccounts", "default"), "can only create tokens for individual service accounts"),
        (
            _get(N1, "leases", "n1", "default", NAMING.group("coordination")),
            'can only access leases in the "orch-node-lease" system namespace',
        ),
        (
            _get(N1, "leases", "n2", "orch-node-lease", NAMING.group("coordination")),
            "can only access node lease with the same name as the requesting node",
        ),
        (
            _get(N1, "leases", "n1", "orch-node-lease", NAMING.group("coordination"), "list"),
            "can only get, create, update, patch, or delete a node lease",
        ),
        (_get(UserInfo("system:node:", groups=("system:nodes",)), "pods", "p"), 'unknown node for user "system:node:"'),
    ],
)
def test_what_a_node_is_refused_and_why(node_app, attributes: Attributes, reason: str) -> None:
    decision = _authorizer(node_app).authorize(attributes)
    assert (decision.allowed, decision.no_opinion, decision.reason) == (False, True, reason)


def test_a_node_has_the_system_node_rules_and_others_are_not_its_business(node_app) -> None:
    authorizer = _authorizer(node_app)
    coordination = NAMING.group("coordination")
    assert authorizer.authorize(_get(N1, "leases", "n1", "orch-node-lease", coordination, "update")).allowed
    assert authorizer.authorize(_get(N1, "leases", "", "orch-node-lease", coordination, "create")).allowed
    assert authorizer.authorize(_get(N1, "pods", "", verb="watch")).allowed
    assert authorizer.authorize(_get(N1, "nodes", "n2", "", verb="get")).allowed
    assert not authorizer.authorize(_get(N1, "deployments", "d", group="apps", verb="get")).allowed
    not_a_node = UserInfo("system:node:n1", groups=("system:authenticated",))  # the group makes the node
    decision = authorizer.authorize(_get(not_a_node, "secrets", "s1"))
    assert decision.no_opinion and decision.reason == ""
