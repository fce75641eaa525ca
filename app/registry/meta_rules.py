"""The reference's (v1.23) ObjectMeta rules for labels, annotations, ownerReferences, finalizers and managedFields,
with its field paths and messages (kubectl prints them as they are)."""

from __future__ import annotations

import json
from typing import Any

from ..errors import FieldError, invalid
from ..selectors import label_value_errors
from ..selectors import qualified_name_errors as qualified_name_messages

TOTAL_ANNOTATION_SIZE_LIMIT = 256 * (1 << 10)  # bytes of keys plus values, as ValidateAnnotationsSize counts them
FIELD_MANAGER_MAX_LENGTH = 128
MAX_SUBRESOURCE_NAME_LENGTH = 256
FINALIZER_ORPHAN, FINALIZER_FOREGROUND = "orphan", "foregroundDeletion"
_BANNED_OWNERS = {("", "v1", "Event")}
#: Go prints a set *bool as its address; ours is a fixed stand-in (the reference's differs per request anyway)
_GO_POINTER = "(*bool)(0xc000010000)"


def too_long(path: str, most: int) -> FieldError:
    return FieldError("FieldValueTooLong", path, f"must have at most {most} bytes")


def qualified_name_errors(key: str, path: str) -> list[FieldError]:
    return [invalid(path, key, msg) for msg in qualified_name_messages(key)]


def _type_error(path: str, value: Any, expected: str) -> FieldError:
    return FieldError("FieldValueTypeInvalid", path, f"expected {expected}", value)


def _string_map(value: Any, path: str) -> tuple[dict[str, str], list[FieldError]]:
    if value is None:
        return {}, []
    if not isinstance(value, dict):
        return {}, [_type_error(path, value, "map of string to string")]
    errors = [_type_error(f"{path}[{k}]", v, "string") for k, v in value.items() if not isinstance(v, str)]
    return {k: v for k, v in value.items() if isinstance(v, str)}, errors


def label_errors(value: Any, path: str = "metadata.labels") -> list[FieldError]:
    labels, errors = _string_map(value, path)
    for key, text in labels.items():
        errors += qualified_name_errors(key, path)
        errors += [invalid(path, text, msg) for msg in label_value_errors(text)]
    return errors


def annotation_errors(value: Any, path: str = "metadata.annotations") -> list[FieldError]:
    annotations, errors = _string_map(value, path)
    for key in annotations:
        # a qualified name in any case: the reference checks the lower-cased key and shows the original
        errors += [invalid(path, key, msg) for msg in qualified_name_messages(key.lower())]
    size = sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items())
    if size > TOTAL_ANNOTATION_SIZE_LIMIT:
        errors.append(too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT))
    return errors


def _text(ref: dict, key: str) -> str:
    value = ref.get(key)
    return "" if value is None else str(value)


def _go_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # Go's %q for what labels and names may hold


def _go_owner_reference(ref: dict) -> str:
    """Go's %#v of a metav1.OwnerReference, how the reference shows one in a message."""
    strings = ", ".join(f"{name}:{_go_string(_text(ref, key))}" for name, key in _OWNER_STRING_FIELDS)
    pointers = ", ".join(
        f"{name}:{_GO_POINTER if ref.get(key) is not None else '(*bool)(nil)'}" for name, key in _OWNER_BOOL_FIELDS
    )
    return f"v1.OwnerReference{{{strings}, {pointers}}}"


_OWNER_STRING_FIELDS = (("APIVersion", "apiVersion"), ("Kind", "kind"), ("Name", "name"), ("UID", "uid"))
_OWNER_BOOL_FIELDS = (("Controller", "controller"), ("BlockOwnerDeletion", "blockOwnerDeletion"))


def _go_value_error(path: str, shown: str, detail: str) -> FieldError:
    # the value is a Go struct rendered with %#v, not JSON: carry it in the detail
    return FieldError("FieldValueInvalid", path, f"{shown}: {detail}", show_value=False)


