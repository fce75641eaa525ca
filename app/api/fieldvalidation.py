"""fieldValidation on writes: unknown or duplicate fields become errors, warnings, or nothing.

Until every kind has a typed schema, unknown fields are detected in object metadata only;
duplicate keys are detected anywhere in a JSON body.
"""
from __future__ import annotations

import json
from typing import Any

from app.errors import BadRequest

DIRECTIVES = ("Ignore", "Warn", "Strict")
OBJECT_META_FIELDS = frozenset({
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
    "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
    "ownerReferences", "finalizers", "managedFields",
})


def directive(value: str | None) -> str:
    if value in (None, ""):
        return "Warn"
    if value not in DIRECTIVES:
        raise BadRequest(f'fieldValidation: Unsupported value: "{value}": supported values: '
                         '"Ignore", "Strict", "Warn"')
    return value


def duplicate_fields(body: bytes) -> list[str]:
    found: list[str] = []

    def hook(pairs: list[tuple[str, Any]]) -> dict:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen and key not in found:
                found.append(key)
            seen.add(key)
        return dict(pairs)

    try:
        json.loads(body, object_pairs_hook=hook)
    except ValueError:
        return []
    return found


def problems(obj: Any, body: bytes, is_json: bool) -> list[str]:
    """Human-readable findings in the reference's words: unknown field "x", duplicate field "y"."""
    out = []
    md = obj.get("metadata") if isinstance(obj, dict) else None
    if isinstance(md, dict):
        out += [f'unknown field "metadata.{k}"' for k in md if k not in OBJECT_META_FIELDS]
    if is_json:
        out += [f'duplicate field "{k}"' for k in duplicate_fields(body)]
    return out


def enforce(mode: str, findings: list[str], kind: str, version: str) -> list[str]:
    """Raise for Strict, return warnings for Warn, nothing for Ignore."""
    if not findings or mode == "Ignore":
        return []
    if mode == "Strict":
        raise BadRequest(f'{kind} in version "{version}" cannot be handled as a {kind}: strict decoding error: '
                         + ", ".join(findings))
    return findings


def warning_header(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'299 - "{escaped}"'
