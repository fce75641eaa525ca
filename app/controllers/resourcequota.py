"""resourcequota: each ResourceQuota's `status` says its `hard` limits and what its namespace uses now, counted from
the stored objects (the ResourceQuota admission plugin adds a write's usage at once; this recount also returns
what deleted or ended objects held)."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from .. import quota
from ..catalog import ResourceType
from ..errors import Conflict, NotFound
from ..registry.informer import Change
from .base import Context, Controller

#: quota resource -> the core kind whose objects use it (count/<resource> names the kind itself)
CORE_RESOURCES = {
    "pods": "pods",
    "services": "services",
    "services.loadbalancers": "services",
    "services.nodeports": "services",
    "persistentvolumeclaims": "persistentvolumeclaims",
    "requests.storage": "persistentvolumeclaims",
    "configmaps": "configmaps",
    "secrets": "secrets",
    "replicationcontrollers": "replicationcontrollers",
    "resourcequotas": "resourcequotas",
}


class ResourceQuotaController(Controller):
    name = "resourcequota"
    account = "resourcequota-controller"
    resync_seconds = 30.0  # count/<resource> of other kinds is recounted on this beat
    min_sync_interval = 0.5

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.quotas = ctx.kind("", "resourcequotas")

    def watches(self) -> list[ResourceType]:
        return [self.quotas, *(self.ctx.kind("", p) for p in quota.CORE_COUNTED if p != "resourcequotas")]

    def relevant(self, change: Change) -> bool:
        """Quota changes, and what can lower usage: deletions and pod updates (a pod that ends frees compute)."""
        return "/resourcequotas/" in change.key or change.type == "DELETED" or "/pods/" in change.key

    def kind_of(self, resource: str) -> ResourceType | None:
        """The kind a quota resource counts: a core kind's own names, compute (pods), or count/<plural>[.<group>]."""
        if resource.startswith("count/"):
            plural, _, group = resource.removeprefix("count/").partition(".")
            versions = self.ctx.registry.catalog.served_versions(group, plural)
            return self.ctx.registry.catalog.storage_type(versions[0]) if versions else None
        if resource in CORE_RESOURCES:
            return self.ctx.kind("", CORE_RESOURCES[resource])
        if resource.endswith(("/requests.storage", "/persistentvolumeclaims")):
            return self.ctx.kind("", "persistentvolumeclaims")
        return self.ctx.kind("", "pods")  # cpu, memory, requests.*, limits.*

    def sync(self) -> None:
        by_namespace: dict[str, list[dict]] = defaultdict(list)
        for item in self.client.list(self.quotas):
            by_namespace[item["metadata"]["namespace"]].append(item)
        for namespace, quotas in by_namespace.items():
            listed: dict[tuple[str, str], list[dict]] = {}
            for item in quotas:
                self.recount(namespace, item, listed)

    def recount(self, namespace: str, item: dict, listed: dict[tuple[str, str], list[dict]]) -> None:
        hard = dict((item.get("spec") or {}).get("hard") or {})
        used: quota.Usage = {resource: Decimal(0) for resource in hard}
        for resource in hard:
            rt = self.kind_of(resource)
            if rt is None:
                continue
            key = (rt.group, rt.plural)
            if key not in listed:
                listed[key] = self.client.list(rt, namespace)
            for obj in listed[key]:
                if quota.matches_scopes(item, rt.group, rt.plural, obj):
                    value = quota.usage(self.naming, rt.group, rt.plural, obj, self.now()).get(resource)
                    if value is not None:
                        used[resource] += value
        status = {"hard": hard, "used": quota.render(used, hard)}
        if item.get("status") == status:
            return
        item["status"] = status
        try:
            self.client.update(self.quotas, namespace, item, "status")
        except (Conflict, NotFound):
            pass  # changed meanwhile (an admitted write, or the quota went): the change brings another sync
