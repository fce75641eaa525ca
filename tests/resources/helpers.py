"""Drive strategies the way the registry does, on plain dicts (no storage, no HTTP)."""

from __future__ import annotations

import copy

from orch_apiserver.catalog import Catalog, ResourceType
from orch_apiserver.errors import FieldError
from orch_apiserver.naming import Naming
from orch_apiserver.resources import build_catalog

NAMING = Naming()
CATALOG: Catalog = build_catalog(NAMING)


def rt(group: str, plural: str, version: str = "v1") -> ResourceType:
    found = CATALOG.lookup(group, version, plural)
    assert found is not None, f"{plural}.{group} is not in the catalog"
    return found


def created(kind: ResourceType, obj: dict, name: str = "x") -> tuple[dict, list[FieldError]]:
    """default -> prepare_for_create -> validate, as the registry's create does."""
    obj = copy.deepcopy(obj)
    md = obj.setdefault("metadata", {})
    md.setdefault("name", name)
    if kind.namespaced:
        md.setdefault("namespace", "default")
    if kind.has_status and kind.strategy.reset_status_on_create:
        obj.pop("status", None)
    kind.strategy.default(obj)
    kind.strategy.prepare_for_create(obj)
    return obj, kind.strategy.validate(obj)


def create_ok(kind: ResourceType, obj: dict, name: str = "x") -> dict:
    out, errors = created(kind, obj, name)
    assert errors == [], [str(e) for e in errors]
    return out


def updated(kind: ResourceType, new: dict, old: dict) -> tuple[dict, list[FieldError]]:
    """status restore -> default -> prepare_for_update -> validate_update, as the registry's update does."""
    new = copy.deepcopy(new)
    if kind.has_status:
        if "status" in old:
            new["status"] = copy.deepcopy(old["status"])
        else:
            new.pop("status", None)
    kind.strategy.default(new)
    kind.strategy.prepare_for_update(new, old)
    return new, kind.strategy.validate_update(new, old)


def messages(errors: list[FieldError]) -> list[str]:
    return [str(e) for e in errors]
