"""Printing objects like kubectl: json, yaml, name, and server-side Tables (wide adds priority>0 columns)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import yaml

OUTPUT_FORMATS = ("json", "yaml", "name", "wide")
#: kubectl's tabwriter settings: minimal cell width 6, three spaces between columns.
MIN_WIDTH = 6
PADDING = 3


def to_json(obj: object) -> str:
    return json.dumps(obj, indent=4, ensure_ascii=False)


class _Dumper(yaml.SafeDumper):
    """Quoted scalars in double quotes, as kubectl prints them (`creationTimestamp: "2026-..."`)."""

    def choose_scalar_style(self) -> str:
        style = super().choose_scalar_style()
        return '"' if style == "'" else style


def to_yaml(obj: object) -> str:
    return yaml.dump(obj, Dumper=_Dumper, default_flow_style=False, sort_keys=True, allow_unicode=True)


def group_of(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def object_name(obj: dict) -> str:
    """`<kind>[.<group>]/<name>` as kubectl's `-o name` prints it (`pod/web`, `deployment.apps/web`)."""
    kind = str(obj.get("kind", "")).lower()
    group = group_of(str(obj.get("apiVersion", "")))
    name = (obj.get("metadata") or {}).get("name", "")
    return f"{kind}.{group}/{name}" if group else f"{kind}/{name}"


def as_list(items: Sequence[dict], resource_version: str = "") -> dict:
    """kubectl prints several objects as a `v1 List`."""
    return {"apiVersion": "v1", "kind": "List", "items": list(items), "metadata": {"resourceVersion": resource_version}}


def format_objects(items: Sequence[dict], output: str, *, single: bool) -> str:
    """json/yaml/name output of one object (`single`) or of several (a List)."""
    if output == "name":
        return "".join(object_name(item) + "\n" for item in items)
    document: object = items[0] if single and len(items) == 1 else as_list(items)
    return to_json(document) + "\n" if output == "json" else to_yaml(document)


def cell_text(cell: object) -> str:
    if cell is None:
        return "<none>"
    if isinstance(cell, bool):
        return "true" if cell else "false"
    if isinstance(cell, (list, dict)):
        return json.dumps(cell)
    return str(cell)


def table_columns(table: dict, wide: bool) -> list[int]:
    """Indexes of the columns to print: priority 0 ones, all with wide."""
    definitions = table.get("columnDefinitions") or []
    return [i for i, col in enumerate(definitions) if wide or not col.get("priority")]


def table_lines(
    table: dict,
    *,
    wide: bool = False,
    with_namespace: bool = False,
    headers: bool = True,
    columns: list[int] | None = None,
) -> list[list[str]]:
    """The table's rows (and header) as lists of strings, before alignment."""
    definitions = table.get("columnDefinitions") or []
    picked = columns if columns is not None else table_columns(table, wide)
    lines: list[list[str]] = []
    if headers:
        header = [str(definitions[i].get("name", "")).upper() for i in picked]
        lines.append((["NAMESPACE"] if with_namespace else []) + header)
    for row in table.get("rows") or []:
        cells = row.get("cells") or []
        texts = [cell_text(cells[i]) if i < len(cells) else "" for i in picked]
        if with_namespace:
            namespace = ((row.get("object") or {}).get("metadata") or {}).get("namespace", "")
            texts.insert(0, namespace)
        lines.append(texts)
    return lines


def align(lines: Sequence[Sequence[str]], widths: list[int] | None = None) -> str:
    """Columns separated like kubectl's tabwriter; the last column is not padded."""
    if not lines:
        return ""
    widths = widths or column_widths(lines)
    out = []
    for line in lines:
        cells = [cell.ljust(widths[i]) if i < len(line) - 1 else cell for i, cell in enumerate(line)]
        out.append("".join(cells).rstrip() + "\n")
    return "".join(out)


def column_widths(lines: Sequence[Sequence[str]]) -> list[int]:
    count = max(len(line) for line in lines)
    return [
        max(MIN_WIDTH, max((len(line[i]) for line in lines if i < len(line)), default=0) + PADDING)
        for i in range(count)
    ]
