"""`metadata.managedFields`: parsing, validation, identity, encoding and ordering of entries.

An entry's identity is (manager, operation, subresource) plus, for `Update` entries only, the
apiVersion: a repeated write under the same identity updates that entry. Entries are written as
the reference writes them (manager, operation, apiVersion, time, fieldsType, fieldsV1, subresource;
empty values left out) and sorted: `Apply` before `Update`, then by time, manager, apiVersion and
subresource.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import FieldError, invalid, not_supported, required
from .fieldpath import FieldSet
from .fieldsv1 import FieldsV1Error, decode_fields_v1, encode_fields_v1
from .values import go_json

APPLY, UPDATE = "Apply", "Update"
FIELDS_V1 = "FieldsV1"
MAX_MANAGER_LENGTH = 128  # the reference's FieldManagerMaxLength
MAX_SUBRESOURCE_LENGTH = 256
MAX_UPDATE_MANAGERS = 10  # the reference's DefaultMaxUpdateManagers
ANCIENT_CHANGES = "ancient-changes"
BEFORE_FIRST_APPLY = "before-first-apply"


class ManagedFieldsError(ValueError):
    """`metadata.managedFields` that cannot be decoded."""


@dataclass(frozen=True)
class ManagerEntry:
    manager: str
    operation: str
    api_version: str
    fields: FieldSet = field(default_factory=FieldSet)
    time: str | None = None
    subresource: str = ""

    @property
    def identity(self) -> str:
        """The reference's manager identifier: the entry's JSON without time, fields and (for Apply)
        apiVersion; also the sort key of conflict messages."""
        return manager_identity(self.manager, self.operation, self.api_version, self.subresource)

    def with_fields(self, fields: FieldSet) -> ManagerEntry:
        return replace(self, fields=fields)

    def encode(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.manager:
            out["manager"] = self.manager
        out["operation"] = self.operation
        if self.api_version:
            out["apiVersion"] = self.api_version
        if self.time:
            out["time"] = self.time
        out["fieldsType"] = FIELDS_V1
        out["fieldsV1"] = encode_fields_v1(self.fields)
        if self.subresource:
            out["subresource"] = self.subresource
        return out


Managed = dict[str, ManagerEntry]  # identity -> entry


def manager_identity(manager: str, operation: str, api_version: str, subresource: str = "") -> str:
    parts = []
    if manager:
        parts.append(f'"manager":{go_json(manager)}')
    if operation:
        parts.append(f'"operation":{go_json(operation)}')
    if api_version and operation != APPLY:
        parts.append(f'"apiVersion":{go_json(api_version)}')
    if subresource:
        parts.append(f'"subresource":{go_json(subresource)}')
    return "{" + ",".join(parts) + "}"


def format_time(now: dt.datetime | str) -> str:
    """RFC 3339 in UTC with whole seconds, as the reference's metav1.Time."""
    if isinstance(now, str):
        parsed = parse_time(now)
        return now if parsed is None else format_time(parsed)
    if now.tzinfo is None:
        now = now.replace(tzinfo=dt.UTC)
    return now.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> dt.datetime | None:
    try:
        parsed = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def _seconds(entry: ManagerEntry) -> int:
    parsed = parse_time(entry.time) if entry.time else None
    return int(parsed.timestamp()) if parsed else 0


def sort_entries(entries: list[ManagerEntry]) -> list[ManagerEntry]:
    return sorted(entries, key=lambda e: (e.operation, _seconds(e), e.manager, e.api_version, e.subresource))


