"""The simulation's scheduler: binds pods of `default-scheduler` that have no node, as the reference's filters and
least-allocated score would (v1.23 default profile, in its filter order): NodeUnschedulable, TaintToleration
(NoSchedule and NoExecute), NodeAffinity (nodeSelector and required node affinity) and NodeResourcesFit (requests
against allocatable, and the pod count). A pod no node fits gets `PodScheduled=False`, reason `Unschedulable`,
with the reference's message, and a `FailedScheduling` event; it is tried again whenever nodes or pods change."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

from ...errors import Conflict, NotFound
from ...quota import pod_totals
from ...registry import meta
from ...resources.defaults import parse_quantity
from ..base import Context, Controller
from . import cluster
from .nodefit import matches_node, tolerates
from .workload_common import record_event

if TYPE_CHECKING:
    from ...catalog import ResourceType
    from ...registry.informer import Change

FINISHED = ("Succeeded", "Failed")
#: what the reference's scorer counts for a container without requests (DefaultMilliCPURequest, DefaultMemoryRequest)
NON_ZERO = {"cpu": Decimal("0.1"), "memory": Decimal(200 * 1024 * 1024)}
NO_NODES = "no nodes available to schedule pods"
AFFINITY = "node(s) didn't match Pod's node affinity/selector"
UNSCHEDULABLE = "node(s) were unschedulable"
UNTOLERATED = "that the pod didn't tolerate"


@dataclass
class NodeState:
    node: dict
    pods: int = 0
    requested: Counter[str] = field(default_factory=Counter)
    #: requests counted with the reference's non-zero defaults (the score's view)
    scored: Counter[str] = field(default_factory=Counter)

    def allocatable(self, name: str) -> Decimal:
        return parse_quantity(((self.node.get("status") or {}).get("allocatable") or {}).get(name)) or Decimal(0)

    def add(self, requests: dict[str, Decimal], scored: dict[str, Decimal]) -> None:
        self.pods += 1
        self.requested.update(requests)
        self.scored.update(scored)


def _scored(spec: dict, requests: dict[str, Decimal]) -> dict[str, Decimal]:
    containers = len(spec.get("containers") or []) or 1
    return {name: requests.get(name) or default * containers for name, default in NON_ZERO.items()}


class Scheduler(Controller):
    name = "sim-scheduler"
    account = "sim-scheduler"
    resync_seconds = 30.0  # unschedulable pods are tried again at least this often

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.binder = cluster.SimClient(ctx, self.client.user)  # the same identity, able to POST pods/binding
        self.pods, self.nodes = ctx.kind("", "pods"), ctx.kind("", "nodes")
        self.unschedulable_taint = f"{self.naming.key_group('node')}/unschedulable"

    def watches(self) -> list[ResourceType]:
        return [self.pods, self.nodes]

    def relevant(self, change: Change) -> bool:
        """Nodes, pods waiting for a node, and pods that free room (gone or finished)."""
        if "/pods/" not in change.key or change.type == "DELETED":
            return True
        return '"nodeName"' not in change.data or any(f'"{phase}"' in change.data for phase in FINISHED)

    def sync(self) -> None:
        pods = self.client.list(self.pods)
        waiting = [p for p in pods if self._waiting(p)]
        if not waiting:
            return
        states = {str(n["metadata"]["name"]): NodeState(n) for n in self.client.list(self.nodes)}
        for pod in pods:
            state = states.get(str((pod.get("spec") or {}).get("nodeName") or ""))
            if state is not None and (pod.get("status") or {}).get("phase") not in FINISHED:
                requests = pod_totals(pod.get("spec") or {}, "requests")
                state.add(requests, _scored(pod.get("spec") or {}, requests))
        waiting.sort(
            key=lambda p: (
                -int((p.get("spec") or {}).get("priority") or 0),
                p["metadata"].get("creationTimestamp") or "",
            )
        )
        for pod in waiting:
            self._schedule(pod, list(states.values()))

    def _waiting(self, pod: dict) -> bool:
        spec, md = pod.get("spec") or {}, pod.get("metadata") or {}
        return (
            not spec.get("nodeName")
            and not md.get("deletionTimestamp")
            and (spec.get("schedulerName") or cluster.SCHEDULER_NAME) == cluster.SCHEDULER_NAME
            and (pod.get("status") or {}).get("phase") not in FINISHED
        )

    def _schedule(self, pod: dict, states: list[NodeState]) -> None:
        spec = pod.get("spec") or {}
        requests = pod_totals(spec, "requests")
        feasible, reasons = [], Counter[str]()
        for state in states:
            failed = self._filter(pod, requests, state)
            if failed:
                reasons.update(failed)
            else:
                feasible.append(state)
        if not feasible:
            self._unschedulable(pod, self._message(len(states), reasons))
            return
        best = max(feasible, key=lambda s: (self._score(s, _scored(spec, requests)), -s.pods))
        node = str(best.node["metadata"]["name"])
        md = pod["metadata"]
        binding = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": md["name"], "namespace": md.get("namespace"), "uid": md.get("uid")},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node},
        }
        try:
            self.binder.create_subresource(self.pods, md.get("namespace"), md["name"], "binding", binding)
        except (Conflict, NotFound):
            return  # bound, deleted or replaced meanwhile
        best.add(requests, _scored(spec, requests))
        message = f"Successfully assigned {md.get('namespace')}/{md['name']} to {node}"
        self._event(pod, "Normal", "Scheduled", message)

    def _filter(self, pod: dict, requests: dict[str, Decimal], state: NodeState) -> list[str]:
        """Why the node does not fit (the first failing filter's reasons), [] when it does."""
        spec, node = pod.get("spec") or {}, state.node
        node_spec = node.get("spec") or {}
        tolerations = spec.get("tolerations") or []
        if node_spec.get("unschedulable") and not tolerates(
            tolerations, {"key": self.unschedulable_taint, "effect": "NoSchedule"}
        ):
            return [UNSCHEDULABLE]
        for taint in node_spec.get("taints") or []:
            untolerated = isinstance(taint, dict) and taint.get("effect") in ("NoSchedule", "NoExecute")
            if untolerated and not tolerates(tolerations, taint):
                return [f"node(s) had taint {{{taint.get('key')}: {taint.get('value') or ''}}}, {UNTOLERATED}"]
        if not matches_node(spec, node):
            return [AFFINITY]
        failed = []
        if state.pods + 1 > state.allocatable("pods"):
            failed.append("Too many pods")
        for name, amount in sorted(requests.items()):
            if amount > 0 and amount > state.allocatable(name) - state.requested.get(name, Decimal(0)):
                failed.append(f"Insufficient {name}")
        return failed

    @staticmethod
    def _score(state: NodeState, scored: dict[str, Decimal]) -> Decimal:
        """LeastAllocated over cpu and memory: the share left free once the pod is placed."""
        total = Decimal(0)
        for name in NON_ZERO:
            allocatable = state.allocatable(name)
            if allocatable > 0:
                total += (allocatable - state.scored.get(name, Decimal(0)) - scored[name]) / allocatable
        return total

    @staticmethod
    def _message(nodes: int, reasons: Counter[str]) -> str:
        if not nodes:
            return NO_NODES
        return f"0/{nodes} nodes are available: " + ", ".join(sorted(f"{n} {r}" for r, n in reasons.items())) + "."

    def _unschedulable(self, pod: dict, message: str) -> None:
        """PodScheduled=False with the reason; a FailedScheduling event each time the message changes."""
        status = dict(pod.get("status") or {})
        current = next(
            (c for c in status.get("conditions") or [] if isinstance(c, dict) and c.get("type") == "PodScheduled"), {}
        )
        if current.get("status") == "False" and current.get("message") == message:
            return
        status["phase"] = status.get("phase") or "Pending"
        status["conditions"] = [dict(c) for c in status.get("conditions") or [] if isinstance(c, dict)]
        meta.set_condition(status, "PodScheduled", "False", lastProbeTime=None, reason="Unschedulable", message=message)
        md = pod["metadata"]
        try:
            self.client.update(self.pods, md.get("namespace"), {**pod, "status": status}, "status")
        except (Conflict, NotFound):
            return
        self._event(pod, "Warning", "FailedScheduling", message)

    def _event(self, pod: dict, event_type: str, reason: str, message: str) -> None:
        """An Event about the pod, as `kubectl describe pod` lists it."""
        involved = {**pod, "apiVersion": "v1", "kind": "Pod"}
        name = cluster.SCHEDULER_NAME
        record_event(self.client, involved, event_type, reason, message, name, now=self.now(), instance=name)
