"""Label and field selectors of one list or watch, applied to objects of a kind."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..catalog import ResourceType
from ..selectors import FieldSelector, LabelSelector

GENERIC_FIELDS = ("metadata.name", "metadata.namespace")


def field_getter(rt: ResourceType, obj: dict) -> Callable[[str], str | None]:
    extra = rt.strategy.field_selectors

    def get(label: str) -> str | None:
        if label == "metadata.name":
            return (obj.get("metadata") or {}).get("name", "")
        if label == "metadata.namespace":
            return (obj.get("metadata") or {}).get("namespace", "")
        getter = extra.get(label)
        return getter(obj) if getter else None

    return get


@dataclass(frozen=True)
class Filter:
    """Label and field selectors of one list or watch."""

    labels: LabelSelector
    fields: FieldSelector

    @property
    def empty(self) -> bool:
        return self.labels.empty and not self.fields.requirements

    def matches(self, rt: ResourceType, obj: dict) -> bool:
        return self.labels.matches((obj.get("metadata") or {}).get("labels") or {}) and self.fields.matches(
            field_getter(rt, obj)
        )
