"""A CustomResourceDefinition version's `openAPIV3Schema` at work on custom objects: validation with the
reference's field paths and messages (kube-openapi's, as apiextensions turns them into field errors),
pruning of unknown fields and defaulting. Pure functions over JSON values; `Extensions` spells the
`x-<product>-*` markers of the configured domain."""

from __future__ import annotations

import copy
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..errors import FieldError, forbidden, invalid, not_supported, required
from ..schema.scalars import json_kind

Schema = dict[str, Any]
#: the fields every object keeps whatever its schema says (the reference's implicit root properties)
ROOT_FIELDS = ("apiVersion", "kind", "metadata")


@dataclass(frozen=True)
class Extensions:
    """The vendor extensions of one domain: x-orch-* by default, x-kubernetes-* in the reference's."""

    product: str

    def __getattr__(self, name: str) -> str:
        return f"x-{self.product}-" + name.replace("_", "-")


def _type_of(value: Any) -> str:
    # a whole float (1.0) is an integer to a CRD schema, as JSON has one number type
    if isinstance(value, float) and value.is_integer():
        return "integer"
    return json_kind(value)


def _matches_type(value: Any, wanted: str) -> bool:
    actual = _type_of(value)
    return actual == wanted or (wanted == "number" and actual == "integer")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _where(path: str) -> str:
    return path or "body"


def _type_invalid(path: str, value: Any, wanted: str) -> FieldError:
    """kube-openapi's InvalidType as apiextensions reports it: field.TypeInvalid with the value's type name."""
    got = _type_of(value)
    return FieldError("FieldValueTypeInvalid", path, f'{_where(path)} in body must be of type {wanted}: "{got}"', got)


_POSIX_CLASSES = {
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "alnum": "a-zA-Z0-9",
    "upper": "A-Z",
    "lower": "a-z",
    "space": r"\s",
    "xdigit": "0-9A-Fa-f",
    "word": r"\w",
    "punct": r"!-/:-@\[-`{-~",
}
_INLINE_FLAGS = re.compile(r"\(\?([imsU]+)\)")


