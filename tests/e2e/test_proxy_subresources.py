"""`pods/proxy`, `services/proxy` and `nodes/proxy` against the real server: any request below `<object>/proxy/`
goes on to the pod's address, a ready endpoint of the service or the node agent (with the server's node-agent
client certificate), and the answer comes back; RBAC asks for the verb on `<plural>/proxy`. The targets listen on
this machine's own routable address: the server refuses loopback targets, as the reference does."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from orch_apiserver import pki

from tests.node_agent import agent_certificates, node, node_agent
from tests.stand_in import QuietHandler, serving

from . import SHARED_SERVER_ARGS, RunningServer, start_server, unavailable
from .test_custom_resources import kubectl_run

pytestmark = pytest.mark.e2e
PODS = "/api/v1/namespaces/default/pods"


def routable_address() -> str:
    """This machine's address on its default route (a pod address the server accepts)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("203.0.113.1", 9))  # no packet is sent: this only picks the source address
        except OSError:
            unavailable("this machine has no routable IPv4 address: the proxy targets need one")
        return str(probe.getsockname()[0])


@pytest.fixture(scope="module")
def address() -> str:
    return routable_address()


@pytest.fixture(scope="module")
def echo(address: str) -> Iterator[tuple[int, list[dict]]]:
    """A plain HTTP server answering with what it was asked."""
    seen: list[dict] = []

    class Handle(QuietHandler):
        def do_GET(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            call = {
                "method": self.command,
                "path": self.path,
                "body": body.decode(),
                "headers": {k.lower(): v for k, v in self.headers.items()},
            }
            seen.append(call)
            self.reply_json(201 if self.command == "POST" else 200, call)

        do_POST = do_PUT = do_DELETE = do_PATCH = do_GET

    with serving(Handle, "0.0.0.0") as port:
        yield port, seen


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, address: str) -> Iterator[tuple[RunningServer, object]]:
    tmp = tmp_path_factory.mktemp("proxy")
    certs = agent_certificates(tmp)
    with node_agent(certs, tmp, host="0.0.0.0") as agent:
        server = start_server(
            tmp / "data",
            [
                *SHARED_SERVER_ARGS,
                "--kubelet-client-certificate",
                str(certs.client_cert),
                "--kubelet-client-key",
                str(certs.client_key),
            ],
        )
        try:
            yield server, agent
        finally:
            server.stop()


def _pod(server: RunningServer, name: str, ip: str) -> None:
    made = server.session.post(
        PODS,
        json={
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name},
            "spec": {"containers": [{"name": "app", "image": "web"}]},
        },
    )
    assert made.status_code == 201, made.text
    pod = made.json()
    pod["status"] = {"podIP": ip, "phase": "Running"}
    assert server.session.put(f"{PODS}/{name}/status", json=pod).status_code == 200


def test_pod_proxy_passes_the_request_on(served, echo, address: str, kubectl: str):
    server, _ = served
    port, seen = echo
    _pod(server, "web", address)
    got = server.get(f"{PODS}/web:{port}/proxy/hello/there/?x=1&y=2")
    assert got.status_code == 200, got.text
    assert got.json()["path"] == "/hello/there/?x=1&y=2"
    assert "authorization" not in seen[-1]["headers"]  # the caller's credentials stay here
    posted = server.session.post(
        f"{server.url}{PODS}/http:web:{port}/proxy/items",
        data=b'{"a": 1}',
        headers={"Content-Type": "application/json"},
    )
    assert posted.status_code == 201 and posted.json()["body"] == '{"a": 1}'
    raw = kubectl_run(kubectl, server, "get", "--raw", f"{PODS}/web:{port}/proxy/from-kubectl").stdout
    assert json.loads(raw)["path"] == "/from-kubectl"


def test_service_proxy_goes_to_a_ready_endpoint(served, echo, address: str):
    server, _ = served
    port, _seen = echo
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web"},
        "spec": {"ports": [{"name": "http", "port": 80, "targetPort": port}]},
    }
    assert server.session.post("/api/v1/namespaces/default/services", json=svc).status_code == 201
    base = "/api/v1/namespaces/default/services"
    empty = server.get(f"{base}/web:http/proxy/")
    assert empty.status_code == 503 and empty.json()["message"] == 'no endpoints available for service "web"'
    endpoints = {
        "apiVersion": "v1",
        "kind": "Endpoints",
        "metadata": {"name": "web"},
        "subsets": [{"addresses": [{"ip": address}], "ports": [{"name": "http", "port": port}]}],
    }
    assert server.session.post("/api/v1/namespaces/default/endpoints", json=endpoints).status_code == 201
    for name in ("web:http", "web:80", "web"):
        got = server.get(f"{base}/{name}/proxy/index.html")
        assert got.status_code == 200 and got.json()["path"] == "/index.html", (name, got.text)
    wrong = server.get(f"{base}/web:9999/proxy/")
    assert wrong.status_code == 400 and wrong.json()["message"] == 'no service port "9999" found for service "web"'


