"""A fixed clock and object builders shared by the table tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from orch_apiserver.catalog import ResourceType
from orch_apiserver.naming import Naming
from orch_apiserver.resources import build_catalog

NOW = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)
NAMING = Naming()


def ago(**delta: float) -> str:
    """An RFC 3339 timestamp `delta` before NOW."""
    return (NOW - timedelta(**delta)).strftime("%Y-%m-%dT%H:%M:%SZ")


def obj(name: str = "x", *, created: str | None = None, **body: object) -> dict:
    metadata: dict = {"name": name, "creationTimestamp": created or ago(minutes=5)}
    return {"metadata": metadata, **body}


def rt(group: str, plural: str) -> ResourceType:
    """The catalog entry of a built-in kind; `group` is the prefix (`certificates`, `apps`, `` for core)."""
    catalog = build_catalog(NAMING)
    full = group if group in ("", "apps", "batch", "policy") else NAMING.group(group)
    for candidate in catalog:
        if candidate.group == full and candidate.plural == plural:
            return candidate
    raise LookupError((group, plural))


def cells(group: str, plural: str, item: dict) -> list:
    from orch_apiserver.tables import table_for

    return table_for(rt(group, plural), NAMING).row(item, NOW)["cells"]


def column_names(group: str, plural: str) -> list[str]:
    from orch_apiserver.tables import table_for

    return [c["name"] for c in table_for(rt(group, plural), NAMING).column_definitions()]
