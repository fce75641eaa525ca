"""podgc: force-deletes (grace 0) the pods no node agent will ever remove, as the reference's pod garbage collector
(v1.23): pods bound to a node that does not exist (once the node stayed missing for the quarantine and a GET
confirms it), terminating pods never scheduled, and the oldest finished pods beyond the terminated-pod threshold.

A graceful deletion of a pod bound to a node ends when that node's agent deletes it with grace 0; pods on a node
whose agent is gone while its Node object stays remain terminating, as in the reference."""

from __future__ import annotations

from datetime import datetime, timedelta

from ..errors import Conflict, NotFound
from .base import Context, Controller

#: how long a node must stay missing before its pods go (the reference's quarantineTime)
QUARANTINE_SECONDS = 40.0
#: the reference's gcCheckPeriod
CHECK_SECONDS = 20.0
#: the reference's --terminated-pod-gc-threshold default (0 or less: finished pods are kept)
TERMINATED_POD_THRESHOLD = 12500


def _finished(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") not in ("Pending", "Running", "Unknown")


class PodGarbageCollector(Controller):
    name = "podgc"
    account = "pod-garbage-collector"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.pods, self.nodes = ctx.kind("", "pods"), ctx.kind("", "nodes")
        self.quarantine = timedelta(seconds=float(ctx.settings.get("POD_GC_QUARANTINE_SECONDS", QUARANTINE_SECONDS)))
        self.threshold = int(ctx.settings.get("TERMINATED_POD_GC_THRESHOLD", TERMINATED_POD_THRESHOLD))
        # periodic like the reference's loop; a shorter quarantine (tests) is checked as often
        self.resync_seconds = min(CHECK_SECONDS, max(self.quarantine.total_seconds() / 2, 0.1))
        self.missing_since: dict[str, datetime] = {}

    def sync(self) -> None:
        pods = self.client.list(self.pods)
        nodes = {str((n.get("metadata") or {}).get("name")) for n in self.client.list(self.nodes)}
        if self.threshold > 0:
            self._terminated(pods)
        self._orphaned(pods, nodes)
        for pod in pods:
            if (pod.get("metadata") or {}).get("deletionTimestamp") and not (pod.get("spec") or {}).get("nodeName"):
                self._force_delete(pod)

    def _terminated(self, pods: list[dict]) -> None:
        finished = [p for p in pods if _finished(p)]
        excess = len(finished) - self.threshold
        if excess <= 0:
            return
        # evicted pods first, then the oldest (names break ties), as the reference sorts them
        finished.sort(
            key=lambda p: (
                (p.get("status") or {}).get("reason") != "Evicted",
                (p.get("metadata") or {}).get("creationTimestamp") or "",
                (p.get("metadata") or {}).get("name") or "",
            )
        )
        for pod in finished[:excess]:
            self._force_delete(pod)

    def _orphaned(self, pods: list[dict], nodes: set[str]) -> None:
        now = self.now()
        wanted = {str(name) for p in pods if (name := (p.get("spec") or {}).get("nodeName"))} - nodes
        self.missing_since = {n: self.missing_since.get(n, now) for n in wanted}
        gone = set()
        for node, since in list(self.missing_since.items()):
            if now - since < self.quarantine or self.client.find(self.nodes, None, node) is not None:
                continue
            gone.add(node)
            del self.missing_since[node]
        for pod in pods:
            if (pod.get("spec") or {}).get("nodeName") in gone:
                self._force_delete(pod)

    def _force_delete(self, pod: dict) -> None:
        md = pod.get("metadata") or {}
        try:
            self.client.delete(self.pods, md.get("namespace"), md.get("name", ""), md.get("uid", ""), grace_seconds=0)
        except (Conflict, NotFound):
            pass  # replaced or gone meanwhile