def _owner_reference_errors(ref: dict, path: str) -> list[FieldError]:
    api_version, kind = _text(ref, "apiVersion"), _text(ref, "kind")
    parts = api_version.split("/") if api_version not in ("", "/") else [""]
    group, version = ("", "") if len(parts) > 2 else ("", parts[0]) if len(parts) == 1 else (parts[0], parts[1])
    errors = []
    if not version:
        errors.append(invalid(f"{path}.apiVersion", api_version, "version must not be empty"))
    if not kind:
        errors.append(invalid(f"{path}.kind", kind, "kind must not be empty"))
    for key in ("name", "uid"):
        if not _text(ref, key):
            errors.append(invalid(f"{path}.{key}", "", f"{key} must not be empty"))
    if (group, version, kind) in _BANNED_OWNERS:
        detail = f"{group}/{version}, Kind={kind} is disallowed from being an owner"
        errors.append(_go_value_error(path, _go_owner_reference(ref), detail))
    return errors


def owner_reference_errors(value: Any, path: str = "metadata.ownerReferences") -> list[FieldError]:
    """The reference (v1.23) reports every reference's problems at the list's path, without an index."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
        return [_type_error(path, value, "list of owner references")]
    errors: list[FieldError] = []
    controller = ""
    for ref in value:
        errors += _owner_reference_errors(ref, path)
        if ref.get("controller") is True:
            if controller:
                shown = "[]v1.OwnerReference{" + ", ".join(_go_owner_reference(r) for r in value) + "}"
                detail = (
                    'Only one reference can have Controller set to true. Found "true" in references for '
                    f"{controller} and {_text(ref, 'name')}"
                )
                errors.append(_go_value_error(path, shown, detail))
            else:
                controller = _text(ref, "name")
    return errors


def finalizer_errors(value: Any, path: str = "metadata.finalizers") -> list[FieldError]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(f, str) for f in value):
        return [_type_error(path, value, "list of strings")]
    errors: list[FieldError] = []
    for finalizer in value:
        errors += qualified_name_errors(finalizer, path)
    if FINALIZER_ORPHAN in value and FINALIZER_FOREGROUND in value:
        shown = "[]string{" + ", ".join(_go_string(f) for f in value) + "}"
        detail = f"finalizer {FINALIZER_ORPHAN} and {FINALIZER_FOREGROUND} cannot be both set"
        errors.append(_go_value_error(path, shown, detail))
    return errors


def _manager_errors(manager: str, path: str) -> list[FieldError]:
    errors = []
    if len(manager.encode()) > FIELD_MANAGER_MAX_LENGTH:
        errors.append(too_long(path, FIELD_MANAGER_MAX_LENGTH))
    offset = 0  # Go ranges over a string by bytes
    for ch in manager:
        if not ch.isprintable():
            errors.append(invalid(path, manager, f"invalid character U+{ord(ch):04X} (at position {offset})"))
        offset += len(ch.encode())
    return errors


def managed_fields_errors(value: Any, path: str = "metadata.managedFields") -> list[FieldError]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(e, dict) for e in value):
        return [_type_error(path, value, "list of managed fields entries")]
    errors: list[FieldError] = []
    for i, entry in enumerate(value):
        at = f"{path}[{i}]"
        operation = _text(entry, "operation")
        if operation not in ("Apply", "Update"):
            errors.append(invalid(f"{at}.operation", operation, "must be `Apply` or `Update`"))
        fields_type = _text(entry, "fieldsType")
        if fields_type and fields_type != "FieldsV1":
            errors.append(invalid(f"{at}.fieldsType", fields_type, "must be `FieldsV1`"))
        errors += _manager_errors(_text(entry, "manager"), f"{at}.manager")
        if len(_text(entry, "subresource").encode()) > MAX_SUBRESOURCE_NAME_LENGTH:
            errors.append(too_long(f"{at}.subresource", MAX_SUBRESOURCE_NAME_LENGTH))
    return errors
