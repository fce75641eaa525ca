"""Applying patches to a JSON object: JSON patch (RFC 6902) and JSON merge patch (RFC 7386)."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
import orjson

from ..errors import ApiError, BadRequest, RequestEntityTooLarge
from ..schema.types import Struct
from .strategic import strategic_merge

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
MAX_JSON_PATCH_OPERATIONS = 10000
JSON_PATCH_FAILED = "the server rejected our request due to an error in our request"


def merge_patch(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


def _decode(body: bytes) -> Any:
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise BadRequest(f"error decoding patch: {exc}") from None


def apply_patch(patch_type: str, body: bytes, obj: dict, struct: Struct | None = None) -> dict:
    """The patched object; errors are 400 (undecodable), 413 (too many ops) or 422 (cannot apply)."""
    if patch_type == STRATEGIC_MERGE_PATCH:
        return strategic_merge(obj, _decode(body), struct)
    if patch_type == MERGE_PATCH:
        patch = _decode(body)
        if not isinstance(patch, dict):
            raise BadRequest("error decoding patch: a merge patch must be a JSON object")
        return merge_patch(obj, patch)
    if patch_type == JSON_PATCH:
        ops = _decode(body)
        if not isinstance(ops, list) or not all(isinstance(op, dict) for op in ops):
            raise BadRequest("error decoding patch: a JSON patch must be a list of operations")
        if len(ops) > MAX_JSON_PATCH_OPERATIONS:
            raise RequestEntityTooLarge(
                f"The allowed maximum operations in a JSON patch is {MAX_JSON_PATCH_OPERATIONS}, got {len(ops)}"
            )
        try:
            patched = jsonpatch.JsonPatch(ops).apply(copy.deepcopy(obj))
        except (
            jsonpatch.JsonPatchException,
            jsonpatch.JsonPointerException,
            KeyError,
            IndexError,
            TypeError,
            ValueError,
        ):
            # NewGenericServerResponse(422, ...) keeps its own message and drops the library's (handlers/patch.go)
            raise ApiError(422, "Invalid", JSON_PATCH_FAILED, details={}) from None
        if not isinstance(patched, dict):
            raise ApiError(422, "Invalid", "the server rejected our request: the patched object is not an object")
        return patched
    raise AssertionError(f"unhandled patch type {patch_type}")
