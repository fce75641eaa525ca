"""The CronJob controller (the reference's pkg/controller/cronjob, v2): at each schedule time a Job
`<cronjob>-<minutes since the epoch>` from the job template, concurrencyPolicy (Allow, Forbid, Replace),
startingDeadlineSeconds, suspend, status active/lastScheduleTime/lastSuccessfulTime, and finished jobs beyond
successfulJobsHistoryLimit/failedJobsHistoryLimit deleted, oldest first.

Time: schedules run on the server's clock. `SIMULATE_CRON_TIME_FACTOR` F (default 1) makes each CronJob's time
pass F times faster from its creation (F=60: a minute of schedule a second), and its status and the scheduled
timestamps then tell that simulated time."""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any

from ..base import Context
from .cron import Schedule, ScheduleError, parse
from .job import is_finished
from .workload_common import (
    SimulationController,
    by_namespace,
    controller_ref,
    create_quietly,
    delete_quietly,
    meta,
    owned,
    parse_time,
    plain_kind,
    record_event,
    rfc3339,
    spec,
    status,
    write_status,
)

#: the most schedule times looked at between two syncs (the reference gives up counting misses at 100)
MAX_STEPS = 100_000
LONGEST_WAIT = 10.0
#: the reference's event source of this controller
COMPONENT = "cronjob-controller"


def job_result(job: dict) -> str:
    for cond in status(job).get("conditions") or []:
        if cond.get("type") in ("Complete", "Failed") and cond.get("status") == "True":
            return str(cond["type"])
    return ""


