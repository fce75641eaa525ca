"""The `events.<domain>/v1` group: the structured Event API.

The reference serves these from the same storage as core v1 events; here they are their own collection.
"""
from __future__ import annotations

from typing import ClassVar

from app.catalog import Obj, ResourceType
from app.errors import FieldError, invalid, required
from app.naming import Naming
from app.resources.common import Getter, NoSpecStrategy, field, immutable

TYPES = ("Normal", "Warning")
NOTE_MAX = 1024
#: fields fixed once an event exists: v1 name -> the name the reference's messages use.
IMMUTABLE = {"regarding": "involvedObject", "reason": "reason", "note": "message", "type": "type",
             "eventTime": "eventTime", "action": "action", "related": "related",
             "reportingController": "reportingController", "reportingInstance": "reportingInstance"}


class EventStrategy(NoSpecStrategy):
    allow_create_on_update = True
    field_selectors: ClassVar[dict[str, Getter]] = {
        **{f"regarding.{k}": field("regarding", k)
           for k in ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")},
        "reason": field("reason"),
        "reportingController": field("reportingController"),
        "type": field("type"),
    }

    def validate(self, obj: Obj) -> list[FieldError]:
        errors = [required(name) for name in ("eventTime", "reportingController", "reportingInstance", "action",
                                              "reason") if not obj.get(name)]
        if obj.get("type") not in TYPES:
            errors.append(invalid("type", "", f"has invalid value: {obj.get('type') or ''}"))
        if len(str(obj.get("note") or "")) > NOTE_MAX:
            errors.append(invalid("note", "", f"can have at most {NOTE_MAX} characters"))
        # the deprecated (core-compatible) fields may not be set through this API
        for name in ("deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedCount", "deprecatedSource"):
            if obj.get(name):
                errors.append(invalid(name, "", "needs to be unset"))
        return errors

    def validate_update(self, obj: Obj, old: Obj) -> list[FieldError]:
        # only the series may change; the reference names the fields by their core (internal) names
        errors = [required(name) for name in ("reportingController", "reportingInstance", "action", "reason")
                  if obj.get("eventTime") and not obj.get(name)]
        for name, internal in IMMUTABLE.items():
            errors += immutable(internal, obj.get(name), old.get(name))
        return errors


def resource_types(naming: Naming) -> list[ResourceType]:
    return [
        ResourceType(naming.group("events"), "v1", "Event", "events", True, short_names=("ev",),
                     strategy=EventStrategy(naming),
                     example={"eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "example-controller",
                              "reportingInstance": "example-controller-1", "action": "Scheduled",
                              "reason": "Scheduled", "type": "Normal", "note": "example event",
                              "regarding": {"kind": "Pod", "name": "web", "apiVersion": "v1"}}),
    ]
