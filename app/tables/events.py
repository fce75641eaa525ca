"""The event printer, shared by core `v1` Events and the events group's Events (as the reference does)."""

from __future__ import annotations

from datetime import datetime

from .columns import (
    Cell,
    Column,
    Obj,
    TableSpec,
    integer,
    name_column,
    name_of,
    parse_time,
    since,
    table,
    text,
    wide,
)

#: events-group field -> the core field it is converted to.
_EVENTS_GROUP_FIELDS = {
    "regarding": "involvedObject",
    "note": "message",
    "deprecatedSource": "source",
    "deprecatedFirstTimestamp": "firstTimestamp",
    "deprecatedLastTimestamp": "lastTimestamp",
    "deprecatedCount": "count",
    "reportingController": "reportingComponent",
}


def as_core_event(obj: Obj) -> Obj:
    """An events-group Event in the core Event's field names (regarding -> involvedObject, ...)."""
    out = dict(obj)
    for source, target in _EVENTS_GROUP_FIELDS.items():
        if source in obj:
            out[target] = obj[source]
    return out


def _source(event: Obj) -> str:
    """formatEventSource: component (or reporting controller), then `, host` (or reporting instance)."""
    component = text(event, "source", "component") or text(event, "reportingComponent")
    host = text(event, "source", "host") or text(event, "reportingInstance")
    return f"{component}, {host}" if host else component


def _target(event: Obj) -> str:
    kind = text(event, "involvedObject", "kind").lower()
    name = text(event, "involvedObject", "name")
    return f"{kind}/{name}" if name else kind


def _event_cells(event: Obj, now: datetime) -> list[Cell]:
    if parse_time(event.get("firstTimestamp")) is not None:
        first = since(event.get("firstTimestamp"), now)
    else:
        first = since(event.get("eventTime"), now)
    last = since(event.get("lastTimestamp"), now) if parse_time(event.get("lastTimestamp")) else first
    series = event.get("series")
    if isinstance(series, dict):
        last = since(series.get("lastObservedTime"), now)
        total = integer(series, "count")
    else:
        # singleton events of the newer API carry no count
        total = integer(event, "count") or 1
    return [
        last,
        text(event, "type"),
        text(event, "reason"),
        _target(event),
        text(event, "involvedObject", "fieldPath"),
        _source(event),
        text(event, "message").strip(),
        first,
        total,
        name_of(event),
    ]


_COLUMNS = [
    Column("Last Seen", description="The time at which the most recent occurrence of this event was recorded."),
    Column("Type", description="Type of this event (Normal, Warning), new types could be added in the future"),
    Column(
        "Reason",
        description="This should be a short, machine understandable string that gives the reason "
        "for the transition into the object's current status.",
    ),
    Column("Object", description="The object that this event is about."),
    wide(
        "Subobject",
        "If referring to a piece of an object instead of an entire object, this string should "
        "contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].",
    ),
    wide("Source", "The component reporting this event. Should be a short machine understandable string."),
    Column("Message", description="A human-readable description of the status of this operation."),
    wide("First Seen", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"),
    wide("Count", "The number of times this event has occurred."),
    name_column(priority=1),
]

CORE_EVENT_TABLE: TableSpec = table(_COLUMNS, _event_cells)
EVENTS_GROUP_TABLE: TableSpec = table(_COLUMNS, lambda obj, now: _event_cells(as_core_event(obj), now))
