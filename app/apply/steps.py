"""Steps shared by updates and applies: managedFields in and out, and ownership moving with changes."""

from __future__ import annotations

from typing import Any

from ..schema.types import Struct
from .compare import Comparison, compare
from .fieldpath import FieldSet
from .filters import STRIPPED, FieldFilter
from .managed import (
    UPDATE,
    Managed,
    ManagedFieldsError,
    ManagerEntry,
    decode_managed_fields,
    encode_managed_fields,
    manager_identity,
)
from .typed import reconcile_with_schema
from .typeinfo import TypeNode
from .values import json_copy


def meta_of(obj: Any) -> dict[str, Any]:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return meta if isinstance(meta, dict) else {}


def without_managed_fields(obj: Any) -> Any:
    out = json_copy(obj) if obj is not None else {}
    if isinstance(out, dict) and isinstance(out.get("metadata"), dict):
        out["metadata"].pop("managedFields", None)
    return out


def with_managed_fields(obj: dict[str, Any], managed: Managed) -> dict[str, Any]:
    entries = encode_managed_fields(managed)
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        if not entries:
            return obj
        meta = obj["metadata"] = {}
    if entries:
        meta["managedFields"] = entries
    else:
        meta.pop("managedFields", None)
    return obj


def decode_or_empty(entries: Any) -> Managed:
    try:
        return decode_managed_fields(entries)
    except ManagedFieldsError:
        return {}


def reconcile_all(managed: Managed, struct: Struct | None) -> Managed:
    return {ident: e.with_fields(reconcile_with_schema(e.fields, struct)) for ident, e in managed.items()}


def take_changes(managed: Managed, cmp: Comparison, skip: str | None) -> tuple[Managed, dict[str, FieldSet]]:
    """Every manager but `skip` loses what the write changed or removed; returns the new entries and
    what each lost to changes (the conflicts, for an apply)."""
    changed = cmp.changed
    out: Managed = {}
    lost: dict[str, FieldSet] = {}
    for ident, entry in managed.items():
        if ident == skip:
            out[ident] = entry
            continue
        conflicts = entry.fields & changed
        if conflicts:
            lost[ident] = conflicts
        out[ident] = entry.with_fields(entry.fields - conflicts - cmp.removed)
    return out, lost


def drop_empty(managed: Managed) -> Managed:
    return {ident: e for ident, e in managed.items() if e.fields}


def record_changes(
    managed: Managed,
    old_view: Any,
    new_view: Any,
    node: TypeNode,
    manager: str,
    api_version: str,
    subresource: str,
    keep: FieldFilter,
    now: str,
) -> Managed:
    """The reference's Update: others lose what changed, the writer's `Update` entry gains it."""
    cmp = compare(old_view, new_view, node).filtered(keep)
    managed, _ = take_changes(managed, cmp, skip=None)
    managed = drop_empty(managed)
    gained = cmp.changed - STRIPPED
    if gained:
        ident = manager_identity(manager, UPDATE, api_version, subresource)
        previous = managed.get(ident)
        fields = gained | previous.fields if previous else gained
        managed[ident] = ManagerEntry(manager, UPDATE, api_version, fields, now, subresource)
    return managed