def test_kubectl_proxy_reaches_a_service(served, echo, address: str, kubectl: str):
    """kubectl's local proxy, then this server, then the echo behind a service."""
    server, _ = served
    port, _seen = echo
    assert (
        server.session.post(
            "/api/v1/namespaces/default/services",
            json={
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": "echo"},
                "spec": {"ports": [{"name": "http", "port": 80}]},
            },
        ).status_code
        == 201
    )
    assert (
        server.session.post(
            "/api/v1/namespaces/default/endpoints",
            json={
                "apiVersion": "v1",
                "kind": "Endpoints",
                "metadata": {"name": "echo"},
                "subsets": [{"addresses": [{"ip": address}], "ports": [{"name": "http", "port": port}]}],
            },
        ).status_code
        == 201
    )
    with subprocess.Popen(
        [kubectl, "--kubeconfig", str(server.kubeconfig), "proxy", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as local:
        try:
            assert local.stdout is not None
            line = local.stdout.readline()  # "Starting to serve on 127.0.0.1:<port>"
            listening = line.strip().rsplit(" ", 1)[-1]
            got = requests.get(
                f"http://{listening}/api/v1/namespaces/default/services/echo:http/proxy/via-kubectl", timeout=30
            )
            assert got.status_code == 200 and got.json()["path"] == "/via-kubectl", (line, got.text)
        finally:
            local.kill()


def test_node_proxy_reaches_the_node_agent_with_the_servers_certificate(served, address: str):
    server, agent = served
    assert server.session.post("/api/v1/nodes", json=node("node-a", agent.port, address)).status_code == 201
    agent.logs["default/web/app"] = ["from the agent\n"]
    got = server.get("/api/v1/nodes/node-a/proxy/containerLogs/default/web/app")
    assert got.status_code == 200 and got.text == "from the agent\n"
    assert "commonName=apiserver-kubelet-client" in agent.calls[-1][2]


def test_loopback_targets_are_refused_and_rbac_decides(served, tmp_path: Path):
    server, _ = served
    _pod(server, "local", "127.0.0.1")
    refused = server.get(f"{PODS}/local:80/proxy/")
    assert refused.status_code == 400 and refused.json()["message"] == "address not allowed"
    ca = pki.load_pair(server.data_dir / "pki" / "ca.crt", server.data_dir / "pki" / "ca.key")
    pki.write_pair(pki.issue_client_cert(ca, "viewer", ["team"]), tmp_path / "v.crt", tmp_path / "v.key")
    rbac = "/apis/rbac.authorization.orch.io/v1/namespaces/default"
    assert (
        server.session.post(
            f"{rbac}/roles",
            json={
                "apiVersion": "rbac.authorization.orch.io/v1",
                "kind": "Role",
                "metadata": {"name": "pod-getter"},
                "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}],
            },
        ).status_code
        == 201
    )
    assert (
        server.session.post(
            f"{rbac}/rolebindings",
            json={
                "apiVersion": "rbac.authorization.orch.io/v1",
                "kind": "RoleBinding",
                "metadata": {"name": "viewer-gets"},
                "roleRef": {"apiGroup": "rbac.authorization.orch.io", "kind": "Role", "name": "pod-getter"},
                "subjects": [{"apiGroup": "rbac.authorization.orch.io", "kind": "User", "name": "viewer"}],
            },
        ).status_code
        == 201
    )
    viewer = server.new_session((str(tmp_path / "v.crt"), str(tmp_path / "v.key")))
    denied = viewer.get(f"{PODS}/web:80/proxy/")
    assert denied.status_code == 403 and 'cannot get resource "pods/proxy"' in denied.json()["message"]


def test_discovery_lists_the_proxy_subresources(served):
    server, _ = served
    core = {r["name"]: r for r in server.get("/api/v1").json()["resources"]}
    for plural, kind in (
        ("pods", "PodProxyOptions"),
        ("services", "ServiceProxyOptions"),
        ("nodes", "NodeProxyOptions"),
    ):
        entry = core[f"{plural}/proxy"]
        assert entry["kind"] == kind and entry["verbs"] == ["create", "delete", "get", "patch", "update"]
