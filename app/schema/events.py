"""events/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import core, core_volume, meta
from .types import INT32, MICRO_TIME, STRING, TIME, Field, ListOf, Struct

_PKG = "events/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "events"
GROUP_IN_DOMAIN = True
VERSION = "v1"


EventSeries = Struct(
    _PKG,
    "EventSeries",
    [
        Field("count", 1, INT32, omitempty=False, required=True),
        Field("lastObservedTime", 2, MICRO_TIME, omitempty=False, required=True),
    ],
)

Event = Struct(
    _PKG,
    "Event",
    [
        Field("metadata", 1, meta.ObjectMeta, omitempty=False),
        Field("eventTime", 2, MICRO_TIME, omitempty=False, required=True),
        Field("series", 3, EventSeries, nullable=True),
        Field("reportingController", 4, STRING),
        Field("reportingInstance", 5, STRING),
        Field("action", 6, STRING),
        Field("reason", 7, STRING),
        Field("regarding", 8, core_volume.ObjectReference),
        Field("related", 9, core_volume.ObjectReference, nullable=True),
        Field("note", 10, STRING),
        Field("type", 11, STRING),
        Field("deprecatedSource", 12, core.EventSource),
        Field("deprecatedFirstTimestamp", 13, TIME),
        Field("deprecatedLastTimestamp", 14, TIME),
        Field("deprecatedCount", 15, INT32),
    ],
    kind=True,
)

EventList = Struct(
    _PKG,
    "EventList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(Event), omitempty=False, required=True)],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {"Event": Event, "EventList": EventList}
