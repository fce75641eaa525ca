"""LimitRanger: a namespace's LimitRanges fill in the containers' default requests and limits and hold pods,
containers and claims within their min, max and limit-to-request ratio, with the reference's messages."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import quota
from ..registry.admission import CREATE, UPDATE, Attributes, Plugin, forbidden, is_kind
from ..resources.common import containers, items, part
from ..resources.defaults import parse_quantity
from .source import ConfigurationSource

if TYPE_CHECKING:
    from ..registry.store import Registry
    from ..storage.hub import WatchHub


def _limit_items(limit_range: dict) -> list[tuple[str, dict]]:
    namespace = (limit_range.get("metadata") or {}).get("namespace", "")
    return [(namespace, item) for item in (limit_range.get("spec") or {}).get("limits") or [] if isinstance(item, dict)]


class LimitRanger(Plugin):
    name = "LimitRanger"
    operations = frozenset({CREATE, UPDATE})

    def __init__(self, registry: Registry, hub: WatchHub | None = None) -> None:
        rt = registry.catalog.known_type("", "v1", "limitranges")
        # (namespace, limit item) of every LimitRange, followed through the change log: no query per write
        self.limit_ranges = ConfigurationSource(registry, rt, _limit_items, hub)
        self.annotation = registry.naming.key("limit-ranger")

    def handles(self, attrs: Attributes) -> bool:
        return attrs.operation in self.operations and (
            (attrs.operation == CREATE and is_kind(attrs, "", "pods")) or is_kind(attrs, "", "persistentvolumeclaims")
        )

    def _items(self, namespace: str, kind: str) -> list[dict]:
        return [item for where, item in self.limit_ranges.current() if where == namespace and item.get("type") == kind]

    def admit(self, attrs: Attributes) -> None:
        if attrs.rt.plural != "pods" or attrs.obj is None:
            return
        ranges = self._items(attrs.namespace, "Container")
        if not ranges:
            return
        notes = []
        spec = part(attrs.obj, "spec")
        init_ids = {id(c) for c in items(spec, "initContainers")}
        for container in containers(spec):
            label = f"{'init container' if id(container) in init_ids else 'container'} {container.get('name', '')}"
            resources = container.setdefault("resources", {})
            set_requests: list[str] = []
            set_limits: list[str] = []
            for item in ranges:
                for field, target, noted in (
                    ("defaultRequest", "requests", set_requests),
                    ("default", "limits", set_limits),
                ):
                    for resource, value in (item.get(field) or {}).items():
                        values = resources.setdefault(target, {})
                        if resource not in values:
                            values[resource] = value
                            noted.append(resource)
            for noted, what in ((set_requests, "request"), (set_limits, "limit")):
                if noted:
                    notes.append(f"{', '.join(noted)} {what} for {label}")
            for target in ("requests", "limits"):
                if not resources.get(target):
                    resources.pop(target, None)
        if notes:
            metadata = attrs.obj.setdefault("metadata", {})
            metadata.setdefault("annotations", {})[self.annotation] = "LimitRanger plugin set: " + "; ".join(notes)

    def validate(self, attrs: Attributes) -> None:
        obj = attrs.obj or {}
        errors: list[str] = []
        if attrs.rt.plural == "pods":
            spec = part(obj, "spec")
            for item in self._items(attrs.namespace, "Container"):
                for container in containers(spec):
                    resources = container.get("resources") or {}
                    errors += _bounds(item, "Container", resources.get("requests") or {}, resources.get("limits") or {})
            for item in self._items(attrs.namespace, "Pod"):
                errors += _bounds(
                    item,
                    "Pod",
                    quota.render(quota.pod_totals(spec, "requests"), {}),
                    quota.render(quota.pod_totals(spec, "limits"), {}),
                )
        else:
            requests = ((obj.get("spec") or {}).get("resources") or {}).get("requests") or {}
            for item in self._items(attrs.namespace, "PersistentVolumeClaim"):
                errors += _bounds(item, "PersistentVolumeClaim", requests, {}, limits_apply=False)
        if errors:
            raise forbidden(attrs, errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")


def _bounds(item: dict, kind: str, requests: dict, limits: dict, limits_apply: bool = True) -> list[str]:
    """The reference's min, max and ratio checks of one LimitRange item: one error at most per constraint."""
    errors = []
    for resource, bound in (item.get("min") or {}).items():
        low, request, limit = parse_quantity(bound), requests.get(resource), limits.get(resource)
        if request is None:
            errors.append(f"minimum {resource} usage per {kind} is {bound}.  No request is specified")
        elif low is not None and (parse_quantity(request) or 0) < low:
            errors.append(f"minimum {resource} usage per {kind} is {bound}, but request is {request}")
        elif limits_apply and limit is not None and low is not None and (parse_quantity(limit) or 0) < low:
            errors.append(f"minimum {resource} usage per {kind} is {bound}, but limit is {limit}")
    for resource, bound in (item.get("max") or {}).items():
        high, request, limit = parse_quantity(bound), requests.get(resource), limits.get(resource)
        if high is None:
            continue
        if limits_apply and limit is None:
            errors.append(f"maximum {resource} usage per {kind} is {bound}.  No limit is specified")
        elif limit is not None and (parse_quantity(limit) or 0) > high:
            errors.append(f"maximum {resource} usage per {kind} is {bound}, but limit is {limit}")
        elif request is not None and (parse_quantity(request) or 0) > high:
            errors.append(f"maximum {resource} usage per {kind} is {bound}, but request is {request}")
    for resource, bound in (item.get("maxLimitRequestRatio") or {}).items():
        ratio = parse_quantity(bound)
        request, limit = parse_quantity(requests.get(resource)), parse_quantity(limits.get(resource))
        if ratio is None or limit is None:
            continue
        if not request:
            errors.append(
                f"{resource} max limit to request ratio per {kind} is {bound}, but no request is "
                "specified or request is 0"
            )
        elif limit / request > ratio:
            errors.append(
                f"{resource} max limit to request ratio per {kind} is {bound}, but provided ratio is "
                f"{float(limit / request):f}"
            )
    return errors
