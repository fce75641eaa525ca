"""Loose schemas for kinds without a typed declaration (e.g. the virtual review kinds).

apiVersion, kind and metadata are described; every other field is a free object typed only by the
kind's example, and unknown fields are preserved.
"""

from __future__ import annotations

from typing import Any

from ...naming import Naming
from .descriptions import TYPE_FIELD_DESCRIPTIONS
from .dialect import Dialect
from .names import Schema, gvk, gvk_extensions, meta_schema_name, schema_name

PATCH = {"type": "object", "description": "A PATCH request body in one of the accepted patch formats."}


def _free(naming: Naming, description: str = "") -> Schema:
    out: Schema = {"type": "object", naming.openapi_extension("preserve-unknown-fields"): True}
    if description:
        out["description"] = description
    return out


def _type_fields() -> dict[str, Schema]:
    return {k: {"type": "string", "description": d} for k, d in TYPE_FIELD_DESCRIPTIONS.items()}


def _example_field(naming: Naming, value: Any) -> Schema | None:
    """A loose schema for a top-level field, typed by its value in the kind's example."""
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string"}
    if isinstance(value, list):
        return {"type": "array", "items": {naming.openapi_extension("preserve-unknown-fields"): True}}
    if isinstance(value, dict):
        return _free(naming)
    return None


def kind_schema(
    naming: Naming, dialect: Dialect, group: str, version: str, kind: str, example: dict | None = None
) -> Schema:
    """The permissive schema of one kind, carrying its GVK (as a list, like the reference)."""
    props: dict[str, Schema] = {
        **_type_fields(),
        "metadata": dialect.wrap(
            meta_schema_name(naming, "ObjectMeta"), {"description": "Standard object metadata.", "default": {}}
        ),
        "spec": _free(naming, "The desired state (not described)."),
        "status": _free(naming, "The observed state (not described)."),
    }
    for key, value in (example or {}).items():
        if key not in props and (fragment := _example_field(naming, value)) is not None:
            props[key] = fragment
    gv = f"{group}/{version}" if group else version
    return {
        "description": f"{kind} ({gv}). Fields other than apiVersion, kind and metadata are not described.",
        "type": "object",
        "properties": props,
        naming.openapi_extension("preserve-unknown-fields"): True,
        **gvk_extensions(naming, [gvk(group, version, kind)]),
    }


#: what OpenAPI v2 cannot say, dropped from a custom kind's schema as the reference drops it
_NOT_IN_V2 = ("nullable", "oneOf", "anyOf", "not", "allOf")


def _for_dialect(schema: Any, dialect: Dialect) -> Any:
    if isinstance(schema, list):
        return [_for_dialect(item, dialect) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: value if key in ("default", "enum", "example") else _for_dialect(value, dialect)
        for key, value in schema.items()
        if dialect.v3 or key not in _NOT_IN_V2
    }


def custom_kind_schema(naming: Naming, dialect: Dialect, group: str, version: str, kind: str, schema: Schema) -> Schema:
    """A custom kind described by its CRD version's openAPIV3Schema (metadata as the ObjectMeta type)."""
    out = _for_dialect(schema, dialect) if schema else {"type": "object"}
    properties = out.get("properties") if isinstance(out, dict) else None
    props: dict = dict(properties) if isinstance(properties, dict) else {}
    props.update(_type_fields())
    props["metadata"] = dialect.wrap(
        meta_schema_name(naming, "ObjectMeta"), {"description": "Standard object metadata."}
    )
    return {**out, "properties": props, **gvk_extensions(naming, [gvk(group, version, kind)])}


def list_schema(naming: Naming, dialect: Dialect, group: str, version: str, kind: str, list_kind: str) -> Schema:
    return {
        "description": f"A list of {kind} objects.",
        "type": "object",
        "required": ["items"],
        "properties": {
            **_type_fields(),
            "items": {"type": "array", "items": dialect.ref(schema_name(naming, group, version, kind))},
            "metadata": dialect.wrap(
                meta_schema_name(naming, "ListMeta"), {"description": "Standard list metadata.", "default": {}}
            ),
        },
        **gvk_extensions(naming, [gvk(group, version, list_kind)]),
    }
