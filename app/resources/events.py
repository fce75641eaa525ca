"""The `events.<domain>` group: the structured Event API, versions v1 and v1beta1 (deprecated).

As in the reference, these Events are core v1 Events: both versions are conversions onto the core
`events` storage, so an event written through any of the three APIs is readable through the others.
The renames (the reference's pkg/apis/events conversions): regarding <-> involvedObject, note <-> message,
reportingController <-> reportingComponent, deprecatedSource/FirstTimestamp/LastTimestamp/Count <->
source/firstTimestamp/lastTimestamp/count. Every core field has a counterpart, so nothing is lost.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import ClassVar

from ..catalog import Conversion, Deprecation, Obj, ResourceType
from ..errors import FieldError, invalid, required
from ..naming import Naming
from .common import Getter, NoSpecStrategy, field, immutable

#: a version's own write checks: (new object, old object or None on create) -> field errors.
Rules = Callable[[Obj, "Obj | None"], list[FieldError]]
TYPES = ("Normal", "Warning")
NOTE_MAX = 1024
#: fields fixed once an event exists: v1 name -> the name the reference's messages use.
IMMUTABLE = {
    "regarding": "involvedObject",
    "reason": "reason",
    "note": "message",
    "type": "type",
    "eventTime": "eventTime",
    "action": "action",
    "related": "related",
    "reportingController": "reportingController",
    "reportingInstance": "reportingInstance",
}
DEPRECATED_FIELDS = ("deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedCount", "deprecatedSource")
#: events-group field -> core v1 field (the other fields keep their names).
TO_CORE = {
    "regarding": "involvedObject",
    "note": "message",
    "reportingController": "reportingComponent",
    "deprecatedSource": "source",
    "deprecatedFirstTimestamp": "firstTimestamp",
    "deprecatedLastTimestamp": "lastTimestamp",
    "deprecatedCount": "count",
}
FROM_CORE = {core: group for group, core in TO_CORE.items()}
#: JSON field order of each form (the reference's struct order); unknown keys follow in their own order.
CORE_ORDER = (
    "metadata",
    "involvedObject",
    "reason",
    "message",
    "source",
    "firstTimestamp",
    "lastTimestamp",
    "count",
    "type",
    "eventTime",
    "series",
    "action",
    "related",
    "reportingComponent",
    "reportingInstance",
)
GROUP_ORDER = (
    "metadata",
    "eventTime",
    "series",
    "reportingController",
    "reportingInstance",
    "action",
    "reason",
    "regarding",
    "related",
    "note",
    "type",
    *DEPRECATED_FIELDS,
)


def rename_fields(obj: Obj, names: dict[str, str], order: tuple[str, ...], api_version: str) -> Obj:
    """A deep copy of `obj` with top-level keys renamed, as `api_version` Event, keys in `order` first.

    A key already spelled the target's way is not a field of the source version: it is dropped rather
    than let it overwrite the renamed field."""
    renamed = {
        names.get(key, key): copy.deepcopy(value)
        for key, value in obj.items()
        if key not in ("apiVersion", "kind") and key not in names.values()
    }
    out: Obj = {"apiVersion": api_version, "kind": obj.get("kind", "Event")}
    out.update((key, renamed.pop(key)) for key in order if key in renamed)
    out.update(renamed)
    return out


def conversion(api_version: str, rules: Rules) -> Conversion:
    """An events-group version stored as core v1 Events."""
    return Conversion(
        storage_group="",
        storage_version="v1",
        storage_plural="events",
        to_storage=lambda obj: rename_fields(obj, TO_CORE, CORE_ORDER, "v1"),
        from_storage=lambda obj: rename_fields(obj, FROM_CORE, GROUP_ORDER, api_version),
        validate=rules,
    )


def validate_v1(obj: Obj, old: Obj | None) -> list[FieldError]:
    """events/v1's own rules (the reference's ValidateEventCreate/Update for v1 requests); the core Event
    strategy then runs on the stored form."""
    if old is not None:
        return _validate_v1_update(obj, old)
    errors = [
        required(name)
        for name in ("eventTime", "reportingController", "reportingInstance", "action", "reason")
        if not obj.get(name)
    ]
    if obj.get("type") not in TYPES:
        errors.append(invalid("type", "", f"has invalid value: {obj.get('type') or ''}"))
    if len(str(obj.get("note") or "")) > NOTE_MAX:
        errors.append(invalid("note", "", f"can have at most {NOTE_MAX} characters"))
    # the core-compatible fields are read-only here: new events may not set them
    for name in DEPRECATED_FIELDS:
        if _is_set(obj.get(name)):
            errors.append(invalid(name, "", "needs to be unset"))
    return errors


def _validate_v1_update(obj: Obj, old: Obj) -> list[FieldError]:
    # only the series may change; the reference names the fields by their core (internal) names
    errors = [
        required(name)
        for name in ("reportingController", "reportingInstance", "action", "reason")
        if obj.get("eventTime") and not obj.get(name)
    ]
    for name, internal in IMMUTABLE.items():
        errors += immutable(internal, obj.get(name), old.get(name))
    return errors


def validate_v1beta1(obj: Obj, old: Obj | None) -> list[FieldError]:
    """The legacy rule in v1beta1's own field names: a "new" event (with eventTime) says who reported it."""
    if not obj.get("eventTime"):
        return []
    return [
        required(name) for name in ("reportingController", "reportingInstance", "action", "reason") if not obj.get(name)
    ]


def _is_set(value: object) -> bool:
    """Non-zero in Go's sense: a source counts as set when its component or host is."""
    if isinstance(value, dict):
        return any(value.get(key) for key in ("component", "host"))
    return bool(value)


class EventStrategy(NoSpecStrategy):
    """Field selectors in the events group's names, and the version's own rules (the registry runs them
    as Conversion.validate; writes then run the core Event strategy on the stored form)."""

    allow_create_on_update = True

    def __init__(self, naming: Naming, rules: Rules) -> None:
        super().__init__(naming)
        self.rules = rules

    def validate(self, obj: Obj) -> list[FieldError]:
        return self.rules(obj, None)

    def validate_update(self, obj: Obj, old: Obj) -> list[FieldError]:
        return self.rules(obj, old)

    field_selectors: ClassVar[dict[str, Getter]] = {
        **{
            f"regarding.{k}": field("regarding", k)
            for k in ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")
        },
        "reason": field("reason"),
        "reportingController": field("reportingController"),
        "type": field("type"),
    }


def resource_types(naming: Naming) -> list[ResourceType]:
    group = naming.group("events")
    example = {
        "eventTime": "2024-01-01T00:00:00.000000Z",
        "reportingController": "example-controller",
        "reportingInstance": "example-controller-1",
        "action": "Scheduled",
        "reason": "Scheduled",
        "type": "Normal",
        "note": "example event",
        "regarding": {"kind": "Pod", "name": "web", "apiVersion": "v1"},
    }
    return [
        ResourceType(
            group,
            "v1",
            "Event",
            "events",
            True,
            short_names=("ev",),
            strategy=EventStrategy(naming, validate_v1),
            example=example,
            conversion=conversion(f"{group}/v1", validate_v1),
        ),
        ResourceType(
            group,
            "v1beta1",
            "Event",
            "events",
            True,
            short_names=("ev",),
            strategy=EventStrategy(naming, validate_v1beta1),
            example=copy.deepcopy(example),
            conversion=conversion(f"{group}/v1beta1", validate_v1beta1),
            deprecation=Deprecation("1.22", "1.25", f"{group}/v1 Event"),
        ),
    ]
