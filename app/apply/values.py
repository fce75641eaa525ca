"""Plain JSON values as the reference's structured-merge-diff sees them.

Equality and ordering follow the reference's value package: numbers compare numerically (an
integral float equals the int), booleans are never numbers, and the total order across kinds is
number < string < bool < list < map < null. `Val` is the hashable, ordered form used inside paths.
"""

from __future__ import annotations

import copy
import json
import math
from decimal import Decimal
from typing import Any, Final

import orjson

Val = tuple[int, Any]  # (kind rank, payload): a hashable, totally ordered JSON value


class _Missing:
    """An absent value (the reference's nil), distinct from JSON null (None); compare with `is`."""

    __slots__ = ()

    def __copy__(self) -> _Missing:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _Missing:
        return self

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Final = _Missing()

_NUMBER, _STRING, _BOOL, _LIST, _MAP, _NULL = range(6)
_EXACT_FLOAT = 2.0**53  # integral floats below this are exact ints, as the reference's JSON reader yields


def _number(x: float) -> float:
    if isinstance(x, float) and x.is_integer() and abs(x) < _EXACT_FLOAT:
        return int(x)
    return x


def wrap(value: Any) -> Val:
    """The hashable, ordered form of a JSON value."""
    if value is None:
        return (_NULL, None)
    if isinstance(value, bool):  # before int: a bool is never a number here
        return (_BOOL, value)
    if isinstance(value, (int, float)):
        return (_NUMBER, _number(value))
    if isinstance(value, str):
        return (_STRING, value)
    if isinstance(value, (list, tuple)):
        return (_LIST, tuple(wrap(v) for v in value))
    if isinstance(value, dict):
        return (_MAP, tuple(sorted((str(k), wrap(v)) for k, v in value.items())))
    raise TypeError(f"not a JSON value: {value!r}")


def unwrap(val: Val) -> Any:
    kind, payload = val
    if kind == _LIST:
        return [unwrap(v) for v in payload]
    if kind == _MAP:
        return {k: unwrap(v) for k, v in payload}
    return payload


def same(a: Any, b: Any) -> bool:
    """The reference's value equality (1 == 1.0, True != 1, maps compare key by key)."""
    return a == b and _same_given_equal(a, b)  # this equality implies Python's, which runs at C speed


def _same_given_equal(a: Any, b: Any) -> bool:
    """`same` for values Python finds equal (or identical): only bools among numbers and NaNs can still differ."""
    kind = type(a)
    if kind is not type(b):
        return _same_mixed(a, b)
    if kind is dict:
        return all(_same_given_equal(value, b[key]) for key, value in a.items())
    if kind is list:
        return all(_same_given_equal(x, y) for x, y in zip(a, b))
    return a == b if kind is float else True  # a NaN is never equal, even to itself


def _same_mixed(a: Any, b: Any) -> bool:
    """`same` for values of different Python types (int and float, a bool and a number, subclasses)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) or isinstance(b, (int, float)):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and a == b
    if isinstance(a, dict) or isinstance(b, dict):
        if not (isinstance(a, dict) and isinstance(b, dict)) or a.keys() != b.keys():
            return False
        return all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) or isinstance(b, list):
        if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
            return False
        return all(same(x, y) for x, y in zip(a, b))
    return a == b  # strings, None


def is_scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list)) and value is not None and value is not MISSING


_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def go_json(value: Any) -> str:
    """Compact JSON as the reference's encoder writes it (HTML-safe escapes, map keys sorted, Go's
    float notation)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _go_number(value)
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        for raw, escaped in _GO_ESCAPES.items():
            text = text.replace(raw, escaped)
        return text
    if isinstance(value, dict):
        return "{" + ",".join(f"{go_json(str(k))}:{go_json(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(go_json(v) for v in value) + "]"
    raise TypeError(f"not a JSON value: {value!r}")


def _go_number(x: float) -> str:
    number = _number(x)
    if isinstance(number, int):
        return str(number)
    if math.isinf(number) or math.isnan(number):
        raise ValueError(f"unsupported value: {number}")
    digits = Decimal(repr(number))  # the shortest round-tripping digits, as Go's -1 precision
    exponent = number != 0 and (abs(number) < 1e-6 or abs(number) >= 1e21)
    return f"{digits:e}" if exponent else f"{digits:f}"


def to_string(value: Any) -> str:
    """A value as the reference prints it inside a path (`"nginx"`, `80`, `true`)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        number = _number(value)
        if isinstance(number, float) and (math.isinf(number) or math.isnan(number)):
            return {math.inf: "+Inf", -math.inf: "-Inf"}.get(number, "NaN")
        return str(number)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(to_string(v) for v in value) + "]"
    if isinstance(value, dict):
        return "".join(f"{k}={to_string(v)}" for k, v in value.items())
    return str(value)


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON value: through orjson (4x faster than deepcopy), or deepcopy for what orjson
    cannot write (integers beyond 64 bits, Decimal)."""
    try:
        return orjson.loads(orjson.dumps(value))
    except TypeError:
        return copy.deepcopy(value)