class CronJobController(SimulationController):
    name = "cronjob"
    account = "cronjob-controller"
    owner_kinds = ("CronJob",)
    resync_seconds = LONGEST_WAIT

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.cronjobs, self.jobs = plain_kind(ctx, "batch", "cronjobs"), plain_kind(ctx, "batch", "jobs")
        self.factor = max(float(ctx.settings.get("SIMULATE_CRON_TIME_FACTOR") or 1.0), 1.0)
        self.scheduled_key = ctx.naming.key_group("batch") + "/cronjob-scheduled-timestamp"

    def watches(self) -> list[Any]:
        return [self.cronjobs, self.jobs]

    def sim_now(self, cronjob: dict) -> datetime:
        """The CronJob's own clock: real time, or F times faster since its creation."""
        now = self.now()
        created = parse_time(meta(cronjob).get("creationTimestamp"))
        if self.factor == 1.0 or created is None:
            return now
        return created + (now - created) * self.factor

    def sync(self) -> None:
        waits = [LONGEST_WAIT]
        jobs = by_namespace(self.client.list(self.jobs))
        for cronjob in self.client.list(self.cronjobs):
            ns = str(meta(cronjob).get("namespace"))
            wait = self.sync_cronjob(cronjob, owned(jobs.get(ns, []), cronjob))
            if wait is not None:
                waits.append(wait)
        self.resync_seconds = max(min(waits), 0.05)  # wake for the next schedule time

    def sync_cronjob(self, cronjob: dict, jobs: list[dict]) -> float | None:
        """Reconcile one CronJob; the real seconds until its next schedule time (None: none)."""
        now = self.sim_now(cronjob)
        new = copy.deepcopy(status(cronjob))
        by_uid = {meta(j).get("uid"): j for j in jobs}
        active_refs = [r for r in new.get("active") or [] if r.get("uid") in by_uid]
        for job in jobs:
            ref_uids = {r.get("uid") for r in active_refs}
            uid, done = meta(job).get("uid"), is_finished(job)
            if done:
                if uid in ref_uids:
                    message = f"Saw completed job: {meta(job).get('name')}, status: {job_result(job)}"
                    record_event(self.client, cronjob, "Normal", "SawCompletedJob", message, COMPONENT)
                active_refs = [r for r in active_refs if r.get("uid") != uid]
                completed = parse_time(status(job).get("completionTime"))
                if job_result(job) == "Complete" and completed is not None:
                    last = parse_time(new.get("lastSuccessfulTime"))
                    if last is None or completed > last:
                        new["lastSuccessfulTime"] = rfc3339(completed)
            elif uid not in ref_uids:
                active_refs.append(self._ref(job))  # ours but not listed: created before a lost status write
        self._set_active(new, active_refs)
        cs = spec(cronjob)
        if meta(cronjob).get("deletionTimestamp"):
            return None
        try:
            schedule = parse(str(cs.get("schedule") or ""), cs.get("timeZone"))
        except ScheduleError:
            write_status(self.client, self.cronjobs, cronjob, new)
            return None
        if not cs.get("suspend"):
            self._maybe_run(cronjob, schedule, now, new, active_refs, jobs)
        write_status(self.client, self.cronjobs, cronjob, new)
        self._clean_history(cronjob, [j for j in jobs if is_finished(j)])
        if cs.get("suspend"):
            return None
        upcoming = schedule.next(now)
        return (upcoming - now).total_seconds() / self.factor

    def _ref(self, job: dict) -> dict:
        md = meta(job)
        return {
            "kind": "Job",
            "namespace": md.get("namespace"),
            "name": md.get("name"),
            "uid": md.get("uid"),
            "apiVersion": "batch/v1",
            "resourceVersion": md.get("resourceVersion"),
        }

    @staticmethod
    def _set_active(new: dict, refs: list[dict]) -> None:
        if refs:
            new["active"] = refs
        else:
            new.pop("active", None)

    def _most_recent(self, cronjob: dict, schedule: Schedule, now: datetime) -> datetime | None:
        """The latest schedule time after the last one run (or the creation) and not after now."""
        cs = spec(cronjob)
        earliest = parse_time(status(cronjob).get("lastScheduleTime")) or parse_time(
            meta(cronjob).get("creationTimestamp")
        )
        if earliest is None:
            return None
        deadline = cs.get("startingDeadlineSeconds")
        if deadline is not None:
            earliest = max(earliest, now - timedelta(seconds=int(deadline)))
        if schedule.every is not None:
            steps = int((now - earliest) / schedule.every)
            return earliest + steps * schedule.every if steps >= 1 else None
        found, t = None, earliest
        for _ in range(MAX_STEPS):
            t = schedule.next(t)
            if t > now:
                break
            found = t
        return found

    def _maybe_run(
        self, cronjob: dict, schedule: Schedule, now: datetime, new: dict, active_refs: list[dict], jobs: list[dict]
    ) -> None:
        scheduled = self._most_recent(cronjob, schedule, now)
        if scheduled is None:
            return
        cs = spec(cronjob)
        deadline = cs.get("startingDeadlineSeconds")
        if deadline is not None and scheduled + timedelta(seconds=int(deadline)) < now:
            return  # missed: too late to start
        policy = cs.get("concurrencyPolicy", "Allow")
        if policy == "Forbid" and active_refs:
            return  # runs when the active job ends, if still within the deadline
        if policy == "Replace":
            by_uid = {meta(j).get("uid"): j for j in jobs}
            for ref in active_refs:
                if ref.get("uid") in by_uid:
                    self._delete(cronjob, by_uid[ref["uid"]])
            active_refs.clear()
        made = create_quietly(
            self.client, self.jobs, str(meta(cronjob).get("namespace")), self._job(cronjob, scheduled)
        )
        if made is not None:
            active_refs.append(self._ref(made))
            message = f"Created job {meta(made).get('name')}"
            record_event(self.client, cronjob, "Normal", "SuccessfulCreate", message, COMPONENT)
        self._set_active(new, active_refs)
        new["lastScheduleTime"] = rfc3339(scheduled)

    def _job(self, cronjob: dict, scheduled: datetime) -> dict:
        template = spec(cronjob).get("jobTemplate") or {}
        tmd = meta(template)
        return {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {
                "name": f"{meta(cronjob).get('name')}-{int(scheduled.timestamp() // 60)}",
                "labels": copy.deepcopy(tmd.get("labels") or {}),
                "annotations": {
                    **copy.deepcopy(tmd.get("annotations") or {}),
                    self.scheduled_key: rfc3339(scheduled),
                },
                "ownerReferences": [controller_ref(cronjob)],
            },
            "spec": copy.deepcopy(spec(template)),
        }

    def _delete(self, cronjob: dict, job: dict) -> None:
        if delete_quietly(self.client, self.jobs, job, propagation="Background"):
            message = f"Deleted job {meta(job).get('name')}"
            record_event(self.client, cronjob, "Normal", "SuccessfulDelete", message, COMPONENT)

    def _clean_history(self, cronjob: dict, finished_jobs: list[dict]) -> None:
        cs = spec(cronjob)
        for result, key in (("Complete", "successfulJobsHistoryLimit"), ("Failed", "failedJobsHistoryLimit")):
            limit = cs.get(key)
            if limit is None:
                continue
            done = [j for j in finished_jobs if job_result(j) == result]
            done.sort(key=lambda j: str(status(j).get("startTime") or meta(j).get("creationTimestamp") or ""))
            for job in done[: max(len(done) - int(limit), 0)]:
                self._delete(cronjob, job)
