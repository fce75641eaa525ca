"""Server-side apply: merge the applied configuration into the live object, with ownership.

The reference's Apply: the applied configuration is merged over the live object; what the applier
applied last time and no longer applies is pruned unless someone else owns it (rule 6); the
applier's `Apply` entry becomes exactly the applied field set; fields other managers own whose
values change are conflicts (409) unless forced, and forcing takes them over (rules 2, 4, 5).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..schema.types import Struct
from .compare import compare
from .errors import (
    ApplyConflict,
    ApplyInvalidObject,
    ApplyTypeMismatch,
    Conflict,
    ManagedFieldsInApply,
    ManagedFieldsUndecodable,
)
from .fieldpath import FieldSet
from .filters import STRIPPED, FieldFilter, default_filter
from .managed import (
    APPLY,
    BEFORE_FIRST_APPLY,
    Managed,
    ManagedFieldsError,
    ManagerEntry,
    decode_managed_fields,
    format_time,
    manager_identity,
)
from .merge import drop_nulls, merge, remove_fields
from .steps import (
    drop_empty,
    meta_of,
    reconcile_all,
    record_changes,
    take_changes,
    with_managed_fields,
)
from .typed import ensure_named_fields, fieldset_of, typed_view, validate_applied, zero_object
from .typeinfo import TypedError, TypeNode, root_node
from .values import MISSING, json_copy, same


def _check_applied(applied: Any, api_version: str, kind: str) -> None:
    if not isinstance(applied, dict):
        raise ApplyTypeMismatch("", "")
    got_version, got_kind = applied.get("apiVersion"), applied.get("kind")
    if got_version != api_version or got_kind != kind:
        raise ApplyTypeMismatch(str(got_version or ""), str(got_kind or ""))
    if meta_of(applied).get("managedFields") is not None:
        raise ManagedFieldsInApply()


def _object_ref(obj: dict[str, Any], api_version: str, kind: str) -> str:
    meta = meta_of(obj)
    group, _, version = api_version.rpartition("/")
    return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}; {group}/{version}, Kind={kind}"


def _prune(merged: Any, managed: Managed, last: ManagerEntry | None, node: TypeNode) -> Any:
    """Rule 6: drop what the applier owned last time and no longer applies, unless someone (the
    applier's new config included) still owns it; items of others' making are kept."""
    if last is None or not last.fields:
        return merged
    if last.fields.paths <= managed[last.identity].fields.paths:
        return merged  # nothing dropped: every item removed below is owned again by the applier, so comes back
    last_named = ensure_named_fields(last.fields, node)
    pruned = _present(remove_fields(merged, last_named, node))
    owned = FieldSet()
    for entry in managed.values():
        owned |= entry.fields
    merged_named = ensure_named_fields(fieldset_of(merged, node), node)
    keep = ensure_named_fields(fieldset_of(pruned, node), node) | ensure_named_fields(owned, node)
    pruned = _present(remove_fields(merged, merged_named - keep, node))
    dangling = (merged_named - ensure_named_fields(fieldset_of(pruned, node), node)) & last_named
    return _present(remove_fields(merged, dangling, node))


def _without_managed_fields(live: dict[str, Any] | None) -> dict[str, Any]:
    """`live` without managedFields, sharing everything else with it (no copy of a large object)."""
    if live is None:
        return {}
    meta = live.get("metadata")
    if not isinstance(meta, dict) or "managedFields" not in meta:
        return live
    return {**live, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}


def _present(value: Any) -> Any:
    return {} if value is MISSING or value is None else value


def apply(
    live: dict[str, Any] | None,
    applied: dict[str, Any],
    manager: str,
    struct: Struct | None,
    api_version: str,
    force: bool,
    now: dt.datetime | str,
    subresource: str | None = None,
    kind: str | None = None,
    fields_filter: FieldFilter | None = None,
) -> dict[str, Any]:
    """The object after `manager` applies `applied` to `live` (None: apply creates the object).

    Raises ManagedFieldsInApply / ApplyTypeMismatch (400), ApplyInvalidObject (400, e.g. duplicate
    keys or an undeclared field), ManagedFieldsUndecodable (500) and ApplyConflict (409) unless
    `force`. When nothing changes, the live object comes back with only its managedFields updated. Never changes
    `live` or `applied`, and the result shares no dict or list with them (a retry may pass them again).
    """
    if kind is None:  # a schemaless kind is checked by apiVersion alone unless the caller names it
        kind = (
            struct.name if struct is not None else str(applied.get("kind") or "") if isinstance(applied, dict) else ""
        )
    _check_applied(applied, api_version, kind)
    keep = default_filter(struct, subresource, fields_filter)
    sub = subresource or ""
    stamp = format_time(now)
    node = root_node(struct)
    try:
        managed = decode_managed_fields(meta_of(live).get("managedFields"))
    except ManagedFieldsError as exc:
        raise ManagedFieldsUndecodable(str(exc)) from None
    base = _without_managed_fields(live)  # read only: the result is copied from it, or built fresh
    try:
        validate_applied(applied, struct)
        base_view = typed_view(base, struct)
        if not managed and live is not None:  # fields set before the first apply get an owner
            managed = record_changes(
                managed, zero_object(struct), base_view, node, BEFORE_FIRST_APPLY, api_version, sub, keep, stamp
            )
        managed = reconcile_all(managed, struct)
        merged = _present(merge(base, applied, node))
        ident = manager_identity(manager, APPLY, api_version, sub)
        last = managed.get(ident)
        managed[ident] = ManagerEntry(
            manager, APPLY, api_version, keep(fieldset_of(applied, node)), last.time if last else None, sub
        )
        merged = _prune(merged, managed, last, node)
        merged_view = typed_view(merged, struct)
        cmp = compare(base_view, merged_view, node).filtered(keep)
    except TypedError as exc:
        raise ApplyInvalidObject(_object_ref(applied, api_version, kind), exc.render()) from None
    managed, lost = take_changes(managed, cmp, skip=ident)
    if lost and not force:
        raise ApplyConflict(_conflicts(lost, managed))
    managed = drop_empty(managed)
    changed = not same(base_view, merged_view)
    mine = managed.pop(ident, None)
    if mine is not None and mine.fields - STRIPPED:
        managed[ident] = ManagerEntry(
            manager, APPLY, api_version, mine.fields - STRIPPED, stamp if changed else mine.time, sub
        )
    result = drop_nulls(merged, node) if changed else json_copy(base)  # fresh containers either way
    return with_managed_fields(result, managed)


def _conflicts(lost: dict[str, FieldSet], managed: Managed) -> list[Conflict]:
    out: list[Conflict] = []
    for ident in sorted(lost):
        entry = managed[ident]
        for path in lost[ident]:
            out.append(Conflict(entry.manager, entry.operation, entry.api_version, entry.subresource, path, ident))
    return out
