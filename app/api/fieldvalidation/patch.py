"""Removing unknown fields from a patch body, so the patched object the store writes has none.

A merge patch has the object's shape and is pruned like an object (a strategic merge patch too,
keeping its `$` directives). In a JSON patch, an operation
that only writes an unknown field is dropped (a move to one becomes a remove of its source), and the
values of add/replace operations are pruned at the schema node their path points to.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...registry.patch import JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH
from ...schema import types as t
from .walker import TYPE_KEYS, Walker


class _Unknown:
    """A JSON pointer whose last token names a field the schema does not declare."""


UNKNOWN = _Unknown()


def _tokens(pointer: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]


def resolve(schema: t.Struct, pointer: Any) -> t.TypeSpec | _Unknown | None:
    """The type a JSON pointer designates; UNKNOWN for an undeclared leaf; None where nothing is known."""
    if not isinstance(pointer, str):
        return None
    spec: t.TypeSpec = schema
    tokens = _tokens(pointer)
    for i, token in enumerate(tokens):
        if isinstance(spec, t.Struct):
            if spec.kind and token in TYPE_KEYS:
                spec = t.STRING
                continue
            fields = spec.json_fields.get(token)
            if fields is None:
                return UNKNOWN if i == len(tokens) - 1 else None
            spec = fields[-1].type
        elif isinstance(spec, t.ListOf):
            spec = spec.item
        elif isinstance(spec, t.MapOf):
            spec = spec.value
        else:
            return None  # inside a leaf value (e.g. a RawExtension): nothing is declared there
    return spec


def _prune_operation(schema: t.Struct, op: Any) -> Any | None:
    """The operation without unknown fields, or None when it only writes an unknown field."""
    if not isinstance(op, dict):
        return op
    kind, target = op.get("op"), resolve(schema, op.get("path"))
    if isinstance(target, _Unknown):
        if kind in ("add", "replace", "copy"):
            return None
        if kind == "move":
            return {"op": "remove", "path": op.get("from")}
        return op  # remove/test of an unknown field fail on their own, as they would upstream
    if kind in ("add", "replace") and "value" in op and target is not None:
        return {**op, "value": Walker().value(target, op["value"], "")}
    return op


def prune_patch(schema: t.Struct, patch_type: str, body: bytes) -> bytes:
    """`body` without the unknown fields it would write (unchanged when it is not decodable)."""
    try:
        patch = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body
    if patch_type in (MERGE_PATCH, STRATEGIC_MERGE_PATCH) and isinstance(patch, dict):
        walker = Walker(directives=patch_type == STRATEGIC_MERGE_PATCH)
        return orjson.dumps(walker.struct(schema, patch, ""))
    if patch_type == JSON_PATCH and isinstance(patch, list):
        ops = [_prune_operation(schema, op) for op in patch]
        return orjson.dumps([op for op in ops if op is not None])
    return body
