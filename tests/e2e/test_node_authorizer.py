"""Node identity end to end, on a real server with two workers: nodes bootstrap their client certificates with a
token through CSRs (`orchctl bootstrap --node-name`), register their Node and Lease, renew their certificate as
themselves, read only what the pods bound to them reference (following the graph live, whichever worker serves
them) and are refused by NodeRestriction everything that is another node's, each refusal worded as the
reference's."""

from __future__ import annotations

import base64
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from orch_apiserver.naming import Naming

from . import RunningServer, poll, start_server

NAMING = Naming()
TOKEN = "nodeab.0123456789abcdef"
LEASES = f"/apis/{NAMING.group('coordination')}/v1/namespaces/{NAMING.node_lease_namespace}/leases"
CSRS = f"/apis/{NAMING.group('certificates')}/v1/certificatesigningrequests"
WHOAMI = f"/apis/{NAMING.group('authentication')}/v1/selfsubjectreviews"
PODS = "/api/v1/namespaces/default/pods"


def orchctl(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "orch_apiserver.orchctl", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = start_server(tmp_path_factory.mktemp("orch-nodes"), ["--enable-bootstrap-token-auth", "--workers", "2"])
    token_id, secret = TOKEN.split(".")
    token = {
        "metadata": {"name": f"bootstrap-token-{token_id}"},
        "type": f"{NAMING.group('bootstrap')}/token",
        "stringData": {
            "token-id": token_id,
            "token-secret": secret,
            "usage-bootstrap-authentication": "true",
            "usage-bootstrap-signing": "true",
        },
    }
    made = running.session.post(f"/api/v1/namespaces/{NAMING.system_namespace}/secrets", json=token)
    assert made.status_code == 201, made.text
    info = f"/api/v1/namespaces/{NAMING.public_namespace}/configmaps/cluster-info"
    assert poll(lambda: f"jws-kubeconfig-{token_id}" in (running.get(info).json().get("data") or {}))
    yield running
    running.stop()


class Node:
    """A node agent's credential: its kubeconfig (from the bootstrap flow) and a session with its certificate."""

    def __init__(self, server: RunningServer, directory: Path, name: str) -> None:
        self.name, self.kubeconfig = name, directory / f"{name}.kubeconfig"
        done = orchctl(
            "bootstrap", "--server", server.url, "--token", TOKEN, "--output", str(self.kubeconfig), "--node-name", name
        )
        assert done.returncode == 0, done.stderr
        self.session = self._session(server, directory)

    def _session(self, server: RunningServer, directory: Path) -> Any:
        user = yaml.safe_load(self.kubeconfig.read_text())["users"][0]["user"]
        cert, key = directory / f"{self.name}.crt", directory / f"{self.name}.key"
        cert.write_bytes(base64.b64decode(user["client-certificate-data"]))
        key.write_bytes(base64.b64decode(user["client-key-data"]))
        return server.new_session((str(cert), str(key)))

    def whoami(self) -> dict:
        body = {"apiVersion": f"{NAMING.group('authentication')}/v1", "kind": "SelfSubjectReview"}
        answer = self.session.post(WHOAMI, json=body)
        assert answer.status_code == 201, answer.text
        return answer.json()["status"]["userInfo"]


@pytest.fixture(scope="module")
def nodes(server: RunningServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Node]:
    directory = tmp_path_factory.mktemp("node-credentials")
    made = {name: Node(server, directory, name) for name in ("n1", "n2")}
    for node in made.values():
        registered = node.session.post("/api/v1/nodes", json={"metadata": {"name": node.name}})
        assert registered.status_code == 201, registered.text
    return made


def refused(answer: Any, message: str) -> None:
    assert answer.status_code == 403, answer.text
    assert answer.json()["message"] == message


def test_a_node_bootstraps_registers_renews_its_lease_and_its_certificate(
    server: RunningServer, tmp_path: Path
) -> None:
    node = Node(server, tmp_path, "boot-1")
    user = node.whoami()
    assert user["username"] == "system:node:boot-1" and "system:nodes" in user["groups"]

    assert node.session.post("/api/v1/nodes", json={"metadata": {"name": "boot-1"}}).status_code == 201
    lease = {"metadata": {"name": "boot-1"}, "spec": {"holderIdentity": "boot-1", "leaseDurationSeconds": 40}}
    created = node.session.post(LEASES, json=lease)
    assert created.status_code == 201, created.text
    renewed = node.session.put(
        f"{LEASES}/boot-1", json={**created.json(), "spec": {**lease["spec"], "leaseDurationSeconds": 41}}
    )
    assert renewed.status_code == 200, renewed.text
    status = node.session.patch(
        "/api/v1/nodes/boot-1/status",
        json={"status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}},
        headers={"Content-Type": "application/strategic-merge-patch+json"},
    )
    assert status.status_code == 200, status.text

    before = node.kubeconfig.read_text()
    done = orchctl("--kubeconfig", str(node.kubeconfig), "renew-node-certificate")
    assert done.returncode == 0, done.stderr
    assert node.kubeconfig.read_text() != before
    csrs = [c for c in server.get(CSRS).json()["items"] if c["spec"]["username"] == "system:node:boot-1"]
    assert [c["status"]["conditions"][0]["message"] for c in csrs] == [
        "Auto approving self node client certificate after SubjectAccessReview."
    ]
    assert Node._session(node, server, tmp_path).get("/api/v1/nodes/boot-1").status_code == 200


def test_the_signer_refuses_what_the_reference_refuses(server: RunningServer, tmp_path: Path) -> None:
    from tests.controllers import NODE_CLIENT_SIGNER, csr_body, request_pem

    bootstrap = server.new_session(None)
    bootstrap.headers["Authorization"] = f"Bearer {TOKEN}"
    cases = {
        "wrong-org": (request_pem("system:node:n9", ["system:masters"]), ["digital signature", "client auth"]),
        "wrong-cn": (request_pem("n9", ["system:nodes"]), ["digital signature", "client auth"]),
        "server-usage": (request_pem("system:node:n9", ["system:nodes"]), ["digital signature", "server auth"]),
    }
    for name, (pem, usages) in cases.items():
        filed = bootstrap.post(CSRS, json=csr_body(name, NODE_CLIENT_SIGNER, usages, pem))
        assert filed.status_code == 201, filed.text
        approval = server.get(f"{CSRS}/{name}").json()
        approval["status"] = {"conditions": [{"type": "Approved", "status": "True", "reason": "Test"}]}
        assert server.session.put(f"{CSRS}/{name}/approval", json=approval).status_code == 200

    def failed(name: str) -> str:
        conditions = (server.get(f"{CSRS}/{name}").json().get("status") or {}).get("conditions") or []
        return next((c.get("message", "") for c in conditions if c["type"] == "Failed"), "")

    assert 'subject organization is not "system:nodes"' in poll(lambda: failed("wrong-org"))
    assert 'subject common name does not begin with "system:node:"' in poll(lambda: failed("wrong-cn"))
    assert "usages did not match" in poll(lambda: failed("server-usage"))
    assert not server.get(f"{CSRS}/wrong-org").json()["status"].get("certificate")

    odd = orchctl(
        "bootstrap",
        "--server",
        server.url,
        "--token",
        TOKEN,
        "--output",
        str(tmp_path / "x"),
        "--node-name",
        "Bad_Node",
    )
    assert odd.returncode != 0 and "must be a DNS subdomain" in odd.stderr and not (tmp_path / "x").exists()


def _objects(server: RunningServer) -> None:
    session = server.session
    for path, body in (
        ("/api/v1/namespaces/default/secrets", {"metadata": {"name": "s1"}, "stringData": {"k": "v"}}),
        ("/api/v1/namespaces/default/configmaps", {"metadata": {"name": "cm1"}, "data": {"k": "v"}}),
        ("/api/v1/namespaces/default/serviceaccounts", {"metadata": {"name": "sa1"}}),
        (
            "/api/v1/namespaces/default/persistentvolumeclaims",
            {
                "metadata": {"name": "c1"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
            },
        ),
        (
            "/api/v1/persistentvolumes",
            {
                "metadata": {"name": "pv1"},
                "spec": {
                    "capacity": {"storage": "1Gi"},
                    "accessModes": ["ReadWriteOnce"],
                    "hostPath": {"path": "/tmp/pv1"},
                    "claimRef": {"namespace": "default", "name": "c1"},
                },
            },
        ),
    ):
        made = session.post(path, json=body)
        assert made.status_code in (201, 409), made.text


def _pod(name: str, node: str) -> dict:
    return {
        "metadata": {"name": name},
        "spec": {
            "nodeName": node,
            "serviceAccountName": "sa1",
            "automountServiceAccountToken": False,
            "containers": [
                {"name": "c", "image": "pause", "envFrom": [{"configMapRef": {"name": "cm1"}}]},
            ],
            "volumes": [
                {"name": "s", "secret": {"secretName": "s1"}},
                {"name": "c", "persistentVolumeClaim": {"claimName": "c1"}},
            ],
        },
    }


def test_reads_follow_the_pods_bound_to_a_node(server: RunningServer, nodes: dict[str, Node]) -> None:
    _objects(server)
    n1, n2 = nodes["n1"].session, nodes["n2"].session
    reads = ["/api/v1/namespaces/default/secrets/s1", "/api/v1/namespaces/default/configmaps/cm1"]
    reads += ["/api/v1/namespaces/default/persistentvolumeclaims/c1", "/api/v1/persistentvolumes/pv1"]
    refused(
        n1.get(reads[0]),
        'secrets "s1" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the '
        "namespace \"default\": no relationship found between node 'n1' and this object",
    )
    bound = server.session.post(PODS, json=_pod("p1", "n1"))
    assert bound.status_code == 201, bound.text
    for path in reads:  # the graph follows the pod's binding on whichever worker answers
        assert poll(lambda path=path: n1.get(path).status_code == 200, timeout=5), n1.get(path).text
        assert n2.get(path).status_code == 403
    # a kubelet watches one secret by its name in a field selector: the same edge decides
    assert n1.get("/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Ds1").status_code == 200
    assert n2.get("/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Ds1").status_code == 403
    token = {
        "apiVersion": f"{NAMING.group('authentication')}/v1",
        "kind": "TokenRequest",
        "spec": {
            "boundObjectRef": {"apiVersion": "v1", "kind": "Pod", "name": "p1", "uid": bound.json()["metadata"]["uid"]}
        },
    }
    assert n1.post("/api/v1/namespaces/default/serviceaccounts/sa1/token", json=token).status_code == 201
    refused(
        n2.post("/api/v1/namespaces/default/serviceaccounts/sa1/token", json=token),
        'serviceaccounts "sa1" is forbidden: User "system:node:n2" cannot create resource "serviceaccounts/token" in '
        'API group "" in the namespace "default": no relationship found between node \'n2\' and this object',
    )
    refused(
        n1.get("/api/v1/namespaces/default/secrets"),
        'secrets is forbidden: User "system:node:n1" cannot list resource "secrets" in API group "" in the '
        'namespace "default": No Object name found',
    )

    deleted = server.session.delete(f"{PODS}/p1", json={"gracePeriodSeconds": 0})
    assert deleted.status_code == 200
    for path in reads:
        assert poll(lambda path=path: n1.get(path).status_code == 403, timeout=5)


def test_the_real_kubectl_as_a_node(server: RunningServer, nodes: dict[str, Node], kubectl: str) -> None:
    _objects(server)
    assert server.session.post(PODS, json=_pod("kp", "n2")).status_code == 201

    def get(node: str) -> subprocess.CompletedProcess[str]:
        command = [kubectl, "--kubeconfig", str(nodes[node].kubeconfig), "get", "secret", "s1", "-o", "name"]
        return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)

    assert poll(lambda: get("n2").returncode == 0, timeout=5)
    assert get("n2").stdout.strip() == "secret/s1"
    denied = get("n1")
    assert denied.returncode == 1 and "no relationship found between node 'n1' and this object" in denied.stderr
    assert server.session.delete(f"{PODS}/kp", json={"gracePeriodSeconds": 0}).status_code == 200


def test_node_restriction_refuses_what_is_another_nodes(server: RunningServer, nodes: dict[str, Node]) -> None:
    n1 = nodes["n1"].session
    merge = {"Content-Type": "application/merge-patch+json"}
    refused(
        n1.patch("/api/v1/nodes/n2", json={"metadata": {"labels": {"a": "b"}}}, headers=merge),
        'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"',
    )
    refused(
        n1.patch("/api/v1/nodes/n1", json={"spec": {"taints": []}}, headers=merge),
        'nodes "n1" is forbidden: node "n1" is not allowed to modify taints',
    )
    restricted = f"node-restriction.{NAMING.key_domain}/pool"
    refused(
        n1.patch("/api/v1/nodes/n1", json={"metadata": {"labels": {restricted: "gpu"}}}, headers=merge),
        f'nodes "n1" is forbidden: is not allowed to modify labels: {restricted}',
    )
    own_labels = {f"node.{NAMING.key_domain}/pool": "a", "team": "x", f"{NAMING.key_domain}/arch": "amd64"}
    assert n1.patch("/api/v1/nodes/n1", json={"metadata": {"labels": own_labels}}, headers=merge).status_code == 200
    refused(
        nodes["n2"].session.post(
            "/api/v1/nodes", json={"metadata": {"name": "n2", "labels": {f"{NAMING.key_domain}/role": "master"}}}
        ),
        f'nodes "n2" is forbidden: node "n2" is not allowed to set the following labels: {NAMING.key_domain}/role',
    )

    # leases: only its own, only in the node lease namespace
    refused(
        n1.post(LEASES, json={"metadata": {"name": "n2"}, "spec": {"holderIdentity": "n2"}}),
        'leases.coordination.orch.io "n2" is forbidden: '
        "can only access node lease with the same name as the requesting node",
    )
    refused(
        n1.get(f"{LEASES}/n2"),
        'leases.coordination.orch.io "n2" is forbidden: User "system:node:n1" cannot get resource "leases" in API '
        f'group "coordination.orch.io" in the namespace "{NAMING.node_lease_namespace}": '
        "can only access node lease with the same name as the requesting node",
    )
    refused(
        n1.post(
            f"/apis/{NAMING.group('coordination')}/v1/namespaces/default/leases", json={"metadata": {"name": "n1"}}
        ),
        'leases.coordination.orch.io is forbidden: User "system:node:n1" cannot create resource "leases" in API group '
        '"coordination.orch.io" in the namespace "default": '
        f'can only access leases in the "{NAMING.node_lease_namespace}" system namespace',
    )

    # pods: only mirror pods of its own; status and deletion only of pods bound to it
    plain = {"metadata": {"name": "m1"}, "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "pause"}]}}
    mirror_key = NAMING.key("config.mirror")
    refused(
        n1.post(PODS, json=plain),
        f'pods "m1" is forbidden: pod does not have "{mirror_key}" annotation, node "n1" can only create mirror pods',
    )
    node_uid = server.get("/api/v1/nodes/n1").json()["metadata"]["uid"]
    owner = {"apiVersion": "v1", "kind": "Node", "name": "n1", "uid": node_uid, "controller": True}
    mirror = {**plain, "metadata": {"name": "m1", "annotations": {mirror_key: "x"}, "ownerReferences": [owner]}}
    refused(
        n1.post(PODS, json={**mirror, "spec": {**plain["spec"], "nodeName": "n2"}}),
        'pods "m1" is forbidden: node "n1" can only create pods with spec.nodeName set to itself',
    )
    created = n1.post(PODS, json=mirror)
    assert created.status_code == 201, created.text
    other = server.session.post(PODS, json={"metadata": {"name": "on-n2"}, "spec": {**plain["spec"], "nodeName": "n2"}})
    assert other.status_code == 201, other.text
    refused(
        n1.patch(f"{PODS}/on-n2/status", json={"status": {"phase": "Running"}}, headers=merge),
        'pods "on-n2" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself',
    )
    refused(
        n1.delete(f"{PODS}/on-n2"),
        'pods "on-n2" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself',
    )
    assert (
        nodes["n2"]
        .session.patch(f"{PODS}/on-n2/status", json={"status": {"phase": "Running"}}, headers=merge)
        .status_code
        == 200
    )
    assert n1.delete(f"{PODS}/m1", json={"gracePeriodSeconds": 0}).status_code == 200
    assert nodes["n2"].session.delete(f"{PODS}/on-n2", json={"gracePeriodSeconds": 0}).status_code == 200

    # a user who is not a node is not restricted, even in system:nodes
    assert (
        server.session.patch(
            "/api/v1/nodes/n2", json={"metadata": {"labels": {restricted: "x"}}}, headers=merge
        ).status_code
        == 200
    )


def _node_kubeconfig_user(server: RunningServer, user: str, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "orch_apiserver.cli", "kubeconfig", "user", user, *args]
    command += ["--data-dir", str(server.data_dir), "--secure-port", str(server.port)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def _cert_session(server: RunningServer, kubeconfig: Path, directory: Path) -> Any:
    user = yaml.safe_load(kubeconfig.read_text())["users"][0]["user"]
    cert, key = directory / f"{kubeconfig.stem}.crt", directory / f"{kubeconfig.stem}.key"
    cert.write_bytes(base64.b64decode(user["client-certificate-data"]))
    key.write_bytes(base64.b64decode(user["client-key-data"]))
    return server.new_session((str(cert), str(key)))


def test_rbac_then_node_on_two_replicas_and_a_node_kubeconfig_from_the_cli(tmp_path: Path) -> None:
    from orch_apiserver.storage.schema import ensure_schema

    from . import scratch_database

    with scratch_database() as url:
        ensure_schema(url, upgrade=True)
        args = ["--authorization-mode", "RBAC,Node"]
        first = start_server(tmp_path / "shared", args, database_url=url)
        second = start_server(tmp_path / "shared", args, database_url=url)  # same data dir: same CA
        try:
            refusal = _node_kubeconfig_user(first, "system:node:r1", "-o", str(tmp_path / "no.kubeconfig"))
            assert refusal.returncode == 2 and "only with --group system:nodes" in refusal.stderr
            odd = _node_kubeconfig_user(first, "system:node:R_1", "--group", "system:nodes")
            assert odd.returncode == 2 and "must be a DNS subdomain" in odd.stderr
            made = _node_kubeconfig_user(
                first, "system:node:r1", "--group", "system:nodes", "-o", str(tmp_path / "r1.kubeconfig")
            )
            assert made.returncode == 0, made.stderr
            on_second = _cert_session(second, tmp_path / "r1.kubeconfig", tmp_path)

            assert on_second.post("/api/v1/nodes", json={"metadata": {"name": "r1"}}).status_code == 201
            secret = {"metadata": {"name": "rs"}, "stringData": {"k": "v"}}
            assert first.session.post("/api/v1/namespaces/default/secrets", json=secret).status_code == 201
            assert on_second.get("/api/v1/namespaces/default/secrets/rs").status_code == 403
            pod = {
                "metadata": {"name": "rp"},
                "spec": {
                    "nodeName": "r1",
                    "automountServiceAccountToken": False,
                    "containers": [{"name": "c", "image": "pause"}],
                    "imagePullSecrets": [{"name": "rs"}],
                },
            }
            assert first.session.post(PODS, json=pod).status_code == 201  # bound through one replica ...
            assert poll(lambda: on_second.get("/api/v1/namespaces/default/secrets/rs").status_code == 200, timeout=5)
            assert first.session.delete(f"{PODS}/rp", json={"gracePeriodSeconds": 0}).status_code == 200
            assert poll(lambda: on_second.get("/api/v1/namespaces/default/secrets/rs").status_code == 403, timeout=5)
        finally:
            second.stop()
            first.stop()


def test_without_the_node_mode_rbac_alone_refuses_a_node_its_lease(tmp_path: Path) -> None:
    server = start_server(tmp_path / "rbac", ["--authorization-mode", "RBAC"])
    try:
        made = _node_kubeconfig_user(
            server, "system:node:x1", "--group", "system:nodes", "-o", str(tmp_path / "x1.kubeconfig")
        )
        assert made.returncode == 0, made.stderr
        node = _cert_session(server, tmp_path / "x1.kubeconfig", tmp_path)
        refused(
            node.get(f"{LEASES}/x1"),
            'leases.coordination.orch.io "x1" is forbidden: User "system:node:x1" cannot get resource "leases" in API '
            f'group "coordination.orch.io" in the namespace "{NAMING.node_lease_namespace}"',
        )
    finally:
        server.stop()
