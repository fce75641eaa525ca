"""One walk of a JSON object against its typed schema: unknown fields (dropped from the copy it
returns), repeated keys, and values the schema's types cannot hold."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

from ...errors import FieldError, invalid
from ...schema import types as t
from ...schema.scalars import json_kind, parse_rfc3339
from ...schema.wire import ProtobufError
from .duplicates import join
from .gotext import unmarshal_text

#: Keys every kind's JSON carries besides its declared fields.
TYPE_KEYS = frozenset({"apiVersion", "kind"})
INT_RANGES = {t.INT32: (-(1 << 31), (1 << 31) - 1), t.INT64: (-(1 << 63), (1 << 63) - 1)}


@dataclass(frozen=True)
class Finding:
    """An unknown or repeated field, in the reference's words: `unknown field "spec.foo"`."""

    what: str  # "unknown" or "duplicate"
    path: str

    @property
    def text(self) -> str:
        return f'{self.what} field "{self.path}"'


@dataclass
class StrictFieldError(FieldError):
    """A strict-decoding finding as a 422 cause: the message is the finding's own text."""

    text: str = ""

    @property
    def body(self) -> str:
        return self.text


def finding_error(finding: Finding) -> FieldError:
    reason = "FieldValueDuplicate" if finding.what == "duplicate" else "FieldValueInvalid"
    return StrictFieldError(reason, finding.path, text=finding.text)


def type_error(path: str, value: Any, expected: str) -> FieldError:
    got = json_kind(value)
    return FieldError("FieldValueTypeInvalid", path, f'{path} in body must be of type {expected}: "{got}"', got)


@dataclass
class Walker:
    """Collects findings and type errors; `value()` returns the value without unknown fields."""

    duplicates: frozenset[str] = frozenset()
    directives: bool = False  # keep strategic merge patch directives (`$patch`, `$setElementOrder/x`)
    findings: list[Finding] = field(default_factory=list)
    errors: list[FieldError] = field(default_factory=list)
    decode_errors: list[str] = field(default_factory=list)  # the same errors in the reference decoder's words
    _owner: str = ""  # the innermost struct's Go type name and the struct fields down to here, for those words
    _fields: list[str] = field(default_factory=list)

    def _seen(self, path: str) -> None:
        if path in self.duplicates:
            self.findings.append(Finding("duplicate", path))

    def struct(self, struct: t.Struct, value: dict, path: str) -> dict:
        outer, self._owner = self._owner, struct.name
        try:
            return self._struct(struct, value, path)
        finally:
            self._owner = outer

    def _struct(self, struct: t.Struct, value: dict, path: str) -> dict:
        out: dict = {}
        for key, item in value.items():
            here = join(path, key)
            if self.directives and isinstance(key, str) and key.startswith("$"):
                out[key] = item
                continue
            if struct.kind and key in TYPE_KEYS:
                self._seen(here)
                if item is not None and not isinstance(item, str):
                    self._fail(type_error(here, item, "string"), t.STRING, item, key)
                out[key] = item
                continue
            fields = struct.json_fields.get(key) if isinstance(key, str) else None
            if fields is None:
                self.findings.append(Finding("unknown", here))  # a repeated unknown key is only unknown
                continue
            self._seen(here)
            self._fields.append(key)
            out[key] = self.value(fields[-1].type, item, here)
            self._fields.pop()
        return out

    def value(self, spec: t.TypeSpec, value: Any, path: str) -> Any:
        if value is None:
            return None  # null decodes to the zero value of any Go type
        if isinstance(spec, t.Struct):
            if not isinstance(value, dict):
                return self._wrong(spec, path, value, "object")
            return self.struct(spec, value, path)
        if isinstance(spec, t.ListOf):
            if not isinstance(value, list):
                return self._wrong(spec, path, value, "array")
            return [self.value(spec.item, item, f"{path}[{i}]") for i, item in enumerate(value)]
        if isinstance(spec, t.MapOf):
            if not isinstance(value, dict):
                return self._wrong(spec, path, value, "object")
            out = {}
            for key, item in value.items():
                here = join(path, key)
                self._seen(here)
                out[key] = self.value(spec.value, item, here)
            return out
        if (error := scalar_error(spec, value, path)) is not None:
            self._fail(error, spec, value)
        elif spec == t.BYTES:
            return without_line_breaks(value)  # stored as Go re-encodes the decoded bytes
        return value

    def _wrong(self, spec: t.TypeSpec, path: str, value: Any, expected: str) -> Any:
        self._fail(type_error(path, value, expected), spec, value)
        return value

    def _fail(self, error: FieldError, spec: t.TypeSpec, value: Any, key: str | None = None) -> None:
        self.errors.append(error)
        fields = [*self._fields, key] if key is not None else self._fields
        self.decode_errors.append(unmarshal_text(spec, value, self._owner, fields))


def without_line_breaks(text: str) -> str:
    """Base64 as Go's decoder reads it: carriage returns and newlines anywhere are skipped."""
    return text.replace("\r", "").replace("\n", "") if "\n" in text or "\r" in text else text


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _integer_error(spec: t.Scalar, value: Any, path: str) -> FieldError | None:
    if not _is_number(value) or (isinstance(value, float) and not value.is_integer()):
        return type_error(path, value, "integer")
    low, high = INT_RANGES.get(spec, INT_RANGES[t.INT32])
    if not low <= int(value) <= high:
        bits = 64 if spec == t.INT64 else 32
        return invalid(path, int(value), f"must fit in a {bits}-bit signed integer")
    return None


def scalar_error(spec: t.Scalar, value: Any, path: str) -> FieldError | None:
    """Why `value` cannot be decoded as the leaf type `spec`, or None."""
    if spec in (t.INT32, t.INT64):
        return _integer_error(spec, value, path)
    if spec == t.STRING:
        return None if isinstance(value, str) else type_error(path, value, "string")
    if spec == t.BOOL:
        return None if isinstance(value, bool) else type_error(path, value, "boolean")
    if spec == t.DOUBLE:
        return None if _is_number(value) else type_error(path, value, "number")
    if spec == t.QUANTITY:
        return None if isinstance(value, str) or _is_number(value) else type_error(path, value, "string")
    if spec == t.INT_OR_STRING:
        if isinstance(value, str):
            return None
        return (
            _integer_error(t.INT32, value, path) if _is_number(value) else type_error(path, value, "integer or string")
        )
    if spec == t.BYTES:
        if not isinstance(value, str):
            return type_error(path, value, "string")
        try:
            base64.b64decode(without_line_breaks(value), validate=True)
        except ValueError:  # binascii.Error, or a character outside ASCII
            return FieldError("FieldValueInvalid", path, "illegal base64 data", show_value=False)
        return None
    if spec in (t.TIME, t.MICRO_TIME):
        if not isinstance(value, str):
            return type_error(path, value, "string")
        try:
            parse_rfc3339(value, path)
        except ProtobufError:
            return invalid(path, value, 'must be an RFC 3339 date-time such as "2006-01-02T15:04:05Z"')
        return None
    if spec in (t.FIELDS_V1, t.OBJECT):
        return None if isinstance(value, dict) else type_error(path, value, "object")
    return None  # RawExtension: any embedded value
