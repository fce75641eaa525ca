"""Field sets of objects, the zero-filled view the reference compares, and schema checks.

`fieldset_from_object` is the reference's "to field set": every leaf, every associative-list item
(as its own member), every map entry, and every empty or null field. `typed_view` fills the fields
a typed object always carries in the reference (non-pointer structs as `{}`, non-omitempty fields as
their zero value), so that comparisons see what the reference sees.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..schema.types import (
    BOOL,
    BYTES,
    DOUBLE,
    FIELDS_V1,
    INT32,
    INT64,
    INT_OR_STRING,
    MICRO_TIME,
    QUANTITY,
    RAW_EXTENSION,
    STRING,
    TIME,
    Field,
    ListOf,
    MapOf,
    Scalar,
    Struct,
)
from .fieldpath import FIELD, KEY, FieldSet, Path, PathElement, field_pe, index_pe, path_string
from .typeinfo import DEDUCED, BadItem, TypedError, TypeNode, effective, node_for, root_node
from .values import MISSING
from .wrongtype import container_problem, scalar_problem

# Go struct types behind these scalars are always serialized (omitempty never drops a struct).
_STRUCT_SCALARS: dict[Any, Any] = {
    TIME: None,
    MICRO_TIME: None,
    QUANTITY: "0",
    INT_OR_STRING: 0,
    RAW_EXTENSION: None,
    FIELDS_V1: None,
}
_ZERO: dict[Any, Any] = {STRING: "", INT32: 0, INT64: 0, BOOL: False, DOUBLE: 0, BYTES: None}


def fieldset_from_object(obj: Any, struct: Struct | None) -> FieldSet:
    """The set of fields an object sets, as the reference computes it (duplicates allowed)."""
    return fieldset_of(obj, root_node(struct))


def fieldset_of(value: Any, node: TypeNode) -> FieldSet:
    out: set[Path] = set()
    _to_set(value, node, (), out)
    return FieldSet(out)


def _to_set(value: Any, node: TypeNode, path: Path, out: set[Path]) -> None:
    how = effective(node, value)
    if how == "leaf":
        out.add(path)
        return
    if value is None:
        return  # a null granular list or map: the parent records it
    if how == "list":
        item_node = node.item()
        pes = [_item_pe(node, item, i, path) for i, item in enumerate(value)]
        seen: set[PathElement] = set()
        duplicates: set[PathElement] = set()
        for pe in pes:
            (duplicates if pe in seen else seen).add(pe)
        for pe in duplicates:
            out.add(path + (pe,))  # a duplicated item is owned as a whole
        for item, pe in zip(value, pes):
            if pe not in duplicates:
                _to_set(item, item_node, path + (pe,), out)
                out.add(path + (pe,))
        return
    for key, child in value.items():
        child_path = path + (field_pe(key),)
        _to_set(child, node.child(key), child_path, out)
        if child is None or child == {} or not node.declares(key):
            out.add(child_path)


def _item_pe(node: TypeNode, item: Any, index: int, path: Path) -> PathElement:
    try:
        return node.item_pe(item)
    except BadItem as exc:
        raise TypedError([(path_string(path), f"element {index}: {exc}")]) from None


def item_pes(node: TypeNode, items: list[Any], path: Path) -> list[PathElement]:
    """The element naming each item of an associative list; raises TypedError for a bad item."""
    return [_item_pe(node, item, i, path) for i, item in enumerate(items)]


# -- the typed view -----------------------------------------------------------------------------------


def typed_view(obj: Any, struct: Struct | None) -> Any:
    """`obj` with the fields the reference's typed object always carries filled in: new containers where something
    may be filled, `obj`'s own values elsewhere (free-form subtrees are shared): read it, never change it."""
    return _fill(obj, root_node(struct))


def _fill(value: Any, node: TypeNode) -> Any:
    if node.plain:
        return value
    if isinstance(value, dict):
        out = {key: _fill(child, node.child(key)) for key, child in value.items()}
        if node.kind == "struct" and not node.open:
            assert node.struct is not None
            for key, fields in node.struct.json_fields.items():
                if key not in out:
                    zero = _zero(fields)
                    if zero is not MISSING:
                        out[key] = zero
        return out
    if isinstance(value, list):
        item = node.item() if node.kind == "list" else DEDUCED
        return [_fill(x, item) for x in value]
    return value


