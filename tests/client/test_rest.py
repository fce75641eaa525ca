"""The REST verbs, errors, warnings, watch and discovery against a real server (admin client certificate)."""

from __future__ import annotations

import select
import socket
import socketserver
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from orch_apiserver.client import ApiError, Client, ConnectionFailed, Discovery, ResourceNotFound, load_config
from orch_apiserver.client.config import ClientConfig
from orch_apiserver.client.rest import parse_warnings

from tests.e2e import RunningServer, free_port

from .helpers import NAMING, write_config

pytestmark = pytest.mark.e2e

NS_PATH = "/api/v1/namespaces"


@pytest.fixture(scope="module")
def admin(api_server: RunningServer) -> Iterator[Client]:
    with Client(load_config(str(api_server.kubeconfig), environ={})) as client:
        yield client


@pytest.fixture(scope="module")
def namespace(admin: Client) -> str:
    admin.create(NS_PATH, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "client-verbs"}})
    return "client-verbs"


def configmap(name: str, **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def test_create_get_update_delete(admin: Client, namespace: str) -> None:
    path = f"{NS_PATH}/{namespace}/configmaps"
    created = admin.create(path, configmap("plain", a="1"))
    assert admin.get(f"{path}/plain")["data"] == {"a": "1"}
    created["data"]["a"] = "2"
    assert admin.update(f"{path}/plain", created)["data"] == {"a": "2"}
    assert [item["metadata"]["name"] for item in admin.list(path)["items"]] == ["plain"]
    admin.delete(f"{path}/plain")
    with pytest.raises(ApiError) as raised:
        admin.get(f"{path}/plain")
    assert (raised.value.status, raised.value.reason) == (404, "NotFound")
    assert str(raised.value) == raised.value.message == 'configmaps "plain" not found'
    assert raised.value.body["kind"] == "Status"


def test_errors_carry_the_servers_status(admin: Client, namespace: str) -> None:
    path = f"{NS_PATH}/{namespace}/configmaps"
    admin.create(path, configmap("twice"))
    with pytest.raises(ApiError) as raised:
        admin.create(path, configmap("twice"))
    assert (raised.value.status, raised.value.reason) == (409, "AlreadyExists")
    assert "already exists" in str(raised.value)


def test_every_patch_type_and_apply(admin: Client, namespace: str) -> None:
    path = f"{NS_PATH}/{namespace}/configmaps"
    admin.create(path, configmap("patched", a="1"))
    item = f"{path}/patched"
    assert admin.patch(item, {"data": {"b": "2"}}, "merge")["data"] == {"a": "1", "b": "2"}
    assert admin.patch(item, {"data": {"c": "3"}}, "strategic")["data"] == {"a": "1", "b": "2", "c": "3"}
    assert admin.patch(item, [{"op": "remove", "path": "/data/a"}], "json")["data"] == {"b": "2", "c": "3"}
    applied = admin.apply(f"{path}/applied", configmap("applied", x="1"), field_manager="tester")
    assert applied["data"] == {"x": "1"}
    managers = {entry["manager"] for entry in applied["metadata"]["managedFields"]}
    assert managers == {"tester"}
    with pytest.raises(ApiError) as raised:  # another manager's field: a conflict unless forced
        admin.apply(f"{path}/applied", configmap("applied", x="2"), field_manager="other")
    assert raised.value.status == 409
    assert admin.apply(f"{path}/applied", configmap("applied", x="2"), field_manager="other", force=True)["data"] == {
        "x": "2"
    }
    with pytest.raises(ValueError, match="unknown patch type"):
        admin.patch(item, {}, "bogus")


def test_watch_yields_events_until_the_server_ends_the_stream(admin: Client, namespace: str) -> None:
    path = f"{NS_PATH}/{namespace}/configmaps"
    version = admin.list(path)["metadata"]["resourceVersion"]
    admin.create(path, configmap("watched"))
    admin.delete(f"{path}/watched")
    events = [
        (e["type"], e["object"]["metadata"]["name"])
        for e in admin.watch(path, resource_version=version, timeout_seconds=1)
    ]
    assert events == [("ADDED", "watched"), ("DELETED", "watched")]


def test_warning_headers_reach_the_callback(api_server: RunningServer, namespace: str) -> None:
    warnings: list[str] = []
    client = Client(load_config(str(api_server.kubeconfig), environ={}), on_warning=warnings.append)
    path = f"{NS_PATH}/{namespace}/configmaps"
    client.create(path, {**configmap("warned"), "bogusField": 1}, params={"fieldValidation": "Warn"})
    assert any("bogusField" in text for text in warnings), warnings
    try:
        client.get(f"/apis/batch/v1beta1/namespaces/{namespace}/cronjobs")
    except ApiError as err:
        if err.status == 404:
            pytest.skip("batch/v1beta1 (deprecated) is not served")
        raise
    assert any("deprecated" in text for text in warnings), warnings


def test_warning_header_values_are_parsed() -> None:
    assert parse_warnings(['299 - "one, with comma", 299 - "two \\"quoted\\""', '199 - "misc"']) == [
        "one, with comma",
        'two "quoted"',
    ]


def test_an_unreachable_server_is_a_connection_failure() -> None:
    client = Client(ClientConfig.for_server(f"https://127.0.0.1:{free_port()}", insecure=True), timeout=5)
    with pytest.raises(ConnectionFailed) as raised:
        client.get("/version")
    assert raised.value.status == 0 and "cannot reach" in str(raised.value)


def test_an_untrusted_server_certificate_is_refused(api_server: RunningServer, tmp_path: Path) -> None:
    client = Client(ClientConfig.for_server(api_server.url))  # the system roots do not know the test CA
    with pytest.raises(ConnectionFailed, match="CERTIFICATE_VERIFY_FAILED|certificate verify failed"):
        client.get("/version")


def test_discovery_resolves_the_names_people_type(admin: Client) -> None:
    discovery = Discovery(admin)
    for name in ("pods", "pod", "po", "Pod", "PODS"):
        info = discovery.resolve(name)
        assert (info.group, info.version, info.plural, info.kind, info.namespaced) == ("", "v1", "pods", "Pod", True)
    csr_group = NAMING.group("certificates")
    for name in ("csr", f"certificatesigningrequests.{csr_group}", f"certificatesigningrequests.v1.{csr_group}"):
        info = discovery.resolve(name)
        assert (info.group_version, info.namespaced) == (f"{csr_group}/v1", False)
    deployments = discovery.resolve("deploy")
    assert deployments.path("ns1", "web", "scale") == "/apis/apps/v1/namespaces/ns1/deployments/web/scale"
    assert deployments.path() == "/apis/apps/v1/deployments"
    assert "create" in deployments.verbs and "scale" in deployments.subresources
    with pytest.raises(ResourceNotFound, match="doesn't have a resource type"):
        discovery.resolve("flurbs")
    assert {info.plural for info in discovery.resources()} >= {"pods", "namespaces", "deployments"}


@pytest.mark.parametrize(
    ("cluster", "works"),
    [
        ({"tls-server-name": "localhost"}, True),  # the serving certificate names localhost and 127.0.0.1
        ({"tls-server-name": "elsewhere.example"}, False),
        ({"insecure-skip-tls-verify": True, "certificate-authority-data": None}, True),
    ],
)
def test_tls_settings_of_the_cluster(api_server: RunningServer, tmp_path: Path, cluster: dict, works: bool) -> None:
    settings = {"certificate-authority": str(api_server.ca_file), **cluster}
    if settings.pop("certificate-authority-data", "") is None:
        settings.pop("certificate-authority")
    path = write_config(
        tmp_path / "config",
        api_server.url,
        cluster=settings,
        user={"client-certificate": api_server.client_cert[0], "client-key": api_server.client_cert[1]},
    )
    client = Client(load_config(str(path), environ={}))
    if works:
        assert client.get("/api/v1/namespaces/default")["metadata"]["name"] == "default"
    else:
        with pytest.raises(ConnectionFailed, match="match|mismatch"):
            client.get("/api/v1/namespaces/default")


class ConnectProxy(socketserver.ThreadingTCPServer):
    """A real HTTP CONNECT proxy that records the targets it tunnels to."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _TunnelHandler)
        self.targets: list[str] = []


class _TunnelHandler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        request_line = self.rfile.readline().decode()
        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
            pass  # headers
        method, target, _ = request_line.split(" ", 2)
        assert method == "CONNECT"
        self.server.targets.append(target)  # type: ignore[attr-defined]
        host, port = target.rsplit(":", 1)
        with socket.create_connection((host, int(port))) as upstream:
            self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            self.wfile.flush()
            sockets = [self.connection, upstream]
            while True:
                readable, _, _ = select.select(sockets, [], [], 30)
                if not readable:
                    return
                for sock in readable:
                    data = sock.recv(65536)
                    if not data:
                        return
                    (upstream if sock is self.connection else self.connection).sendall(data)


def test_requests_go_through_the_configured_proxy(api_server: RunningServer, tmp_path: Path) -> None:
    proxy = ConnectProxy()
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    try:
        path = write_config(
            tmp_path / "config",
            api_server.url,
            cluster={
                "certificate-authority": str(api_server.ca_file),
                "proxy-url": f"http://127.0.0.1:{proxy.server_address[1]}",
            },
            user={"client-certificate": api_server.client_cert[0], "client-key": api_server.client_cert[1]},
        )
        with Client(load_config(str(path), environ={})) as client:
            assert client.get("/api/v1/namespaces/default")["metadata"]["name"] == "default"
        assert proxy.targets == [f"127.0.0.1:{api_server.port}"]
    finally:
        proxy.shutdown()
        proxy.server_close()
