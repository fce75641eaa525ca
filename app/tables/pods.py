"""The pod printer: Ready `n/m`, the aggregate Status reason, Restarts with the last restart's age."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..resources.common import dig
from .columns import (
    NONE,
    Cell,
    Column,
    Obj,
    TableSpec,
    age,
    age_column,
    deleting,
    dicts,
    human_duration,
    integer,
    mapping,
    name_column,
    name_of,
    parse_time,
    table,
    text,
    wide,
)

SUCCEEDED, FAILED = "Succeeded", "Failed"
#: the reason the node lifecycle controller sets on pods of an unreachable node.
NODE_LOST = "NodeLost"

_COMPLETED_SUCCESS = [
    {"type": "Completed", "status": "True", "reason": SUCCEEDED, "message": "The pod has completed successfully."}
]
_COMPLETED_FAILURE = [{"type": "Completed", "status": "True", "reason": FAILED, "message": "The pod failed."}]


@dataclass
class _Restarts:
    """A running restart count and the latest `lastState.terminated.finishedAt` seen."""

    count: int = 0
    last: datetime | None = None

    def add(self, status: Obj) -> None:
        self.count += integer(status, "restartCount")
        terminated = dig(status, "lastState", "terminated")
        finished = parse_time(terminated.get("finishedAt")) if isinstance(terminated, dict) else None
        if finished is not None and (self.last is None or self.last < finished):
            self.last = finished


def _is_sidecar(container: Obj | None) -> bool:
    """A restartable init container (restartPolicy Always) runs for the pod's whole life."""
    return container is not None and container.get("restartPolicy") == "Always"


def _condition_true(status: Obj, kind: str) -> bool:
    return any(c.get("type") == kind and c.get("status") == "True" for c in dicts(status, "conditions"))


def _initialized(status: Obj) -> bool:
    for condition in dicts(status, "conditions"):
        if condition.get("type") == "Initialized":
            return condition.get("status") == "True"
    return False


def _terminated_reason(terminated: Obj, prefix: str) -> str:
    if terminated.get("reason"):
        return prefix + str(terminated["reason"])
    signal = integer(terminated, "signal")
    if signal:
        return f"{prefix}Signal:{signal}"
    return f"{prefix}ExitCode:{integer(terminated, 'exitCode')}"


@dataclass
class _PodState:
    reason: str
    ready: int = 0
    initializing: bool = False


def _scan_init_containers(
    spec: Obj, status: Obj, state: _PodState, restarts: _Restarts, sidecar_restarts: _Restarts
) -> None:
    init_specs = {text(c, "name"): c for c in dicts(spec, "initContainers")}
    total_init = len(dicts(spec, "initContainers"))
    for index, container in enumerate(dicts(status, "initContainerStatuses")):
        restarts.add(container)
        sidecar = _is_sidecar(init_specs.get(text(container, "name")))
        if sidecar:
            sidecar_restarts.add(container)
        terminated = dig(container, "state", "terminated")
        waiting = dig(container, "state", "waiting")
        if isinstance(terminated, dict) and integer(terminated, "exitCode") == 0:
            continue
        if sidecar and container.get("started") is True:
            if container.get("ready") is True:
                state.ready += 1
            continue
        if isinstance(terminated, dict):
            state.reason = _terminated_reason(terminated, "Init:")
        elif isinstance(waiting, dict) and waiting.get("reason") and waiting.get("reason") != "PodInitializing":
            state.reason = f"Init:{waiting['reason']}"
        else:
            state.reason = f"Init:{index}/{total_init}"
        state.initializing = True
        break


def _scan_containers(status: Obj, state: _PodState, restarts: _Restarts) -> None:
    has_running = False
    for container in reversed(dicts(status, "containerStatuses")):
        restarts.add(container)
        waiting = dig(container, "state", "waiting")
        terminated = dig(container, "state", "terminated")
        if isinstance(waiting, dict) and waiting.get("reason"):
            state.reason = str(waiting["reason"])
        elif isinstance(terminated, dict):
            state.reason = _terminated_reason(terminated, "")
        elif container.get("ready") is True and isinstance(dig(container, "state", "running"), dict):
            has_running = True
            state.ready += 1
    # a pod whose last container completed while another still runs is shown as running
    if state.reason == "Completed" and has_running:
        state.reason = "Running" if _condition_true(status, "Ready") else "NotReady"


