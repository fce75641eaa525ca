"""Whole Table documents: rows with their `object` per includeObject, list metadata, headers."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from ..catalog import Obj, ResourceType
from ..errors import BadRequest
from ..naming import Naming
from .columns import meta
from .registry import table_for

INCLUDE_NONE, INCLUDE_METADATA, INCLUDE_OBJECT = "None", "Metadata", "Object"
INCLUDE_OBJECT_VALUES = (INCLUDE_NONE, INCLUDE_METADATA, INCLUDE_OBJECT)
_LIST_META_KEYS = ("resourceVersion", "continue", "remainingItemCount")


def parse_include_object(value: str | None) -> str:
    """The `includeObject` query parameter; absent or empty means Metadata."""
    if value is None or value == "":
        return INCLUDE_METADATA
    if value in INCLUDE_OBJECT_VALUES:
        return value
    raise BadRequest(f"unrecognized includeObject value: {json.dumps(value, ensure_ascii=False)}")


def table_api_version(naming: Naming, version: str = "v1") -> str:
    return f"{naming.meta_group}/{version}"


def partial_object_metadata(obj: Obj, naming: Naming, version: str = "v1") -> Obj:
    return {
        "kind": "PartialObjectMetadata",
        "apiVersion": table_api_version(naming, version),
        "metadata": dict(meta(obj)),
    }


def full_object(rt: ResourceType, obj: Obj) -> Obj:
    """The object in its own version with kind/apiVersion set (list items are stored without them)."""
    rest = {k: v for k, v in obj.items() if k not in ("kind", "apiVersion")}
    return {"kind": rt.kind, "apiVersion": rt.group_version, **rest}


def row_object(rt: ResourceType, naming: Naming, obj: Obj, include_object: str, version: str = "v1") -> Obj | None:
    annotations = meta(obj).get("annotations")
    if isinstance(annotations, dict) and naming.initial_events_end_annotation in annotations:
        # the watch-list bookmark is always reduced to its metadata
        return partial_object_metadata(obj, naming, version)
    if include_object == INCLUDE_NONE:
        return None
    if include_object == INCLUDE_OBJECT:
        return full_object(rt, obj)
    return partial_object_metadata(obj, naming, version)


def table_metadata(list_meta: dict | None) -> dict:
    """resourceVersion / continue (omitted when empty) and remainingItemCount (omitted when absent)."""
    source = list_meta or {}
    out: dict = {}
    for key in _LIST_META_KEYS:
        value = source.get(key)
        if value is None or (key != "remainingItemCount" and value == ""):
            continue
        out[key] = value
    return out


def render_table(
    rt: ResourceType,
    naming: Naming,
    objects: list[Obj],
    *,
    list_meta: dict | None = None,
    include_object: str = INCLUDE_METADATA,
    include_headers: bool = True,
    now: datetime | None = None,
    version: str = "v1",
) -> dict:
    """A `meta.<domain>/v1` Table of `objects` (one row each, in order).

    `list_meta` supplies metadata.resourceVersion/continue/remainingItemCount (for a single GET pass
    the object's resourceVersion). Without headers `columnDefinitions` is null, as in later watch events.
    """
    if include_object not in INCLUDE_OBJECT_VALUES:
        parse_include_object(include_object)
    spec = table_for(rt, naming)
    moment = now or datetime.now(UTC)
    rows = []
    for obj in objects:
        row = spec.row(obj, moment)
        row["object"] = row_object(rt, naming, obj, include_object, version)
        rows.append(row)
    return {
        "kind": "Table",
        "apiVersion": table_api_version(naming, version),
        "metadata": table_metadata(list_meta),
        "columnDefinitions": spec.column_definitions() if include_headers else None,
        "rows": rows,
    }
