"""Strategic merge patch: a JSON merge patch that merges lists by the schema's merge keys.

Semantics of the reference (directives `$patch`, `$retainKeys`, `$setElementOrder/<list>`,
`$deleteFromPrimitiveList/<list>`), driven by the `patch_strategy`/`patch_merge_key` markers of the
typed schemas. Parts of an object the schema does not describe merge like a JSON merge patch.
"""

from __future__ import annotations

import copy
from typing import Any

from ..errors import ApiError, BadRequest
from ..schema.types import Field, ListOf, MapOf, Struct

PATCH = "$patch"
RETAIN_KEYS = "$retainKeys"
SET_ORDER = "$setElementOrder/"
DELETE_FROM_PRIMITIVE = "$deleteFromPrimitiveList/"
_DELETED = object()  # a whole value removed by `$patch: delete`


def invalid_patch(message: str) -> ApiError:
    return ApiError(422, "Invalid", f"the server rejected our request due to an error in our request: {message}")


def strategic_merge(original: dict, patch: Any, struct: Struct | None) -> dict:
    if not isinstance(patch, dict):
        raise BadRequest("error decoding patch: a strategic merge patch must be a JSON object")
    merged = _merge_map(copy.deepcopy(original), patch, struct, map_value=None)
    if merged is _DELETED:
        return {}
    return merged


def _element_type(field: Field | None) -> Any:
    return field.type if field is not None else None


def _merge_map(original: Any, patch: dict, struct: Struct | None, map_value: Any) -> Any:
    """Merge `patch` into a struct (fields from `struct`) or a map (values of type `map_value`)."""
    directive = patch.get(PATCH)
    if directive == "delete":
        return _DELETED
    body = {k: v for k, v in patch.items() if k != PATCH}
    if directive == "replace":
        return _strip_directives(body)
    if directive not in (None, "merge"):
        raise invalid_patch(f"unknown patch type: {directive!r}")
    result = dict(original) if isinstance(original, dict) else {}
    retain = body.pop(RETAIN_KEYS, None)
    orders = {k[len(SET_ORDER) :]: body.pop(k) for k in list(body) if k.startswith(SET_ORDER)}
    deletions = {
        k[len(DELETE_FROM_PRIMITIVE) :]: body.pop(k) for k in list(body) if k.startswith(DELETE_FROM_PRIMITIVE)
    }
    for key, value in body.items():
        field = struct.field(key) if struct is not None else None
        value_type = _element_type(field) if struct is not None else map_value
        if value is None:
            result.pop(key, None)
            continue
        merged = _merge_value(result.get(key), value, value_type, field)
        if merged is _DELETED:
            result.pop(key, None)
        else:
            result[key] = merged
    for key, values in deletions.items():
        if isinstance(result.get(key), list) and isinstance(values, list):
            result[key] = [v for v in result[key] if v not in values]
    for key, order in orders.items():
        field = struct.field(key) if struct is not None else None
        if isinstance(result.get(key), list) and isinstance(order, list):
            result[key] = _apply_order(result[key], order, field)
    if retain is not None:
        if not isinstance(retain, list):
            raise invalid_patch("$retainKeys must be a list")
        result = {k: v for k, v in result.items() if k in retain}
    return result


def _merge_value(original: Any, patch: Any, value_type: Any, field: Field | None) -> Any:
    if isinstance(value_type, ListOf):
        if not isinstance(patch, list):
            raise invalid_patch(f"expected a list for field {field.name if field else ''}, got {type(patch).__name__}")
        if field is not None and field.patch_strategy and "merge" in field.patch_strategy.split(","):
            return _merge_list(
                original if isinstance(original, list) else [], patch, value_type.item, field.patch_merge_key
            )
        return _strip_directives(_drop_list_directives(patch))
    if isinstance(value_type, Struct):
        if not isinstance(patch, dict):
            return copy.deepcopy(patch)
        return _merge_map(original, patch, value_type, None)
    if isinstance(value_type, MapOf):
        if not isinstance(patch, dict):
            return copy.deepcopy(patch)
        return _merge_map(original, patch, None, value_type.value)
    if isinstance(patch, dict):
        # a field the schema does not describe (or a free-form value): JSON merge patch rules
        return _merge_map(original, patch, None, None)
    return copy.deepcopy(patch)


def _drop_list_directives(items: list) -> list:
    return [i for i in items if not (isinstance(i, dict) and PATCH in i and len(i) == 1)]


def _merge_list(original: list, patch: list, item_type: Any, merge_key: str | None) -> list:
    if any(isinstance(i, dict) and i.get(PATCH) == "replace" and len(i) == 1 for i in patch):
        return _strip_directives(_drop_list_directives(patch))
    if merge_key is None or not isinstance(item_type, Struct):
        # a list of primitives merged as a set: keep the original order, append what is new
        result = list(original)
        for item in patch:
            if isinstance(item, dict) and item.get(PATCH) == "delete":
                continue
            if item not in result:
                result.append(item)
        return result
    result = [copy.deepcopy(i) for i in original]
    for item in patch:
        if not isinstance(item, dict):
            raise invalid_patch(f"expected an object in a list merged by {merge_key!r}")
        if merge_key not in item:
            raise invalid_patch(f"map: {item} does not contain declared merge key: {merge_key}")
        index = next(
            (n for n, o in enumerate(result) if isinstance(o, dict) and o.get(merge_key) == item[merge_key]), None
        )
        if item.get(PATCH) == "delete":
            if index is not None:
                del result[index]
            continue
        if index is None:
            merged = _merge_map({}, item, item_type, None)
            if merged is not _DELETED:
                result.append(merged)
        else:
            merged = _merge_map(result[index], item, item_type, None)
            if merged is _DELETED:
                del result[index]
            else:
                result[index] = merged
    return result


def _apply_order(items: list, order: list, field: Field | None) -> list:
    key = field.patch_merge_key if field is not None else None

    def identity(item: Any) -> Any:
        if key is not None and isinstance(item, dict):
            return item.get(key)
        return item

    wanted = [o.get(key) if key is not None and isinstance(o, dict) else o for o in order]
    positions = {repr(w): n for n, w in enumerate(wanted)}
    listed = sorted((i for i in items if repr(identity(i)) in positions), key=lambda i: positions[repr(identity(i))])
    return listed + [i for i in items if repr(identity(i)) not in positions]


def _strip_directives(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _strip_directives(v)
            for k, v in value.items()
            if k not in (PATCH, RETAIN_KEYS) and not k.startswith((SET_ORDER, DELETE_FROM_PRIMITIVE))
        }
    if isinstance(value, list):
        return [_strip_directives(v) for v in value]
    return value
