"""Component schemas derived from the typed declarations in `app.schema`.

Every struct reachable from a kind becomes one named schema with typed properties, `required`, and
the declaration's markers as extensions in our spelling (`x-orch-list-type`, `x-orch-list-map-keys`,
`x-orch-map-type`, `x-orch-patch-strategy`, `x-orch-patch-merge-key`); served kinds also carry
their group-version-kind. Leaf types are modelled as the reference models them: Time and MicroTime
as date-time strings, Quantity as string (or number), IntOrString as `int-or-string`, RawExtension
and FieldsV1 as objects.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ...naming import Naming
from ...schema import meta, schemas_for
from ...schema import types as t
from ...schema.objects import MODULES, served_api_version
from .descriptions import TYPE_FIELD_DESCRIPTIONS, field_description
from .descriptions import struct_description as describe_struct
from .dialect import Dialect
from .names import Schema, gvk, gvk_extensions, machinery_schema_name, meta_schema_name, schema_name

#: Scalars written inline, as (type, format).
INLINE: dict[t.Scalar, tuple[str, str]] = {
    t.STRING: ("string", ""),
    t.INT32: ("integer", "int32"),
    t.INT64: ("integer", "int64"),
    t.BOOL: ("boolean", ""),
    t.DOUBLE: ("number", "double"),
    t.BYTES: ("string", "byte"),
}


@lru_cache(maxsize=8)
def package_groups(domain: str) -> dict[str, str]:
    """Declaration package (`core/v1`, `rbac/v1`) -> served group (``, `rbac.authorization.orch.io`)."""
    naming = Naming(domain)
    out: dict[str, str] = {}
    for module in MODULES:
        group = served_api_version(module, naming).rpartition("/")[0]
        for struct in module.KINDS.values():
            out.setdefault(struct.package, group)
    out[meta.ObjectMeta.package] = naming.meta_group  # shared metadata types are named in the meta group
    return out


@lru_cache(maxsize=8)
def kind_gvks(domain: str) -> dict[int, list[dict[str, str]]]:
    """id(struct) -> every (group, version, kind) it is served as."""
    out: dict[int, list[dict[str, str]]] = {}
    for (api_version, kind), struct in schemas_for(Naming(domain)).items():
        group, _, version = api_version.rpartition("/")
        out.setdefault(id(struct), []).append(gvk(group, version, kind))
    return out


def struct_name(naming: Naming, struct: t.Struct) -> str:
    prefix, _, version = struct.package.partition("/")
    group = package_groups(naming.domain).get(struct.package, prefix)
    return schema_name(naming, group, version, struct.name)


def _leaf(naming: Naming, dialect: Dialect, scalar: t.Scalar) -> tuple[str, Schema] | None:
    """The named component of a leaf type that is not written inline, or None for inline scalars."""
    if scalar in (t.TIME, t.MICRO_TIME):
        name = "Time" if scalar == t.TIME else "MicroTime"
        return meta_schema_name(naming, name), {
            "description": "An RFC 3339 date and time.",
            "type": "string",
            "format": "date-time",
        }
    if scalar == t.FIELDS_V1:
        return meta_schema_name(naming, "FieldsV1"), {
            "description": "A set of fields in the FieldsV1 trie format.",
            "type": "object",
        }
    if scalar in (t.RAW_EXTENSION, t.OBJECT):
        return machinery_schema_name(naming, "runtime.RawExtension"), {
            "description": "An embedded object or value.",
            "type": "object",
        }
    if scalar == t.QUANTITY:
        shape: Schema = {"oneOf": [{"type": "string"}, {"type": "number"}]} if dialect.v3 else {"type": "string"}
        return machinery_schema_name(naming, "api.resource.Quantity"), {
            "description": "A fixed-point number with an optional suffix, e.g. 100m, 2Gi or 1e3.",
            **shape,
        }
    if scalar == t.INT_OR_STRING:
        shape = (
            {"format": "int-or-string", "oneOf": [{"type": "integer"}, {"type": "string"}]}
            if dialect.v3
            else {"type": "string", "format": "int-or-string"}
        )
        return machinery_schema_name(naming, "util.intstr.IntOrString"), {
            "description": "An int32 or a string.",
            **shape,
            naming.openapi_extension("int-or-string"): True,
        }
    return None


class TypedSchemas:
    """Adds the schema of a declared type, and of everything it reaches, to one components map."""

    def __init__(self, naming: Naming, dialect: Dialect, out: dict[str, Schema]):
        self.naming, self.dialect, self.out = naming, dialect, out
        self.gvks = kind_gvks(naming.domain)

    def ext(self, name: str) -> str:
        return self.naming.openapi_extension(name)

    def add(self, struct: t.Struct) -> str:
        """The schema name of `struct`, after adding it (and what it reaches) if missing."""
        name = struct_name(self.naming, struct)
        if name not in self.out:
            self.out[name] = {}  # reserved first: types may refer to themselves (JSONSchemaProps does)
            self.out[name] = self._struct(struct)
        return name

    def _struct(self, struct: t.Struct) -> Schema:
        props: dict[str, Schema] = {}
        if struct.kind:
            props.update({k: {"type": "string", "description": d} for k, d in TYPE_FIELD_DESCRIPTIONS.items()})
        required: list[str] = []
        for key, path in struct.json_fields.items():
            field = path[-1]
            description = field_description(struct.name, struct.qualname, key, struct.kind)
            props[key] = self._field(field, description)
            if field.required:
                required.append(key)
        out: Schema = {"type": "object", "properties": props}
        if struct_description := describe_struct(struct.name, struct.qualname):
            out["description"] = struct_description
        if required:
            out["required"] = required
        if struct.struct_type:
            out[self.ext("map-type")] = struct.struct_type
        if gvks := self.gvks.get(id(struct)):
            out.update(gvk_extensions(self.naming, list(gvks)))
        return out

    def _markers(self, field: t.Field) -> Schema:
        markers: dict[str, Any] = {}
        if field.list_type:
            markers[self.ext("list-type")] = field.list_type
        if field.list_map_keys:
            markers[self.ext("list-map-keys")] = list(field.list_map_keys)
        if field.map_type:
            markers[self.ext("map-type")] = field.map_type
        if field.patch_strategy:
            markers[self.ext("patch-strategy")] = field.patch_strategy
        if field.patch_merge_key:
            markers[self.ext("patch-merge-key")] = field.patch_merge_key
        return markers

    def _field(self, field: t.Field, description: str) -> Schema:
        siblings: Schema = {"description": description} if description else {}
        siblings.update(self._markers(field))
        named = self._named(field.type)
        if named is not None:
            if isinstance(field.type, t.Struct) and not field.nullable:
                siblings["default"] = {}  # a Go struct value, never null (as the reference says)
            return self.dialect.wrap(named, siblings)
        return {**self.schema(field.type), **siblings}

    def _named(self, spec: t.TypeSpec) -> str | None:
        """The component name for a struct or a named leaf type (added on the way), else None."""
        if isinstance(spec, t.Struct):
            return self.add(spec)
        if isinstance(spec, t.Scalar) and (leaf := _leaf(self.naming, self.dialect, spec)) is not None:
            name, schema = leaf
            self.out.setdefault(name, schema)
            return name
        return None

    def schema(self, spec: t.TypeSpec) -> Schema:
        """An inline schema or a reference for a value of type `spec`."""
        named = self._named(spec)
        if named is not None:
            return self.dialect.ref(named)
        if isinstance(spec, t.ListOf):
            return {"type": "array", "items": self.schema(spec.item)}
        if isinstance(spec, t.MapOf):
            return {"type": "object", "additionalProperties": self.schema(spec.value)}
        assert isinstance(spec, t.Scalar) and spec in INLINE, f"no OpenAPI shape for {spec!r}"
        kind, fmt = INLINE[spec]
        return {"type": kind, "format": fmt} if fmt else {"type": kind}
