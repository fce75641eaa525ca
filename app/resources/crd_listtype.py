"""x-kubernetes-list-type `set` and `map` lists hold no duplicates: the reference's ValidateListSetsAndMaps, a walk
of the schema's structural part (properties, additionalProperties, items), each repeat a 422 `Duplicate value`
shown as Go's %#v shows it (a map's key as `map[string]interface {}{"name":"a"}`)."""

from __future__ import annotations

import json
from typing import Any

from ..apply.wrongtype import go_sharp
from ..errors import FieldError, Shown, invalid
from .crd_schema import Extensions


def list_type_errors(obj: Any, schema: Any, ext: Extensions, path: str = "") -> list[FieldError]:
    if not isinstance(schema, dict):
        return []
    errors: list[FieldError] = []
    if isinstance(obj, dict):
        extra, properties = schema.get("additionalProperties"), schema.get("properties") or {}
        for key, value in obj.items():
            if isinstance(extra, dict):
                errors += list_type_errors(value, extra, ext, f"{path}[{key}]")
            if key in properties:
                errors += list_type_errors(value, properties[key], ext, f"{path}.{key}" if path else key)
    elif isinstance(obj, list):
        list_type = schema.get(ext.list_type)
        if list_type == "set":
            errors += [_duplicate(path, i, obj[i]) for i in _repeats(obj)]
        elif list_type == "map":
            errors += _map_errors(obj, schema.get(ext.list_map_keys) or [], path)
        for i, item in enumerate(obj):
            errors += list_type_errors(item, schema.get("items"), ext, f"{path}[{i}]")
    return errors


def _duplicate(path: str, index: int, value: Any) -> FieldError:
    return FieldError("FieldValueDuplicate", f"{path}[{index}]", "", Shown(go_sharp(value)))


def _identity(value: Any) -> tuple[str, Any]:
    """Equal as Go compares decoded JSON: scalars by type and value, compounds by their (sorted) JSON."""
    if isinstance(value, (dict, list)):
        return "compound", json.dumps(value, sort_keys=True, separators=(",", ":"))
    return type(value).__name__, value


def _repeats(values: list[Any]) -> list[int]:
    """The index of each value's first repeat (a value seen three times is reported once, as the reference)."""
    seen: dict[tuple[str, Any], int] = {}
    out = []
    for i, value in enumerate(values):
        key = _identity(value)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] == 2:
            out.append(i)
    return out


_UNSET = object()


def _map_errors(items: list[Any], keys: list[str], path: str) -> list[FieldError]:
    for i, item in enumerate(items):
        if item is not None and not isinstance(item, dict):
            return [invalid(f"{path}[{i}]", item, "must be an object for an array of list-type map")]
    if len(items) <= 1:
        return []
    keyed = [{k: item[k] for k in keys if k in item} if isinstance(item, dict) else {} for item in items]
    if len(keys) == 1:  # one key: compared by its value, an item without it by "unspecified"
        values = [entry.get(keys[0], _UNSET) for entry in keyed]
        repeats = _repeats([("unset",) if v is _UNSET else v for v in values])
        return [_duplicate(path, i, keyed[i]) for i in repeats]
    return [_duplicate(path, i, keyed[i]) for i in _repeats(keyed)]
