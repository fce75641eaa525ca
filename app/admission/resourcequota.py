"""ResourceQuota: a write that would take a namespace past one of its quotas is refused with the reference's 403
messages; an admitted one adds its usage to each quota's `status.used` at once (the resourcequota controller
recounts from the stored objects, which also returns what deleted objects and refused writes held)."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from .. import quota
from ..errors import NotFound
from ..registry.admission import CREATE, UPDATE, Attributes, Plugin, forbidden
from ..resources.defaults import parse_quantity
from .source import ConfigurationSource

if TYPE_CHECKING:
    from ..registry.store import Registry
    from ..storage.hub import WatchHub

#: updates that can change what an object uses (the reference's evaluators: pods are quota'd at create only)
UPDATES_COUNTED = frozenset({("", "services"), ("", "persistentvolumeclaims")})
#: a quota on any of these makes every container of a pod say how much it needs (the reference's validationSet)
CONTAINER_MUST_SPECIFY = ("cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory")


class ResourceQuota(Plugin):
    name = "ResourceQuota"
    operations = frozenset({CREATE, UPDATE})

    def __init__(self, registry: Registry, hub: WatchHub | None) -> None:
        self.registry, self.naming = registry, registry.naming
        self.rt = registry.catalog.known_type("", "v1", "resourcequotas")
        self.quotas = ConfigurationSource(registry, self.rt, lambda obj: [obj], hub)

    def handles(self, attrs: Attributes) -> bool:
        rt = attrs.rt
        return (
            rt.namespaced
            and not attrs.subresource
            and attrs.obj is not None
            and not rt.virtual
            and (attrs.operation == CREATE or (rt.group, rt.plural) in UPDATES_COUNTED)
        )

    def validate(self, attrs: Attributes) -> None:
        names = [
            q["metadata"]["name"]
            for q in self.quotas.current()
            if (q.get("metadata") or {}).get("namespace") == attrs.namespace
        ]
        if not names:
            return
        group, plural = attrs.rt.group, attrs.rt.plural
        new = quota.usage(self.naming, group, plural, attrs.obj or {})
        old = quota.usage(self.naming, group, plural, attrs.old) if attrs.old is not None else {}
        delta = {name: max(value - old.get(name, Decimal(0)), Decimal(0)) for name, value in new.items()}
        matching = []
        for name in names:
            try:
                current = self.registry.get(self.rt, attrs.namespace, name)
            except NotFound:
                continue
            if quota.matches_scopes(current, group, plural, attrs.obj or {}):
                self._check(attrs, current, delta)
                matching.append(name)
        if attrs.dry_run:
            return
        for name in matching:
            self.registry.guaranteed_update(
                self.rt, attrs.namespace, name, lambda current: self._charge(attrs, current, delta)
            )

    def _interesting(self, attrs: Attributes, hard: dict, delta: quota.Usage) -> list[str]:
        pods = attrs.rt.group == "" and attrs.rt.plural == "pods" and quota.counts_compute(attrs.obj or {})
        return sorted(r for r in hard if r in delta or (pods and r in CONTAINER_MUST_SPECIFY))

    def _check(self, attrs: Attributes, current: dict, delta: quota.Usage) -> list[str]:
        """The quota's resources this write touches, after refusing a write the quota does not allow."""
        name = current["metadata"]["name"]
        status = current.get("status") or {}
        hard, used = status.get("hard") or {}, status.get("used") or {}
        interesting = self._interesting(attrs, (current.get("spec") or {}).get("hard") or {}, delta)
        if not interesting:
            return []
        if any(r not in hard or r not in used for r in interesting):
            raise forbidden(attrs, f"status unknown for quota: {name}, resources: {','.join(interesting)}")
        missing = _unspecified(attrs.obj or {}, [r for r in interesting if r in CONTAINER_MUST_SPECIFY])
        if missing:
            raise forbidden(attrs, f"failed quota: {name}: must specify {missing}")
        exceeded = [
            r
            for r in interesting
            if delta.get(r, Decimal(0)) > 0
            and (parse_quantity(used[r]) or 0) + delta[r] > (parse_quantity(hard[r]) or 0)
        ]
        if exceeded:

            def listed(values: dict) -> str:
                return ",".join(f"{r}={values[r]}" for r in exceeded)

            requested = quota.render({r: delta[r] for r in exceeded}, hard)
            raise forbidden(
                attrs,
                f"exceeded quota: {name}, requested: {listed(requested)}, used: "
                f"{listed(used)}, limited: {listed(hard)}",
            )
        return interesting

    def _charge(self, attrs: Attributes, current: dict, delta: quota.Usage) -> None:
        """Add the write's usage to the quota as it is now (checked again: another write may have come first)."""
        interesting = self._check(attrs, current, delta)
        status = current.setdefault("status", {})
        used = {r: parse_quantity(v) or Decimal(0) for r, v in (status.get("used") or {}).items()}
        for resource in interesting:
            if resource in delta:
                used[resource] = used.get(resource, Decimal(0)) + delta[resource]
        status["used"] = quota.render(used, status.get("hard") or {})


def _unspecified(pod: dict, required: list[str]) -> str:
    """`limits.cpu for: a,b; ...` for each required compute resource some container does not set."""
    if not required:
        return ""
    spec = pod.get("spec") or {}
    missing: dict[str, list[str]] = {}
    for container in [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]:
        resources = (container or {}).get("resources") or {}
        has = set()
        for name in resources.get("requests") or {}:
            has |= {f"requests.{name}", name}
        for name in resources.get("limits") or {}:
            has.add(f"limits.{name}")
        for resource in required:
            if resource not in has:
                missing.setdefault(resource, []).append(str(container.get("name", "")))
    return "; ".join(f"{r} for: {','.join(sorted(names))}" for r, names in sorted(missing.items()))
