"""The ReplicaSet controller of the simulation, with the reference's semantics (pkg/controller/replicaset, v1.23):
pods from the template (generateName `<rs>-`, a controller ownerReference) until the active ones match
`spec.replicas`; orphans matching the selector adopted, owned pods that stopped matching released; surplus pods
deleted in the reference's order (unscheduled, pending, not ready, ... first); status counts and the
ReplicaFailure condition; `observedGeneration`. Reads are consistent lists, so no expectations are needed."""

from __future__ import annotations

import copy
import logging
from datetime import datetime
from typing import Any

from ...catalog import ResourceType
from ...errors import ApiError, Conflict, NotFound
from ..base import Context
from .workload_common import (
    NamespaceQueue,
    apps_kind,
    compile_selector,
    condition,
    controller_of,
    meta,
    owner_reference,
    parse_time,
    pod_active,
    pod_available,
    pod_ready,
    pod_ready_since,
    rfc3339,
    spec,
    status,
)

log = logging.getLogger(__name__)

#: the most pods one sync creates or deletes (the reference's burstReplicas)
BURST_REPLICAS = 500
#: the first batch of the slow start (the reference's SlowStartInitialBatchSize)
SLOW_START_INITIAL_BATCH = 1
#: how soon a sync whose pod writes failed is tried again
FAILURE_RETRY_SECONDS = 1.0
PHASE_ORDER = {"Pending": 0, "Unknown": 1, "Running": 2}


def pod_deletion_cost(pod: dict, key: str) -> int:
    try:
        return int((meta(pod).get("annotations") or {}).get(key, "0"))
    except ValueError:
        return 0


def restarts(pod: dict) -> int:
    return max((int(c.get("restartCount") or 0) for c in status(pod).get("containerStatuses") or []), default=0)


def deletion_order(pods: list[dict], related: list[dict], cost_key: str) -> list[dict]:
    """Pods in the order the reference deletes them (ActivePodsWithRanks): unassigned, pending < unknown < running,
    not ready, lower deletion cost, more related pods on the same node, ready more recently, more restarts,
    created more recently."""
    on_node: dict[str, int] = {}
    for pod in related:
        node = spec(pod).get("nodeName") or ""
        if node and pod_active(pod):
            on_node[node] = on_node.get(node, 0) + 1

    def key(pod: dict) -> tuple:
        node = spec(pod).get("nodeName") or ""
        ready_since = pod_ready_since(pod)
        created = parse_time(meta(pod).get("creationTimestamp"))
        return (
            bool(node),
            PHASE_ORDER.get(status(pod).get("phase") or "", 0),
            ready_since is not None,
            pod_deletion_cost(pod, cost_key),
            -on_node.get(node, 0) if node else 0,
            -(ready_since.timestamp()) if ready_since is not None and ready_since.tzinfo else 0.0,
            -restarts(pod),
            -(created.timestamp()) if created is not None else float("-inf"),
        )

    return sorted(pods, key=key)


