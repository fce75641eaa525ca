"""The simulated cluster's nodes, node agent and scheduler on both stores, driven by hand (`sync()`) under a clock the
test moves, each acting as its own service account under the default RBAC policy."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver.controllers.base import Context
from orch_apiserver.controllers.manager import ensure_namespaced_policy
from orch_apiserver.controllers.simulation.kubelet import PodLifecycle
from orch_apiserver.controllers.simulation.nodes import SimulatedNodes
from orch_apiserver.controllers.simulation.scheduler import Scheduler

from tests.conftest import _shutdown, admin_app
from tests.controllers.conftest import FakeClock

PODS = "/api/v1/namespaces/default/pods"
LEASES = "/apis/coordination.orch.io/v1/namespaces/orch-node-lease/leases"
SETTINGS = {"SIMULATE_NODES": 3, "SIMULATE_POD_START_SECONDS": 1, "SIMULATE_POD_RUN_SECONDS": 5}


@pytest.fixture
def sim_app(database_url: str, tmp_path: Path) -> Iterator[Any]:
    app = admin_app(database_url, tmp_path)  # no --simulate-nodes: nothing runs in the background
    yield app
    _shutdown(app)


@pytest.fixture
def client(sim_app: Any) -> Any:
    client = sim_app.test_client()
    assert client.get("/api").status_code == 200  # the first request reconciles the default policy
    return client


def context(app: Any, clock: FakeClock, **settings: object) -> Context:
    svc = app.extensions["orch"]
    ctx = Context(
        svc.registry, svc.naming, svc.hub, app.extensions["orch.auth"], clock=clock, settings={**SETTINGS, **settings}
    )
    ensure_namespaced_policy(ctx)
    return ctx


@pytest.fixture
def cluster(sim_app: Any, client: Any, clock: FakeClock) -> tuple[SimulatedNodes, Scheduler, PodLifecycle]:
    ctx = context(sim_app, clock)
    nodes = SimulatedNodes(ctx)
    nodes.sync()
    return nodes, Scheduler(ctx), PodLifecycle(ctx)


def pod(name: str, **spec: Any) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "app", "image": "nginx"}], **spec},
    }


def create(client: Any, body: dict, url: str = PODS) -> dict:
    made = client.post(url, json=body)
    assert made.status_code == 201, made.get_json()
    return made.get_json()


def get(client: Any, name: str) -> dict:
    return client.get(f"{PODS}/{name}").get_json()


def condition(obj: dict, kind: str) -> dict:
    return next(c for c in obj["status"].get("conditions", []) if c["type"] == kind)


def events(client: Any, reason: str) -> list[dict]:
    return [e for e in client.get("/api/v1/namespaces/default/events").get_json()["items"] if e["reason"] == reason]


def test_nodes_register_ready_with_leases_that_renew(client: Any, cluster: Any, clock: FakeClock) -> None:
    nodes = client.get("/api/v1/nodes").get_json()["items"]
    assert [n["metadata"]["name"] for n in nodes] == ["sim-node-0", "sim-node-1", "sim-node-2"]
    node = nodes[1]
    assert node["metadata"]["labels"]["orch.io/hostname"] == "sim-node-1"
    assert node["metadata"]["labels"]["sim.orch.io/node"] == "true"
    assert "taints" not in node["spec"]  # TaintNodesByCondition's not-ready taint is gone once Ready
    assert node["spec"]["podCIDR"] == "10.244.1.0/24"
    assert node["status"]["allocatable"] == {"cpu": "4", "memory": "16Gi", "pods": "110", "ephemeral-storage": "100Gi"}
    assert condition(node, "Ready")["status"] == "True" and condition(node, "Ready")["reason"] == "KubeletReady"
    assert {"type": "InternalIP", "address": "172.18.0.3"} in node["status"]["addresses"]
    leases = {item["metadata"]["name"]: item for item in client.get(LEASES).get_json()["items"]}
    assert set(leases) == {"sim-node-0", "sim-node-1", "sim-node-2"}
    assert leases["sim-node-0"]["spec"]["leaseDurationSeconds"] == 40

    sim = cluster[0]
    clock.advance(seconds=5)
    sim.sync()
    assert client.get(f"{LEASES}/sim-node-0").get_json()["spec"] == leases["sim-node-0"]["spec"]
    clock.advance(seconds=6)
    sim.sync()
    renewed = client.get(f"{LEASES}/sim-node-0").get_json()["spec"]["renewTime"]
    assert renewed > leases["sim-node-0"]["spec"]["renewTime"]
    # the status is reported every 5 minutes, not with every lease renewal
    assert client.get("/api/v1/nodes/sim-node-0").get_json()["status"] == nodes[0]["status"]
    clock.advance(seconds=300)
    sim.sync()
    heartbeat = condition(client.get("/api/v1/nodes/sim-node-0").get_json(), "Ready")["lastHeartbeatTime"]
    assert heartbeat > condition(nodes[0], "Ready")["lastHeartbeatTime"]


def test_fewer_nodes_after_a_restart_delete_the_extra_simulated_ones(
    sim_app: Any, client: Any, cluster: Any, clock: FakeClock
) -> None:
    create(client, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "sim-node-7"}}, "/api/v1/nodes")
    SimulatedNodes(context(sim_app, clock, SIMULATE_NODES=1)).sync()
    names = [n["metadata"]["name"] for n in client.get("/api/v1/nodes").get_json()["items"]]
    assert names == ["sim-node-0", "sim-node-7"]  # a node the user made keeps its name and life
    SimulatedNodes(context(sim_app, clock, SIMULATE_NODES=1)).sync()  # their leases go once the nodes are gone
    assert [lease["metadata"]["name"] for lease in client.get(LEASES).get_json()["items"]] == ["sim-node-0"]


def test_a_pod_is_scheduled_then_runs_with_an_address(client: Any, cluster: Any, clock: FakeClock) -> None:
    _, scheduler, agent = cluster
    create(client, pod("web"))
    scheduler.sync()
    bound = get(client, "web")
    assert bound["spec"]["nodeName"] == "sim-node-0"
    assert [e["message"] for e in events(client, "Scheduled")] == ["Successfully assigned default/web to sim-node-0"]

    agent.sync()  # seen now; it starts after SIMULATE_POD_START_SECONDS
    assert get(client, "web")["status"].get("phase") == "Pending"
    assert agent.resync_seconds == pytest.approx(1.0)
    clock.advance(seconds=1)
    agent.sync()
    running = get(client, "web")
    status = running["status"]
    assert status["phase"] == "Running"
    assert status["podIP"] == "10.244.0.2" and status["podIPs"] == [{"ip": "10.244.0.2"}]
    assert status["hostIP"] == "172.18.0.2" and status["startTime"]
    assert {c["type"]: c["status"] for c in status["conditions"]} == {
        "Initialized": "True",
        "Ready": "True",
        "ContainersReady": "True",
        "PodScheduled": "True",
    }
    (container,) = status["containerStatuses"]
    assert container["ready"] and container["started"] and container["state"]["running"]["startedAt"]
    assert container["image"] == "nginx" and container["containerID"].startswith("containerd://")
    started = [
        e for e in client.get("/api/v1/namespaces/default/events").get_json()["items"] if e["reason"] != "Scheduled"
    ]
    assert sorted((e["reason"], e["message"]) for e in started) == [
        ("Created", "Created container app"),
        ("Pulled", 'Successfully pulled image "nginx" in 1s'),
        ("Pulling", 'Pulling image "nginx"'),
        ("Started", "Started container app"),
    ]
    assert {(e["source"]["component"], e["source"]["host"], e["involvedObject"]["fieldPath"]) for e in started} == {
        ("kubelet", "sim-node-0", "spec.containers{app}")
    }

    create(client, pod("api"))
    scheduler.sync()
    assert get(client, "api")["spec"]["nodeName"] == "sim-node-1"  # least allocated: the pods spread


def test_unschedulable_pods_say_why_and_schedule_once_a_node_fits(client: Any, cluster: Any) -> None:
    _, scheduler, _ = cluster
    create(client, pod("picky", nodeSelector={"disk": "ssd"}))
    scheduler.sync()
    scheduler.sync()  # the same reason again: no second event
    picky = get(client, "picky")
    assert "nodeName" not in picky["spec"]
    message = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."
    assert condition(picky, "PodScheduled") | {"lastTransitionTime": None} == {
        "type": "PodScheduled",
        "status": "False",
        "reason": "Unschedulable",
        "message": message,
        "lastProbeTime": None,
        "lastTransitionTime": None,
    }
    failed = events(client, "FailedScheduling")
    assert [(e["type"], e["message"], e["source"]["component"]) for e in failed] == [
        ("Warning", message, "default-scheduler")
    ]

    node = client.get("/api/v1/nodes/sim-node-2").get_json()
    node["metadata"]["labels"]["disk"] = "ssd"
    assert client.put("/api/v1/nodes/sim-node-2", json=node).status_code == 200
    scheduler.sync()
    assert get(client, "picky")["spec"]["nodeName"] == "sim-node-2"


def test_taints_tolerations_and_resources_filter_nodes(client: Any, cluster: Any) -> None:
    _, scheduler, _ = cluster
    for name in ("sim-node-0", "sim-node-1"):
        node = client.get(f"/api/v1/nodes/{name}").get_json()
        node["spec"]["taints"] = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
        assert client.put(f"/api/v1/nodes/{name}", json=node).status_code == 200
    big = {"containers": [{"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "3"}}}]}
    create(client, pod("first", **big))
    create(client, pod("second", **big))
    tolerant = [{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]
    create(client, pod("tolerant", tolerations=tolerant, affinity=_on("sim-node-0")))
    scheduler.sync()
    assert get(client, "first")["spec"]["nodeName"] == "sim-node-2"
    assert get(client, "tolerant")["spec"]["nodeName"] == "sim-node-0"
    second = get(client, "second")
    assert condition(second, "PodScheduled")["message"] == (
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had taint {dedicated: gpu}, "
        "that the pod didn't tolerate."
    )

    assert client.delete(f"{PODS}/first", json={"gracePeriodSeconds": 0}).status_code == 200
    scheduler.sync()
    assert get(client, "second")["spec"]["nodeName"] == "sim-node-2"


def _on(node: str) -> dict:
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}


def test_pods_that_run_to_completion_succeed_or_fail(client: Any, cluster: Any, clock: FakeClock) -> None:
    _, scheduler, agent = cluster
    owner = {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "0b4c-job", "controller": True}
    done = pod("done", restartPolicy="Never")
    done["metadata"]["ownerReferences"] = [owner]
    failing = pod("failing", restartPolicy="Never")
    failing["metadata"]["annotations"] = {"sim.orch.io/fail": "true"}
    for body in (done, failing, pod("server")):
        create(client, body)
    scheduler.sync()
    agent.sync()
    clock.advance(seconds=1)
    agent.sync()
    assert {get(client, n)["status"]["phase"] for n in ("done", "failing", "server")} == {"Running"}
    clock.advance(seconds=5)
    agent.sync()
    finished = get(client, "done")["status"]
    assert finished["phase"] == "Succeeded"
    terminated = finished["containerStatuses"][0]["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (0, "Completed")
    assert condition(get(client, "done"), "Ready") | {"lastTransitionTime": ""} == {
        "type": "Ready",
        "status": "False",
        "reason": "PodCompleted",
        "lastProbeTime": None,
        "lastTransitionTime": "",
    }
    failed = get(client, "failing")["status"]
    assert failed["phase"] == "Failed"
    assert failed["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 1
    assert get(client, "server")["status"]["phase"] == "Running"  # restartPolicy Always: it keeps running


def test_a_graceful_deletion_is_finished_by_the_node_agent(client: Any, cluster: Any, clock: FakeClock) -> None:
    _, scheduler, agent = cluster
    create(client, pod("web"))
    scheduler.sync()
    agent.sync()
    terminating = client.delete(f"{PODS}/web").get_json()["metadata"]
    assert terminating["deletionGracePeriodSeconds"] == 30
    clock.now = datetime.fromisoformat(terminating["deletionTimestamp"]) - timedelta(seconds=30)  # it began then
    agent.sync()
    assert client.get(f"{PODS}/web").status_code == 200
    assert not events(client, "Killing")  # it never started: nothing to stop
    clock.advance(seconds=0.2)  # SIMULATE_POD_STOP_SECONDS (0.2 s by default) after the deletion began
    agent.sync()
    assert client.get(f"{PODS}/web").status_code == 404


def test_a_running_pod_is_reported_stopped_before_it_goes(client: Any, cluster: Any, clock: FakeClock) -> None:
    """As a kubelet: the containers stop (terminated, exit code 0), the pod turns not Ready, then it is deleted."""
    _, scheduler, agent = cluster
    create(client, pod("web"))
    scheduler.sync()
    agent.sync()
    clock.advance(seconds=1)
    agent.sync()
    assert condition(get(client, "web"), "Ready")["status"] == "True"
    terminating = client.delete(f"{PODS}/web").get_json()["metadata"]
    clock.now = datetime.fromisoformat(terminating["deletionTimestamp"]) - timedelta(seconds=30)
    agent.sync()
    stopped = get(client, "web")["status"]
    ready = condition({"status": stopped}, "Ready")
    assert (ready["status"], ready["reason"], ready["message"]) == (
        "False",
        "ContainersNotReady",
        "containers with unready status: [app]",
    )
    (container,) = stopped["containerStatuses"]
    assert not container["ready"] and container["state"]["terminated"]["exitCode"] == 0
    assert stopped["phase"] == "Running"  # restartPolicy Always: the kubelet keeps the phase
    assert [e["message"] for e in events(client, "Killing")] == ["Stopping container app"]
    clock.advance(seconds=0.2)
    agent.sync()
    assert client.get(f"{PODS}/web").status_code == 404


def test_pods_of_other_nodes_and_schedulers_are_left_alone(client: Any, cluster: Any, clock: FakeClock) -> None:
    _, scheduler, agent = cluster
    create(client, pod("elsewhere", nodeName="real-node"))
    create(client, pod("mine", schedulerName="my-scheduler"))
    scheduler.sync()
    clock.advance(seconds=5)
    agent.sync()
    assert get(client, "elsewhere")["status"]["phase"] == "Pending"
    assert "nodeName" not in get(client, "mine")["spec"]


def test_kubelet_events_can_be_turned_off(sim_app: Any, client: Any, clock: FakeClock) -> None:
    """--simulate-kubelet-events=false: pods run as before, with no kubelet Events (fewer writes)."""
    ctx = context(sim_app, clock, SIMULATE_KUBELET_EVENTS=False)
    SimulatedNodes(ctx).sync()
    scheduler, agent = Scheduler(ctx), PodLifecycle(ctx)
    create(client, pod("quiet"))
    scheduler.sync()
    agent.sync()
    clock.advance(seconds=1)
    agent.sync()
    assert get(client, "quiet")["status"]["phase"] == "Running"
    client.delete(f"{PODS}/quiet")
    agent.sync()
    assert condition(get(client, "quiet"), "Ready")["status"] == "False"
    listed = client.get("/api/v1/namespaces/default/events").get_json()["items"]
    assert [e["source"]["component"] for e in listed] == ["default-scheduler"]
