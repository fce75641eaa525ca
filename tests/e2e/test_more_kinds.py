"""Kinds a v1.23 server serves beyond the first set, as kubectl uses them: ControllerRevision (the history
`kubectl rollout history` reads for DaemonSets and StatefulSets)."""
from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator

import pytest

from . import RunningServer, start_server

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def k8s_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """kubectl prints server-side Tables (meta.k8s.io) in the reference's domain."""
    running = start_server(tmp_path_factory.mktemp("more-kinds"), ["--api-domain", "k8s.io"])
    yield running
    running.stop()


def run(kubectl: str, server: RunningServer, *args: str) -> str:
    done = subprocess.run([kubectl, "--kubeconfig", str(server.kubeconfig), *args], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_rollout_history_of_a_daemon_set_reads_its_controller_revisions(kubectl: str, k8s_server: RunningServer):
    server = k8s_server
    ns = f"cr-{uuid.uuid4().hex[:8]}"
    assert server.session.post("/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
    template = {"metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "a", "image": "busybox"}]}}
    ds = server.session.post(f"/apis/apps/v1/namespaces/{ns}/daemonsets", json={
        "metadata": {"name": "agent"}, "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": template}})
    assert ds.status_code == 201, ds.text
    owner = {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "uid": ds.json()["metadata"]["uid"],
             "controller": True, "blockOwnerDeletion": True}
    for revision in (1, 2):
        created = server.session.post(f"/apis/apps/v1/namespaces/{ns}/controllerrevisions", json={
            "metadata": {"name": f"agent-{revision}", "labels": {"app": "agent"}, "ownerReferences": [owner],
                         "annotations": {"kubernetes.io/change-cause": f"change {revision}"}},
            "revision": revision, "data": {"spec": {"template": template}}})
        assert created.status_code == 201, created.text

    shown = run(kubectl, server, "get", "controllerrevisions", "-n", ns).splitlines()
    assert shown[0].split() == ["NAME", "CONTROLLER", "REVISION", "AGE"]
    assert shown[1].split()[:3] == ["agent-1", "daemonset.apps/agent", "1"]
    history = run(kubectl, server, "rollout", "history", "daemonset/agent", "-n", ns)
    assert [line.split()[:3] for line in history.splitlines()[2:] if line.strip()] == [
        ["1", "change", "1"], ["2", "change", "2"]]

    url = f"/apis/apps/v1/namespaces/{ns}/controllerrevisions/agent-1"
    current = server.get(url).json()
    changed = server.session.put(url, json={**current, "data": {"other": True}})
    assert changed.status_code == 422 and changed.json()["details"]["causes"][0]["field"] == "data", changed.text
    negative = server.session.post(f"/apis/apps/v1/namespaces/{ns}/controllerrevisions",
                                   json={"metadata": {"name": "bad"}, "revision": -1})
    assert negative.status_code == 422
    assert {c["field"] for c in negative.json()["details"]["causes"]} == {"data", "revision"}