def decode_managed_fields(entries: Any) -> Managed:
    """Entries of `metadata.managedFields` -> identity -> entry. Raises ManagedFieldsError."""
    if entries is None:
        return {}
    if not isinstance(entries, list):
        raise ManagedFieldsError("managedFields must be a list")
    out: Managed = {}
    for i, raw in enumerate(entries):
        if not isinstance(raw, dict):
            raise ManagedFieldsError(f"managed fields entry {i} must be an object")
        operation = raw.get("operation") or ""
        if operation not in (APPLY, UPDATE):
            raise ManagedFieldsError("operation must be `Apply` or `Update`")
        api_version = raw.get("apiVersion") or ""
        if not api_version:
            raise ManagedFieldsError("apiVersion must not be empty")
        fields_type = raw.get("fieldsType") or ""
        if not fields_type:
            raise ManagedFieldsError(f"missing fieldsType in managed fields entry {i}")
        if fields_type != FIELDS_V1:
            raise ManagedFieldsError(f'invalid fieldsType "{fields_type}" in managed fields entry {i}')
        try:
            fields = decode_fields_v1(raw.get("fieldsV1") if raw.get("fieldsV1") is not None else {})
        except FieldsV1Error as exc:
            raise ManagedFieldsError(f"error decoding set: {exc}") from None
        raw_time = raw.get("time")
        entry = ManagerEntry(
            manager=str(raw.get("manager") or ""),
            operation=operation,
            api_version=str(api_version),
            fields=fields,
            time=format_time(raw_time) if isinstance(raw_time, str) and raw_time else None,
            subresource=str(raw.get("subresource") or ""),
        )
        out[entry.identity] = entry
    return out


def encode_managed_fields(managed: Managed) -> list[dict[str, Any]]:
    """identity -> entry back to the sorted list the object carries."""
    return [entry.encode() for entry in sort_entries(list(managed.values()))]


def is_reset(value: Any) -> bool:
    """Rule 1: a list holding exactly one empty entry resets managedFields (an empty list does not)."""
    return (
        isinstance(value, list)
        and len(value) == 1
        and isinstance(value[0], dict)
        and all(v is None or v == "" for v in value[0].values())
    )


def validate_managed_fields(entries: Any, path: str = "metadata.managedFields") -> list[FieldError]:
    """The reference's validation of managedFields written by a client (422 causes)."""
    if not isinstance(entries, list):
        return []
    errors: list[FieldError] = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        at = f"{path}[{i}]"
        operation = entry.get("operation") or ""
        if not operation:
            errors.append(required(f"{at}.operation", "must not be empty"))
        elif operation not in (APPLY, UPDATE):
            errors.append(not_supported(f"{at}.operation", operation, [APPLY, UPDATE]))
        fields_type = entry.get("fieldsType") or ""
        if fields_type and fields_type != FIELDS_V1:
            errors.append(invalid(f"{at}.fieldsType", fields_type, "must be `FieldsV1`"))
        errors.extend(validate_field_manager(str(entry.get("manager") or ""), f"{at}.manager"))
        if len(str(entry.get("subresource") or "")) > MAX_SUBRESOURCE_LENGTH:
            errors.append(
                FieldError(
                    "FieldValueTooLong", f"{at}.subresource", f"may not be more than {MAX_SUBRESOURCE_LENGTH} bytes"
                )
            )
    return errors


def validate_field_manager(manager: str, path: str = "fieldManager") -> list[FieldError]:
    """The reference's check of a `fieldManager` value (length and printable characters)."""
    errors: list[FieldError] = []
    if len(manager.encode()) > MAX_MANAGER_LENGTH:
        errors.append(FieldError("FieldValueTooLong", path, f"may not be more than {MAX_MANAGER_LENGTH} bytes"))
    offset = 0  # the reference reports byte offsets
    for ch in manager:
        if not ch.isprintable():
            errors.append(invalid(path, manager, f"invalid character U+{ord(ch):04X} (at position {offset})"))
        offset += len(ch.encode())
    return errors


def cap_update_managers(managed: Managed, limit: int = MAX_UPDATE_MANAGERS) -> Managed:
    """Merge the oldest `Update` entries into per-version `ancient-changes` entries over the limit."""
    updaters = [ident for ident, e in managed.items() if e.operation == UPDATE]
    if len(updaters) <= limit:
        return managed
    out = dict(managed)
    updaters.sort(key=lambda ident: (_seconds(out[ident]), ident))
    first_by_version: dict[str, str] = {}
    count = len(updaters)
    for ident in updaters:
        if count <= limit:
            break
        entry = out[ident]
        bucket = manager_identity(ANCIENT_CHANGES, UPDATE, entry.api_version)
        first = first_by_version.get(entry.api_version)
        if first is None:
            first_by_version[entry.api_version] = ident
            continue
        if bucket not in out:
            out[bucket] = replace(out.pop(first), manager=ANCIENT_CHANGES, subresource="")
        out[bucket] = replace(out[bucket], fields=out[bucket].fields | entry.fields, time=entry.time)
        del out[ident]
        count -= 1
    return out
