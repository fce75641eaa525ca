"""Shared objects for the apply tests: a Deployment, a test kind with every merge marker, and lookups."""

from __future__ import annotations

import copy
from typing import Any

from orch_apiserver.apply import FieldSet, decode_fields_v1
from orch_apiserver.apply.fieldpath import FIELD, KEY, VALUE, Path, path_string
from orch_apiserver.schema import schema_for
from orch_apiserver.schema.meta import ObjectMeta
from orch_apiserver.schema.types import BOOL, INT32, STRING, Field, ListOf, MapOf, Struct

DEPLOYMENT = schema_for("apps/v1", "Deployment")
CONFIGMAP = schema_for("v1", "ConfigMap")
T1, T2, T3, T4, T5 = (f"2024-05-0{d}T10:00:00Z" for d in range(1, 6))

# A kind carrying every marker the merge honours (declared here, not in the served schemas).
_ITEM = Struct(
    "test/v1",
    "Item",
    [Field("name", 1, STRING, omitempty=False), Field("value", 2, INT32, nullable=True), Field("notes", 3, STRING)],
)
_SELECTOR = Struct("test/v1", "Selector", [Field("a", 1, STRING), Field("b", 2, STRING)], struct_type="atomic")
_CONFIG = Struct("test/v1", "Config", [Field("a", 1, STRING), Field("b", 2, STRING)])
_SPEC = Struct(
    "test/v1",
    "WidgetSpec",
    [
        Field("replicas", 1, INT32, nullable=True),
        Field("list", 2, ListOf(_ITEM), list_type="map", list_map_keys=("name",)),
        Field("tags", 3, ListOf(STRING), list_type="set"),
        Field("atomicList", 4, ListOf(STRING), list_type="atomic"),
        Field("plainList", 5, ListOf(STRING)),
        Field("mergeList", 6, ListOf(_ITEM), patch_strategy="merge", patch_merge_key="name"),
        Field("mergeSet", 7, ListOf(STRING), patch_strategy="merge"),
        Field("labels", 8, MapOf(STRING)),
        Field("atomicMap", 9, MapOf(STRING), map_type="atomic"),
        Field("selector", 10, _SELECTOR, nullable=True),
        Field("config", 11, _CONFIG, nullable=True),
        Field("atomicConfig", 12, _CONFIG, nullable=True, map_type="atomic"),
        Field("granularSelector", 13, _SELECTOR, nullable=True, map_type="granular"),
    ],
)
_STATUS = Struct("test/v1", "WidgetStatus", [Field("ready", 1, BOOL), Field("phase", 2, STRING)])
WIDGET = Struct(
    "test/v1",
    "Widget",
    [Field("metadata", 1, ObjectMeta), Field("spec", 2, _SPEC), Field("status", 3, _STATUS)],
    kind=True,
)
WIDGET_VERSION = "test.orch.io/v1"


def widget(spec: dict[str, Any] | None = None, **meta: Any) -> dict[str, Any]:
    return {"apiVersion": WIDGET_VERSION, "kind": "Widget", "metadata": {"name": "w", **meta}, "spec": spec or {}}


def deployment(replicas: int | None = 3, image: str = "nginx:1.25", **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "selector": {"matchLabels": {"app": "nginx"}},
        "template": {
            "metadata": {"labels": {"app": "nginx"}},
            "spec": {"containers": [{"name": "nginx", "image": image}]},
        },
    }
    if replicas is not None:
        spec["replicas"] = replicas
    spec.update(extra)
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "nginx"}},
        "spec": spec,
    }


def entries(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return obj.get("metadata", {}).get("managedFields", [])


def entry(obj: dict[str, Any], manager: str, operation: str | None = None) -> dict[str, Any] | None:
    found = [
        e
        for e in entries(obj)
        if e.get("manager") == manager and (operation is None or e.get("operation") == operation)
    ]
    assert len(found) <= 1, found
    return found[0] if found else None


def owned(obj: dict[str, Any], manager: str, operation: str | None = None) -> FieldSet:
    found = entry(obj, manager, operation)
    return decode_fields_v1(found["fieldsV1"]) if found else FieldSet()


def owned_strings(obj: dict[str, Any], manager: str, operation: str | None = None) -> list[str]:
    return owned(obj, manager, operation).strings()


def managers(obj: dict[str, Any]) -> list[tuple[str, str]]:
    return [(e.get("manager", ""), e["operation"]) for e in entries(obj)]


def without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out.get("metadata", {}).pop("managedFields", None)
    return out


_ABSENT = object()


def resolve(obj: Any, path: Path) -> Any:
    """The value at `path` in `obj`, or _ABSENT."""
    current = obj
    for pe in path:
        if pe.kind == FIELD:
            if not isinstance(current, dict) or pe.data not in current:
                return _ABSENT
            current = current[pe.data]
        elif pe.kind == KEY:
            want = pe.key_fields
            items = [
                x
                for x in current or []
                if isinstance(x, dict)
                and all(x.get(k, "TCP" if k == "protocol" else None) == v for k, v in want.items())
            ]
            if not items:
                return _ABSENT
            current = items[0]
        elif pe.kind == VALUE:
            if not isinstance(current, list) or pe.value not in current:
                return _ABSENT
            current = pe.value
        else:
            if not isinstance(current, list) or pe.data >= len(current):
                return _ABSENT
            current = current[pe.data]
    return current


def missing_paths(obj: dict[str, Any], fs: FieldSet) -> list[str]:
    return [path_string(p) for p in fs if resolve(obj, p) is _ABSENT]
