"""Tables of custom kinds: a Name column, then the CRD version's additionalPrinterColumns, whose `jsonPath`
is evaluated as the reference does (kubectl's JSONPath: fields, indexes, `[*]` and `[?(@.a=="b")]` filters;
the first result is the cell). Without printer columns a version shows Name and Age, as the reference's
serveDefaultColumnsIfEmpty gives it."""

from __future__ import annotations

import json
import re
from datetime import datetime
from functools import lru_cache
from typing import Any

from .columns import (
    CREATED_DESCRIPTION,
    UNKNOWN,
    Cell,
    Column,
    Obj,
    TableSpec,
    name_column,
    name_of,
    parse_time,
    since,
)

#: a field runs to the next unescaped terminator (client-go's jsonpath parser: `\\.` keeps a dot in the name)
_TOKEN = re.compile(
    r"""\.(?P<field>(?:\\.|[^\s.,\[\]$@{}\\])+)|\[(?P<index>-?\d+|\*)\]|\['(?P<quoted>[^']*)'\]|"""
    r"""\[\?\(@(?P<filter>(?:\.[A-Za-z0-9_-]+)+)\s*(?P<op>==|!=)\s*(?P<value>"[^"]*"|'[^']*'|-?[0-9.]+|true|false)\)\]"""
)


@lru_cache(maxsize=512)
def compile_path(text: str) -> tuple[tuple[str, Any], ...] | None:
    """`.status.conditions[?(@.type=="Ready")].status` -> steps; None when the path is outside the subset."""
    path = text.strip()
    if path.startswith("{") and path.endswith("}"):
        path = path[1:-1]
    path = path.removeprefix("$")
    steps: list[tuple[str, Any]] = []
    pos = 0
    while pos < len(path):
        match = _TOKEN.match(path, pos)
        if match is None:
            return None
        if match["field"] == "*":
            steps.append(("all", None))
        elif match["field"] is not None:
            steps.append(("field", match["field"].replace("\\", "")))
        elif match["quoted"] is not None:
            steps.append(("field", match["quoted"]))
        elif match["index"] is not None:
            steps.append(("all", None) if match["index"] == "*" else ("index", int(match["index"])))
        else:
            raw = match["value"]
            value = raw[1:-1] if raw[0] in "\"'" else json.loads(raw)
            steps.append(("filter", (tuple(match["filter"].strip(".").split(".")), match["op"], value)))
        pos = match.end()
    return tuple(steps)


def find(obj: Any, steps: tuple[tuple[str, Any], ...]) -> list[Any]:
    current = [obj]
    for kind, arg in steps:
        nxt: list[Any] = []
        for value in current:
            if (kind == "field" and isinstance(value, dict) and arg in value) or (
                kind == "index" and isinstance(value, list) and -len(value) <= arg < len(value)
            ):
                nxt.append(value[arg])
            elif kind == "all" and isinstance(value, list):
                nxt.extend(value)
            elif kind == "all" and isinstance(value, dict):
                nxt.extend(value.values())
            elif kind == "filter" and isinstance(value, list):
                keys, op, wanted = arg
                nxt.extend(item for item in value if (_dig(item, keys) == wanted) == (op == "=="))
        current = nxt
    return current


def _dig(value: Any, keys: tuple[str, ...]) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def cell(kind: str, value: Any, now: datetime) -> Cell:
    """The reference's cellForJSONValue: a value of the column's type, or nothing."""
    if value is None:
        return None
    if kind == "string":
        return _as_text(value)
    if kind == "integer" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    if kind == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if kind == "boolean" and isinstance(value, bool):
        return value
    if kind == "date" and isinstance(value, str):
        if value in ("", "null"):  # the reference reads these as the zero time
            return UNKNOWN
        return since(value, now) if parse_time(value) is not None else "<invalid>"
    return None


#: the one column a CRD version without additionalPrinterColumns is served with
DEFAULT_COLUMNS = (
    {"name": "Age", "type": "date", "description": CREATED_DESCRIPTION, "jsonPath": ".metadata.creationTimestamp"},
)


def custom_table(columns: tuple[dict, ...]) -> TableSpec:
    columns = columns or DEFAULT_COLUMNS
    compiled = [(col, compile_path(str(col.get("jsonPath", "")))) for col in columns]

    def cells(obj: Obj, now: datetime) -> list[Cell]:
        row: list[Cell] = [name_of(obj)]
        for col, steps in compiled:
            found = find(obj, steps) if steps is not None else []
            row.append(cell(str(col.get("type", "string")), found[0] if found else None, now))
        return row

    return TableSpec(
        (
            name_column(),
            *(
                Column(
                    str(c.get("name", "")),
                    str(c.get("type", "string")),
                    str(
                        c.get("description")
                        or f"Custom resource definition column (in JSONPath format): {c.get('jsonPath', '')}"
                    ),
                    int(c.get("priority") or 0),
                    str(c.get("format", "")),
                )
                for c in columns
            ),
        ),
        cells,
    )
