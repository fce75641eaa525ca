"""One Deployment's sync (the reference's syncDeployment: sync.go, rolling.go, recreate.go, progress.go), over the
ReplicaSets of its namespace, writing through the controller's client."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from ...errors import AlreadyExists, ApiError
from . import deployment_util as du
from .workload_common import compile_selector, condition, controller_of, meta, owner_reference, pod_active, spec, status

if TYPE_CHECKING:
    from .deployment import DeploymentController

#: how soon a failed ReplicaSet creation is tried again (the reference's rate-limited requeue)
RETRY_SECONDS = 5.0


class Rollout:
    def __init__(self, ctl: DeploymentController, d: dict, sets: list[dict]) -> None:
        self.ctl, self.d, self.keys = ctl, d, ctl.keys
        self.namespace = meta(d).get("namespace") or ""
        self.sets = self.claim(sets)

    # -- reads and writes ---------------------------------------------------------------------------------

    def claim(self, sets: list[dict]) -> list[dict]:
        """The ReplicaSets this Deployment controls after adopting matching orphans and releasing the others."""
        md = meta(self.d)
        matches = compile_selector(spec(self.d).get("selector"))
        owned = []
        for rs in sets:
            ref = controller_of(rs)
            labels = meta(rs).get("labels") or {}
            refs = list(meta(rs).get("ownerReferences") or [])
            if ref is not None:
                if ref.get("uid") != md.get("uid"):
                    continue
                if matches(labels) or md.get("deletionTimestamp"):
                    owned.append(rs)
                else:
                    self._set_refs(rs, [r for r in refs if r is not ref])
                continue
            if matches(labels) and not md.get("deletionTimestamp") and not meta(rs).get("deletionTimestamp"):
                owned.append(self._set_refs(rs, [*refs, owner_reference("Deployment", self.d)]))
        return owned

    def _set_refs(self, rs: dict, refs: list[dict]) -> dict:
        md = meta(rs)
        body = {"metadata": {"ownerReferences": refs, "resourceVersion": md.get("resourceVersion")}}
        return self.ctl.patcher.patch(self.ctl.sets, self.namespace, md["name"], body)

    def update_rs(self, rs: dict) -> dict:
        written = self.ctl.client.update(self.ctl.sets, self.namespace, rs)
        self.sets = [written if meta(s).get("uid") == meta(written).get("uid") else s for s in self.sets]
        return written

    def write_status(self, new: dict) -> None:
        if new == status(self.d):
            return
        self.d = self.ctl.client.update(
            self.ctl.deployments, self.namespace, {**self.d, "status": new}, subresource="status"
        )

    def set_revision(self, revision: str) -> None:
        """The Deployment's revision annotation (an annotation: written through the main resource here, whose
        status subresource keeps metadata as it is)."""
        annotations = meta(self.d).get("annotations") or {}
        if annotations.get(self.keys.revision) == revision:
            return
        body = copy.deepcopy(self.d)
        body["metadata"]["annotations"] = {**annotations, self.keys.revision: revision}
        self.d = self.ctl.client.update(self.ctl.deployments, self.namespace, body)

    def event(self, event_type: str, reason: str, message: str) -> None:
        self.ctl.record(self.d, "Deployment", event_type, reason, message)

    # -- the sync -----------------------------------------------------------------------------------------

    def run(self) -> None:
        if meta(self.d).get("deletionTimestamp"):
            new_rs, old = self.all_sets(create=False)
            self.sync_status(new_rs, old)
            return
        self.check_paused()
        if spec(self.d).get("paused") or self.scaling_event():
            self.sync()
        elif du.is_rolling(self.d):
            self.rolling()
        else:
            self.recreate()

    def check_paused(self) -> None:
        if not du.has_deadline(self.d):
            return
        st = copy.deepcopy(status(self.d))
        cond = condition(st.get("conditions"), "Progressing")
        if cond is not None and cond.get("reason") == du.TIMED_OUT:
            return  # a reported lack of progress stays
        paused_cond = cond is not None and cond.get("reason") == du.PAUSED
        now = self.ctl.now()
        if spec(self.d).get("paused") and not paused_cond:
            du.set_condition(st, du.new_condition("Progressing", "Unknown", du.PAUSED, "Deployment is paused", now))
        elif not spec(self.d).get("paused") and paused_cond:
            du.set_condition(st, du.new_condition("Progressing", "Unknown", du.RESUMED, "Deployment is resumed", now))
        else:
            return
        self.write_status(st)

    def scaling_event(self) -> bool:
        new_rs, old = self.all_sets(create=False)
        for rs in du.active([*old, *([new_rs] if new_rs else [])]):
            desired = du.annotation_int(rs, self.keys.desired)
            if desired is not None and desired != du.replicas(self.d):
                return True
        return False

    def all_sets(self, create: bool) -> tuple[dict | None, list[dict]]:
        """The new ReplicaSet (its template is the Deployment's; created when asked) and the old ones, with the
        revisions synced (the reference's getAllReplicaSetsAndSyncRevision)."""
        template = spec(self.d).get("template") or {}
        ordered = sorted(self.sets, key=du.created)
        existing = next((rs for rs in ordered if du.equal_ignore_hash(spec(rs).get("template") or {}, template)), None)
        old = [rs for rs in ordered if rs is not existing]
        new_revision = max((du.revision(rs, self.keys) for rs in old), default=0) + 1
        if existing is not None:
            return self._found(existing, new_revision), old
        if not create:
            return None, old
        return self._create(old, new_revision), old

    def _found(self, rs: dict, new_revision: int) -> dict:
        body = copy.deepcopy(rs)
        changed = du.set_new_rs_annotations(self.d, body, self.keys, new_revision, exists=True)
        min_ready = int(spec(self.d).get("minReadySeconds") or 0)
        if changed or int(spec(body).get("minReadySeconds") or 0) != min_ready:
            body["spec"]["minReadySeconds"] = min_ready
            rs = self.update_rs(body)
        self.set_revision((meta(rs).get("annotations") or {}).get(self.keys.revision, ""))
        if du.has_deadline(self.d) and condition(status(self.d).get("conditions"), "Progressing") is None:
            st = copy.deepcopy(status(self.d))
            message = f'Found new replica set "{meta(rs)["name"]}"'
            du.set_condition(st, du.new_condition("Progressing", "True", du.FOUND_NEW_RS, message, self.ctl.now()))
            self.write_status(st)
        return rs

    def _create(self, old: list[dict], new_revision: int) -> dict | None:
        d, md = self.d, meta(self.d)
        collisions = status(d).get("collisionCount")
        template = copy.deepcopy(spec(d).get("template") or {})
        hash_value = du.template_hash(template, collisions)
        template.setdefault("metadata", {}).setdefault("labels", {})[du.HASH_LABEL] = hash_value
        selector = copy.deepcopy(spec(d).get("selector") or {})
        selector.setdefault("matchLabels", {})[du.HASH_LABEL] = hash_value
        rs: dict[str, Any] = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": f"{md['name']}-{hash_value}",
                "namespace": self.namespace,
                "labels": dict(template["metadata"]["labels"]),
                "ownerReferences": [owner_reference("Deployment", d)],
            },
            "spec": {
                "replicas": 0,
                "minReadySeconds": int(spec(d).get("minReadySeconds") or 0),
                "selector": selector,
                "template": template,
            },
        }
        rs["spec"]["replicas"] = self.new_rs_replicas([*old, rs], rs)
        du.set_new_rs_annotations(d, rs, self.keys, new_revision, exists=False)
        try:
            created = self.ctl.client.create(self.ctl.sets, self.namespace, rs)
        except AlreadyExists:
            return self._collided(rs, new_revision)
        except ApiError as err:
            st = copy.deepcopy(status(d))
            message = f'Failed to create new replica set "{rs["metadata"]["name"]}": {err.message}'
            du.set_condition(st, du.new_condition("Progressing", "False", du.FAILED_RS_CREATE, message, self.ctl.now()))
            self.write_status(st)
            self.ctl.due_in(self.namespace, RETRY_SECONDS)
            return None
        self.sets.append(created)
        if du.replicas(created) > 0:
            self.event(
                "Normal",
                "ScalingReplicaSet",
                f"Scaled up replica set {rs['metadata']['name']} to {du.replicas(created)}",
            )
        self.set_revision(str(new_revision))
        if du.has_deadline(self.d):
            st = copy.deepcopy(status(self.d))
            message = f'Created new replica set "{rs["metadata"]["name"]}"'
            du.set_condition(st, du.new_condition("Progressing", "True", du.NEW_RS_CREATED, message, self.ctl.now()))
            self.write_status(st)
        return created

    def _collided(self, rs: dict, new_revision: int) -> dict | None:
        """A ReplicaSet of that name exists: ours with this template (a stale read) is the new one; anything else is
        a hash collision, counted in status.collisionCount so the next hash differs."""
        current = self.ctl.client.find(self.ctl.sets, self.namespace, rs["metadata"]["name"])
        template = spec(self.d).get("template") or {}
        if (
            current is not None
            and (controller_of(current) or {}).get("uid") == meta(self.d).get("uid")
            and du.equal_ignore_hash(spec(current).get("template") or {}, template)
        ):
            self.sets.append(current)
            return self._found(current, new_revision)
        st = copy.deepcopy(status(self.d))
        st["collisionCount"] = int(st.get("collisionCount") or 0) + 1
        self.write_status(st)
        self.ctl.due_in(self.namespace, 0.05)
        return None

    def new_rs_replicas(self, all_sets: list[dict], new_rs: dict) -> int:
        """The reference's NewRSNewReplicas: Recreate takes all at once; RollingUpdate up to the surge."""
        d = self.d
        if not du.is_rolling(d):
            return du.replicas(d)
        most = du.replicas(d) + du.max_surge(d)
        current = du.spec_total(all_sets)
        if current >= most:
            return du.replicas(new_rs)
        return du.replicas(new_rs) + min(most - current, du.replicas(d) - du.replicas(new_rs))

    # -- scaling ------------------------------------------------------------------------------------------

    def scale_rs(self, rs: dict, size: int, operation: str = "") -> tuple[bool, dict]:
        d = self.d
        operation = operation or ("up" if du.replicas(rs) < size else "down")
        resize = du.replicas(rs) != size
        body = copy.deepcopy(rs)
        annotations = du.set_replicas_annotations(body, self.keys, du.replicas(d), du.replicas(d) + du.max_surge(d))
        if not (resize or annotations):
            return False, rs
        body["spec"]["replicas"] = size
        rs = self.update_rs(body)
        if resize:
            self.event("Normal", "ScalingReplicaSet", f"Scaled {operation} replica set {meta(rs)['name']} to {size}")
        return resize, rs

    def scale_to(self, rs: dict, size: int) -> tuple[bool, dict]:
        if du.replicas(rs) == size:
            return False, rs
        return self.scale_rs(rs, size)

    def scale(self, new_rs: dict | None, old: list[dict]) -> None:
        """The reference's scale(): one active set takes the whole size; a saturated new set ends the old ones;
        otherwise the sets share the change in proportion (RollingUpdate)."""
        d = self.d
        ordered_old = sorted(old, key=du.created, reverse=True)
        actives = du.active([*ordered_old, *([new_rs] if new_rs else [])])
        target = None
        if len(actives) == 0 and (new_rs is not None or ordered_old):
            target = new_rs if new_rs is not None else ordered_old[0]
        elif len(actives) == 1:
            target = actives[0]
        if target is not None:
            self.scale_to(target, du.replicas(d))
            return
        if new_rs is not None and self.saturated(new_rs):
            for rs in du.active(old):
                self.scale_to(rs, 0)
            return
        if not du.is_rolling(d):
            return
        allowed = du.replicas(d) + du.max_surge(d) if du.replicas(d) > 0 else 0
        to_add = allowed - du.spec_total(actives)
        if to_add:  # largest first; among equals newer first when growing, older first when shrinking
            actives.sort(key=du.created, reverse=to_add > 0)
            actives.sort(key=lambda rs: -du.replicas(rs))
        operation = "up" if to_add > 0 else "down" if to_add < 0 else ""
        sizes, added = {}, 0
        for rs in actives:
            share = du.proportion(rs, d, self.keys, to_add, added) if to_add else 0
            sizes[meta(rs)["uid"]] = du.replicas(rs) + share
            added += share
        for i, rs in enumerate(actives):
            uid = meta(rs)["uid"]
            if i == 0 and to_add:
                sizes[uid] = max(sizes[uid] + to_add - added, 0)  # the leftover goes to the largest
            self.scale_rs(rs, sizes[uid], operation)

    def saturated(self, rs: dict) -> bool:
        want = du.replicas(self.d)
        return (
            du.annotation_int(rs, self.keys.desired) == want
            and du.replicas(rs) == want
            and int(status(rs).get("availableReplicas") or 0) == want
        )

    def sync(self) -> None:
        """Scaling and paused Deployments: resize, no new rollout (the reference's sync())."""
        new_rs, old = self.all_sets(create=False)
        self.scale(new_rs, old)
        new_rs, old = self._fresh(new_rs, old)
        if spec(self.d).get("paused"):
            self.cleanup(old)
        self.sync_status(new_rs, old)

    def fresh(self, rs: dict) -> dict:
        """`rs` as this sync last wrote it."""
        return next((s for s in self.sets if meta(s).get("uid") == meta(rs).get("uid")), rs)

    def _fresh(self, new_rs: dict | None, old: list[dict]) -> tuple[dict | None, list[dict]]:
        return (self.fresh(new_rs) if new_rs is not None else None), [self.fresh(rs) for rs in old]

    # -- strategies ---------------------------------------------------------------------------------------

    def rolling(self) -> None:
        new_rs, old = self.all_sets(create=True)
        if new_rs is None:
            return
        if self.reconcile_new(new_rs):
            self.sync_rollout_status(*self._fresh(new_rs, old))
            return
        new_rs, old = self.fresh(new_rs), [self.fresh(rs) for rs in old]
        if self.reconcile_old(new_rs, old):
            self.sync_rollout_status(*self._fresh(new_rs, old))
            return
        if du.complete(self.d, status(self.d)):
            self.cleanup(old)
        self.sync_rollout_status(*self._fresh(new_rs, old))

    def reconcile_new(self, new_rs: dict) -> bool:
        want = du.replicas(self.d)
        if du.replicas(new_rs) == want:
            return False
        if du.replicas(new_rs) > want:
            return self.scale_to(new_rs, want)[0]
        return self.scale_to(new_rs, self.new_rs_replicas(self.sets, new_rs))[0]

    def reconcile_old(self, new_rs: dict, old: list[dict]) -> bool:
        d = self.d
        old_active = du.active(old)
        if du.spec_total(old_active) == 0:
            return False
        min_available = du.replicas(d) - du.max_unavailable(d)
        new_unavailable = du.replicas(new_rs) - int(status(new_rs).get("availableReplicas") or 0)
        most_down = du.spec_total([*old_active, new_rs]) - min_available - new_unavailable
        if most_down <= 0:
            return False
        cleaned, old_active = self.cleanup_unhealthy(old_active, most_down)
        return cleaned + self.scale_down_old(new_rs, old_active) > 0

    def cleanup_unhealthy(self, old: list[dict], most: int) -> tuple[int, list[dict]]:
        """Scale down old sets' unavailable pods first: they do not count towards availability anyway."""
        total, out = 0, []
        for rs in sorted(old, key=du.created):
            unavailable = du.replicas(rs) - int(status(rs).get("availableReplicas") or 0)
            if total >= most or du.replicas(rs) == 0 or unavailable == 0:
                out.append(rs)
                continue
            down = min(most - total, unavailable)
            _, rs = self.scale_to(rs, du.replicas(rs) - down)
            total += down
            out.append(rs)
        return total, out

    def scale_down_old(self, new_rs: dict, old: list[dict]) -> int:
        d = self.d
        min_available = du.replicas(d) - du.max_unavailable(d)
        available = du.status_total([*old, new_rs], "availableReplicas")
        if available <= min_available:
            return 0
        wanted, total = available - min_available, 0
        for rs in sorted(old, key=du.created):
            if total >= wanted:
                break
            if du.replicas(rs) == 0:
                continue
            down = min(du.replicas(rs), wanted - total)
            self.scale_to(rs, du.replicas(rs) - down)
            total += down
        return total

    def recreate(self) -> None:
        new_rs, old = self.all_sets(create=False)
        scaled = False
        for rs in du.active(old):
            scaled = self.scale_to(rs, 0)[0] or scaled
        if scaled or self.old_pods_running(new_rs, old):
            self.sync_rollout_status(*self._fresh(new_rs, old))
            return
        if new_rs is None:
            new_rs, old = self.all_sets(create=True)
            if new_rs is None:
                return
        self.scale_to(new_rs, du.replicas(self.d))
        if du.complete(self.d, status(self.d)):
            self.cleanup(old)
        self.sync_rollout_status(*self._fresh(new_rs, old))

    def old_pods_running(self, new_rs: dict | None, old: list[dict]) -> bool:
        """Old pods exist still, even terminating ones (Recreate starts no new pod while one runs)."""
        if du.status_total(old, "replicas") > 0:
            return True
        old_uids = {meta(rs).get("uid") for rs in old}
        if not old_uids:
            return False
        pods = self.ctl.client.list(self.ctl.pods, self.namespace)
        return any(
            (controller_of(p) or {}).get("uid") in old_uids and status(p).get("phase") not in ("Succeeded", "Failed")
            for p in pods
            if pod_active(p) or meta(p).get("deletionTimestamp")
        )

    def cleanup(self, old: list[dict]) -> None:
        """Delete the oldest ReplicaSets beyond revisionHistoryLimit (only empty, settled ones)."""
        limit = spec(self.d).get("revisionHistoryLimit")
        if limit is None:
            return
        alive = [rs for rs in old if not meta(rs).get("deletionTimestamp")]
        excess = len(alive) - int(limit)
        if excess <= 0:
            return
        for rs in sorted(alive, key=lambda rs: (du.revision(rs, self.keys), du.created(rs)))[:excess]:
            md = meta(rs)
            if (
                int(status(rs).get("replicas") or 0) != 0
                or du.replicas(rs) != 0
                or int(md.get("generation") or 0) > int(status(rs).get("observedGeneration") or 0)
            ):
                continue
            self.ctl.client.delete(self.ctl.sets, self.namespace, md["name"], md.get("uid", ""))
            self.sets = [s for s in self.sets if meta(s).get("uid") != md.get("uid")]

    # -- status -------------------------------------------------------------------------------------------

    def calculate_status(self, new_rs: dict | None, old: list[dict]) -> dict:
        d = self.d
        all_sets = [*old, *([new_rs] if new_rs else [])]
        available = du.status_total(all_sets, "availableReplicas")
        values = {
            "observedGeneration": int(meta(d).get("generation") or 0),
            "replicas": du.status_total(all_sets, "replicas"),
            "updatedReplicas": du.status_total([new_rs] if new_rs else [], "replicas"),
            "readyReplicas": du.status_total(all_sets, "readyReplicas"),
            "availableReplicas": available,
            "unavailableReplicas": max(du.spec_total(all_sets) - available, 0),
        }
        st: dict[str, Any] = {k: v for k, v in values.items() if v}  # omitempty, as the reference serializes them
        if status(d).get("collisionCount") is not None:
            st["collisionCount"] = status(d)["collisionCount"]
        if status(d).get("conditions"):
            st["conditions"] = copy.deepcopy(status(d)["conditions"])
        now = self.ctl.now()
        if available >= du.replicas(d) - du.max_unavailable(d):
            cond = du.new_condition("Available", "True", du.MIN_AVAILABLE, "Deployment has minimum availability.", now)
        else:
            message = "Deployment does not have minimum availability."
            cond = du.new_condition("Available", "False", du.MIN_UNAVAILABLE, message, now)
        du.set_condition(st, cond)
        return st

    def sync_status(self, new_rs: dict | None, old: list[dict]) -> None:
        self.write_status(self.calculate_status(new_rs, old))

    def sync_rollout_status(self, new_rs: dict | None, old: list[dict]) -> None:
        """Status plus the Progressing condition: complete, progressing, or timed out (the reference's
        syncRolloutStatus), and the first ReplicaFailure of a ReplicaSet."""
        d, now = self.d, self.ctl.now()
        st = self.calculate_status(new_rs, old)
        if not du.has_deadline(d):
            du.remove_condition(st, "Progressing")
        current = condition(status(d).get("conditions"), "Progressing")
        completed = (
            int(st.get("replicas") or 0) == int(st.get("updatedReplicas") or 0)
            and current is not None
            and current.get("reason") == du.NEW_RS_AVAILABLE
        )
        subject = f'ReplicaSet "{meta(new_rs)["name"]}"' if new_rs is not None else f'Deployment "{meta(d)["name"]}"'
        if du.has_deadline(d) and not completed:
            left = du.deadline_left(d, status(d), now)
            if du.complete(d, st):
                message = f"{subject} has successfully progressed."
                du.set_condition(st, du.new_condition("Progressing", "True", du.NEW_RS_AVAILABLE, message, now))
            elif du.progressing(d, st):
                cond = du.new_condition("Progressing", "True", du.RS_UPDATED, f"{subject} is progressing.", now)
                if current is not None:
                    if current.get("status") == "True":
                        cond["lastTransitionTime"] = current.get("lastTransitionTime")
                    du.remove_condition(st, "Progressing")
                du.set_condition(st, cond)
            elif left is not None and left <= 0:
                message = f"{subject} has timed out progressing."
                du.set_condition(st, du.new_condition("Progressing", "False", du.TIMED_OUT, message, now))
        failure = self.replica_failure(new_rs, old)
        if failure is not None:
            du.set_condition(st, failure)
        else:
            du.remove_condition(st, "ReplicaFailure")
        self.write_status(st)
        left = du.deadline_left(d, st, now)
        if left is not None and left > 0 and not du.complete(d, st):
            self.ctl.due_in(self.namespace, left)  # the reference's requeueStuckDeployment

    def replica_failure(self, new_rs: dict | None, old: list[dict]) -> dict | None:
        for rs in [*([new_rs] if new_rs else []), *old]:
            cond = condition(status(rs).get("conditions"), "ReplicaFailure")
            if cond is not None:
                return {
                    "type": "ReplicaFailure",
                    "status": cond.get("status"),
                    "lastUpdateTime": cond.get("lastTransitionTime"),
                    "lastTransitionTime": cond.get("lastTransitionTime"),
                    "reason": cond.get("reason"),
                    "message": cond.get("message"),
                }
        return None
