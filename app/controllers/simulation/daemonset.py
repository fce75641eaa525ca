"""The DaemonSet controller (the reference's pkg/controller/daemon): one pod per node the template fits
(nodeSelector, required node affinity, taints against its tolerations plus the daemon pods' default ones), each
pinned to its node by node affinity (matchFields metadata.name) for the scheduler to bind (the reference's
ScheduleDaemonSetPods, simulation/scheduler.py); extra and misplaced pods removed; RollingUpdate
within maxUnavailable; the reference's status and revisions."""

from __future__ import annotations

import copy
from typing import Any

from ...registry.keys import collection_prefix
from ..base import Context
from .nodefit import add_tolerations, daemon_tolerations, fits, pin_to_node
from .workload_common import (
    REVISION_HASH_LABEL,
    SimulationController,
    by_namespace,
    create_quietly,
    delete_quietly,
    ensure_revision,
    finished,
    meta,
    owned,
    plain_kind,
    pod_from_template,
    pod_ready,
    prune_revisions,
    record_event,
    spec,
    status,
    template_hash,
    terminating,
    write_status,
)


def _node_of(pod: dict) -> str:
    """The node a daemon pod is for: bound, or named by its pinned affinity."""
    if spec(pod).get("nodeName"):
        return str(spec(pod)["nodeName"])
    terms = (
        ((spec(pod).get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        )
        or {}
    ).get("nodeSelectorTerms") or []
    for term in terms:
        for field in term.get("matchFields") or []:
            if field.get("key") == "metadata.name" and field.get("values"):
                return str(field["values"][0])
    return ""


def _max_unavailable(value: object, desired: int) -> int:
    if isinstance(value, str) and value.endswith("%"):
        return max(int(desired * int(value[:-1]) / 100), 1)  # the reference rounds down, at least one
    return max(int(value or 0), 1) if isinstance(value, int | str) else 1


#: the reference's event source of this controller
COMPONENT = "daemonset-controller"


class DaemonSetController(SimulationController):
    name = "daemonset"
    account = "daemon-set-controller"
    owner_kinds = ("DaemonSet",)

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.sets, self.pods, self.nodes = (
            plain_kind(ctx, "apps", "daemonsets"),
            ctx.kind("", "pods"),
            ctx.kind("", "nodes"),
        )
        self.revisions = plain_kind(ctx, "apps", "controllerrevisions")

    def watches(self) -> list[Any]:
        return [self.sets, self.pods, self.nodes]

    def relevant(self, change: Any) -> bool:
        return change.key.startswith(self._nodes_prefix) or super().relevant(change)

    @property
    def _nodes_prefix(self) -> str:
        return collection_prefix(self.nodes, None)

    def sync(self) -> None:
        sets = self.client.list(self.sets)
        if not sets:
            return
        nodes = self.client.list(self.nodes)
        pods = by_namespace(self.client.list(self.pods))
        revisions = by_namespace(self.client.list(self.revisions))
        for ds in sets:
            if not meta(ds).get("deletionTimestamp"):
                ns = str(meta(ds).get("namespace"))
                self.sync_set(ds, nodes, owned(pods.get(ns, []), ds), owned(revisions.get(ns, []), ds))

    def _template_spec(self, ds: dict) -> dict:
        pod_spec = copy.deepcopy(spec(spec(ds).get("template") or {}))
        add_tolerations(pod_spec, daemon_tolerations(self.naming, bool(pod_spec.get("hostNetwork"))))
        return pod_spec

    def sync_set(self, ds: dict, nodes: list[dict], pods: list[dict], revisions: list[dict]) -> None:
        hash_ = template_hash(spec(ds).get("template"))
        ensure_revision(self.client, self.revisions, ds, revisions, hash_, f"{meta(ds).get('name')}-{hash_}")
        pod_spec = self._template_spec(ds)
        wanted = {str(meta(n).get("name")) for n in nodes if fits(pod_spec, n)}
        on_node: dict[str, list[dict]] = {}
        for pod in pods:
            on_node.setdefault(_node_of(pod), []).append(pod)
        for node, node_pods in on_node.items():
            live = [p for p in node_pods if not terminating(p)]
            for pod in live:
                if node not in wanted or finished(pod):
                    self._delete(ds, pod)  # misplaced, or ended: replaced below
            keep = [p for p in live if node in wanted and not finished(p)]
            keep.sort(key=lambda p: str(meta(p).get("creationTimestamp") or ""))
            for pod in keep[1:]:
                self._delete(ds, pod)  # one daemon pod per node: the oldest stays
        for node in sorted(wanted):
            if not any(not terminating(p) and not finished(p) for p in on_node.get(node, [])):
                self._create(ds, node, hash_)
        self._roll(ds, wanted, on_node, hash_)
        self._status(ds, wanted, on_node, hash_)
        live_hashes = {f"{meta(ds).get('name')}-{(meta(p).get('labels') or {}).get(REVISION_HASH_LABEL)}" for p in pods}
        prune_revisions(self.client, self.revisions, ds, revisions, {f"{meta(ds).get('name')}-{hash_}", *live_hashes})

    def _create(self, ds: dict, node: str, hash_: str) -> None:
        namespace = str(meta(ds).get("namespace"))
        labels = {REVISION_HASH_LABEL: hash_, "pod-template-generation": str(meta(ds).get("generation", 1))}
        pod = pod_from_template(spec(ds).get("template") or {}, ds, labels)
        pod["metadata"]["generateName"] = f"{meta(ds).get('name')}-"
        pod["spec"] = self._template_spec(ds)
        pin_to_node(pod["spec"], node)
        made = create_quietly(self.client, self.pods, namespace, pod)
        if made is not None:
            record_event(
                self.client, ds, "Normal", "SuccessfulCreate", f"Created pod: {meta(made).get('name')}", COMPONENT
            )

    def _delete(self, ds: dict, pod: dict) -> None:
        if delete_quietly(self.client, self.pods, pod):
            record_event(
                self.client, ds, "Normal", "SuccessfulDelete", f"Deleted pod: {meta(pod).get('name')}", COMPONENT
            )

    def _roll(self, ds: dict, wanted: set[str], on_node: dict[str, list[dict]], hash_: str) -> None:
        update = spec(ds).get("updateStrategy") or {}
        if update.get("type", "RollingUpdate") != "RollingUpdate":
            return
        budget = _max_unavailable((update.get("rollingUpdate") or {}).get("maxUnavailable", 1), len(wanted))
        current = {n: [p for p in on_node.get(n, []) if not terminating(p)] for n in wanted}
        unavailable = sum(1 for n in wanted if not any(pod_ready(p) for p in current[n]))
        for node in sorted(wanted):
            if unavailable >= budget:
                return
            old = [p for p in current[node] if (meta(p).get("labels") or {}).get(REVISION_HASH_LABEL) != hash_]
            for pod in old:
                self._delete(ds, pod)
            if old:
                unavailable += 1

    def _status(self, ds: dict, wanted: set[str], on_node: dict[str, list[dict]], hash_: str) -> None:
        def node_pods(node: str) -> list[dict]:
            return [p for p in on_node.get(node, []) if not terminating(p) and not finished(p)]

        scheduled = [n for n in wanted if node_pods(n)]
        misscheduled = [n for n in on_node if n and n not in wanted and node_pods(n)]
        ready_nodes = [n for n in scheduled if any(pod_ready(p) for p in node_pods(n))]
        updated = [
            n
            for n in scheduled
            if any((meta(p).get("labels") or {}).get(REVISION_HASH_LABEL) == hash_ for p in node_pods(n))
        ]
        available = len(ready_nodes)
        new: dict[str, Any] = {
            **{k: v for k, v in status(ds).items() if k == "conditions"},
            "currentNumberScheduled": len(scheduled),
            "numberMisscheduled": len(misscheduled),
            "desiredNumberScheduled": len(wanted),
            "numberReady": len(ready_nodes),
            "observedGeneration": meta(ds).get("generation", 0),
            "updatedNumberScheduled": len(updated),
            "numberAvailable": available,
            "numberUnavailable": len(wanted) - available,
        }
        for key in ("updatedNumberScheduled", "numberAvailable", "numberUnavailable"):
            if not new[key]:
                del new[key]  # omitempty, as the reference serves them
        write_status(self.client, self.sets, ds, new)
