"""The simulated cluster's nodes, node agent and scheduler on a real server (`--simulate-nodes 3`, SQLite and
PostgreSQL) through the official Python client and kubectl; a plain server simulates nothing; the pytest plugin's
`orch_simulate_nodes` gives an operator's tests a cluster whose pods run."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes import config

from . import RunningServer, poll, server_on

pytestmark = pytest.mark.e2e

SIM_ARGS = ["--api-domain", "k8s.io", "--simulate-nodes", "3"]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def sim(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    with server_on(request.param, tmp_path_factory.mktemp(f"sim-{request.param}"), SIM_ARGS) as running:
        yield running


@pytest.fixture(scope="module")
def api_client(sim: RunningServer) -> Iterator[Any]:
    client = config.new_client_from_config(config_file=str(sim.kubeconfig))
    poll(lambda: len(ready_nodes(k8s.CoreV1Api(client))) == 3)  # what the tests expect of the scheduler's nodes
    yield client
    client.close()


@pytest.fixture
def api(api_client: Any) -> k8s.CoreV1Api:
    return k8s.CoreV1Api(api_client)


@pytest.fixture
def ns(api: k8s.CoreV1Api) -> Iterator[str]:
    name = f"sim-{uuid.uuid4().hex[:8]}"
    api.create_namespace({"metadata": {"name": name}})
    yield name
    api.delete_namespace(name)


def ready_nodes(api: k8s.CoreV1Api) -> list[Any]:
    nodes = api.list_node(label_selector="sim.kubernetes.io/node=true").items
    return [
        n
        for n in nodes
        if n.status
        and any(c.type == "Ready" and c.status == "True" for c in n.status.conditions or [])
        and not n.spec.taints
    ]


def make_pod(api: k8s.CoreV1Api, ns: str, name: str, **spec: Any) -> Any:
    metadata = spec.pop("metadata", {})
    body = {"metadata": {"name": name, **metadata}, "spec": {"containers": [{"name": "app", "image": "nginx"}], **spec}}
    return api.create_namespaced_pod(ns, body)


def phase(api: k8s.CoreV1Api, ns: str, name: str, wanted: str) -> Any:
    return poll(lambda: (p := api.read_namespaced_pod(name, ns)).status.phase == wanted and p, timeout=15)


def unschedulable(api: k8s.CoreV1Api, ns: str, name: str) -> str:
    """The PodScheduled=False message of a pod the scheduler could not place."""

    def message() -> str | None:
        for c in api.read_namespaced_pod(name, ns).status.conditions or []:
            if c.type == "PodScheduled" and c.status == "False" and c.reason == "Unschedulable":
                return str(c.message)
        return None

    return str(poll(message, timeout=15))


def patch_nodes(api: k8s.CoreV1Api, body: dict) -> None:
    for node in ("sim-node-0", "sim-node-1", "sim-node-2"):
        api.patch_node(node, body)


def test_three_ready_nodes_whose_leases_renew(api: k8s.CoreV1Api, api_client: Any) -> None:
    nodes = poll(lambda: len(ready_nodes(api)) == 3 and ready_nodes(api))
    assert sorted(n.metadata.name for n in nodes) == ["sim-node-0", "sim-node-1", "sim-node-2"]
    assert nodes[0].status.allocatable == {"cpu": "4", "ephemeral-storage": "100Gi", "memory": "16Gi", "pods": "110"}
    assert nodes[0].metadata.labels["kubernetes.io/hostname"] == nodes[0].metadata.name
    coordination = k8s.CoordinationV1Api(api_client)
    leases = poll(lambda: len(items := coordination.list_namespaced_lease("kube-node-lease").items) == 3 and items)
    first = {lease.metadata.name: lease.spec.renew_time for lease in leases}
    assert set(first) == {"sim-node-0", "sim-node-1", "sim-node-2"}
    # renewed every 10 s, as a kubelet renews its node lease
    poll(
        lambda: (
            coordination.read_namespaced_lease("sim-node-0", "kube-node-lease").spec.renew_time > first["sim-node-0"]
        )
    )


def test_a_bare_pod_is_scheduled_and_runs(api: k8s.CoreV1Api, ns: str) -> None:
    make_pod(api, ns, "web")
    running = phase(api, ns, "web", "Running")
    assert running.spec.node_name.startswith("sim-node-")
    assert running.status.pod_ip.startswith("10.244.") and running.status.host_ip.startswith("172.18.")
    assert {c.type: c.status for c in running.status.conditions}["Ready"] == "True"
    assert running.status.container_statuses[0].ready is True
    events = api.list_namespaced_event(ns, field_selector="involvedObject.name=web").items
    assert "Scheduled" in {e.reason for e in events}


def test_a_node_selector_that_matches_nothing_waits_until_a_node_is_labelled(api: k8s.CoreV1Api, ns: str) -> None:
    key = f"sim-test-{uuid.uuid4().hex[:6]}"
    make_pod(api, ns, "picky", node_selector={key: "yes"})
    message = unschedulable(api, ns, "picky")
    assert message == "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."
    assert api.read_namespaced_pod("picky", ns).status.phase == "Pending"
    events = api.list_namespaced_event(ns, field_selector="involvedObject.name=picky").items
    assert [(e.type, e.reason, e.message) for e in events] == [("Warning", "FailedScheduling", message)]
    api.patch_node("sim-node-1", {"metadata": {"labels": {key: "yes"}}})
    try:
        assert phase(api, ns, "picky", "Running").spec.node_name == "sim-node-1"
    finally:
        api.patch_node("sim-node-1", {"metadata": {"labels": {key: None}}})


def test_taints_keep_away_pods_that_do_not_tolerate_them(api: k8s.CoreV1Api, ns: str) -> None:
    key = f"sim-test-{uuid.uuid4().hex[:6]}"
    taint = {"key": key, "value": "x", "effect": "NoSchedule"}
    patch_nodes(api, {"spec": {"taints": [taint]}})
    try:
        make_pod(api, ns, "plain")
        make_pod(api, ns, "tolerant", tolerations=[{"key": key, "operator": "Exists", "effect": "NoSchedule"}])
        assert phase(api, ns, "tolerant", "Running")
        assert unschedulable(api, ns, "plain") == (
            f"0/3 nodes are available: 3 node(s) had taint {{{key}: x}}, that the pod didn't tolerate."
        )
    finally:
        patch_nodes(api, {"spec": {"taints": None}})
    assert phase(api, ns, "plain", "Running")


def test_pods_fit_the_allocatable_resources(api: k8s.CoreV1Api, ns: str) -> None:
    resources = {"requests": {"cpu": "5", "memory": "1Gi"}}
    make_pod(api, ns, "huge", containers=[{"name": "app", "image": "nginx", "resources": resources}])
    assert unschedulable(api, ns, "huge") == "0/3 nodes are available: 3 Insufficient cpu."
    resources = {"requests": {"cpu": "3500m"}}
    make_pod(api, ns, "big", containers=[{"name": "app", "image": "nginx", "resources": resources}])
    assert phase(api, ns, "big", "Running")


def test_job_pods_succeed_or_fail_as_annotated(api: k8s.CoreV1Api, api_client: Any, ns: str) -> None:
    job = k8s.BatchV1Api(api_client).create_namespaced_job(
        ns,
        {
            "metadata": {"name": "batch"},
            "spec": {
                "suspend": True,  # its own controller makes no pods: the test's pods stand in for them
                "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}},
            },
        },
    )
    owner = {"apiVersion": "batch/v1", "kind": "Job", "name": "batch", "uid": job.metadata.uid}
    make_pod(api, ns, "ok", restart_policy="Never", metadata={"ownerReferences": [owner]})
    failing = {"ownerReferences": [owner], "annotations": {"sim.kubernetes.io/fail": "true"}}
    make_pod(api, ns, "bad", restart_policy="Never", metadata=failing)
    done = phase(api, ns, "ok", "Succeeded")
    assert done.status.container_statuses[0].state.terminated.exit_code == 0
    failed = phase(api, ns, "bad", "Failed")
    assert failed.status.container_statuses[0].state.terminated.exit_code == 1


def test_kubectl_delete_pod_returns_once_the_node_agent_finished_it(
    api: k8s.CoreV1Api, ns: str, sim: RunningServer, kubectl: str
) -> None:
    make_pod(api, ns, "web")
    phase(api, ns, "web", "Running")
    done = subprocess.run(
        [kubectl, "--kubeconfig", str(sim.kubeconfig), "-n", ns, "delete", "pod", "web", "--timeout=20s"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == 'pod "web" deleted'
    assert [p.metadata.name for p in api.list_namespaced_pod(ns).items] == []


# kr8s warns that a v1.23 server is older than the releases it was tested with
@pytest.mark.usefixtures("kr8s_connections_collected")
@pytest.mark.filterwarnings("ignore:Kubernetes version .* is not supported:UserWarning")
def test_kr8s_waits_for_a_deleted_pod_to_turn_not_ready_then_go(sim: RunningServer, ns: str) -> None:
    """kr8s's own wait tests: Ready, then (deleted) Ready=False as the kubelet reports it stopped, then gone."""
    import kr8s
    from kr8s.objects import Pod

    api = kr8s.api(kubeconfig=str(sim.kubeconfig))
    spec = {
        "metadata": {"name": "waited", "namespace": ns},
        "spec": {"containers": [{"name": "app", "image": "nginx"}]},
    }
    pod = Pod(spec, api=api)
    pod.create()
    pod.wait("condition=Ready", timeout=30)
    pod.delete()
    pod.wait("condition=Ready=False", timeout=30)
    pod.wait("delete", timeout=30)


