"""Ownership for non-apply writes (create, update, patch): the writer's `Update` entry.

The reference's Update: every other manager loses the fields this write changed or removed (an
update never conflicts), the writer's entry for (manager, Update, apiVersion, subresource) gains
what it set or changed and gets a fresh time, and entries left empty go.
"""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any

from ..schema.types import Struct
from .filters import FieldFilter, default_filter
from .managed import (
    Managed,
    ManagedFieldsError,
    cap_update_managers,
    decode_managed_fields,
    format_time,
    is_reset,
)
from .steps import (
    decode_or_empty,
    meta_of,
    reconcile_all,
    record_changes,
    with_managed_fields,
    without_managed_fields,
)
from .typed import typed_view, zero_object
from .typeinfo import TypedError, root_node


def managed_for_update(old: Any, new: Any, subresource: str | None = None) -> Managed:
    """Which managedFields a non-apply write starts from: the live ones for a subresource write;
    none after a reset (rule 1); the request's own when it carries valid, non-empty ones (rule 3);
    else the live ones (so clients unaware of managedFields never drop them)."""
    live = meta_of(old).get("managedFields")
    if subresource:
        return decode_or_empty(live)
    requested = meta_of(new).get("managedFields")
    if is_reset(requested):
        return {}
    try:
        managed = decode_managed_fields(requested)
    except ManagedFieldsError:
        managed = {}
    return managed if managed else decode_or_empty(live)


def record_update(
    old: dict[str, Any] | None,
    new: dict[str, Any],
    manager: str,
    struct: Struct | None,
    api_version: str,
    now: dt.datetime | str,
    subresource: str | None = None,
    fields_filter: FieldFilter | None = None,
) -> dict[str, Any]:
    """`new` with managedFields updated for a create (`old` None), update or patch by `manager`.

    The writer's `Update` entry gains every field whose value this write set or changed; the other
    managers lose those fields and the removed ones (an update never conflicts); entries left
    empty go. Entries this write did not touch keep their timestamps, so a no-op write stays one.
    Call it on the objects as they will be stored (after defaulting).
    """
    keep = default_filter(struct, subresource, fields_filter)
    node = root_node(struct)
    managed = managed_for_update(old, new, subresource)
    result = without_managed_fields(new)
    old_obj = without_managed_fields(old) if old is not None else None
    try:
        managed = reconcile_all(managed, struct)
        old_view = typed_view(old_obj, struct) if old_obj is not None else zero_object(struct)
        managed = record_changes(
            managed,
            old_view,
            typed_view(result, struct),
            node,
            manager or "unknown",
            api_version,
            subresource or "",
            keep,
            format_time(now),
        )
    except TypedError:
        live = meta_of(old).get("managedFields")  # the reference keeps the live entries when it cannot track
        if live:
            result.setdefault("metadata", {})["managedFields"] = copy.deepcopy(live)
        return result
    return with_managed_fields(result, cap_update_managers(managed))