def _zero(fields: tuple[Field, ...]) -> Any:
    """The zero value the reference serializes for an unset field, or MISSING when it is omitted."""
    if any(f.nullable for f in fields[:-1]):
        return MISSING  # inside a nil embedded pointer
    f = fields[-1]
    if f.nullable:
        return MISSING if f.omitempty else None
    t = f.type
    if isinstance(t, Struct):
        return MISSING if f.omitzero else _fill({}, node_for(t, f))
    if isinstance(t, (ListOf, MapOf)):
        return MISSING if f.omitempty else None
    if t in _STRUCT_SCALARS:
        return MISSING if f.omitzero else _STRUCT_SCALARS[t]
    if f.omitempty or f.omitzero:
        return MISSING
    return _ZERO.get(t)


@lru_cache(maxsize=1024)
def zero_object(struct: Struct | None) -> Any:
    """The reference's empty object of a kind (what a create is compared against); one per kind, shared by
    every create (~50 us to build): read it, never change it."""
    return typed_view({}, struct)


# -- checks on an applied configuration --------------------------------------------------------------


def validate_applied(obj: Any, struct: Struct | None) -> None:
    """Raise TypedError as the reference does for an applied object that does not fit the schema."""
    problems: list[tuple[str, str]] = []
    _validate(obj, root_node(struct), (), problems)
    if problems:
        raise TypedError(problems)


def _validate(value: Any, node: TypeNode, path: Path, problems: list[tuple[str, str]]) -> None:
    if isinstance(value, dict) and node.kind in ("struct", "map"):
        for key, child in value.items():
            if node.kind == "struct" and not node.open and not node.declares(key):
                problems.append((path_string(path + (field_pe(key),)), "field not declared in schema"))
                return
            _validate(child, node.child(key), path + (field_pe(key),), problems)
    elif isinstance(value, list) and node.kind == "list":
        item_node = node.item()
        if node.list_type == "atomic":
            for i, item in enumerate(value):
                _validate(item, item_node, path + (index_pe(i),), problems)
            return
        seen: set[PathElement] = set()
        for i, item in enumerate(value):
            try:
                pe = node.item_pe(item)
            except BadItem as exc:
                problems.append((path_string(path), f"element {i}: {exc}"))
                return
            if pe in seen:
                problems.append((path_string(path), f"duplicate entries for key {pe}"))
            seen.add(pe)
            _validate(item, item_node, path + (pe,), problems)
    elif problem := _wrong_type(node, value):
        problems.append((path_string(path), problem))


def _wrong_type(node: TypeNode, value: Any) -> str | None:
    if node.kind == "scalar":
        return scalar_problem(node.elem, value) if isinstance(node.elem, Scalar) else None
    return container_problem(node.kind, value)


# -- set helpers that need the schema ---------------------------------------------------------------


def ensure_named_fields(fs: FieldSet, node: TypeNode) -> FieldSet:
    """`fs` plus every named struct field that is a parent of one of its paths."""
    extra: set[Path] = set()
    for path in fs.paths:
        current: TypeNode | None = node
        for i, pe in enumerate(path[:-1]):
            if current is None:
                break
            if pe.kind == FIELD:
                if current.declares(pe.data):
                    extra.add(path[: i + 1])
                current = current.child(pe.data) if current.kind in ("struct", "map", "deduced") else None
            elif pe.kind == KEY and current.kind == "list":
                current = current.item()
            else:
                current = None
    return fs | FieldSet(extra) if extra else fs


def reconcile_with_schema(fs: FieldSet, struct: Struct | None) -> FieldSet:
    """Rule 9: a manager owning parts of a now-atomic value owns the whole value instead."""
    remove: set[Path] = set()
    _reconcile(fs, root_node(struct), (), False, remove)
    if not remove:
        return fs
    return fs.recursive_difference(FieldSet(remove)) | FieldSet(remove)


def _reconcile(sub: FieldSet, node: TypeNode, path: Path, is_atomic: bool, remove: set[Path]) -> None:
    if node.kind not in ("list", "struct", "map") or (node.kind == "map" and node.elem is None):
        return  # scalars and free-form (deduced) maps are not reconciled
    if node.atomic and not is_atomic:
        if sub or node.kind == "list":
            remove.add(path)
        return
    members, children = sub.members(), sub.children()
    for pe in members | set(children):
        if node.kind == "list":
            child = node.item()
        elif pe.kind == FIELD and (node.kind == "map" or node.declares(pe.data)):
            child = node.child(pe.data)
        else:
            continue  # not in the schema: left alone
        grand = children.get(pe, FieldSet())
        _reconcile(grand, child, path + (pe,), pe in members and not grand, remove)
