"""pods/log: the server asks the pod's node agent (a real HTTPS stand-in) with its own client certificate and
streams the answer; bad requests get the reference's messages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import _shutdown, admin_app
from tests.node_agent import AgentCertificates, NodeAgent, agent_certificates, node, node_agent

PODS = "/api/v1/namespaces/default/pods"


@pytest.fixture
def certs(tmp_path: Path) -> AgentCertificates:
    return agent_certificates(tmp_path)


@pytest.fixture
def agent(certs: AgentCertificates, tmp_path: Path) -> Iterator[NodeAgent]:
    with node_agent(certs, tmp_path) as running:
        running.logs["default/web/app"] = ["line 1\n", "line 2\n"]
        yield running


@pytest.fixture
def client(database_url, tmp_path, certs: AgentCertificates, agent: NodeAgent):
    app = admin_app(
        database_url,
        tmp_path / "app",
        KUBELET_CLIENT_CERTIFICATE=str(certs.client_cert),
        KUBELET_CLIENT_KEY=str(certs.client_key),
        KUBELET_CERTIFICATE_AUTHORITY=str(certs.ca_file),
    )
    test_client = app.test_client()
    assert test_client.post("/api/v1/nodes", json=node("node-1", agent.port)).status_code == 201
    yield test_client
    _shutdown(app)


def pod(name: str, *containers: str, node_name: str = "node-1", init: tuple[str, ...] = ()) -> dict:
    spec: dict = {"containers": [{"name": c, "image": "nginx"} for c in containers]}
    if node_name:
        spec["nodeName"] = node_name
    if init:
        spec["initContainers"] = [{"name": c, "image": "busybox"} for c in init]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def test_the_log_comes_from_the_node_agent(client, agent: NodeAgent):
    assert client.post(PODS, json=pod("web", "app")).status_code == 201
    answer = client.get(f"{PODS}/web/log?tailLines=10&timestamps=true")
    assert answer.status_code == 200 and answer.data == b"line 1\nline 2\n"
    assert answer.headers["Content-Type"].startswith("text/plain")
    path, query, subject = agent.calls[-1]
    assert path == "/containerLogs/default/web/app"
    assert query == {"tailLines": ["10"], "timestamps": ["true"]}
    assert "commonName=apiserver-kubelet-client" in subject  # the server's own client certificate


def test_a_followed_log_streams_as_the_agent_writes(client, agent: NodeAgent):
    assert client.post(PODS, json=pod("web", "app")).status_code == 201
    answer = client.get(f"{PODS}/web/log?follow=true", buffered=False)
    assert answer.status_code == 200
    chunks = iter(answer.response)
    received = b""
    while received != b"line 1\nline 2\n":
        received += next(chunks)  # arrives while the agent still holds the stream open
    agent.release.set()
    assert b"".join(chunks) == b"line after follow\n"


def test_which_container_and_which_node(client, agent: NodeAgent):
    assert client.post(PODS, json=pod("two", "a", "b", init=("setup",))).status_code == 201
    answer = client.get(f"{PODS}/two/log")
    assert answer.status_code == 400 and answer.get_json()["message"] == (
        "a container name must be specified for pod two, choose one of: [a b] or one of the init containers: [setup]"
    )
    answer = client.get(f"{PODS}/two/log?container=c")
    assert answer.status_code == 400 and answer.get_json()["message"] == "container c is not valid for pod two"
    answer = client.get(f"{PODS}/two/log?container=a&tailLines=-1")
    assert answer.status_code == 422 and answer.get_json()["message"] == (
        'PodLogOptions "two" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0'
    )
    assert client.post(PODS, json=pod("waiting", "app", node_name="")).status_code == 201
    answer = client.get(f"{PODS}/waiting/log")
    assert answer.status_code == 200 and answer.data == b""  # not on a node yet: nothing to show
    assert client.post(PODS, json=pod("lost", "app", node_name="node-9")).status_code == 201
    answer = client.get(f"{PODS}/lost/log")
    assert answer.status_code == 404 and answer.get_json()["message"] == 'nodes "node-9" not found'
    assert client.put(f"{PODS}/two/log", json={}).status_code == 405


def test_an_agent_that_is_down_is_a_clear_500(client, agent: NodeAgent):
    assert client.post("/api/v1/nodes", json=node("node-2", 1)).status_code == 201
    assert client.post(PODS, json=pod("far", "app", node_name="node-2")).status_code == 201
    answer = client.get(f"{PODS}/far/log")
    assert answer.status_code == 500 and answer.get_json()["reason"] == "InternalError"
    assert answer.get_json()["message"].startswith(
        'Internal error occurred: Get "https://127.0.0.1:1/containerLogs/default/far/app": '
    )