def test_started_and_stopped_pods_get_the_kubelets_events(api: k8s.CoreV1Api, ns: str) -> None:
    make_pod(api, ns, "web", init_containers=[{"name": "setup", "image": "busybox:1.36"}])
    node = phase(api, ns, "web", "Running").spec.node_name

    def kubelet_events() -> list[Any]:
        events = api.list_namespaced_event(ns, field_selector="involvedObject.name=web").items
        return [e for e in events if e.source.component == "kubelet"]

    def app_started(events: list[Any]) -> bool:  # the last event of a start: every earlier one is recorded by then
        return any(e.reason == "Started" and e.involved_object.field_path == "spec.containers{app}" for e in events)

    started = poll(lambda: app_started(found := kubelet_events()) and found)
    assert {(e.type, e.source.host, e.reporting_instance) for e in started} == {("Normal", node, node)}
    by_container: dict[str, list[tuple[str, str]]] = {}
    for e in sorted(started, key=lambda e: ["Pulling", "Pulled", "Created", "Started"].index(e.reason)):
        by_container.setdefault(e.involved_object.field_path, []).append((e.reason, e.message))
    assert by_container["spec.containers{app}"] == [
        ("Pulling", 'Pulling image "nginx"'),  # no tag: pull policy Always
        ("Pulled", by_container["spec.containers{app}"][1][1]),
        ("Created", "Created container app"),
        ("Started", "Started container app"),
    ]
    assert by_container["spec.containers{app}"][1][1].startswith('Successfully pulled image "nginx" in ')
    assert by_container["spec.initContainers{setup}"][-2:] == [
        ("Created", "Created container setup"),
        ("Started", "Started container setup"),
    ]
    api.delete_namespaced_pod("web", ns)
    killing = poll(lambda: [e for e in kubelet_events() if e.reason == "Killing"])
    assert [(e.message, e.involved_object.field_path) for e in killing] == [
        ("Stopping container app", "spec.containers{app}")
    ]


