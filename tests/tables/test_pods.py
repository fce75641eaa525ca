from __future__ import annotations

from orch_apiserver.tables import table_for

from tests.tables.helpers import NAMING, NOW, ago, cells, column_names, obj, rt


def pod(
    status: dict | None = None,
    *,
    containers: int = 1,
    init: list[dict] | None = None,
    deleting: bool = False,
    **spec: object,
) -> dict:
    item = obj(
        "web",
        created=ago(hours=1),
        spec={
            "containers": [{"name": f"c{i}", "image": "nginx"} for i in range(containers)],
            **({"initContainers": init} if init else {}),
            **spec,
        },
        status=status or {},
    )
    if deleting:
        item["metadata"]["deletionTimestamp"] = ago(seconds=10)
    return item


def running(name: str = "c0", restarts: int = 0, ready: bool = True, **extra: object) -> dict:
    return {
        "name": name,
        "ready": ready,
        "restartCount": restarts,
        "state": {"running": {"startedAt": ago(hours=1)}},
        **extra,
    }


def test_columns() -> None:
    assert column_names("", "pods") == [
        "Name",
        "Ready",
        "Status",
        "Restarts",
        "Age",
        "IP",
        "Node",
        "Nominated Node",
        "Readiness Gates",
    ]
    defs = table_for(rt("", "pods"), NAMING).column_definitions()
    assert [d["priority"] for d in defs] == [0, 0, 0, 0, 0, 1, 1, 1, 1]
    assert defs[0]["format"] == "name"
    assert all(set(d) == {"name", "type", "format", "description", "priority"} for d in defs)
    assert all(d["type"] == "string" for d in defs)


def test_pending_unscheduled_pod() -> None:
    assert cells("", "pods", pod({"phase": "Pending"})) == [
        "web",
        "0/1",
        "Pending",
        "0",
        "60m",
        "<none>",
        "<none>",
        "<none>",
        "<none>",
    ]


def test_container_creating() -> None:
    status = {
        "phase": "Pending",
        "containerStatuses": [
            {"name": "c0", "ready": False, "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}}}
        ],
    }
    row = cells("", "pods", pod(status, nodeName="node-1"))
    assert row[:4] == ["web", "0/1", "ContainerCreating", "0"]
    assert row[6] == "node-1"


def test_running_ready_pod_with_ip() -> None:
    status = {
        "phase": "Running",
        "podIP": "10.0.0.7",
        "podIPs": [{"ip": "10.0.0.7"}, {"ip": "fd00::7"}],
        "conditions": [{"type": "Ready", "status": "True"}],
        "containerStatuses": [running("c0"), running("c1", ready=False)],
    }
    row = cells("", "pods", pod(status, containers=2, nodeName="node-1"))
    assert row == ["web", "1/2", "Running", "0", "60m", "10.0.0.7", "node-1", "<none>", "<none>"]


def test_pod_ip_from_lone_pod_ip() -> None:
    assert cells("", "pods", pod({"phase": "Running", "podIP": "10.0.0.8"}))[5] == "10.0.0.8"


def test_crash_loop_back_off_with_restart_age() -> None:
    status = {
        "phase": "Running",
        "containerStatuses": [
            {
                "name": "c0",
                "ready": False,
                "restartCount": 4,
                "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off"}},
                "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": ago(minutes=3)}},
            }
        ],
    }
    assert cells("", "pods", pod(status))[:4] == ["web", "0/1", "CrashLoopBackOff", "4 (3m ago)"]


def test_restarts_without_termination_time() -> None:
    status = {"phase": "Running", "containerStatuses": [running(restarts=2)]}
    assert cells("", "pods", pod(status))[3] == "2"


def test_succeeded_pod_is_completed_with_condition() -> None:
    status = {
        "phase": "Succeeded",
        "containerStatuses": [
            {
                "name": "c0",
                "ready": False,
                "restartCount": 0,
                "state": {"terminated": {"exitCode": 0, "reason": "Completed"}},
            }
        ],
    }
    row = table_for(rt("", "pods"), NAMING).row(pod(status), NOW)
    assert row["cells"][:3] == ["web", "0/1", "Completed"]
    assert row["conditions"] == [
        {"type": "Completed", "status": "True", "reason": "Succeeded", "message": "The pod has completed successfully."}
    ]


