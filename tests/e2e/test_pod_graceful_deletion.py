"""Graceful deletion of pods bound to a node, on a real server (SQLite and PostgreSQL), through the official Python
client and kubectl: the delete answers the terminating pod, its node agent's delete with grace 0 removes it."""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes import config, watch
from kubernetes.client.rest import ApiException

from . import RunningServer

pytestmark = pytest.mark.e2e


@pytest.fixture
def api(any_server: RunningServer) -> Iterator[k8s.CoreV1Api]:
    api_client = config.new_client_from_config(config_file=str(any_server.kubeconfig))
    yield k8s.CoreV1Api(api_client)
    api_client.close()


@pytest.fixture
def ns(api: k8s.CoreV1Api) -> str:
    name = f"grace-{uuid.uuid4().hex[:8]}"
    api.create_namespace({"metadata": {"name": name}})
    return name


@pytest.fixture
def node(api: k8s.CoreV1Api) -> Iterator[str]:
    """A node that exists (the pod collector leaves its pods to its agent), deleted afterwards."""
    name = f"node-{uuid.uuid4().hex[:8]}"
    api.create_node({"metadata": {"name": name}})
    yield name
    api.delete_node(name)


def running_pod(api: k8s.CoreV1Api, ns: str, name: str, node: str = "", phase: str = "Running", **spec: Any) -> Any:
    body: dict[str, Any] = {"containers": [{"name": "app", "image": "nginx"}], **spec}
    if node:
        body["nodeName"] = node
    made = api.create_namespaced_pod(ns, {"metadata": {"name": name}, "spec": body})
    made.status.phase = phase
    return api.replace_namespaced_pod_status(name, ns, made)


def delete(api: k8s.CoreV1Api, ns: str, name: str, grace: int | None = None) -> tuple[int, dict]:
    """The DELETE's status and body as sent (the client's model would hide whether it is a Pod or a Status)."""
    answer = api.delete_namespaced_pod(name, ns, grace_period_seconds=grace, _preload_content=False)
    return answer.status, json.loads(answer.data)


def missing(api: k8s.CoreV1Api, ns: str, name: str) -> bool:
    try:
        api.read_namespaced_pod(name, ns)
    except ApiException as err:
        return err.status == 404
    return False


def timestamp(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_a_bound_pod_terminates_until_its_node_agent_deletes_it(api: k8s.CoreV1Api, ns: str, node: str) -> None:
    made = running_pod(api, ns, "web", node)
    status, body = delete(api, ns, "web")
    assert status == 200 and body["kind"] == "Pod", body
    md = body["metadata"]
    assert md["deletionGracePeriodSeconds"] == 30
    created = timestamp(md["creationTimestamp"])
    assert timedelta(seconds=29) <= timestamp(md["deletionTimestamp"]) - created <= timedelta(seconds=90)
    still = api.read_namespaced_pod("web", ns)
    assert still.metadata.deletion_timestamp is not None and still.metadata.deletion_grace_period_seconds == 30

    status, body = delete(api, ns, "web", grace=0)  # what the node agent sends once the containers stopped
    assert status == 200 and body["kind"] == "Pod"
    assert missing(api, ns, "web")

    events = []
    for event in watch.Watch().stream(
        api.list_namespaced_pod, ns, resource_version=made.metadata.resource_version, timeout_seconds=20
    ):
        events.append((event["type"], event["object"].metadata.deletion_grace_period_seconds))
        if event["type"] == "DELETED":
            break
    assert events[0] == ("MODIFIED", 30) and events[-1][0] == "DELETED", events


def test_the_pod_s_own_grace_applies_and_may_only_be_shortened(api: k8s.CoreV1Api, ns: str, node: str) -> None:
    running_pod(api, ns, "quick", node, terminationGracePeriodSeconds=20)
    _, first = delete(api, ns, "quick")
    assert first["metadata"]["deletionGracePeriodSeconds"] == 20
    _, longer = delete(api, ns, "quick", grace=60)
    assert longer["metadata"] == first["metadata"]  # not lengthened, not even rewritten
    _, shorter = delete(api, ns, "quick", grace=5)
    assert shorter["metadata"]["deletionGracePeriodSeconds"] == 5
    moved = timestamp(first["metadata"]["deletionTimestamp"]) - timestamp(shorter["metadata"]["deletionTimestamp"])
    assert moved == timedelta(seconds=15)
    assert api.read_namespaced_pod("quick", ns).metadata.deletion_grace_period_seconds == 5


def test_pods_no_agent_runs_go_at_once(api: k8s.CoreV1Api, ns: str, node: str) -> None:
    running_pod(api, ns, "unscheduled", phase="Pending")
    running_pod(api, ns, "finished", node, phase="Succeeded")
    for name in ("unscheduled", "finished"):
        status, body = delete(api, ns, name)
        assert status == 200 and body["kind"] == "Pod"
        assert missing(api, ns, name)


def kubectl_run(kubectl: str, server: RunningServer, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [kubectl, "--kubeconfig", str(server.kubeconfig), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_kubectl_force_deletes_at_once_and_a_plain_delete_leaves_the_pod_terminating(
    kubectl: str, any_server: RunningServer, api: k8s.CoreV1Api, ns: str, node: str
) -> None:
    running_pod(api, ns, "gone", node)
    forced = kubectl_run(kubectl, any_server, "delete", "pod", "gone", "-n", ns, "--grace-period=0", "--force")
    assert forced.returncode == 0, forced.stderr
    assert 'pod "gone" force deleted' in forced.stdout
    assert missing(api, ns, "gone")

    running_pod(api, ns, "slow", node)
    plain = kubectl_run(kubectl, any_server, "delete", "pod", "slow", "-n", ns, "--wait=false")
    assert plain.returncode == 0 and 'pod "slow" deleted' in plain.stdout, plain.stderr
    shown = kubectl_run(
        kubectl, any_server, "get", "pod", "slow", "-n", ns, "-o", "jsonpath={.metadata.deletionGracePeriodSeconds}"
    )
    assert shown.stdout == "30", shown.stdout + shown.stderr