def test_a_plain_server_simulates_nothing(server: RunningServer) -> None:
    nodes = server.get("/api/v1/nodes").json()["items"]  # other tests on this shared server make nodes of their own
    assert not [n for n in nodes if n["metadata"]["name"].startswith("sim-node-")]
    leases = server.get("/apis/coordination.orch.io/v1/namespaces/orch-system/leases").json()["items"]
    names = {lease["metadata"]["name"] for lease in leases}
    assert "orch-controller-podgc" in names  # the in-server controllers run
    assert not [n for n in names if n.startswith("orch-controller-sim-")]


USER_TESTS = """
import time

from kubernetes import client


def test_a_pod_runs(orch_apiserver, orch_namespace):
    api = client.CoreV1Api(orch_apiserver.api_client())
    assert len(api.list_node().items) == 2
    api.create_namespaced_pod(
        orch_namespace, {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    )
    deadline = time.monotonic() + 15
    while api.read_namespaced_pod("p", orch_namespace).status.phase != "Running":
        assert time.monotonic() < deadline, "the pod did not start"
        time.sleep(0.05)


def test_nodes_outlive_a_reset(orch_clean_apiserver):
    assert len(client.CoreV1Api(orch_clean_apiserver.api_client()).list_node().items) == 2


def test_after_reset(orch_apiserver):
    assert len(client.CoreV1Api(orch_apiserver.api_client()).list_node().items) == 2
"""


def test_the_pytest_plugin_simulates_nodes_when_asked(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\norch_simulate_nodes = 2\n")
    (tmp_path / "test_operator.py").write_text(USER_TESTS)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "ORCH_"))}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-v", "-rf"],
        check=False,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert "3 passed" in output, output
