"""An applied value of the wrong JSON type, in structured-merge-diff's words (typed/validate.go, helpers.go).

The reference formats the offending value with Go's fmt verbs on its `*value.valueUnstructured` wrapper:
`expected numeric (int or float), got string` (%T of the plain value), `expected string, got
&value.valueUnstructured{Value:3}` (%#v), `expected boolean, got &{3}` and `expected map, got &{x}` (%v).
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from ..schema.scalars import json_kind
from ..schema.types import BOOL, BYTES, DOUBLE, INT32, INT64, INT_OR_STRING, MICRO_TIME, QUANTITY, STRING, TIME, Scalar

NUMERIC = (INT32, INT64, DOUBLE)
STRINGS = (STRING, BYTES, TIME, MICRO_TIME)
UNTYPED = (INT_OR_STRING, QUANTITY)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def scalar_problem(spec: Scalar, value: Any) -> str | None:
    """Why smd refuses `value` for a scalar of type `spec`, or None (null is always accepted)."""
    if value is None:
        return None
    if spec in NUMERIC and not _is_number(value):
        return f"expected numeric (int or float), got {go_type_name(value)}"
    if spec in STRINGS and not isinstance(value, str):
        return f"expected string, got &value.valueUnstructured{{Value:{go_sharp(value)}}}"
    if spec == BOOL and not isinstance(value, bool):
        return f"expected boolean, got &{{{go_plain(value)}}}"
    if spec in UNTYPED and isinstance(value, (dict, list)):
        return f"expected any scalar, got &{{{go_plain(value)}}}"
    return None


def container_problem(kind: str, value: Any) -> str | None:
    """Why smd refuses `value` for a map (struct or map) or list node, or None."""
    if value is None:
        return None
    if kind in ("struct", "map") and not isinstance(value, dict):
        return f"expected map, got &{{{go_plain(value)}}}"
    if kind == "list" and not isinstance(value, list):
        return f"expected list, got &{{{go_plain(value)}}}"
    return None


#: %T of a value decoded from JSON into interface{}, by its JSON kind
_GO_TYPES = {
    "boolean": "bool",
    "integer": "int64",
    "number": "float64",
    "string": "string",
    "array": "[]interface {}",
    "object": "map[string]interface {}",
    "null": "<nil>",
}


def go_type_name(value: Any) -> str:
    return _GO_TYPES[json_kind(value)]


def go_float(value: float) -> str:
    """%v of a float64: shortest digits, an exponent below 1e-4 and from 1e+06 up (strconv's 'g', shortest)."""
    if value == 0 or value != value or value in (float("inf"), float("-inf")):
        return {"nan": "NaN", "inf": "+Inf", "-inf": "-Inf"}.get(repr(value), "0")
    sign, digits, exp = Decimal(repr(value)).normalize().as_tuple()
    text = "".join(map(str, digits))
    point = len(text) + int(exp) - 1
    minus = "-" if sign else ""
    if point < -4 or point >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{minus}{mantissa}e{'-' if point < 0 else '+'}{abs(point):02d}"
    return minus + format(Decimal(text).scaleb(int(exp)), "f")


def go_plain(value: Any) -> str:
    """%v."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, (int, str)):
        return str(value)
    if isinstance(value, list):
        return "[" + " ".join(go_plain(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_plain(value[k])}" for k in sorted(value)) + "]"
    return "<nil>"


def go_sharp(value: Any) -> str:
    """%#v."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(go_sharp(v) for v in value) + "}"
    if isinstance(value, dict):
        items = ", ".join(f"{json.dumps(k, ensure_ascii=False)}:{go_sharp(value[k])}" for k in sorted(value))
        return "map[string]interface {}{" + items + "}"
    if value is None:
        return "interface {}(nil)"
    return go_plain(value)
