"""A YAML body that is JSON (kubectl's apply bodies) read without composing a node graph, giving exactly what the
YAML path gives; None whenever that cannot be guaranteed cheaply, and the caller reads it as YAML.

Refused here (left to the YAML path): anything orjson does not parse; text with tabs, \\u or \\/ escapes, characters
libyaml refuses or folds (DEL, C1 controls, U+2028/9, U+FFFE/F); a key more than 400 characters long or separated
from its `:` by a line break or a long run of spaces (libyaml's 1024-character simple keys); integers beyond int64,
infinite floats, nesting deeper than MAX_DEPTH (the YAML path's recursion bound)."""

from __future__ import annotations

import re
from typing import Any

import orjson

from .values import _float

MAX_DEPTH = 100
MAX_KEY = 400
INT64 = 1 << 63
_REFUSED_TEXT = re.compile(r'[\t\x7f-\x9f\u2028\u2029\ufffe\uffff]|\\[u/]|"[ \r\n]*[\r\n][ \r\n]*:|"[ \r\n]{64,}:')


class _Fallback(Exception):
    pass


def load_json(text: str | bytes, float64: bool) -> Any | None:
    """The body's value as goyaml.load gives it, or None: not a JSON object, or not one this path reads alike."""
    head = text.lstrip()[:1]
    if head not in ("{", b"{"):
        return None
    try:
        decoded = text.decode("utf-8") if isinstance(text, bytes) else text
    except UnicodeDecodeError:
        return None
    if _REFUSED_TEXT.search(decoded):
        return None
    try:
        value = orjson.loads(decoded)
    except orjson.JSONDecodeError:
        return None
    try:
        return _convert(value, float64, 0)
    except _Fallback:
        return None


def _convert(value: Any, float64: bool, depth: int) -> Any:
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            raise _Fallback
        for key, item in value.items():
            if len(key) > MAX_KEY:
                raise _Fallback
            if isinstance(item, (dict, list, int, float)):
                value[key] = _convert(item, float64, depth + 1)
        return value
    if isinstance(value, list):
        if depth >= MAX_DEPTH:
            raise _Fallback
        return [_convert(item, float64, depth + 1) for item in value]
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if not -INT64 <= value < INT64:
            raise _Fallback
        return _float(float(value)) if float64 else value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise _Fallback
        return _float(value)
    return value
