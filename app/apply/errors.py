"""Errors of apply, worded as the reference words them; all are `ApiError`s the HTTP layer renders."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ApiError, BadRequest
from .fieldpath import Path, path_string
from .managed import UPDATE


@dataclass(frozen=True)
class Conflict:
    """One field another manager owns with a different value."""

    manager: str
    operation: str
    api_version: str
    subresource: str
    path: Path
    identity: str = ""

    @property
    def field(self) -> str:
        return path_string(self.path)

    @property
    def manager_text(self) -> str:
        """`"kubectl" using apps/v1`, `"ctl" with subresource "status"`: the reference's printManager."""
        text = _quote(self.manager)
        if self.subresource:
            text += f" with subresource {_quote(self.subresource)}"
        if self.operation == UPDATE:
            text += f" using {self.api_version}"
        return text


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def conflict_message(conflicts: list[Conflict]) -> str:
    """`Apply failed with 1 conflict: conflict with "m" using apps/v1: .spec.replicas`, or the grouped
    form for several conflicts (managers in identifier order, each followed by its fields)."""
    if len(conflicts) == 1:
        c = conflicts[0]
        return f"Apply failed with 1 conflict: conflict with {c.manager_text}: {c.field}"
    groups: dict[str, list[Conflict]] = {}
    for c in conflicts:
        groups.setdefault(c.identity, []).append(c)
    lines: list[str] = []
    for identity in sorted(groups):
        lines.append(f"conflicts with {groups[identity][0].manager_text}:")
        lines.extend(f"- {c.field}" for c in groups[identity])
    return f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)


def conflict_causes(conflicts: list[Conflict]) -> list[dict[str, str]]:
    return [
        {"reason": "FieldManagerConflict", "message": f"conflict with {c.manager_text}", "field": c.field}
        for c in conflicts
    ]


class ApplyConflict(ApiError):
    """409 Conflict: the apply would change fields other managers own (`details` has only `causes`)."""

    def __init__(self, conflicts: list[Conflict]) -> None:
        super().__init__(409, "Conflict", conflict_message(conflicts), {"causes": conflict_causes(conflicts)})
        self.conflicts = conflicts


class ApplyBadRequest(BadRequest):
    """400: an applied object the server refuses before merging."""


class ManagedFieldsInApply(ApplyBadRequest):
    def __init__(self) -> None:
        super().__init__("metadata.managedFields must be nil")


class ApplyTypeMismatch(ApplyBadRequest):
    """The applied apiVersion/kind is not the endpoint's."""

    def __init__(self, api_version: str, kind: str) -> None:
        group, _, version = api_version.rpartition("/")
        super().__init__(f"invalid object type: {group}/{version}, Kind={kind}")


class ApplyInvalidObject(ApiError):
    """The applied object does not fit the schema (a field it does not declare, a value of the wrong type): the
    client's mistake, 400 with the field path (v1.23 answered 500 without a reason; later releases 4xx)."""

    def __init__(self, what: str, detail: str) -> None:
        super().__init__(400, "BadRequest", f"failed to create typed patch object ({what}): {detail}")


class ManagedFieldsUndecodable(ApiError):
    """The live object's managedFields cannot be decoded (the reference answers 500)."""

    def __init__(self, detail: str) -> None:
        super().__init__(500, "", f"failed to decode managed fields: {detail}")