class ReplicaSetController(NamespaceQueue):
    name = "replicaset"
    account = "replicaset-controller"
    component = "replicaset-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.sets, self.pods = apps_kind(ctx, "replicasets"), ctx.kind("", "pods")
        self.cost_key = f"{ctx.naming.key_group('controller')}/pod-deletion-cost"

    def watches(self) -> list[ResourceType]:
        return [self.sets, self.pods]

    def reconcile(self, namespaces: set[str] | None) -> None:
        targets: list[str | None] = list(namespaces) if namespaces is not None else [None]
        for namespace in targets:
            sets = self.client.list(self.sets, namespace)
            if not sets:
                continue
            pods = self.client.list(self.pods, namespace)
            by_namespace: dict[str, list[dict]] = {}
            for pod in pods:
                by_namespace.setdefault(meta(pod).get("namespace") or "", []).append(pod)
            for rs in sets:
                ns_pods = by_namespace.get(meta(rs).get("namespace") or "", [])
                try:
                    self.sync_one(rs, ns_pods, sets)
                except (Conflict, NotFound):
                    self.due_in(meta(rs).get("namespace") or "", 0.1)  # changed meanwhile: look again

    # -- one replica set --------------------------------------------------------------------------------

    def sync_one(self, rs: dict, pods: list[dict], sets: list[dict]) -> None:
        owned = self.claim(rs, pods)
        active = [p for p in owned if pod_active(p)]
        error: tuple[str, str] | None = None
        if not meta(rs).get("deletionTimestamp"):
            error = self.manage(rs, active, self.related(rs, pods, sets))
            if error is not None:  # the reference requeues a failed sync (a missing service account may come)
                self.due_in(meta(rs).get("namespace") or "", FAILURE_RETRY_SECONDS)
        self.write_status(rs, active, error)

    def claim(self, rs: dict, pods: list[dict]) -> list[dict]:
        """The pods `rs` controls after adopting matching orphans and releasing owned pods that do not match."""
        md = meta(rs)
        matches = compile_selector(spec(rs).get("selector"))
        owned = []
        for i, pod in enumerate(pods):
            ref = controller_of(pod)
            labels = meta(pod).get("labels") or {}
            if ref is not None:
                if ref.get("uid") != md.get("uid"):
                    continue
                if matches(labels) or md.get("deletionTimestamp"):
                    owned.append(pod)
                    continue
                pods[i] = self._set_refs(pod, [r for r in meta(pod).get("ownerReferences") or [] if r is not ref])
                continue
            if not matches(labels) or md.get("deletionTimestamp") or meta(pod).get("deletionTimestamp"):
                continue
            refs = [*(meta(pod).get("ownerReferences") or []), owner_reference("ReplicaSet", rs)]
            pods[i] = self._set_refs(pod, refs)
            owned.append(pods[i])
        return owned

    def _set_refs(self, pod: dict, refs: list[dict]) -> dict:
        md = meta(pod)
        body = {"metadata": {"ownerReferences": refs, "resourceVersion": md.get("resourceVersion")}}
        return self.patcher.patch(self.pods, md.get("namespace"), md["name"], body)

    def related(self, rs: dict, pods: list[dict], sets: list[dict]) -> list[dict]:
        """The pods of every replica set with the same controller as `rs` (its siblings in a Deployment)."""
        owner = controller_of(rs)
        uids = {meta(rs).get("uid")}
        if owner is not None:
            uids |= {meta(s).get("uid") for s in sets if (controller_of(s) or {}).get("uid") == owner.get("uid")}
        return [p for p in pods if (controller_of(p) or {}).get("uid") in uids]

    def manage(self, rs: dict, active: list[dict], related: list[dict]) -> tuple[str, str] | None:
        """Create or delete pods; the failure's (reason, message) when a write failed."""
        diff = len(active) - int(spec(rs).get("replicas", 1))
        if diff < 0:
            return self._create(rs, min(-diff, BURST_REPLICAS))
        if diff > 0:
            victims = deletion_order(active, related, self.cost_key)[: min(diff, BURST_REPLICAS)]
            return self._delete(rs, victims)
        return None

    def _create(self, rs: dict, count: int) -> tuple[str, str] | None:
        """Slow start: batches of 1, 2, 4, ... so a template the server refuses fails once, not `count` times."""
        batch, left = SLOW_START_INITIAL_BATCH, count
        while left > 0:
            for _ in range(min(batch, left)):
                try:
                    pod = self.client.create(self.pods, meta(rs).get("namespace"), self.pod_for(rs))
                except ApiError as err:
                    message = err.message
                    self.record(rs, "ReplicaSet", "Warning", "FailedCreate", f"Error creating: {message}")
                    return "FailedCreate", message
                self.record(rs, "ReplicaSet", "Normal", "SuccessfulCreate", f"Created pod: {meta(pod)['name']}")
            left -= min(batch, left)
            batch *= 2
        return None

    def _delete(self, rs: dict, victims: list[dict]) -> tuple[str, str] | None:
        for pod in victims:
            md = meta(pod)
            try:
                self.client.delete(self.pods, md.get("namespace"), md["name"], md.get("uid", ""))
            except NotFound:
                continue  # gone already: what we wanted
            except ApiError as err:
                message = err.message
                self.record(rs, "ReplicaSet", "Warning", "FailedDelete", f"Error deleting: {message}")
                return "FailedDelete", message
            self.record(rs, "ReplicaSet", "Normal", "SuccessfulDelete", f"Deleted pod: {md['name']}")
        return None

    def pod_for(self, rs: dict) -> dict:
        template = copy.deepcopy(spec(rs).get("template") or {})
        tmd = template.get("metadata") or {}
        md: dict[str, Any] = {
            "generateName": f"{meta(rs)['name']}-",
            "ownerReferences": [owner_reference("ReplicaSet", rs)],
        }
        for key in ("labels", "annotations", "finalizers"):
            if tmd.get(key):
                md[key] = tmd[key]
        return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": template.get("spec") or {}}

    # -- status -----------------------------------------------------------------------------------------

    def write_status(self, rs: dict, active: list[dict], error: tuple[str, str] | None) -> None:
        now = self.now()
        new = self.calculate_status(rs, active, error, now)
        md = meta(rs)
        min_ready = int(spec(rs).get("minReadySeconds") or 0)
        ready = new.get("readyReplicas", 0)
        if min_ready > 0 and ready == int(spec(rs).get("replicas", 1)) and new.get("availableReplicas", 0) != ready:
            self.due_in(md.get("namespace") or "", min_ready)  # the reference requeues after minReadySeconds
        if new == status(rs):
            return
        self.client.update(self.sets, md.get("namespace"), {**rs, "status": new}, subresource="status")

    def calculate_status(self, rs: dict, active: list[dict], error: tuple[str, str] | None, now: datetime) -> dict:
        template_labels = ((spec(rs).get("template") or {}).get("metadata") or {}).get("labels") or {}
        min_ready = int(spec(rs).get("minReadySeconds") or 0)
        fully = sum(
            1 for p in active if all((meta(p).get("labels") or {}).get(k) == v for k, v in template_labels.items())
        )
        ready = sum(1 for p in active if pod_ready(p))
        available = sum(1 for p in active if pod_available(p, min_ready, now))
        new: dict[str, Any] = {"replicas": len(active)}
        for key, value in (
            ("fullyLabeledReplicas", fully),
            ("readyReplicas", ready),
            ("availableReplicas", available),
            ("observedGeneration", int(meta(rs).get("generation") or 0)),
        ):
            if value:  # omitempty, as the reference serializes them
                new[key] = value
        conditions = [c for c in status(rs).get("conditions") or [] if isinstance(c, dict)]
        failure = condition(conditions, "ReplicaFailure")
        if error is not None and failure is None:
            reason, message = error
            conditions.append(
                {
                    "type": "ReplicaFailure",
                    "status": "True",
                    "lastTransitionTime": rfc3339(now),
                    "reason": reason,
                    "message": message,
                }
            )
        elif error is None and failure is not None:
            conditions = [c for c in conditions if c is not failure]
        if conditions:
            new["conditions"] = conditions
        return new
