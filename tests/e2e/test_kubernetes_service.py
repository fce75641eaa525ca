"""The `default/kubernetes` Service, Endpoints and EndpointSlice the server keeps, as in-cluster clients
find the API server: seen with kubectl in both domains, repaired when changed, and listing every live
replica over one PostgreSQL database."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver.naming import Naming
from orch_apiserver.storage.schema import ensure_schema

from . import RunningServer, poll, scratch_database, start_server

SHORT_LEASE = ["--endpoint-lease-duration", "3s"]  # renewed every second


def _kubectl(kubectl: str, server: RunningServer, *args: str) -> Any:
    done = subprocess.run(
        [kubectl, "--kubeconfig", str(server.kubeconfig), *args, "-o", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def endpoint_addresses(server: RunningServer, name: str = "orch") -> list[str]:
    subsets = server.get(f"/api/v1/namespaces/default/endpoints/{name}").json().get("subsets") or []
    return sorted(a["ip"] for s in subsets for a in s.get("addresses", []))


@pytest.fixture(scope="module", params=["orch.io", "k8s.io"])
def domain_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[RunningServer, Naming]]:
    running = start_server(tmp_path_factory.mktemp("kubernetes-svc"), ["--api-domain", request.param, *SHORT_LEASE])
    yield running, Naming(request.param)
    running.stop()


def test_kubectl_sees_the_service_endpoints_and_slice(kubectl: str, domain_server: tuple[RunningServer, Naming]):
    server, naming = domain_server
    name = naming.product  # kubernetes in the reference's domain
    service = poll(lambda: server.get(f"/api/v1/namespaces/default/services/{name}").ok) and _kubectl(
        kubectl, server, "get", "service", name, "-n", "default"
    )
    assert service["spec"]["clusterIP"] == "10.96.0.1" and service["spec"]["type"] == "ClusterIP"
    assert service["spec"]["ports"] == [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": server.port}]
    assert service["metadata"]["labels"] == {"component": "apiserver", "provider": naming.product}
    poll(lambda: endpoint_addresses(server, name))
    endpoints = _kubectl(kubectl, server, "get", "endpoints", name, "-n", "default")
    assert endpoints["subsets"] == [
        {"addresses": [{"ip": "127.0.0.1"}], "ports": [{"name": "https", "port": server.port, "protocol": "TCP"}]}
    ]
    slices = _kubectl(
        kubectl, server, "get", "endpointslices", "-n", "default", "-l", f"{naming.key('service-name')}={name}"
    )["items"]
    assert [(s["addressType"], s["endpoints"], s["ports"]) for s in slices] == [
        (
            "IPv4",
            [{"addresses": ["127.0.0.1"], "conditions": {"ready": True}}],
            [{"name": "https", "port": server.port, "protocol": "TCP"}],
        )
    ]


def test_a_deleted_service_comes_back_and_a_changed_port_is_reverted(domain_server: tuple[RunningServer, Naming]):
    server, naming = domain_server
    path = f"/api/v1/namespaces/default/services/{naming.product}"
    poll(lambda: server.get(path).ok)
    assert server.session.delete(path).status_code == 200
    poll(lambda: server.get(path).ok)
    service = server.get(path).json()
    service["spec"]["ports"][0]["port"] = 8443
    assert server.session.put(path, json=service).status_code == 200
    poll(lambda: server.get(path).json()["spec"]["ports"][0]["port"] == 443)


def test_endpoints_follow_the_live_replicas(tmp_path: Path):
    with scratch_database() as url:
        ensure_schema(url, upgrade=True)  # what `flask db upgrade` does before replicas start
        first = start_server(tmp_path / "shared", [*SHORT_LEASE, "--advertise-address", "127.0.0.1"], database_url=url)
        second = start_server(tmp_path / "shared", [*SHORT_LEASE, "--advertise-address", "127.0.0.2"], database_url=url)
        third = start_server(tmp_path / "shared", [*SHORT_LEASE, "--advertise-address", "127.0.0.3"], database_url=url)
        try:
            poll(lambda: endpoint_addresses(first) == ["127.0.0.1", "127.0.0.2", "127.0.0.3"])
            second.stop()  # a clean shutdown leaves at once
            poll(lambda: endpoint_addresses(first) == ["127.0.0.1", "127.0.0.3"], timeout=5)
            os.killpg(third.process.pid, signal.SIGKILL)  # a crash leaves when its lease expires (3 s)
            third.process.wait(timeout=10)
            poll(lambda: endpoint_addresses(first) == ["127.0.0.1"], timeout=15)
        finally:
            for server in (first, second, third):
                server.stop()
