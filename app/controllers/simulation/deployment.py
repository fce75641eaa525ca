"""The Deployment controller of the simulation, with the reference's semantics (pkg/controller/deployment, v1.23):
ReplicaSets `<deployment>-<pod-template-hash>` owned by the Deployment, revisions, RollingUpdate (maxSurge,
maxUnavailable) and Recreate, proportional scaling in mid-rollout, paused Deployments, revisionHistoryLimit
cleanup, status and the Available/Progressing/ReplicaFailure conditions (deployment_rollout.py does one
Deployment; this module feeds it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import Conflict, NotFound
from ...registry.keys import collection_prefix
from ..base import Context
from .deployment_rollout import Rollout
from .deployment_util import Keys
from .workload_common import NamespaceQueue, apps_kind, meta

if TYPE_CHECKING:
    from ...catalog import ResourceType
    from ...registry.informer import Change


class DeploymentController(NamespaceQueue):
    name = "deployment"
    account = "deployment-controller"
    component = "deployment-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.deployments, self.sets = apps_kind(ctx, "deployments"), apps_kind(ctx, "replicasets")
        self.pods = ctx.kind("", "pods")
        self.keys = Keys(ctx.naming)

    def watches(self) -> list[ResourceType]:
        return [self.deployments, self.sets, self.pods]

    def relevant(self, change: Change) -> bool:
        # pods matter only when they are gone: Recreate waits for the old ones (status comes from ReplicaSets)
        if change.key.startswith(collection_prefix(self.pods, None)) and change.type != "DELETED":
            return False
        return super().relevant(change)

    def reconcile(self, namespaces: set[str] | None) -> None:
        targets: list[str | None] = list(namespaces) if namespaces is not None else [None]
        for namespace in targets:
            deployments = self.client.list(self.deployments, namespace)
            if not deployments:
                continue
            sets = self.client.list(self.sets, namespace)
            for d in deployments:
                ns = meta(d).get("namespace") or ""
                try:
                    Rollout(self, d, [rs for rs in sets if meta(rs).get("namespace") == ns]).run()
                except (Conflict, NotFound):
                    self.due_in(ns, 0.1)  # changed meanwhile: look again
