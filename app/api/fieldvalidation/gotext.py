"""The texts the reference's typed JSON decoder gives for a value its Go type cannot hold.

Go's encoding/json (as forked in sigs.k8s.io/json) says `json: cannot unmarshal string into Go struct field
DeploymentSpec.spec.replicas of type int32`: the innermost struct's type name, then the JSON names of the struct
fields from the root (no list indexes, no map keys), then the Go type. Types with their own UnmarshalJSON
(Quantity, IntOrString, Time) answer in their own words, without the field.
"""

from __future__ import annotations

from typing import Any

from ...schema import types as t
from ...schema.scalars import json_kind
from ...schema.types import Struct

QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
RFC3339 = "2006-01-02T15:04:05Z07:00"

_SCALAR_TYPES = {
    t.INT32: "int32",
    t.INT64: "int64",
    t.BOOL: "bool",
    t.DOUBLE: "float64",
    t.STRING: "string",
    t.BYTES: "[]uint8",
    t.QUANTITY: "resource.Quantity",
    t.INT_OR_STRING: "intstr.IntOrString",
    t.TIME: "v1.Time",
    t.MICRO_TIME: "v1.MicroTime",
    t.FIELDS_V1: "v1.FieldsV1",
}


def go_type(spec: Any) -> str:
    """The Go type as reflect prints it: `v1.DeploymentSpec`, `[]v1.Container`, `map[string]string`."""
    if isinstance(spec, Struct):
        return f"{spec.package.rsplit('/', 1)[-1]}.{spec.name}"
    if isinstance(spec, t.ListOf):
        return "[]" + go_type(spec.item)
    if isinstance(spec, t.MapOf):
        return "map[string]" + go_type(spec.value)
    return _SCALAR_TYPES.get(spec, "runtime.RawExtension")


def json_value(value: Any, spec: Any = None) -> str:
    """Go's name for the JSON value: `string`, `bool`, ...; a number an integer type cannot hold is `number 1.5`."""
    kind = json_kind(value)
    if kind in ("integer", "number"):
        return f"number {value}" if spec in (t.INT32, t.INT64) else "number"
    return "bool" if kind == "boolean" else kind


def unmarshal_text(spec: Any, value: Any, owner: str, fields: list[str]) -> str:
    """The decoder's error for `value` at the struct fields `fields` (innermost struct type `owner`)."""
    if spec == t.QUANTITY:
        return QUANTITY_FORMAT
    if spec == t.INT_OR_STRING:  # IntOrString.UnmarshalJSON decodes a non-string into its int32
        return f"json: cannot unmarshal {json_value(value, t.INT32)} into Go value of type int32"
    if spec in (t.TIME, t.MICRO_TIME):
        if isinstance(value, str):
            return f'parsing time "{value}" as "{RFC3339}": cannot parse "{value}" as "2006"'
        return f"json: cannot unmarshal {json_value(value)} into Go value of type string"
    if spec == t.BYTES and isinstance(value, str):
        return f"illegal base64 data at input byte {_base64_offset(value)}"
    where = f"Go struct field {owner}.{'.'.join(fields)}" if fields else "Go value"
    return f"json: cannot unmarshal {json_value(value, spec)} into {where} of type {go_type(spec)}"


_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _base64_offset(text: str) -> int:
    """Where Go's base64 decoder stops: the first character outside the alphabet (line breaks are skipped)."""
    text = text.replace("\r", "").replace("\n", "")
    for i, char in enumerate(text):
        if char not in _BASE64:
            return i
    return len(text) - len(text) % 4  # only a short final quantum is wrong