def pod_status(obj: Obj) -> tuple[str, int, int, _Restarts]:
    """(Status reason, ready containers, total containers, restarts) the way the reference computes them."""
    spec, status = mapping(obj, "spec"), mapping(obj, "status")
    phase = text(status, "phase")
    state = _PodState(reason=text(status, "reason") or phase)
    for condition in dicts(status, "conditions"):
        if condition.get("type") == "PodScheduled" and condition.get("reason") == "SchedulingGated":
            state.reason = "SchedulingGated"
    total = len(dicts(spec, "containers")) + sum(1 for c in dicts(spec, "initContainers") if _is_sidecar(c))

    restarts, sidecar_restarts = _Restarts(), _Restarts()
    _scan_init_containers(spec, status, state, restarts, sidecar_restarts)
    if not state.initializing or _initialized(status):
        # only restartable init containers count once initialization is over
        restarts = sidecar_restarts
        _scan_containers(status, state, restarts)

    if deleting(obj) and text(status, "reason") == NODE_LOST:
        state.reason = "Unknown"
    elif deleting(obj) and phase not in (SUCCEEDED, FAILED):
        state.reason = "Terminating"
    return state.reason, state.ready, total, restarts


def _restarts_cell(restarts: _Restarts, now: datetime) -> str:
    if restarts.count and restarts.last is not None:
        return f"{restarts.count} ({human_duration(now - restarts.last)} ago)"
    return str(restarts.count)


def _readiness_gates(spec: Obj, status: Obj) -> str:
    gates = dicts(spec, "readinessGates")
    if not gates:
        return NONE
    conditions = dicts(status, "conditions")
    passed = 0
    for gate in gates:
        for condition in conditions:
            if condition.get("type") == gate.get("conditionType"):
                passed += condition.get("status") == "True"
                break
    return f"{passed}/{len(gates)}"


def _pod_ip(status: Obj) -> str:
    ips = dicts(status, "podIPs")
    # the reference converts a lone status.podIP into podIPs[0]
    first = text(ips[0], "ip") if ips else text(status, "podIP")
    return first or NONE


def _pod_cells(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = mapping(obj, "spec"), mapping(obj, "status")
    reason, ready, total, restarts = pod_status(obj)
    return [
        name_of(obj),
        f"{ready}/{total}",
        reason,
        _restarts_cell(restarts, now),
        age(obj, now),
        _pod_ip(status),
        text(spec, "nodeName") or NONE,
        text(status, "nominatedNodeName") or NONE,
        _readiness_gates(spec, status),
    ]


def _pod_conditions(obj: Obj) -> list[dict]:
    phase = text(obj, "status", "phase")
    if phase == SUCCEEDED:
        return [dict(c) for c in _COMPLETED_SUCCESS]
    if phase == FAILED:
        return [dict(c) for c in _COMPLETED_FAILURE]
    return []


POD_TABLE: TableSpec = table(
    [
        name_column(),
        Column("Ready", description="The aggregate readiness state of this pod for accepting traffic."),
        Column("Status", description="The aggregate status of the containers in this pod."),
        Column(
            "Restarts",
            description="The number of times the containers in this pod have been restarted "
            "and when the last container in this pod has restarted.",
        ),
        age_column(),
        wide("IP", "IP address allocated to the pod. Routable at least within the cluster."),
        wide("Node", "NodeName indicates in which node this pod is scheduled."),
        wide("Nominated Node", "nominatedNodeName is set only when this pod preempts other pods on the node."),
        wide("Readiness Gates", "If specified, all readiness gates will be evaluated for pod readiness."),
    ],
    _pod_cells,
    _pod_conditions,
)
