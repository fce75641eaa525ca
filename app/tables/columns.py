"""Column/cell machinery shared by every printer: Column, TableSpec, HumanDuration and cell formatters.

A printer is a TableSpec: its column definitions plus a function turning one stored object (a plain
JSON dict) into the row's cells. Cells follow the reference's printers: strings, integers, booleans.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ..errors import BadRequest
from ..resources.common import dig
from ..selectors import label_selector_from_object

Obj = dict
Cell = str | int | float | bool | None
#: (object, now) -> the row's cells, one per column.
CellsFn = Callable[[Obj, datetime], list[Cell]]
#: object -> the row's conditions (`[{"type": "Completed", ...}]`) or [].
ConditionsFn = Callable[[Obj], list[dict]]

NONE = "<none>"
UNSET = "<unset>"
UNKNOWN = "<unknown>"

NAME_DESCRIPTION = (
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name automatically. "
    "Name is primarily intended for creation idempotence and configuration definition. Cannot be updated."
)
CREATED_DESCRIPTION = (
    "CreationTimestamp is a timestamp representing the server time when this object was created. "
    "It is not guaranteed to be set in happens-before order across separate operations. Clients may "
    "not set this value. It is represented in RFC3339 form and is in UTC.\n\n"
    "Populated by the system. Read-only. Null for lists."
)


@dataclass(frozen=True)
class Column:
    """One TableColumnDefinition; `priority` 1 marks a wide-only column."""

    name: str
    type: str = "string"
    description: str = ""
    priority: int = 0
    format: str = ""

    def definition(self) -> dict:
        return {
            "name": self.name,
            "type": self.type,
            "format": self.format,
            "description": self.description,
            "priority": self.priority,
        }


def name_column(priority: int = 0) -> Column:
    return Column("Name", "string", NAME_DESCRIPTION, priority, "name")


def age_column() -> Column:
    return Column("Age", "string", CREATED_DESCRIPTION)


def wide(name: str, description: str, type_: str = "string") -> Column:
    return Column(name, type_, description, priority=1)


@dataclass(frozen=True)
class TableSpec:
    """A kind's printer: columns and how one object becomes a row."""

    columns: tuple[Column, ...]
    cells: CellsFn
    conditions: ConditionsFn | None = None

    def column_definitions(self) -> list[dict]:
        return [c.definition() for c in self.columns]

    def row(self, obj: Obj, now: datetime) -> dict:
        """`{"cells": [...]}` plus `conditions` when the printer reports any; `object` is the caller's."""
        out: dict[str, Any] = {"cells": self.cells(obj, now)}
        if self.conditions is not None:
            conditions = self.conditions(obj)
            if conditions:
                out["conditions"] = conditions
        return out


def table(columns: Iterable[Column], cells: CellsFn, conditions: ConditionsFn | None = None) -> TableSpec:
    return TableSpec(tuple(columns), cells, conditions)


# ---------------------------------------------------------------------------------------------
# Default table (kinds without a printer)
# ---------------------------------------------------------------------------------------------

GO_ZERO_TIME = "0001-01-01T00:00:00Z"


def _default_cells(obj: Obj, now: datetime) -> list[Cell]:
    created = parse_time(meta(obj).get("creationTimestamp"))
    return [name_of(obj), format_utc(created) if created is not None else GO_ZERO_TIME]


DEFAULT_TABLE = TableSpec((name_column(), Column("Created At", "date", CREATED_DESCRIPTION)), _default_cells)


# ---------------------------------------------------------------------------------------------
# Time
# ---------------------------------------------------------------------------------------------


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 timestamp (Time or MicroTime) as an aware datetime; None when absent or unparseable."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def format_utc(moment: datetime) -> str:
    """Go's `t.UTC().Format(time.RFC3339)`: whole seconds, `Z`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def human_duration(delta: timedelta) -> str:
    """The reference's HumanDuration: a short, lossy rendering of an elapsed time."""
    seconds = math.trunc(delta.total_seconds())
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 60 * 2:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 10:
        rest = seconds % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d" if rest == 0 else f"{hours // 24}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    years, days = divmod(hours // 24, 365)
    if hours < 24 * 365 * 8:
        return f"{years}y" if days == 0 else f"{years}y{days}d"
    return f"{years}y"


def since(value: Any, now: datetime) -> str:
    """translateTimestampSince: HumanDuration of now - value, `<unknown>` for a missing time."""
    moment = parse_time(value)
    if moment is None:
        return UNKNOWN
    return human_duration(now - moment)


def age(obj: Obj, now: datetime) -> str:
    return since(meta(obj).get("creationTimestamp"), now)


# ---------------------------------------------------------------------------------------------
# Object access and common cell formats
# ---------------------------------------------------------------------------------------------


def meta(obj: Obj) -> Obj:
    value = obj.get("metadata") if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else {}


def name_of(obj: Obj) -> str:
    return str(meta(obj).get("name") or "")


def text(obj: Any, *path: str | int) -> str:
    """The string at path, "" when missing (Go's zero value)."""
    value = dig(obj, *path)
    return "" if value is None else str(value)


def integer(obj: Any, *path: str | int, default: int = 0) -> int:
    value = dig(obj, *path)
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return default


def boolean(obj: Any, *path: str | int) -> bool:
    return dig(obj, *path) is True


def dicts(obj: Any, *path: str | int) -> list[Obj]:
    value = dig(obj, *path)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def strings(obj: Any, *path: str | int) -> list[str]:
    value = dig(obj, *path)
    return [str(v) for v in value if v is not None] if isinstance(value, list) else []


def mapping(obj: Any, *path: str | int) -> Obj:
    value = dig(obj, *path)
    return value if isinstance(value, dict) else {}


def count(obj: Any, *path: str | int) -> int:
    """len() of the list or map at path (0 when missing)."""
    value = dig(obj, *path)
    return len(value) if isinstance(value, (list, dict)) else 0


def deleting(obj: Obj) -> bool:
    return bool(meta(obj).get("deletionTimestamp"))


def format_labels(labels: Mapping[str, Any] | None) -> str:
    """labels.FormatLabels: sorted `k=v` joined by commas, `<none>` when empty."""
    if not labels:
        return NONE
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def selector_string(selector: Any) -> str | None:
    """A structured label selector in the reference's string form; None when it is invalid."""
    try:
        return str(label_selector_from_object(selector))
    except BadRequest:
        return None


def format_label_selector(selector: Any) -> str:
    """metav1.FormatLabelSelector: `<none>` for an empty (or absent) selector, `<error>` if invalid."""
    rendered = selector_string(selector)
    if rendered is None:
        return "<error>"
    return rendered or NONE


def containers_cells(containers: list[Obj]) -> tuple[str, str]:
    """layoutContainerCells: (names, images), each comma-joined."""
    return (",".join(text(c, "name") for c in containers), ",".join(text(c, "image") for c in containers))


def int_or_string(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return ""
    return str(value)


def bool_ptr(value: Any) -> str:
    """printBoolPtr: `True`/`False`, `<unset>` for nil."""
    if value is None:
        return UNSET
    return "True" if value is True else "False"


def list_with_more(items: list[str], total: int, limit: int = 3, empty: str = UNSET) -> str:
    """listWithMoreString: at most `limit` entries, then ` + N more...`."""
    shown = ",".join(items[:limit])
    if total > limit:
        return f"{shown} + {total - limit} more..."
    return shown or empty
