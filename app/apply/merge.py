"""Merging an applied configuration into a live object, and removing sets of fields from objects.

Merge favours the applied side: leaves and atomic values are replaced, maps and structs merge key
by key, associative lists merge item by item (matched by key or value) in the reference's order:
items only the live side has keep their place, and shared items follow the applied order.
"""

from __future__ import annotations

from typing import Any

from ..schema.types import Struct
from .fieldpath import FieldSet, Path, PathElement, field_pe, path_string
from .typed import item_pes
from .typeinfo import BadItem, TypedError, TypeNode, effective
from .values import MISSING


def merge(live: Any, applied: Any, node: TypeNode) -> Any:
    """The merged value (MISSING when neither side has one). Raises TypedError for duplicate keys
    on the applied side. Leaves and atomic values are the inputs' own (not copies): read it, never change it."""
    return _merge(live, applied, node, ())


def _merge(lhs: Any, rhs: Any, node: TypeNode, path: Path) -> Any:
    how = effective(node, lhs, rhs)
    if how != "leaf" and not _nonempty(lhs) and not _nonempty(rhs):
        how = "leaf"
    if how == "leaf":
        return rhs if rhs is not MISSING else lhs
    if how == "list":
        merged = _merge_items(lhs if isinstance(lhs, list) else [], rhs if isinstance(rhs, list) else [], node, path)
        return merged if merged else MISSING
    left = lhs if isinstance(lhs, dict) else {}
    right = rhs if isinstance(rhs, dict) else {}
    out: dict[str, Any] = {}
    for key in [*left, *(k for k in right if k not in left)]:
        value = _merge(left.get(key, MISSING), right.get(key, MISSING), node.child(key), path + (field_pe(key),))
        if value is not MISSING:
            out[key] = value
    return out if out else MISSING


def _nonempty(value: Any) -> bool:
    return isinstance(value, (dict, list)) and len(value) > 0


def _merge_items(lhs: list[Any], rhs: list[Any], node: TypeNode, path: Path) -> list[Any]:
    rhs_pes = item_pes(node, rhs, path)
    rhs_items: dict[PathElement, Any] = {}
    for pe, item in zip(rhs_pes, rhs):
        if pe in rhs_items:
            raise TypedError([(path_string(path), f"duplicate entries for key {pe}")])
        rhs_items[pe] = item
    lhs_pes = item_pes(node, lhs, path)
    lhs_items: dict[PathElement, Any] = {}
    for pe, item in zip(lhs_pes, lhs):
        lhs_items[pe] = None if pe in lhs_items else item  # duplicated live items merge as null
    shared = [pe for pe in rhs_pes if pe in lhs_items]
    next_shared = shared.pop(0) if shared else None
    merged_rhs: set[PathElement] = set()
    item_node = node.item()
    out: list[Any] = []

    def emit(pe: PathElement, left: Any, right: Any) -> None:
        value = _merge(left, right, item_node, path + (pe,))
        if value is not MISSING:
            out.append(value)

    li = ri = 0
    while li < len(lhs_pes) or ri < len(rhs_pes):
        if li < len(lhs_pes) and ri < len(rhs_pes):
            pe = lhs_pes[li]
            if pe == rhs_pes[ri]:
                merged_rhs.add(pe)
                emit(pe, lhs_items[pe], rhs_items[pe])
                li += 1
                ri += 1
                next_shared = shared.pop(0) if shared else None
                continue
            if pe in rhs_items and next_shared is not None and next_shared != pe:
                li += 1  # a shared item, but not the one due now: it comes with the applied order
                continue
        if li < len(lhs_pes):
            pe = lhs_pes[li]
            if pe not in rhs_items:
                emit(pe, lhs[li], MISSING)
                li += 1
                continue
            if pe in merged_rhs:
                li += 1
        if ri < len(rhs_pes):
            pe = rhs_pes[ri]
            merged_rhs.add(pe)
            emit(pe, lhs_items.get(pe, MISSING), rhs_items[pe])
            ri += 1
            if next_shared is not None and next_shared == pe:
                next_shared = shared.pop(0) if shared else None
    return out


def remove_fields(value: Any, to_remove: FieldSet, node: TypeNode) -> Any:
    """`value` without the fields in `to_remove` (a list item or map entry goes with its path).

    As in the reference, a map or list the removal empties becomes null (None) in its parent; the
    result is None when `value` itself is emptied.
    """
    if not to_remove:
        return value
    how = effective(node, value)
    if how == "leaf" or not _nonempty(value):
        return None if isinstance(value, (dict, list)) else value
    if how == "list":
        out_items: list[Any] = []
        for item, pe in zip(value, _safe_pes(node, value)):
            if pe is not None and (pe,) in to_remove:
                continue
            sub = to_remove.with_prefix(pe) if pe is not None else FieldSet()
            if sub:
                item = remove_fields(item, sub, node.item())
                if item is None:
                    continue  # an item emptied by the removal goes (it has no key left)
            out_items.append(item)
        return out_items if out_items else None
    out: dict[str, Any] = {}
    for key, child in value.items():
        pe = field_pe(key)
        if (pe,) in to_remove:
            continue
        sub = to_remove.with_prefix(pe)
        out[key] = remove_fields(child, sub, node.child(key)) if sub else child
    return out if out else None


def drop_nulls(value: Any, node: TypeNode) -> Any:
    """The object as the reference stores it after a merge: a null struct field that is a pointer or
    `omitempty` is left out, a null non-pointer struct is its empty value."""
    if isinstance(value, list):
        item = node.item() if node.kind == "list" else node
        return [drop_nulls(x, item) for x in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    fields = node.struct.json_fields if node.kind == "struct" and node.struct is not None else {}
    for key, child in value.items():
        field = fields[key][-1] if key in fields else None
        if child is None and field is not None:
            if isinstance(field.type, Struct) and not field.nullable and not field.omitzero:
                out[key] = {}
            elif field.nullable or field.omitempty or field.omitzero:
                continue
            else:
                out[key] = None
        else:
            out[key] = drop_nulls(child, node.child(key))
    return out


def _safe_pes(node: TypeNode, items: list[Any]) -> list[PathElement | None]:
    out: list[PathElement | None] = []
    for item in items:
        try:
            out.append(node.item_pe(item))
        except BadItem:
            out.append(None)  # an unkeyable live item is left alone
    return out
