"""The node agent of every simulated node: the pod lifecycle a kubelet reports, without containers.

A pod bound to `sim-node-<i>` (i < N) becomes Running and Ready `SIMULATE_POD_START_SECONDS` after this agent first
sees it (container statuses, podIP from the node's range, hostIP, startTime). A pod that runs to completion (owned
by a Job, or restartPolicy Never/OnFailure) ends `SIMULATE_POD_RUN_SECONDS` after it started: Succeeded, or Failed
when annotated `sim.<domain>/fail: "true"`. A terminating pod's containers stop at once: it is reported not Ready,
its containers terminated (exit code 0), then deleted with grace 0 `SIMULATE_POD_STOP_SECONDS` after its deletion
began or after that report, whichever is later (at most its grace period), as a kubelet finishes a graceful
deletion. With `SIMULATE_KUBELET_EVENTS` (default on) the kubelet's Events go with these moves (kubelet_events)."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ...errors import Conflict, NotFound
from ..base import Context, Controller
from . import cluster
from .kubelet_events import KubeletEvents
from .workload_common import rfc3339

if TYPE_CHECKING:
    from ...catalog import ResourceType
    from ...registry.informer import Change

RUNS_TO_COMPLETION = ("Never", "OnFailure")
FINISHED = ("Succeeded", "Failed")
IDLE_RESYNC_SECONDS = 30.0


def _digest(*parts: object) -> str:
    return hashlib.sha256("/".join(str(p) for p in parts).encode()).hexdigest()


def _image_id(image: str) -> str:
    return f"{image.split('@', 1)[0]}@sha256:{_digest('image', image)}"


class PodLifecycle(Controller):
    name = "sim-node-agent"
    account = "sim-node-agent"
    resync_seconds = 30.0

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.pods = ctx.kind("", "pods")
        self.identities = cluster.NodeIdentities(ctx, self.client)  # the node agent's writes, as each node
        self.count = cluster.node_count(ctx)
        self.start_after = timedelta(seconds=cluster.seconds(ctx, "SIMULATE_POD_START_SECONDS"))
        self.run_for = timedelta(seconds=cluster.seconds(ctx, "SIMULATE_POD_RUN_SECONDS"))
        self.stop_after = timedelta(seconds=cluster.seconds(ctx, "SIMULATE_POD_STOP_SECONDS"))
        self.fail = cluster.fail_annotation(ctx.naming)
        #: pod uid -> when this agent first saw it bound (the start delay counts from there)
        self.seen: dict[str, datetime] = {}
        #: pod uid -> when this agent started it (startTime has whole seconds only)
        self.started: dict[str, datetime] = {}
        #: pod uid -> when this agent reported its containers stopped (the deletion follows a while later)
        self.stopped: dict[str, datetime] = {}
        self.events = (
            KubeletEvents(self.client, self.start_after.total_seconds())
            if ctx.settings.get("SIMULATE_KUBELET_EVENTS", True)
            else None
        )

    def watches(self) -> list[ResourceType]:
        return [self.pods]

    def relevant(self, change: Change) -> bool:
        return change.type != "DELETED" and cluster.NODE_PREFIX in change.data  # bound to a simulated node

    def ours(self, pod: dict) -> bool:
        index = cluster.node_index((pod.get("spec") or {}).get("nodeName"))
        return index is not None and index < self.count

    def sync(self) -> None:
        now = self.now()
        pods = [p for p in self.client.list(self.pods) if self.ours(p)]
        self.seen = {uid: self.seen.get(uid, now) for p in pods if (uid := str(p["metadata"].get("uid")))}
        self.started = {uid: at for uid, at in self.started.items() if uid in self.seen}
        self.stopped = {uid: at for uid, at in self.stopped.items() if uid in self.seen}
        used: dict[str, set[str]] = {}
        for pod in pods:
            ip = (pod.get("status") or {}).get("podIP")
            if ip:
                used.setdefault(str(pod["spec"]["nodeName"]), set()).add(str(ip))
        waits = [IDLE_RESYNC_SECONDS]
        for pod in pods:
            wait = self._step(pod, now, used)
            if wait is not None:
                waits.append(wait)
        self.resync_seconds = max(min(waits), 0.02)

    def _step(self, pod: dict, now: datetime, used: dict[str, set[str]]) -> float | None:
        """Move one pod on when due; the seconds until its next move (None: nothing to wait for)."""
        md, status = pod["metadata"], pod.get("status") or {}
        phase = status.get("phase") or "Pending"
        if md.get("deletionTimestamp"):
            return self._terminate(pod, now)
        if phase in FINISHED:
            return None
        if phase == "Pending":
            due = self.seen[md["uid"]] + self.start_after
            if now < due:
                return cluster.until(now, due)
            if self._write(pod, self._running(pod, now, used)):
                self.started[md["uid"]] = now
                if self.events is not None:
                    self.events.started(pod, now)
            return self.run_for.total_seconds() if self._completes(pod) else None
        if phase == "Running" and self._completes(pod):
            started = self.started.get(md["uid"]) or cluster.parse_time(status.get("startTime")) or now
            due = started + self.run_for
            if now < due:
                return cluster.until(now, due)
            self._write(pod, self._finished(pod, now))
        return None

    def _terminate(self, pod: dict, now: datetime) -> float | None:
        """Report the running containers stopped, then delete the pod once it is due."""
        md = pod["metadata"]
        grace = timedelta(seconds=int(md.get("deletionGracePeriodSeconds") or 0))
        deadline = cluster.parse_time(md["deletionTimestamp"]) or now
        stop = min(self.stop_after, grace)
        due = deadline - grace + stop  # the deletion began grace before its deadline
        running = _running_containers(pod)
        if running and now < deadline:
            if not self._write(pod, self._stopped(pod, now)):
                return None  # changed or gone meanwhile: the change wakes the next round
            self.stopped[md["uid"]] = now
            if self.events is not None:
                self.events.stopping(pod, now, running)
        reported = self.stopped.get(md["uid"])
        if reported is not None:  # watchers get to see the stopped pod before it goes, up to the grace's end
            due = min(max(due, reported + stop), deadline)
        if now >= due:
            self._remove(pod)
            return None
        return cluster.until(now, due)

    def _completes(self, pod: dict) -> bool:
        spec = pod.get("spec") or {}
        owned_by_job = any(
            isinstance(o, dict) and o.get("kind") == "Job" for o in (pod["metadata"].get("ownerReferences") or [])
        )
        return owned_by_job or spec.get("restartPolicy") in RUNS_TO_COMPLETION

    # -- statuses -------------------------------------------------------------------------------------------

    def _pod_ip(self, pod: dict, used: dict[str, set[str]]) -> tuple[str, str]:
        node = str(pod["spec"]["nodeName"])
        index = cluster.node_index(node) or 0
        host = cluster.node_ip(index)
        if (pod.get("spec") or {}).get("hostNetwork"):
            return host, host
        taken = used.setdefault(node, set())
        hosts = [str(a) for a in cluster.pod_cidr(index).hosts()][1:]  # .1 is the node's gateway
        ip = next((a for a in hosts if a not in taken), hosts[-1])
        taken.add(ip)
        return ip, host

    def _running(self, pod: dict, now: datetime, used: dict[str, set[str]]) -> dict:
        status = dict(pod.get("status") or {})
        stamp = rfc3339(now)
        pod_ip, host_ip = self._pod_ip(pod, used)
        uid = pod["metadata"]["uid"]
        spec = pod.get("spec") or {}

        def container(c: dict, init: bool) -> dict:
            image = str(c.get("image") or "")
            state = (
                {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": stamp, "finishedAt": stamp}}
                if init
                else {"running": {"startedAt": stamp}}
            )
            out = {
                "name": c.get("name"),
                "state": state,
                "lastState": {},
                "ready": True,
                "restartCount": 0,
                "image": image,
                "imageID": _image_id(image),
                "containerID": f"containerd://{_digest(uid, c.get('name'))}",
            }
            if not init:
                out["started"] = True
            return out

        status.update(
            phase="Running",
            hostIP=host_ip,
            podIP=pod_ip,
            podIPs=[{"ip": pod_ip}],
            startTime=status.get("startTime") or stamp,
            containerStatuses=[container(c, False) for c in spec.get("containers") or []],
        )
        if spec.get("initContainers"):
            status["initContainerStatuses"] = [container(c, True) for c in spec["initContainers"]]
        status["conditions"] = _conditions(status, stamp, ready=True)
        return status

    def _stopped(self, pod: dict, now: datetime) -> dict:
        """The status once the kubelet stopped a terminating pod's containers: terminated with exit code 0 (they
        exit on SIGTERM), not ready. The phase is kept: the kubelet (v1.23) keeps a restartPolicy Always pod
        Running, and a run-to-completion pod stopped by a deletion must not count as Succeeded for its Job."""
        status = dict(pod.get("status") or {})
        stamp = rfc3339(now)
        statuses = []
        for cs in status.get("containerStatuses") or []:
            running = (cs.get("state") or {}).get("running")
            if running is not None:
                terminated = {
                    "exitCode": 0,
                    "reason": "Completed",
                    "startedAt": running.get("startedAt") or stamp,
                    "finishedAt": stamp,
                    "containerID": cs.get("containerID"),
                }
                cs = {**cs, "state": {"terminated": terminated}, "started": False}
            statuses.append({**cs, "ready": False})
        status["containerStatuses"] = statuses
        unready = ", ".join(str(cs.get("name")) for cs in statuses)
        status["conditions"] = _conditions(
            status,
            stamp,
            ready=False,
            reason="ContainersNotReady",
            message=f"containers with unready status: [{unready}]",
        )
        return status

    def _finished(self, pod: dict, now: datetime) -> dict:
        status = dict(pod.get("status") or {})
        stamp = rfc3339(now)
        failed = (pod["metadata"].get("annotations") or {}).get(self.fail) == "true"
        code, reason = (1, "Error") if failed else (0, "Completed")
        statuses = []
        for cs in status.get("containerStatuses") or []:
            started = ((cs.get("state") or {}).get("running") or {}).get("startedAt") or stamp
            terminated = {
                "exitCode": code,
                "reason": reason,
                "startedAt": started,
                "finishedAt": stamp,
                "containerID": cs.get("containerID"),
            }
            statuses.append({**cs, "state": {"terminated": terminated}, "ready": False, "started": False})
        status.update(phase="Failed" if failed else "Succeeded", containerStatuses=statuses)
        status["conditions"] = _conditions(
            status, stamp, ready=False, reason="PodFailed" if failed else "PodCompleted", initialized_reason=True
        )
        return status

    # -- writes ---------------------------------------------------------------------------------------------

    def _write(self, pod: dict, status: dict) -> bool:
        try:
            as_node = self.identities.client(str(pod["spec"]["nodeName"]))
            as_node.update(self.pods, pod["metadata"].get("namespace"), {**pod, "status": status}, "status")
        except (Conflict, NotFound):
            return False  # changed meanwhile: the change wakes the next round
        return True

    def _remove(self, pod: dict) -> None:
        md = pod["metadata"]
        try:
            as_node = self.identities.client(str((pod.get("spec") or {}).get("nodeName") or ""))
            as_node.delete(self.pods, md.get("namespace"), str(md.get("name")), str(md.get("uid")), grace_seconds=0)
        except (Conflict, NotFound):
            pass  # already gone, or replaced by a pod of the same name


def _running_containers(pod: dict) -> set[str]:
    """The names of the pod's containers reported running."""
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    return {str(cs.get("name")) for cs in statuses if "running" in (cs.get("state") or {})}


def _conditions(
    status: dict, stamp: str, ready: bool, reason: str = "", message: str = "", initialized_reason: bool = False
) -> list[dict]:
    """PodScheduled, Initialized, ContainersReady and Ready; lastTransitionTime moves only with the status."""
    old = {c.get("type"): c for c in status.get("conditions") or [] if isinstance(c, dict)}
    out = []
    for kind, value in (
        ("Initialized", "True"),
        ("Ready", "True" if ready else "False"),
        ("ContainersReady", "True" if ready else "False"),
        ("PodScheduled", "True"),
    ):
        previous = old.get(kind) or {}
        condition = {
            "type": kind,
            "status": value,
            "lastProbeTime": None,
            "lastTransitionTime": previous.get("lastTransitionTime") if previous.get("status") == value else stamp,
        }
        if kind in ("Ready", "ContainersReady") and not ready and reason:
            condition["reason"] = reason
            if message:
                condition["message"] = message
        if kind == "Initialized" and initialized_reason:
            condition["reason"] = reason
        out.append(condition)
    return out
