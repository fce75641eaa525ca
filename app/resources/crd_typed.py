"""A CRD version's schema as a typed declaration for server-side apply and managedFields: lists and maps merge
as `x-<product>-list-type` / `list-map-keys` / `map-type` say (lists are atomic otherwise, as the reference
treats them in custom resources); free-form subtrees (preserve-unknown-fields, untyped) are deduced."""

from __future__ import annotations

import hashlib
import threading
import weakref
from typing import Any

import orjson

from ..schema import meta
from ..schema.types import (
    BOOL,
    DOUBLE,
    INT64,
    INT_OR_STRING,
    RAW_EXTENSION,
    STRING,
    Field,
    ListOf,
    MapOf,
    Struct,
    TypeSpec,
)
from .crd_schema import ROOT_FIELDS, Extensions

_SCALARS = {"string": STRING, "integer": INT64, "number": DOUBLE, "boolean": BOOL}
#: declarations of the schemas served now (a large CRD's takes ~60 ms and ~8,000 fields to build), by the schema's
#: digest: weak, so a deleted or changed CRD's declaration goes with its kinds, not after 64 others (up to ~3 MiB each)
_built: weakref.WeakValueDictionary[tuple[bytes, Extensions, str, str], Struct] = weakref.WeakValueDictionary()
_lock = threading.Lock()
#: how many declarations were built (not found in the cache): tests count conversions with it
stats = {"builds": 0}


class _Builder:
    def __init__(self, ext: Extensions, package: str) -> None:
        self.ext, self.package, self.count = ext, package, 0

    def _name(self, hint: str) -> str:
        self.count += 1
        return f"{hint}{self.count}"

    def type_of(self, schema: Any, hint: str) -> TypeSpec:
        if not isinstance(schema, dict) or schema.get(self.ext.preserve_unknown_fields):
            return RAW_EXTENSION  # deduced: anything may be there
        if schema.get(self.ext.int_or_string):
            return INT_OR_STRING
        kind = schema.get("type")
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "array":
            return ListOf(self.type_of(schema.get("items"), hint + "Item"))
        if kind == "object" and isinstance(schema.get("properties"), dict) and schema["properties"]:
            return self.struct(schema, hint)
        if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
            return MapOf(self.type_of(schema["additionalProperties"], hint + "Value"))
        return RAW_EXTENSION

    def field(self, name: str, number: int, schema: Any, hint: str) -> Field:
        schema = schema if isinstance(schema, dict) else {}
        spec = self.type_of(schema, hint + name[:1].upper() + name[1:])
        list_type = schema.get(self.ext.list_type) if isinstance(spec, ListOf) else None
        if isinstance(spec, ListOf) and list_type not in ("atomic", "set", "map"):
            list_type = "atomic"
        keys = tuple(schema.get(self.ext.list_map_keys) or ()) if list_type == "map" else ()
        map_type = schema.get(self.ext.map_type) if isinstance(spec, (MapOf, Struct)) else None
        return Field(
            name,
            number,
            spec,
            nullable=True,
            list_type=list_type,
            list_map_keys=keys,
            map_type=map_type if map_type in ("atomic", "granular") else None,
        )

    def struct(self, schema: dict, hint: str) -> Struct:
        fields = [self.field(str(name), i + 1, sub, hint) for i, (name, sub) in enumerate(schema["properties"].items())]
        atomic = schema.get(self.ext.map_type) == "atomic"
        return Struct(self.package, self._name(hint), fields, struct_type="atomic" if atomic else None)


def typed_declaration(schema: dict, ext: Extensions, group_version: str, kind: str) -> Struct:
    """The whole object's declaration: ObjectMeta, then the schema's top-level properties. Built once per distinct
    schema (a CRD's status or metadata changing does not rebuild it): the result is shared, never change it."""
    try:
        text = orjson.dumps(schema)  # keeps the order of properties, which the fields follow
    except TypeError:  # what orjson cannot write (an integer beyond 64 bits) is converted every time
        return _declaration(schema, ext, group_version, kind)
    key = (hashlib.blake2b(text, digest_size=16).digest(), ext, group_version, kind)
    with _lock:
        found = _built.get(key)
        if found is not None:
            return found
    struct = _declaration(schema, ext, group_version, kind)
    with _lock:
        _built[key] = struct
    return struct


def _declaration(schema: dict, ext: Extensions, group_version: str, kind: str) -> Struct:
    with _lock:
        stats["builds"] += 1
    builder = _Builder(ext, f"custom/{group_version}")
    properties = {k: v for k, v in (schema.get("properties") or {}).items() if k not in ROOT_FIELDS}
    fields = [Field("metadata", 1, meta.ObjectMeta)]
    fields += [builder.field(str(name), i + 2, sub, kind) for i, (name, sub) in enumerate(properties.items())]
    return Struct(f"custom/{group_version}", kind, fields, kind=True)
