"""The Job controller (the reference's pkg/controller/job, v1.23 without pod finalizers): pods up to parallelism
while completions remain, the Complete condition once enough succeeded, Failed with BackoffLimitExceeded or
DeadlineExceeded, suspend; NonIndexed and Indexed completion modes. Succeeded and failed are counted from the
job's pods (a deleted finished pod stops counting, as without finalizers)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..base import Context
from .workload_common import (
    SimulationController,
    create_quietly,
    delete_quietly,
    meta,
    owned,
    parse_time,
    plain_kind,
    pod_active,
    pod_from_template,
    record_event,
    rfc3339,
    spec,
    status,
    write_status,
)

#: the reference's event source of this controller
COMPONENT = "job-controller"


def condition(obj: dict, kind: str) -> dict | None:
    return next((c for c in status(obj).get("conditions") or [] if c.get("type") == kind), None)


def is_finished(job: dict) -> bool:
    return any(
        c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
        for c in status(job).get("conditions") or []
    )


def set_condition(conditions: list[dict], kind: str, value: str, reason: str, message: str, now: datetime) -> None:
    """Add or update one condition; its transition time moves only when its status changes."""
    stamp = rfc3339(now)
    for cond in conditions:
        if cond.get("type") == kind:
            if cond.get("status") != value:
                cond.update(status=value, lastTransitionTime=stamp)
            cond.update(lastProbeTime=stamp, reason=reason, message=message)
            return
    conditions.append(
        {
            "type": kind,
            "status": value,
            "lastProbeTime": stamp,
            "lastTransitionTime": stamp,
            "reason": reason,
            "message": message,
        }
    )


def format_indexes(indexes: set[int]) -> str:
    """The reference's completedIndexes: sorted ranges, `1,3-5`."""
    out: list[str] = []
    ordered = sorted(indexes)
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        out.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(out)


