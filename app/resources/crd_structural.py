"""Structural-schema rules shared by every node of a CRD schema, and those of value validations (the schemas
under not/allOf/anyOf/oneOf), worded as the reference's apiextensions validation words them."""

from __future__ import annotations

import re
from typing import Any

from ..errors import FieldError, forbidden, invalid
from .crd_schema import Extensions, go_regex

#: keywords a structural schema may not use (the reference's forbidden list for v1 schemas)
FORBIDDEN_KEYWORDS = ("$ref", "definitions", "dependencies", "patternProperties", "additionalItems", "id", "$schema")
MAX_SCHEMA_DEPTH = 64


#: JSONSchemaProps' typed keywords (the reference's Go struct cannot hold another type): keyword -> JSON types
_KEYWORD_TYPES = {
    **dict.fromkeys(("id", "$schema", "$ref", "description", "type", "format", "title", "pattern"), (str,)),
    **dict.fromkeys(("maximum", "minimum", "multipleOf"), (int, float)),
    **dict.fromkeys(("exclusiveMaximum", "exclusiveMinimum", "uniqueItems", "nullable"), (bool,)),
    **dict.fromkeys(("maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"), (int,)),
    **dict.fromkeys(("required", "enum", "allOf", "anyOf", "oneOf"), (list,)),
    **dict.fromkeys(("not", "properties", "definitions", "patternProperties", "dependencies", "externalDocs"), (dict,)),
    **dict.fromkeys(("items",), (dict, list)),
    **dict.fromkeys(("additionalProperties", "additionalItems"), (dict, bool)),
}
_EXTENSION_TYPES = {
    "list-type": (str,),
    "map-type": (str,),
    "preserve-unknown-fields": (bool,),
    "embedded-resource": (bool,),
    "int-or-string": (bool,),
    "list-map-keys": (list,),
    "validations": (list,),
}
_JSON_NAMES = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}


def keyword_type_errors(schema: dict, path: str, ext: Extensions) -> list[FieldError]:
    """Keywords holding a value of another JSON type than the schema language gives them."""
    errors = []
    wanted = {**_KEYWORD_TYPES, **{getattr(ext, k.replace("-", "_")): v for k, v in _EXTENSION_TYPES.items()}}
    for keyword, value in schema.items():
        types = wanted.get(keyword)
        if types is None or value is None:
            continue
        fits = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
        if fits and keyword in ("required", ext.list_map_keys):
            fits = all(isinstance(item, str) for item in value)
        if fits and keyword in ("allOf", "anyOf", "oneOf", "items") and isinstance(value, list):
            fits = all(isinstance(item, dict) for item in value)
        if fits and keyword == ext.validations:
            fits = all(
                isinstance(item, dict) and all(isinstance(item.get(k, ""), str) for k in ("rule", "message"))
                for item in value
            )
        if not fits:
            expected = " or ".join(_JSON_NAMES[t] for t in types)
            errors.append(
                FieldError(
                    "FieldValueTypeInvalid",
                    f"{path}.{keyword}",
                    f"expected {expected}" + (" of strings" if keyword == "required" else ""),
                    value,
                )
            )
    return errors


def keyword_errors(schema: dict, path: str) -> list[FieldError]:
    """What any schema node may not hold, structural or nested in a value validation."""
    errors = [forbidden(f"{path}.{k}", f"{k} is not supported") for k in FORBIDDEN_KEYWORDS if k in schema]
    if (pattern := schema.get("pattern")) is not None:
        try:
            re.compile(go_regex(str(pattern)))
        except (re.error, RecursionError) as err:
            errors.append(invalid(f"{path}.pattern", pattern, f"must be a valid regular expression, but isn't: {err}"))
    return errors


#: the int-or-string shape the reference lets carry types under anyOf (alone, or first in an allOf)
INT_OR_STRING_ANY_OF = [{"type": "integer"}, {"type": "string"}]


def value_validations_errors(
    schema: dict, path: str, ext: Extensions, depth: int, int_or_string_ok: bool = True
) -> list[FieldError]:
    """The schemas of not/allOf/anyOf/oneOf: value validations only (their `type` and the like must be empty),
    but for the int-or-string anyOf of a structural node (`int_or_string_ok`)."""
    errors = []
    all_of, any_of = schema.get("allOf") or [], schema.get("anyOf") or []
    if not (int_or_string_ok and any_of == INT_OR_STRING_ANY_OF):
        errors += [e for i, sub in enumerate(any_of) for e in _nested_errors(sub, f"{path}.anyOf[{i}]", ext, depth)]
    for i, sub in enumerate(all_of):
        first_ok = int_or_string_ok and i == 0 and isinstance(sub, dict) and sub.get("anyOf") == INT_OR_STRING_ANY_OF
        errors += _nested_errors(sub, f"{path}.allOf[{i}]", ext, depth, first_ok)
    for i, sub in enumerate(schema.get("oneOf") or []):
        errors += _nested_errors(sub, f"{path}.oneOf[{i}]", ext, depth)
    if "not" in schema:
        errors += _nested_errors(schema["not"], f"{path}.not", ext, depth)
    return errors


def _nested_errors(
    schema: Any, path: str, ext: Extensions, depth: int, int_or_string_ok: bool = False
) -> list[FieldError]:
    """A value validation's schema, as the reference's validateNestedValueValidation words its refusals."""
    depth += 1
    if not isinstance(schema, dict):
        return [invalid(path, schema, "must be an object")]
    if depth > MAX_SCHEMA_DEPTH:
        return [forbidden(path, f"must not be nested more than {MAX_SCHEMA_DEPTH} levels deep")]
    errors = keyword_type_errors(schema, path, ext) or keyword_errors(schema, path)
    errors += value_validations_errors(schema, path, ext, depth, int_or_string_ok)
    if isinstance(schema.get("items"), dict):
        errors += _nested_errors(schema["items"], f"{path}.items", ext, depth)
    properties = schema.get("properties")
    for key, sub in (properties if isinstance(properties, dict) else {}).items():
        errors += _nested_errors(sub, f"{path}.properties[{key}]", ext, depth)
    for keyword, rule in (
        ("type", "must be empty"),
        ("additionalProperties", "must be undefined"),
        ("default", "must be undefined"),
        ("title", "must be empty"),
        ("description", "must be empty"),
        ("nullable", "must be false"),
        (ext.preserve_unknown_fields, "must be false"),
        (ext.embedded_resource, "must be false"),
        (ext.int_or_string, "must be false"),
        (ext.list_map_keys, "must be empty"),
        (ext.list_type, "must be undefined"),
        (ext.map_type, "must be undefined"),
        (ext.validations, "must be empty"),
    ):
        value = schema.get(keyword)
        given = keyword in schema if rule == "must be undefined" else bool(value)
        if given and not (keyword == "default" and value is None):
            errors.append(forbidden(f"{path}.{keyword}", f"{rule} to be structural"))
    if isinstance(properties, dict) and "metadata" in properties:
        errors.append(forbidden(f"{path}.properties[metadata]", "must not be specified in a nested context"))
    return errors
