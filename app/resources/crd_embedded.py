"""Objects a CRD schema marks `x-<product>-embedded-resource`: each must say its apiVersion and kind, and its
metadata is checked as an object's (name a path segment, labels, annotations, finalizers), as the reference's
objectmeta validation does. The custom object's own metadata is the registry's to check."""

from __future__ import annotations

from typing import Any

from ..errors import FieldError, invalid, required
from ..registry.meta import metadata_errors, name_errors
from .crd_schema import Extensions

_KIND_MSG = (
    "may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case "
    "alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric "
    "character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)


def embedded_errors(value: Any, schema: Any, ext: Extensions, path: str = "") -> list[FieldError]:
    if not isinstance(schema, dict):
        return []
    errors: list[FieldError] = []
    if isinstance(value, dict):
        if path and schema.get(ext.embedded_resource):
            errors += _resource_errors(value, path)
        properties, extra = schema.get("properties") or {}, schema.get("additionalProperties")
        for key, item in value.items():
            if key in properties:
                errors += embedded_errors(item, properties[key], ext, f"{path}.{key}" if path else key)
            elif isinstance(extra, dict):
                errors += embedded_errors(item, extra, ext, f"{path}[{key}]")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            errors += embedded_errors(item, schema["items"], ext, f"{path}[{i}]")
    return errors


def _resource_errors(value: dict, path: str) -> list[FieldError]:
    errors = [required(f"{path}.{key}", "must not be empty") for key in ("apiVersion", "kind") if key not in value]
    if "apiVersion" in value:
        errors += _string_errors(value["apiVersion"], f"{path}.apiVersion")
        api_version = value["apiVersion"]
        if isinstance(api_version, str) and api_version.count("/") > 1:
            errors.append(invalid(f"{path}.apiVersion", api_version, f"unexpected GroupVersion string: {api_version}"))
    if "kind" in value:
        errors += _string_errors(value["kind"], f"{path}.kind")
        kind = value["kind"]
        if isinstance(kind, str) and kind and name_errors(kind.lower(), "label"):
            errors.append(invalid(f"{path}.kind", kind, _KIND_MSG))
    if "metadata" in value:
        errors += _metadata_errors(value["metadata"], f"{path}.metadata")
    return errors


def _string_errors(value: Any, path: str) -> list[FieldError]:
    if not isinstance(value, str):
        return [invalid(path, value, "must be a string")]
    return [invalid(path, value, "must not be empty")] if not value else []


def _metadata_errors(meta: Any, path: str) -> list[FieldError]:
    if not isinstance(meta, dict):
        return [invalid(path, meta, "must be an object")]
    named = {**meta, "name": meta.get("name") or "fakename"}  # the reference's stand-in: a name is optional here
    errors = metadata_errors(named, "path", namespaced=False)
    if isinstance(meta.get("namespace"), str) and meta["namespace"]:
        errors += name_errors(meta["namespace"], "label", "metadata.namespace")
    return [
        FieldError(e.reason, path + e.field.removeprefix("metadata"), e.detail, e.value, e.show_value) for e in errors
    ]
