"""The `FieldsV1` JSON form of a field set, byte-for-byte the reference's.

Each key is a path element: `f:<name>`, `k:<compact JSON of the key fields, sorted by name>`,
`v:<compact JSON value>` or `i:<index>`; a leaf is `{}`, and `".": {}` marks a node that is itself
a member and also has children. Keys come in the reference's element order.
"""

from __future__ import annotations

import json
from typing import Any

from .fieldpath import FIELD, KEY, VALUE, FieldSet, Path, PathElement, field_pe, index_pe
from .values import go_json, unwrap, wrap


class FieldsV1Error(ValueError):
    """A `fieldsV1` tree that is not the reference's encoding."""


def encode_path_element(pe: PathElement) -> str:
    if pe.kind == FIELD:
        return "f:" + pe.data
    if pe.kind == KEY:
        return "k:{" + ",".join(f"{go_json(name)}:{go_json(unwrap(v))}" for name, v in pe.data) + "}"
    if pe.kind == VALUE:
        return "v:" + go_json(unwrap(pe.data))
    return f"i:{pe.data}"


def decode_path_element(text: str) -> PathElement | None:
    """One key of a fieldsV1 tree; None for an unknown element type (the reference skips those)."""
    if len(text) < 2:
        raise FieldsV1Error("key must be 2 characters long")
    if text[1] != ":":
        raise FieldsV1Error(f"missing colon: {text}")
    kind, body = text[0], text[2:]
    if kind == "f":
        return field_pe(body)
    if kind == "i":
        try:
            return index_pe(int(body))
        except ValueError as exc:
            raise FieldsV1Error(f"invalid index in {text}") from exc
    if kind not in "kv":
        return None
    try:
        parsed = json.loads(body)
    except ValueError as exc:
        raise FieldsV1Error(f"invalid JSON in {text}: {exc}") from exc
    if kind == "v":
        return PathElement(VALUE, wrap(parsed))
    if not isinstance(parsed, dict):
        raise FieldsV1Error(f"key element is not a JSON object: {text}")
    return PathElement(KEY, tuple(sorted((name, wrap(v)) for name, v in parsed.items())))


def encode_fields_v1(fs: FieldSet) -> dict[str, Any]:
    """A field set -> its fieldsV1 tree."""
    return _encode(fs)


def _encode(fs: FieldSet) -> dict[str, Any]:
    members = fs.members()
    children = fs.children()
    out: dict[str, Any] = {}
    for pe in sorted(members | set(children)):
        sub = children.get(pe)
        if sub is None:
            out[encode_path_element(pe)] = {}
            continue
        node: dict[str, Any] = {".": {}} if pe in members else {}
        node.update(_encode(sub))
        out[encode_path_element(pe)] = node
    return out


def decode_fields_v1(tree: Any) -> FieldSet:
    """A fieldsV1 tree -> its field set. Raises FieldsV1Error when it is malformed."""
    if tree is None:
        return FieldSet()
    if not isinstance(tree, dict):
        raise FieldsV1Error("fieldsV1 must be a JSON object")
    paths: list[Path] = []
    _decode(tree, (), paths)
    return FieldSet(paths)


def _decode(tree: dict[str, Any], prefix: Path, out: list[Path]) -> bool:
    """Collect the paths under `prefix`; True when the node at `prefix` is itself a member."""
    is_member = False
    has_children = False
    for key, sub in tree.items():
        if key == ".":
            is_member = True
            continue
        pe = decode_path_element(key)
        if pe is None:
            continue
        if not isinstance(sub, dict):
            raise FieldsV1Error(f"value of {key} must be a JSON object")
        has_children = True
        if _decode(sub, prefix + (pe,), out):
            out.append(prefix + (pe,))
    return is_member or not has_children
