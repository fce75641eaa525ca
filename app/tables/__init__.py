"""Server-side Table rendering (`meta.<domain>/v1` Table): per-kind printers and the Table document.

Entry points for the HTTP layer: `table_for`, `render_table`, `parse_include_object`.
"""

from __future__ import annotations

from .columns import DEFAULT_TABLE, Column, TableSpec, human_duration
from .registry import group_prefix, table_for
from .render import (
    INCLUDE_METADATA,
    INCLUDE_NONE,
    INCLUDE_OBJECT,
    parse_include_object,
    render_table,
    table_api_version,
)

__all__ = [
    "DEFAULT_TABLE",
    "INCLUDE_METADATA",
    "INCLUDE_NONE",
    "INCLUDE_OBJECT",
    "Column",
    "TableSpec",
    "group_prefix",
    "human_duration",
    "parse_include_object",
    "render_table",
    "table_api_version",
    "table_for",
]
