"""Object metadata rules shared by every kind: names, labels, annotations, system fields."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime
from typing import Any

from ..errors import FieldError, invalid, required

DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_SUBDOMAIN = DNS1123_LABEL + r"(\." + DNS1123_LABEL + ")*"
_LABEL_RE = re.compile(f"^{DNS1123_LABEL}$")
_SUBDOMAIN_RE = re.compile(f"^{DNS1123_SUBDOMAIN}$")
_QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")

LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
    "regex used for validation is '" + DNS1123_LABEL + "')"
)
SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', "
    "regex used for validation is '" + DNS1123_SUBDOMAIN + "')"
)

#: metadata fields only the server sets; client values are dropped on create.
SYSTEM_FIELDS = (
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "generation",
    "selfLink",
)
_NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789"


def set_condition(status: dict, kind: str, value: str, **fields: Any) -> None:
    """Set the `kind` condition in status.conditions; its lastTransitionTime moves only when its status does."""
    conditions = status.setdefault("conditions", [])
    for condition in conditions:
        if isinstance(condition, dict) and condition.get("type") == kind:
            if condition.get("status") != value:
                condition["lastTransitionTime"] = now_rfc3339()
            condition.update(status=value, **fields)
            return
    conditions.append({"type": kind, "status": value, **fields, "lastTransitionTime": now_rfc3339()})


def now_rfc3339() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def now_micro_rfc3339() -> str:
    """A MicroTime (Lease renewTime): microseconds, as the reference writes them."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def generate_name(prefix: str) -> str:
    # one draw of randomness for the five characters (a draw per character cost a system call each)
    n = secrets.randbits(40)
    suffix = []
    for _ in range(5):
        n, i = divmod(n, len(_NAME_CHARS))
        suffix.append(_NAME_CHARS[i])
    return prefix[:58] + "".join(suffix)


def name_errors(name: str, rule: str, path: str = "metadata.name") -> list[FieldError]:
    if rule == "path":
        if name in (".", ".."):
            return [invalid(path, name, f"may not be '{name}'")]
        for bad in ("/", "%"):
            if bad in name:
                return [invalid(path, name, f"may not contain '{bad}'")]
        if "\x00" in name:  # no SQL text column holds one (the reference's etcd would)
            return [invalid(path, name, "may not contain a NUL character")]
        return []
    if rule == "label":
        errors = []
        if len(name) > 63:
            errors.append(invalid(path, name, "must be no more than 63 characters"))
        if not _LABEL_RE.match(name):
            errors.append(invalid(path, name, LABEL_MSG))
        return errors
    errors = []
    if len(name) > 253:
        errors.append(invalid(path, name, "must be no more than 253 characters"))
    if not _SUBDOMAIN_RE.match(name):
        errors.append(invalid(path, name, SUBDOMAIN_MSG))
    return errors


def qualified_name_errors(key: str, path: str) -> list[FieldError]:
    prefix, _, name = key.rpartition("/")
    errors = []
    if "/" in key and (not prefix or len(prefix) > 253 or not _SUBDOMAIN_RE.match(prefix)):
        errors.append(invalid(path, key, "prefix part " + SUBDOMAIN_MSG))
    if not name or len(name) > 63 or not _QUALIFIED_NAME.match(name):
        errors.append(
            invalid(
                path,
                key,
                "name part must consist of alphanumeric characters, '-', '_' or '.', "
                "and must start and end with an alphanumeric character (e.g. 'MyName',  or "
                "'my.name',  or '123-abc', regex used for validation is "
                "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
                "and '/' (e.g. 'example.com/MyName')",
            )
        )
    return errors


def _string_map_errors(value: Any, path: str, check_value: bool) -> list[FieldError]:
    if value is None:
        return []
    if not isinstance(value, dict):
        return [FieldError("FieldValueTypeInvalid", path, "expected map of string to string", value)]
    errors: list[FieldError] = []
    for k, v in value.items():
        errors += qualified_name_errors(k, path)
        if not isinstance(v, str):
            errors.append(FieldError("FieldValueTypeInvalid", f"{path}[{k}]", "expected string", v))
        elif check_value and (len(v) > 63 or not _LABEL_VALUE.match(v)):
            errors.append(
                invalid(
                    path,
                    v,
                    "a valid label must be an empty string or consist of alphanumeric "
                    "characters, '-', '_' or '.', and must start and end with an alphanumeric "
                    "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
                    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
                )
            )
    return errors


def metadata_errors(meta: Any, name_rule: str, namespaced: bool) -> list[FieldError]:
    """Structural checks of metadata common to every kind (after the name is settled)."""
    if not isinstance(meta, dict):
        return [FieldError("FieldValueTypeInvalid", "metadata", "expected object", meta)]
    errors: list[FieldError] = []
    name = meta.get("name")
    if not name:
        errors.append(required("metadata.name", "name or generateName is required"))
    elif not isinstance(name, str):
        errors.append(FieldError("FieldValueTypeInvalid", "metadata.name", "expected string", name))
    else:
        errors += name_errors(name, name_rule)
    if namespaced and not meta.get("namespace"):
        errors.append(required("metadata.namespace"))
    errors += _string_map_errors(meta.get("labels"), "metadata.labels", check_value=True)
    errors += _string_map_errors(meta.get("annotations"), "metadata.annotations", check_value=False)
    finalizers = meta.get("finalizers")
    if finalizers is not None:
        if not isinstance(finalizers, list) or not all(isinstance(f, str) for f in finalizers):
            errors.append(
                FieldError("FieldValueTypeInvalid", "metadata.finalizers", "expected list of strings", finalizers)
            )
        else:
            for i, f in enumerate(finalizers):
                errors += [
                    FieldError(e.reason, f"metadata.finalizers[{i}]", e.detail, e.value)
                    for e in qualified_name_errors(f, f"metadata.finalizers[{i}]")
                ]
    return errors


OMIT_WHEN_EMPTY = ("labels", "annotations", "finalizers", "ownerReferences", "managedFields")


def drop_empty(md: dict) -> None:
    """Empty maps and lists in metadata are left out, as the reference's encoder (omitempty) does."""
    for name in OMIT_WHEN_EMPTY:
        if name in md and not md[name]:
            del md[name]
