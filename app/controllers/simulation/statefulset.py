"""The StatefulSet controller (the reference's pkg/controller/statefulset): pods `<name>-<ordinal>` with stable
hostname and subdomain, created in order (OrderedReady: the next only once every earlier one is Running and
Ready) or all at once (Parallel), removed from the highest ordinal down, claims from volumeClaimTemplates,
RollingUpdate from the highest ordinal down to the partition, and the reference's status and revisions."""

from __future__ import annotations

import re
from typing import Any

from ..base import Context
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
    running_and_ready,
    spec,
    status,
    template_hash,
    terminating,
    write_status,
)

#: the reference's event source of this controller
COMPONENT = "statefulset-controller"


class StatefulSetController(SimulationController):
    name = "statefulset"
    account = "statefulset-controller"
    owner_kinds = ("StatefulSet",)

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.sets, self.pods = plain_kind(ctx, "apps", "statefulsets"), ctx.kind("", "pods")
        self.revisions, self.claims = (
            plain_kind(ctx, "apps", "controllerrevisions"),
            ctx.kind("", "persistentvolumeclaims"),
        )
        self.pod_name_label = ctx.naming.key_group("statefulset") + "/pod-name"

    def watches(self) -> list[Any]:
        return [self.sets, self.pods]

    def sync(self) -> None:
        sets = self.client.list(self.sets)
        if not sets:
            return
        pods = by_namespace(self.client.list(self.pods))
        revisions = by_namespace(self.client.list(self.revisions))
        for sts in sets:
            if not meta(sts).get("deletionTimestamp"):
                ns = str(meta(sts).get("namespace"))
                self.sync_set(sts, owned(pods.get(ns, []), sts), owned(revisions.get(ns, []), sts))

    def sync_set(self, sts: dict, pods: list[dict], revisions: list[dict]) -> None:
        name = str(meta(sts).get("name"))
        ss = spec(sts)
        update_revision = f"{name}-{template_hash(ss.get('template'))}"
        ensure_revision(self.client, self.revisions, sts, revisions, update_revision.rsplit("-", 1)[1], update_revision)
        current_revision = str(status(sts).get("currentRevision") or update_revision)
        pattern = re.compile(rf"^{re.escape(name)}-(\d+)$")
        by_ordinal: dict[int, dict] = {}
        for pod in pods:
            if m := pattern.match(str(meta(pod).get("name"))):
                by_ordinal[int(m.group(1))] = pod
        replicas = int(ss.get("replicas", 1))
        self._reconcile(sts, by_ordinal, replicas, update_revision, current_revision)
        self._status(sts, list(by_ordinal.values()), update_revision, current_revision)
        prune_revisions(
            self.client,
            self.revisions,
            sts,
            revisions,
            {update_revision, current_revision, *(str(revision_of(p)) for p in by_ordinal.values())},
        )

    def _reconcile(self, sts: dict, pods: dict[int, dict], replicas: int, update: str, current: str) -> None:
        ss = spec(sts)
        ordered = ss.get("podManagementPolicy", "OrderedReady") != "Parallel"
        for ordinal in range(replicas):
            pod = pods.get(ordinal)
            if pod is not None and finished(pod) and not terminating(pod):
                self._delete(sts, pod)  # a failed or ended pod is replaced
                if ordered:
                    return
                continue
            if pod is None:
                revision = self._revision_for(sts, ordinal, replicas, update, current)
                self._create(sts, ordinal, revision)
                if ordered:
                    return
                continue
            if ordered and not (running_and_ready(pod) and not terminating(pod)):
                return  # the next ordinal waits for this one
        condemned = sorted((o for o in pods if o >= replicas), reverse=True)
        for ordinal in condemned:
            pod = pods[ordinal]
            if not terminating(pod):
                if ordered and not all(running_and_ready(p) for o, p in pods.items() if o < replicas):
                    return
                self._delete(sts, pod)
            if ordered:
                return
        update_strategy = ss.get("updateStrategy") or {}
        if update_strategy.get("type", "RollingUpdate") != "RollingUpdate":
            return
        if not all(running_and_ready(pods[o]) and not terminating(pods[o]) for o in range(replicas) if o in pods):
            return  # one pod at a time, and only while the others are healthy
        partition = int((update_strategy.get("rollingUpdate") or {}).get("partition") or 0)
        for ordinal in range(replicas - 1, partition - 1, -1):
            pod = pods.get(ordinal)
            if pod is not None and revision_of(pod) != update:
                self._delete(sts, pod)
                return

    def _revision_for(self, sts: dict, ordinal: int, replicas: int, update: str, current: str) -> str:
        """Below the partition a recreated pod keeps the current revision (its template then is unknown here
        when that revision is gone: the update revision's template serves)."""
        rolling = (spec(sts).get("updateStrategy") or {}).get("rollingUpdate") or {}
        return current if ordinal < int(rolling.get("partition") or 0) else update

    def _create(self, sts: dict, ordinal: int, revision: str) -> None:
        name, namespace = str(meta(sts).get("name")), str(meta(sts).get("namespace"))
        ss = spec(sts)
        pod_name = f"{name}-{ordinal}"
        pod = pod_from_template(
            ss.get("template") or {}, sts, {self.pod_name_label: pod_name, REVISION_HASH_LABEL: revision}
        )
        pod["metadata"]["name"] = pod_name
        pod["spec"]["hostname"] = pod_name
        if ss.get("serviceName"):
            pod["spec"]["subdomain"] = ss["serviceName"]
        volumes = pod["spec"].setdefault("volumes", [])
        for template in ss.get("volumeClaimTemplates") or []:
            claim_name = f"{meta(template).get('name')}-{pod_name}"
            self._claim(sts, template, claim_name, namespace)
            volumes[:] = [v for v in volumes if v.get("name") != meta(template).get("name")]
            volumes.append({"name": meta(template).get("name"), "persistentVolumeClaim": {"claimName": claim_name}})
        if not volumes:
            del pod["spec"]["volumes"]
        if create_quietly(self.client, self.pods, namespace, pod) is not None:
            message = f"create Pod {pod_name} in StatefulSet {name} successful"
            record_event(self.client, sts, "Normal", "SuccessfulCreate", message, COMPONENT)

    def _delete(self, sts: dict, pod: dict) -> None:
        if delete_quietly(self.client, self.pods, pod):
            message = f"delete Pod {meta(pod).get('name')} in StatefulSet {meta(sts).get('name')} successful"
            record_event(self.client, sts, "Normal", "SuccessfulDelete", message, COMPONENT)

    def _claim(self, sts: dict, template: dict, claim_name: str, namespace: str) -> None:
        if self.client.find(self.claims, namespace, claim_name) is not None:
            return
        labels = {
            **(meta(template).get("labels") or {}),
            **((spec(sts).get("selector") or {}).get("matchLabels") or {}),
        }
        claim = {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": claim_name, "labels": labels},
            "spec": spec(template),
        }
        create_quietly(self.client, self.claims, namespace, claim)

    def _status(self, sts: dict, pods: list[dict], update: str, current: str) -> None:
        replicas = len(pods)
        ready_count = sum(1 for p in pods if running_and_ready(p))
        updated = sum(1 for p in pods if revision_of(p) == update and not terminating(p))
        currents = sum(1 for p in pods if revision_of(p) == current and not terminating(p))
        desired = int(spec(sts).get("replicas", 1))
        if updated == desired == replicas and ready_count == desired:  # the rollout is complete
            current, currents = update, updated
        new: dict[str, Any] = {
            **{k: v for k, v in status(sts).items() if k == "conditions"},
            "observedGeneration": meta(sts).get("generation", 0),
            "replicas": replicas,
            "readyReplicas": ready_count,
            "currentReplicas": currents,
            "updatedReplicas": updated,
            "availableReplicas": sum(1 for p in pods if pod_ready(p) and not terminating(p)),
            "currentRevision": current,
            "updateRevision": update,
            "collisionCount": 0,
        }
        for key in ("readyReplicas", "currentReplicas", "updatedReplicas"):
            if not new[key]:
                del new[key]  # omitempty, as the reference serves them
        write_status(self.client, self.sets, sts, new)


def revision_of(pod: dict) -> str:
    return str((meta(pod).get("labels") or {}).get(REVISION_HASH_LABEL) or "")
