"""fieldValidation on writes, driven by the typed schemas (`app.schema`).

Findings use the reference's words and paths: `unknown field "spec.template.spec.containers[0].imagee"`,
`duplicate field "spec.replicas"`. The `fieldValidation` parameter decides what they become:
Strict -> on POST/PUT the reference's decode error, 400 BadRequest `<Kind> in version "v1" cannot be handled as
a <Kind>: strict decoding error: unknown field "x", ...` (create.go/update.go, transformDecodeError), on PATCH a
422 Invalid with one cause per field; Warn (the default) -> one `Warning` header each; Ignore -> nothing. In every
mode unknown fields are dropped before the object is stored, as the reference's typed decoder drops them, and a
value of the wrong type is a decode error in Go's words (400 on POST/PUT, 422 on PATCH). Kinds without a
declaration are checked in metadata only. Protobuf bodies cannot carry unknown fields or repeated keys.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...errors import BadRequest, FieldError, Invalid
from ...registry.patch import MERGE_PATCH, STRATEGIC_MERGE_PATCH, apply_patch
from ...schema import meta
from ...schema.types import Struct
from .duplicates import duplicates, json_duplicates
from .patch import prune_patch
from .walker import Finding, Walker, finding_error

DIRECTIVES = ("Ignore", "Warn", "Strict")
TEXT_MEDIA_TYPES = ("application/json", "application/yaml", "application/yml", "text/yaml")


def directive(value: str | None) -> str:
    if value in (None, ""):
        return "Warn"
    if value not in DIRECTIVES:
        raise BadRequest(f'fieldValidation: Unsupported value: "{value}": supported values: "Ignore", "Strict", "Warn"')
    return value


@dataclass
class Checked:
    obj: Any  # the object without unknown fields
    findings: list[Finding]
    errors: list[FieldError]  # type errors: fatal in every mode
    decode_errors: list[str] = field(default_factory=list)  # the same, in the reference decoder's words


def walk(schema: Struct | None, obj: Any, repeated: list[str]) -> Checked:
    """Check `obj` against `schema` (or only its metadata when there is none)."""
    walker = Walker(frozenset(repeated))
    if schema is not None and isinstance(obj, dict):
        return Checked(walker.struct(schema, obj, ""), walker.findings, walker.errors, walker.decode_errors)
    md = obj.get("metadata") if isinstance(obj, dict) else None
    if isinstance(md, dict):
        obj = {**obj, "metadata": walker.struct(meta.ObjectMeta, md, "metadata")}
    outside = [Finding("duplicate", p) for p in repeated if not p.startswith(("metadata.", "metadata["))]
    return Checked(obj, outside + walker.findings, walker.errors, walker.decode_errors)


def check_object(schema: Struct | None, obj: Any, body: bytes, media: str) -> Checked:
    """A decoded POST/PUT body checked against its kind's schema."""
    if media not in TEXT_MEDIA_TYPES:
        return Checked(obj, [], [])  # protobuf: typed on the wire already
    return walk(schema, obj, duplicates(body, media))


def unknown(path: str) -> Finding:
    return Finding("unknown", path)


def enforce(mode: str, checked: Checked, kind: str, group: str, version: str, name: str = "") -> list[str]:
    """A POST/PUT body: raise the reference's decode error (400) for a type error or, in Strict, the findings;
    return the warnings of Warn. A type error wins: the decoder stops before it reports unknown fields."""
    handled = f'{kind} in version "{version}" cannot be handled as a {kind}: '
    if checked.errors:
        first = checked.decode_errors[0] if checked.decode_errors else str(checked.errors[0])
        raise BadRequest(handled + first)
    if not checked.findings or mode == "Ignore":
        return []
    texts = list(dict.fromkeys(f.text for f in checked.findings))
    if mode == "Strict":
        raise BadRequest(handled + "strict decoding error: " + ", ".join(texts))
    return texts


def _enforce_patch(mode: str, checked: Checked, kind: str, group: str, version: str, name: str) -> list[str]:
    """A patched object: type errors and (in Strict) findings are 422 Invalid, as the reference's patch handler
    answers them (patch.go wraps decode errors of the patched object in NewInvalid)."""
    if checked.errors:
        strict = [finding_error(f) for f in checked.findings] if mode == "Strict" else []
        raise Invalid(kind, group, name, strict + checked.errors)
    if not checked.findings or mode == "Ignore":
        return []
    texts = list(dict.fromkeys(f.text for f in checked.findings))
    if mode == "Strict":
        error = Invalid(kind, group, name, [finding_error(f) for f in checked.findings])
        error.message = (
            f'{kind} in version "{version}" cannot be handled as a {kind}: strict decoding error: ' + ", ".join(texts)
        )
        raise error
    return texts


def object_name(obj: Any) -> str:
    md = obj.get("metadata") if isinstance(obj, dict) else None
    name = md.get("name") if isinstance(md, dict) else None
    return name if isinstance(name, str) else ""


def check_patch(
    mode: str,
    schema: Struct,
    patch_type: str,
    body: bytes,
    current: dict,
    kind: str,
    group: str,
    version: str,
    name: str,
) -> tuple[bytes, list[str]]:
    """Validate the patched object; report what the patch introduced; return the body to apply
    (without unknown fields) and the warnings. Patch errors raise as the store would raise them."""
    patched = apply_patch(patch_type, body, current, schema)
    before = walk(schema, current, [])
    after = walk(schema, patched, json_duplicates(body) if patch_type in (MERGE_PATCH, STRATEGIC_MERGE_PATCH) else [])
    old_findings, old_errors = set(before.findings), {str(e) for e in before.errors}
    checked = Checked(
        after.obj,
        [f for f in after.findings if f not in old_findings],
        [e for e in after.errors if str(e) not in old_errors],
    )
    warnings = _enforce_patch(mode, checked, kind, group, version, name)
    if any(f.what == "unknown" for f in checked.findings):
        body = prune_patch(schema, patch_type, body)
    return body, warnings


def check_schemaless_patch(
    mode: str,
    unknown_of: Callable[[Any], list[str]],
    patch_type: str,
    body: bytes,
    current: dict,
    kind: str,
    group: str,
    version: str,
    name: str,
) -> list[str]:
    """A JSON or merge patch of a kind without a declaration (a custom kind): the fields its strategy reports as
    unknown in the patched object that were not in the object before, and a merge patch's repeated keys."""
    patched = apply_patch(patch_type, body, current)
    before = set(unknown_of(current))
    findings = [Finding("duplicate", p) for p in json_duplicates(body)] if patch_type == MERGE_PATCH else []
    findings += [unknown(p) for p in unknown_of(patched) if p not in before]
    return _enforce_patch(mode, Checked(patched, findings, []), kind, group, version, name)


_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def warning_header(text: str) -> str:
    """A `299 - "<text>"` Warning value: quotes and backslashes escaped as the reference does, control characters
    (which a header may not carry) as \\u escapes, and UTF-8 on the wire (as latin-1 code points, WSGI's way)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", escaped)
    return f'299 - "{escaped}"'.encode().decode("latin-1")


def check_options(schema: Struct, obj: dict) -> None:
    """An options body (DeleteOptions, ...) decodes into its typed struct: a value of the wrong type is 400
    BadRequest in Go's wording, as the reference's decoder reports it."""
    walker = Walker()
    walker.struct(schema, obj, "")
    if walker.decode_errors:
        raise BadRequest(walker.decode_errors[0])