def test_failed_pod_exit_code_and_condition() -> None:
    status = {
        "phase": "Failed",
        "containerStatuses": [
            {"name": "c0", "ready": False, "restartCount": 0, "state": {"terminated": {"exitCode": 137}}}
        ],
    }
    row = table_for(rt("", "pods"), NAMING).row(pod(status), NOW)
    assert row["cells"][2] == "ExitCode:137"
    assert row["conditions"][0]["reason"] == "Failed"


def test_signal_and_evicted_reason() -> None:
    status = {
        "phase": "Failed",
        "containerStatuses": [{"name": "c0", "state": {"terminated": {"exitCode": 0, "signal": 9}}}],
    }
    assert cells("", "pods", pod(status))[2] == "Signal:9"
    assert cells("", "pods", pod({"phase": "Failed", "reason": "Evicted"}))[2] == "Evicted"


def test_running_pod_has_no_conditions() -> None:
    assert "conditions" not in table_for(rt("", "pods"), NAMING).row(pod({"phase": "Running"}), NOW)


def test_terminating() -> None:
    status = {"phase": "Running", "containerStatuses": [running()]}
    assert cells("", "pods", pod(status, deleting=True))[2] == "Terminating"
    # a finished pod keeps its terminal reason while being deleted
    done = {
        "phase": "Succeeded",
        "containerStatuses": [{"name": "c0", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}],
    }
    assert cells("", "pods", pod(done, deleting=True))[2] == "Completed"
    lost = {"phase": "Running", "reason": "NodeLost"}
    assert cells("", "pods", pod(lost, deleting=True))[2] == "Unknown"


def test_scheduling_gated() -> None:
    status = {
        "phase": "Pending",
        "conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}],
    }
    assert cells("", "pods", pod(status))[2] == "SchedulingGated"


def test_init_containers() -> None:
    init = [{"name": "i0", "image": "busybox"}, {"name": "i1", "image": "busybox"}]
    first_done = {
        "phase": "Pending",
        "initContainerStatuses": [
            {"name": "i0", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}},
            {"name": "i1", "state": {"running": {}}},
        ],
        "containerStatuses": [{"name": "c0", "state": {"waiting": {"reason": "PodInitializing"}}}],
    }
    assert cells("", "pods", pod(first_done, init=init))[:3] == ["web", "0/1", "Init:1/2"]
    waiting = {
        "phase": "Pending",
        "initContainerStatuses": [
            {"name": "i0", "restartCount": 3, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}
        ],
    }
    assert cells("", "pods", pod(waiting, init=init))[2:4] == ["Init:CrashLoopBackOff", "3"]
    failed = {"phase": "Pending", "initContainerStatuses": [{"name": "i0", "state": {"terminated": {"exitCode": 2}}}]}
    assert cells("", "pods", pod(failed, init=init))[2] == "Init:ExitCode:2"
    errored = {
        "phase": "Pending",
        "initContainerStatuses": [{"name": "i0", "state": {"terminated": {"exitCode": 1, "reason": "Error"}}}],
    }
    assert cells("", "pods", pod(errored, init=init))[2] == "Init:Error"


def test_sidecar_counts_as_container() -> None:
    init = [{"name": "proxy", "image": "envoy", "restartPolicy": "Always"}]
    status = {
        "phase": "Running",
        "conditions": [{"type": "Initialized", "status": "True"}],
        "initContainerStatuses": [
            {"name": "proxy", "ready": True, "started": True, "restartCount": 1, "state": {"running": {}}}
        ],
        "containerStatuses": [running("c0", restarts=2)],
    }
    assert cells("", "pods", pod(status, init=init))[1:4] == ["2/2", "Running", "3"]


def test_completed_container_next_to_running_one() -> None:
    status = {
        "phase": "Running",
        "conditions": [{"type": "Ready", "status": "True"}],
        "containerStatuses": [
            {"name": "c0", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}},
            running("c1"),
        ],
    }
    assert cells("", "pods", pod(status, containers=2))[1:3] == ["1/2", "Running"]
    status["conditions"] = []
    assert cells("", "pods", pod(status, containers=2))[2] == "NotReady"


def test_readiness_gates_and_nominated_node() -> None:
    status = {
        "phase": "Pending",
        "nominatedNodeName": "node-2",
        "conditions": [
            {"type": "example.com/feature-1", "status": "True"},
            {"type": "example.com/feature-2", "status": "False"},
        ],
    }
    gates = [
        {"conditionType": "example.com/feature-1"},
        {"conditionType": "example.com/feature-2"},
        {"conditionType": "example.com/feature-3"},
    ]
    row = cells("", "pods", pod(status, readinessGates=gates))
    assert row[7:] == ["node-2", "1/3"]