class JobController(SimulationController):
    name = "job"
    account = "job-controller"
    owner_kinds = ("Job",)
    resync_seconds = 5.0  # activeDeadlineSeconds is time-driven

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.jobs, self.pods = plain_kind(ctx, "batch", "jobs"), ctx.kind("", "pods")
        self.index_key = ctx.naming.key_group("batch") + "/job-completion-index"

    def watches(self) -> list[Any]:
        return [self.jobs, self.pods]

    def sync(self) -> None:
        pods = self.client.list(self.pods)
        for job in self.client.list(self.jobs):
            if not meta(job).get("deletionTimestamp"):
                self.sync_job(job, owned(pods, job))

    def _index(self, pod: dict) -> int | None:
        value = (meta(pod).get("annotations") or {}).get(self.index_key)
        try:
            return int(value) if value is not None else None
        except ValueError:
            return None

    def sync_job(self, job: dict, pods: list[dict]) -> None:
        now = self.now()
        js, old = spec(job), status(job)
        new: dict[str, Any] = {k: v for k, v in old.items() if k not in ("active", "succeeded", "failed")}
        conditions: list[dict] = [dict(c) for c in old.get("conditions") or []]
        running = [p for p in pods if pod_active(p)]
        succeeded = [p for p in pods if status(p).get("phase") == "Succeeded"]
        failed = [p for p in pods if status(p).get("phase") == "Failed"]
        indexed = js.get("completionMode") == "Indexed"
        completions = js.get("completions")
        done_indexes = {i for p in succeeded if (i := self._index(p)) is not None and i < int(completions or 0)}
        n_succeeded = len(done_indexes) if indexed else len(succeeded)
        # restarts of OnFailure pods count against the backoff limit, as the reference's pastBackoffLimitOnFailure
        restarts = sum(
            int(c.get("restartCount") or 0) for p in running for c in status(p).get("containerStatuses") or []
        )
        n_failed = len(failed)
        if is_finished(job):
            for pod in running:
                self._delete(job, pod)
            self._write(job, new, conditions, [], n_succeeded, n_failed, indexed, done_indexes)
            return
        suspended = bool(js.get("suspend"))
        if suspended:
            for pod in running:
                self._delete(job, pod)
            if condition(job, "Suspended") is None or (condition(job, "Suspended") or {}).get("status") != "True":
                set_condition(conditions, "Suspended", "True", "JobSuspended", "Job suspended", now)
            self._write(job, new, conditions, [], n_succeeded, n_failed, indexed, done_indexes)
            return
        if (condition(job, "Suspended") or {}).get("status") == "True":
            set_condition(conditions, "Suspended", "False", "JobResumed", "Job resumed", now)
            new["startTime"] = rfc3339(now)  # the deadline counts from the resume
        new.setdefault("startTime", rfc3339(now))
        failure = self._failure(js, new, n_failed + restarts, now)
        if failure:
            for pod in running:
                self._delete(job, pod)
            set_condition(conditions, "Failed", "True", failure[0], failure[1], now)
            record_event(self.client, job, "Warning", failure[0], failure[1], COMPONENT)
            self._write(job, new, conditions, [], n_succeeded, n_failed, indexed, done_indexes)
            return
        complete = (
            n_succeeded >= int(completions)
            if completions is not None
            else n_succeeded > 0 and not running  # a work queue: done when one succeeded and the others ended
        )
        if complete:
            for pod in running:
                self._delete(job, pod)
            set_condition(conditions, "Complete", "True", "", "", now)
            for cond in conditions:  # the reference's Complete condition has no reason or message
                if cond["type"] == "Complete":
                    cond.pop("reason", None)
                    cond.pop("message", None)
            new["completionTime"] = rfc3339(now)
            record_event(self.client, job, "Normal", "Completed", "Job completed", COMPONENT)
            self._write(job, new, conditions, [], n_succeeded, n_failed, indexed, done_indexes)
            return
        running = self._scale(job, running, n_succeeded, indexed, done_indexes)
        self._write(job, new, conditions, running, n_succeeded, n_failed, indexed, done_indexes)

    def _delete(self, job: dict, pod: dict) -> None:
        if delete_quietly(self.client, self.pods, pod):
            record_event(
                self.client, job, "Normal", "SuccessfulDelete", f"Deleted pod: {meta(pod).get('name')}", COMPONENT
            )

    def _failure(self, js: dict, new: dict, failures: int, now: datetime) -> tuple[str, str] | None:
        if failures > int(js.get("backoffLimit", 6)):
            return "BackoffLimitExceeded", "Job has reached the specified backoff limit"
        deadline, started = js.get("activeDeadlineSeconds"), parse_time(new.get("startTime"))
        if deadline is not None and started is not None and (now - started).total_seconds() >= int(deadline):
            return "DeadlineExceeded", "Job was active longer than specified deadline"
        return None

    def _scale(self, job: dict, running: list[dict], n_succeeded: int, indexed: bool, done: set[int]) -> list[dict]:
        js = spec(job)
        parallelism, completions = int(js.get("parallelism") or 0), js.get("completions")
        if completions is None:
            want = parallelism if n_succeeded == 0 else min(len(running), parallelism)
        else:
            want = min(parallelism, max(int(completions) - n_succeeded, 0))
        if len(running) > want:  # parallelism lowered: the newest go first
            running.sort(key=lambda p: str(meta(p).get("creationTimestamp") or ""), reverse=True)
            for pod in running[: len(running) - want]:
                self._delete(job, pod)
            return running[len(running) - want :]
        namespace = str(meta(job).get("namespace"))
        name = str(meta(job).get("name"))
        busy = {self._index(p) for p in running}
        pending = [i for i in range(int(completions or 0)) if i not in done and i not in busy] if indexed else []
        made = list(running)
        for n in range(want - len(running)):
            pod = pod_from_template(js.get("template") or {}, job)
            if indexed:
                if n >= len(pending):
                    break
                index = pending[n]
                pod["metadata"]["generateName"] = f"{name}-{index}-"
                pod["metadata"].setdefault("annotations", {})[self.index_key] = str(index)
                pod["spec"]["hostname"] = f"{name}-{index}"
                for container in pod["spec"].get("containers") or []:
                    env = container.setdefault("env", [])
                    env.append({"name": "JOB_COMPLETION_INDEX", "value": str(index)})
            else:
                pod["metadata"]["generateName"] = f"{name}-"
            created = create_quietly(self.client, self.pods, namespace, pod)
            if created is not None:
                made.append(created)
                record_event(
                    self.client,
                    job,
                    "Normal",
                    "SuccessfulCreate",
                    f"Created pod: {meta(created).get('name')}",
                    COMPONENT,
                )
        return made

    def _write(
        self,
        job: dict,
        new: dict,
        conditions: list[dict],
        running: list[dict],
        n_succeeded: int,
        n_failed: int,
        indexed: bool,
        done: set[int],
    ) -> None:
        if running:
            new["active"] = len(running)
        if n_succeeded:
            new["succeeded"] = n_succeeded
        if n_failed:
            new["failed"] = n_failed
        if conditions:
            new["conditions"] = conditions
        if indexed:
            if done:
                new["completedIndexes"] = format_indexes(done)
            else:
                new.pop("completedIndexes", None)
        write_status(self.client, self.jobs, job, new)
