"""Object metadata rules shared by every kind: names, labels, annotations, system fields."""

from __future__ import annotations

import json
import re
import secrets
from datetime import UTC, datetime
from typing import Any

from ..errors import FieldError, forbidden, invalid, required
from . import meta_rules as rules
from .meta_rules import qualified_name_errors as qualified_name_errors  # storage.py validates keys with it

DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_SUBDOMAIN = DNS1123_LABEL + r"(\." + DNS1123_LABEL + ")*"
_LABEL_RE = re.compile(f"^{DNS1123_LABEL}$")
_SUBDOMAIN_RE = re.compile(f"^{DNS1123_SUBDOMAIN}$")

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


def name_errors(name: str, rule: str, path: str = "metadata.name", prefix: bool = False) -> list[FieldError]:
    """The kind's name rule; `prefix` checks a generateName as the reference does (a trailing dash masked)."""
    if rule == "path":
        if name in (".", "..") and not prefix:
            return [invalid(path, name, f"may not be '{name}'")]
        errors = [invalid(path, name, f"may not contain '{bad}'") for bad in ("/", "%") if bad in name]
        if "\x00" in name:  # no SQL text column holds one (the reference's etcd would)
            errors.append(invalid(path, name, "may not contain a NUL character"))
        return errors
    # the reference's maskTrailingDash replaces the last two characters, not one
    checked = name[:-2] + "a" if prefix and len(name) > 1 and name.endswith("-") else name
    errors = []
    if rule == "label":
        if len(checked) > 63:
            errors.append(invalid(path, name, "must be no more than 63 characters"))
        if not _LABEL_RE.match(checked):
            errors.append(invalid(path, name, LABEL_MSG))
        return errors
    if len(checked) > 253:
        errors.append(invalid(path, name, "must be no more than 253 characters"))
    if not _SUBDOMAIN_RE.match(checked):
        errors.append(invalid(path, name, SUBDOMAIN_MSG))
    return errors


def metadata_errors(meta: Any, name_rule: str, namespaced: bool) -> list[FieldError]:
    """The reference's ValidateObjectMeta checks common to every kind (after the name is settled)."""
    if not isinstance(meta, dict):
        return [FieldError("FieldValueTypeInvalid", "metadata", "expected object", meta)]
    errors: list[FieldError] = []
    generate_name = meta.get("generateName")
    if isinstance(generate_name, str) and generate_name:
        errors += name_errors(generate_name, name_rule, "metadata.generateName", prefix=True)
    name = meta.get("name")
    if not name:
        errors.append(required("metadata.name", "name or generateName is required"))
    elif not isinstance(name, str):
        errors.append(FieldError("FieldValueTypeInvalid", "metadata.name", "expected string", name))
    else:
        errors += name_errors(name, name_rule)
    if namespaced and not meta.get("namespace"):
        errors.append(required("metadata.namespace"))
    errors += rules.label_errors(meta.get("labels"))
    errors += rules.annotation_errors(meta.get("annotations"))
    errors += rules.owner_reference_errors(meta.get("ownerReferences"))
    errors += rules.finalizer_errors(meta.get("finalizers"))
    errors += rules.managed_fields_errors(meta.get("managedFields"))
    return errors


def metadata_update_errors(old: dict, new: dict) -> list[FieldError]:
    """ValidateObjectMetaUpdate's rule for a terminating object: finalizers may go, none may come."""
    if not old.get("deletionTimestamp"):
        return []
    was = set(old.get("finalizers") or [])
    added = sorted({f for f in new.get("finalizers") or [] if isinstance(f, str)} - was)
    if not added:
        return []
    shown = "[]string{" + ", ".join(json.dumps(f, ensure_ascii=False) for f in added) + "}"  # Go's %#v
    return [
        forbidden(
            "metadata.finalizers",
            f"no new finalizers can be added if the object is being deleted, found new finalizers {shown}",
        )
    ]


OMIT_WHEN_EMPTY = ("labels", "annotations", "finalizers", "ownerReferences", "managedFields")


def drop_empty(md: dict) -> None:
    """Empty maps and lists in metadata are left out, as the reference's encoder (omitempty) does."""
    for name in OMIT_WHEN_EMPTY:
        if name in md and not md[name]:
            del md[name]
