"""`kubectl logs` against the real server and a real HTTPS stand-in node agent: the server calls the agent with its
--kubelet-client-certificate and streams the log; RBAC asks for `get` on `pods/log`."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from tests.node_agent import NodeAgent, agent_certificates, node, node_agent

from . import SHARED_SERVER_ARGS, RunningServer, start_server

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def agent_and_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[NodeAgent, RunningServer]]:
    tmp = tmp_path_factory.mktemp("pod-log")
    certs = agent_certificates(tmp)
    with node_agent(certs, tmp) as agent:
        server = start_server(
            tmp / "data",
            [
                *SHARED_SERVER_ARGS,
                "--kubelet-client-certificate",
                str(certs.client_cert),
                "--kubelet-client-key",
                str(certs.client_key),
                "--kubelet-certificate-authority",
                str(certs.ca_file),
            ],
        )
        try:
            assert server.session.post("/api/v1/nodes", json=node("node-1", agent.port)).status_code == 201
            pod = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "web"},
                "spec": {"nodeName": "node-1", "containers": [{"name": "app", "image": "nginx"}]},
            }
            assert server.session.post("/api/v1/namespaces/default/pods", json=pod).status_code == 201
            agent.logs["default/web/app"] = ["line 1\n", "line 2\n"]
            yield agent, server
        finally:
            server.stop()


def kubectl_args(kubectl: str, server: RunningServer, *args: str) -> list[str]:
    return [kubectl, "--kubeconfig", str(server.kubeconfig), *args]


def test_kubectl_logs_and_logs_follow(kubectl: str, agent_and_server):
    agent, server = agent_and_server
    shown = subprocess.run(
        kubectl_args(kubectl, server, "logs", "web", "--tail", "5"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shown.returncode == 0 and shown.stdout == "line 1\nline 2\n", shown.stderr
    assert agent.calls[-1][1] == {"tailLines": ["5"]}
    follow = subprocess.Popen(
        kubectl_args(kubectl, server, "logs", "-f", "web"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert follow.stdout is not None
        assert [follow.stdout.readline(), follow.stdout.readline()] == ["line 1\n", "line 2\n"]  # while it runs
        assert follow.poll() is None
        agent.release.set()
        rest, _ = follow.communicate(timeout=30)
        assert rest == "line after follow\n" and follow.returncode == 0
    finally:
        follow.kill()


def test_reading_logs_needs_get_on_pods_log(kubectl: str, agent_and_server):
    _, server = agent_and_server
    rbac = "/apis/rbac.authorization.orch.io/v1/namespaces/default"
    role = {
        "apiVersion": "rbac.authorization.orch.io/v1",
        "kind": "Role",
        "metadata": {"name": "pod-reader"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}],
    }
    binding = {
        "apiVersion": "rbac.authorization.orch.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": "jane-reads-pods"},
        "roleRef": {"apiGroup": "rbac.authorization.orch.io", "kind": "Role", "name": "pod-reader"},
        "subjects": [{"apiGroup": "rbac.authorization.orch.io", "kind": "User", "name": "jane"}],
    }
    assert server.session.post(f"{rbac}/roles", json=role).status_code == 201
    assert server.session.post(f"{rbac}/rolebindings", json=binding).status_code == 201
    refused = subprocess.run(
        kubectl_args(kubectl, server, "logs", "web", "--as", "jane"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert refused.returncode == 1
    assert (
        'pods "web" is forbidden: User "jane" cannot get resource "pods/log" in API group "" in the namespace "default"'
    ) in refused.stderr


def test_kubectl_exec_runs_through_to_the_node_agent(kubectl: str, agent_and_server):
    agent, server = agent_and_server
    ran = subprocess.run(
        kubectl_args(kubectl, server, "exec", "web", "--", "echo", "hello", "there"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "hello there\n"  # written by the agent over the switched protocol, relayed byte for byte
    assert agent.executed[-1] == ["echo", "hello", "there"]
    path, query, subject = agent.calls[-1]
    assert path == "/exec/default/web/app" and query["output"] == ["1"] and query["error"] == ["1"]
    assert "commonName=apiserver-kubelet-client" in subject
    assert server.get("/api/v1/namespaces/default/pods/web").status_code == 200  # the server serves on


def test_exec_without_an_upgrade_or_a_command_is_refused(agent_and_server):
    _, server = agent_and_server
    plain = server.session.post(f"{server.url}/api/v1/namespaces/default/pods/web/exec?command=ls&stdout=true")
    assert plain.status_code == 400 and plain.json()["message"] == "Upgrade request required"
    upgrade = {"Connection": "Upgrade", "Upgrade": "SPDY/3.1"}
    nothing = server.session.post(f"{server.url}/api/v1/namespaces/default/pods/web/exec?stdout=true", headers=upgrade)
    assert nothing.status_code == 400
    assert nothing.json()["message"] == "you must specify at least one command for the container"
    quiet = server.session.post(f"{server.url}/api/v1/namespaces/default/pods/web/exec?command=ls", headers=upgrade)
    assert quiet.json()["message"] == "you must specify at least 1 of stdin, stdout, stderr"
    refused = server.session.post(
        f"{server.url}/api/v1/namespaces/default/pods/web/exec?command=ls&stdout=true", headers=upgrade
    )  # the agent speaks WebSocket only: its 400, passed on
    assert refused.status_code == 400 and "only WebSocket exec" in refused.text
    assert (
        server.session.post(
            "/api/v1/namespaces/default/pods",
            json={
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "unplaced"},
                "spec": {"containers": [{"name": "app", "image": "nginx"}]},
            },
        ).status_code
        == 201
    )
    unplaced = server.session.post(
        f"{server.url}/api/v1/namespaces/default/pods/unplaced/exec?command=ls&stdout=true", headers=upgrade
    )
    assert unplaced.status_code == 400 and unplaced.json()["message"] == "pod unplaced does not have a host assigned"