def go_regex(pattern: str) -> str:
    """A Go (RE2) pattern in Python's syntax: `\\z`, `[[:alpha:]]` classes, and `(?i)` after the start, which
    Go applies to the rest of its group and Python accepts only at the very start (made a scoped group)."""
    out: list[str] = []
    i, in_class = 0, False
    scoped = [0]  # per open group (the pattern itself first): scoped-flag groups to close with it
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            out.append(r"\Z" if pattern[i + 1] == "z" else pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            posix = re.match(r"\[:([a-z]+):\]", pattern[i:])
            if posix and posix[1] in _POSIX_CLASSES:
                out.append(_POSIX_CLASSES[posix[1]])
                i += posix.end()
                continue
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "]":  # a leading ] is a literal
                out.append("[]")
                i += 2
                continue
        elif i > 0 and (flags := _INLINE_FLAGS.match(pattern, i)):
            out.append(f"(?{flags[1]}:")
            scoped[-1] += 1
            i = flags.end()
            continue
        elif char == "(":
            scoped.append(0)
        elif char == ")" and len(scoped) > 1:
            out.append(")" * scoped.pop())
        out.append(char)
        i += 1
    out.append(")" * scoped[0])
    return "".join(out)


@lru_cache(maxsize=1024)
def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(go_regex(text))


class Validator:
    """Validates values against a schema; errors come back in document order."""

    def __init__(self, ext: Extensions) -> None:
        self.ext = ext

    def validate(self, value: Any, schema: Schema, path: str = "") -> list[FieldError]:
        errors: list[FieldError] = []
        self._check(value, schema or {}, path, errors)
        return errors

    def _check(self, value: Any, schema: Schema, path: str, errors: list[FieldError]) -> None:
        int_or_string = bool(schema.get(self.ext.int_or_string))
        if value is None:
            typed = schema.get("type") or int_or_string
            if not schema.get("nullable") and typed and not schema.get(self.ext.preserve_unknown_fields):
                errors.append(_type_invalid(path, value, "integer,string" if int_or_string else schema["type"]))
            return
        if int_or_string:  # the reference's conversion types it ["integer", "string"] (validation.go)
            if not isinstance(value, (str, int)) or isinstance(value, bool):
                errors.append(_type_invalid(path, value, "integer,string"))
                return
        elif (wanted := schema.get("type")) and not _matches_type(value, wanted):
            errors.append(_type_invalid(path, value, wanted))
            return
        self._check_enum(value, schema, path, errors)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            self._check_number(value, schema, path, errors)
        elif isinstance(value, str):
            self._check_string(value, schema, path, errors)
        elif isinstance(value, list):
            self._check_array(value, schema, path, errors)
        elif isinstance(value, dict):
            self._check_object(value, schema, path, errors)
        self._check_combinators(value, schema, path, errors)

    def _check_enum(self, value: Any, schema: Schema, path: str, errors: list[FieldError]) -> None:
        enum = schema.get("enum")
        if isinstance(enum, list) and enum and value not in enum:
            errors.append(not_supported(path, value, [str(v) for v in enum]))

    def _check_number(self, value: float, schema: Schema, path: str, errors: list[FieldError]) -> None:
        where = _where(path)
        if (top := schema.get("maximum")) is not None:
            if schema.get("exclusiveMaximum") and value >= top:
                errors.append(invalid(path, value, f"{where} in body should be less than {top}"))
            elif value > top:
                errors.append(invalid(path, value, f"{where} in body should be less than or equal to {top}"))
        if (bottom := schema.get("minimum")) is not None:
            if schema.get("exclusiveMinimum") and value <= bottom:
                errors.append(invalid(path, value, f"{where} in body should be greater than {bottom}"))
            elif value < bottom:
                errors.append(invalid(path, value, f"{where} in body should be greater than or equal to {bottom}"))
        if (factor := schema.get("multipleOf")) and not math.isclose(value / factor, round(value / factor)):
            errors.append(invalid(path, value, f"{where} in body should be a multiple of {factor}"))

    def _check_string(self, value: str, schema: Schema, path: str, errors: list[FieldError]) -> None:
        where = _where(path)
        if (longest := schema.get("maxLength")) is not None and len(value) > longest:
            errors.append(FieldError("FieldValueTooLong", path, f"may not be longer than {longest}", value))
        if (shortest := schema.get("minLength")) is not None and len(value) < shortest:
            errors.append(invalid(path, value, f"{where} in body should be at least {shortest} chars long"))
        if (pattern := schema.get("pattern")) and not _pattern(pattern).search(value):
            errors.append(invalid(path, value, f"{where} in body should match '{pattern}'"))

    def _check_array(self, value: list, schema: Schema, path: str, errors: list[FieldError]) -> None:
        where = _where(path)
        if (most := schema.get("maxItems")) is not None and len(value) > most:
            errors.append(FieldError("FieldValueTooMany", path, f"must have at most {most} items", len(value)))
        if (least := schema.get("minItems")) is not None and len(value) < least:
            errors.append(invalid(path, value, f"{where} in body should have at least {least} items"))
        if schema.get("uniqueItems"):
            seen: list[Any] = []
            for i, item in enumerate(value):
                if item in seen:
                    errors.append(FieldError("FieldValueDuplicate", f"{path}[{i}]", "", item))
                seen.append(item)
        items = schema.get("items")
        if isinstance(items, dict):
            for i, item in enumerate(value):
                self._check(item, items, f"{path}[{i}]", errors)

    def _check_object(self, value: dict, schema: Schema, path: str, errors: list[FieldError]) -> None:
        where = _where(path)
        properties = schema.get("properties") or {}
        for name in schema.get("required") or []:
            if name not in value:
                errors.append(required(_join(path, name)))
        if (most := schema.get("maxProperties")) is not None and len(value) > most:
            errors.append(FieldError("FieldValueTooMany", path, f"must have at most {most} items", len(value)))
        if (least := schema.get("minProperties")) is not None and len(value) < least:
            errors.append(invalid(path, value, f"{where} in body should have at least {least} properties"))
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if not path and key in ROOT_FIELDS:
                continue
            if key in properties:
                self._check(item, properties[key] or {}, _join(path, key), errors)
            elif isinstance(extra, dict):
                self._check(item, extra, _join(path, key), errors)
            elif extra is False:
                errors.append(forbidden(_join(path, key), f"{_join(path, key)} in body is a forbidden property"))

    def _check_combinators(self, value: Any, schema: Schema, path: str, errors: list[FieldError]) -> None:
        where = _where(path)
        for sub in schema.get("allOf") or []:
            self._check(value, sub, path, errors)
        if (any_of := schema.get("anyOf")) and not any(not self.validate(value, sub, path) for sub in any_of):
            errors.append(invalid(path, value, f"{where} in body must validate at least one schema (anyOf)"))
        if (one_of := schema.get("oneOf")) and sum(1 for sub in one_of if not self.validate(value, sub, path)) != 1:
            errors.append(invalid(path, value, f"{where} in body must validate one and only one schema (oneOf)"))
        if isinstance(schema.get("not"), dict) and not self.validate(value, schema["not"], path):
            errors.append(invalid(path, value, f"{where} in body must not validate the schema (not)"))


def prune(
    value: Any, schema: Schema, ext: Extensions, root: bool = True, path: str = "", dropped: list[str] | None = None
) -> None:
    """Drop, in place, every object field the schema does not specify (the reference's pruning); the paths
    of what was dropped go to `dropped` (fieldValidation reports them as unknown fields)."""
    if not isinstance(schema, dict) or schema.get(ext.preserve_unknown_fields):
        if isinstance(value, dict) and isinstance(schema, dict):
            for key, sub in (schema.get("properties") or {}).items():
                if key in value:
                    prune(value[key], sub, ext, False, _join(path, key), dropped)
        return
    if isinstance(value, list):
        items = schema.get("items")
        for i, item in enumerate(value):
            prune(item, items if isinstance(items, dict) else {}, ext, False, f"{path}[{i}]", dropped)
        return
    if not isinstance(value, dict):
        return
    properties = schema.get("properties") or {}
    extra = schema.get("additionalProperties")
    keep = ROOT_FIELDS if root or schema.get(ext.embedded_resource) else ()
    for key in list(value):
        if key in keep:
            continue  # metadata is ObjectMeta whatever the schema says (it may only restrict name)
        if key in properties:
            prune(value[key], properties[key], ext, False, _join(path, key), dropped)
        elif isinstance(extra, dict):
            prune(value[key], extra, ext, False, _join(path, key), dropped)
        elif extra is True:
            continue
        else:
            del value[key]
            if dropped is not None:
                dropped.append(_join(path, key))


def unknown_fields(value: Any, schema: Schema, ext: Extensions) -> list[str]:
    """The paths pruning would drop from `value` (left unchanged)."""
    dropped: list[str] = []
    prune(copy.deepcopy(value), schema, ext, dropped=dropped)
    return dropped


def apply_defaults(value: Any, schema: Schema) -> None:
    """Fill, in place, missing object fields whose schema has a `default` (recursively, as the reference)."""
    if not isinstance(schema, dict):
        return
    if isinstance(value, dict):
        for key, sub in (schema.get("properties") or {}).items():
            if not isinstance(sub, dict):
                continue
            if key not in value and "default" in sub:
                value[key] = copy.deepcopy(sub["default"])
            if key in value:
                apply_defaults(value[key], sub)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for key in value:
                if key not in (schema.get("properties") or {}):
                    apply_defaults(value[key], extra)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for item in value:
            apply_defaults(item, schema["items"])
