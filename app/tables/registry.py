"""Which printer serves a kind: a registry keyed by (group prefix, plural), the default table otherwise."""

from __future__ import annotations

from functools import lru_cache

from ..catalog import ResourceType
from ..naming import Naming
from . import autoscaling, core, flowcontrol, other, storage, workloads
from .columns import DEFAULT_TABLE, TableSpec
from .custom import custom_table
from .events import CORE_EVENT_TABLE, EVENTS_GROUP_TABLE
from .pods import POD_TABLE

#: groups the reference serves without its domain suffix (the rename leaves them alone).
UNQUALIFIED_GROUPS = frozenset({"", "apps", "batch", "policy", "autoscaling"})

Key = tuple[str, str]


def group_prefix(group: str, naming: Naming) -> str | None:
    """`certificates` for `certificates.<domain>`, the group itself for core/apps/batch/policy, else None."""
    if group in UNQUALIFIED_GROUPS:
        return group
    suffix = "." + naming.domain
    if group.endswith(suffix) and len(group) > len(suffix):
        return group[: -len(suffix)]
    return None


@lru_cache(maxsize=16)
def printers(naming: Naming) -> dict[Key, TableSpec]:
    """Every custom printer, keyed by (group prefix, plural)."""
    out: dict[Key, TableSpec] = {("", plural): spec for plural, spec in core.tables(naming).items()}
    out[("", "pods")] = POD_TABLE
    out[("", "events")] = CORE_EVENT_TABLE
    out[("events", "events")] = EVENTS_GROUP_TABLE
    out.update(workloads.tables())
    out.update(other.tables(naming))
    out.update(autoscaling.tables(naming))
    out.update(flowcontrol.tables())
    out.update(storage.tables())
    return out


def table_for(rt: ResourceType, naming: Naming) -> TableSpec:
    """The kind's printer, or the default `Name` / `Created At` table for kinds without one."""
    if rt.custom is not None:
        return custom_table(rt.custom.printer_columns)
    prefix = group_prefix(rt.group, naming)
    if prefix is None:
        return DEFAULT_TABLE
    versioned = flowcontrol.versioned_tables().get((prefix, rt.plural, rt.version))  # columns renamed in betas
    if versioned is not None:
        return versioned
    return printers(naming).get((prefix, rt.plural), DEFAULT_TABLE)
