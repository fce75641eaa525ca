"""The `apiextensions.<domain>/v1` group: CustomResourceDefinitions (the reference's validation and defaulting).

A CRD is stored like any kind; the `crd` controller (app/controllers/crd.py) accepts its names and marks it
Established, and every worker then serves its versions (app/resources/custom.py, the live catalog)."""

from __future__ import annotations

import re
from typing import Any

from .. import features
from ..catalog import Obj, ResourceType, status_subresource
from ..errors import FieldError, forbidden, invalid, not_supported, required
from ..naming import Naming
from .common import KindStrategy, dig
from .crd_cel import GATE, drop_rules, has_rules, rule_errors
from .crd_memo import MEMO, digest
from .crd_schema import Extensions, Validator
from .crd_structural import MAX_SCHEMA_DEPTH, keyword_errors, keyword_type_errors, value_validations_errors

SCOPES = ["Cluster", "Namespaced"]
CONVERSION_STRATEGIES = ["None", "Webhook"]
#: what the reference accepts as a version name and a plural/singular/kind name
_DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_KIND = re.compile(r"^[A-Za-z]([-A-Za-z0-9]*[A-Za-z0-9])?$")
DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
    "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)


def cleanup_finalizer(naming: Naming) -> str:
    return f"customresourcecleanup.{naming.group('apiextensions')}"


def storage_version(crd: Obj) -> str | None:
    for version in dig(crd, "spec", "versions", default=[]) or []:
        if isinstance(version, dict) and version.get("storage"):
            return str(version.get("name"))
    return None


def _schema_errors(
    schema: Any, path: str, ext: Extensions, depth: int = 0, resource_root: bool = True
) -> list[FieldError]:
    """The reference's structural-schema rules, kept to what makes a schema unusable here; CEL rules are
    checked when the gate is on (they were dropped on write otherwise)."""
    if not isinstance(schema, dict):
        return [invalid(path, schema, "must be an object")]
    if depth > MAX_SCHEMA_DEPTH:
        return [forbidden(path, f"must not be nested more than {MAX_SCHEMA_DEPTH} levels deep")]
    errors = keyword_type_errors(schema, path, ext)
    if errors:
        return errors
    errors = keyword_errors(schema, path)
    typeless_ok = schema.get(ext.int_or_string) or schema.get(ext.preserve_unknown_fields)
    if not schema.get("type") and not typeless_ok:
        errors.append(required(f"{path}.type", "must not be empty for specified object fields"))
    elif schema.get("type") not in (None, "object", "array", "string", "integer", "number", "boolean"):
        errors.append(
            not_supported(
                f"{path}.type", schema.get("type"), ["array", "boolean", "integer", "number", "object", "string"]
            )
        )
    if "properties" in schema and "additionalProperties" in schema:
        errors.append(
            forbidden(f"{path}.additionalProperties", "additionalProperties and properties are mutual exclusive")
        )
    properties = schema.get("properties") or {}
    if not isinstance(properties, dict):
        return [*errors, invalid(f"{path}.properties", properties, "must be an object")]
    for key, sub in properties.items():
        errors += _schema_errors(sub, f"{path}.properties[{key}]", ext, depth + 1, _embedded(sub, ext))
    for keyword in ("items", "additionalProperties"):
        if isinstance(schema.get(keyword), dict):
            errors += _schema_errors(
                schema[keyword], f"{path}.{keyword}", ext, depth + 1, _embedded(schema[keyword], ext)
            )
    errors += value_validations_errors(schema, path, ext, depth)
    if not errors and features.enabled(GATE):
        errors += rule_errors(schema, path, ext, resource_root)
    if "default" in schema and not errors:
        errors += [
            invalid(f"{path}.default", schema["default"], e.detail or str(e))
            for e in Validator(ext).validate(schema["default"], schema)
        ]
    return errors


def _root_rules(schema: Any, path: str, subresources: Any) -> list[FieldError]:
    """The reference's API validation of a version's root schema, before its structural rules."""
    if not isinstance(schema, dict):
        return []
    errors = []
    has_status = isinstance(subresources, dict) and subresources.get("status") is not None
    if has_status and schema.get("type") and schema.get("type") != "object":
        errors.append(
            invalid(
                f"{path}.type",
                schema.get("type"),
                'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
            )
        )
    if schema.get("nullable") is True:
        errors.append(forbidden(f"{path}.nullable", "nullable cannot be true at the root"))
    return errors


def _embedded(schema: Any, ext: Extensions) -> bool:
    return isinstance(schema, dict) and bool(schema.get(ext.embedded_resource))


def _root_schema_errors(schema: Any, path: str, ext: Extensions) -> list[FieldError]:
    """Validity depends on the schema's content, the path and the CEL gate only: a schema found valid once is not
    walked again (an unchanged schema on update); errors are always computed afresh."""
    key = digest(schema) if isinstance(schema, dict) else None
    memo_key = ("valid", key, path, ext.product, features.enabled(GATE))
    if key is not None and MEMO.get(memo_key)[0]:
        return []
    errors = _walk_root_schema(schema, path, ext)
    if key is not None and not errors:
        MEMO.put(memo_key, True)
    return errors


def _has_rules(schema: Any, ext: Extensions) -> bool:
    key = digest(schema) if isinstance(schema, dict) else None
    if key is None:
        return has_rules(schema, ext)
    found, answer = MEMO.get(("rules", key, ext.product))
    if not found:
        answer = has_rules(schema, ext)
        MEMO.put(("rules", key, ext.product), answer)
    return bool(answer)


def _walk_root_schema(schema: Any, path: str, ext: Extensions) -> list[FieldError]:
    if schema is None:
        return [required(path, "schemas are required")]
    errors = _schema_errors(schema, path, ext)
    if isinstance(schema, dict):
        if schema.get("type") and schema.get("type") != "object":  # a missing type is refused as a field's
            errors.append(invalid(f"{path}.type", schema.get("type"), "must be object at the root"))
        properties = schema.get("properties")
        metadata = properties.get("metadata") if isinstance(properties, dict) else None
        if isinstance(metadata, dict) and set(metadata.get("properties") or {}) - {"name", "generateName"}:
            errors.append(
                forbidden(
                    f"{path}.properties[metadata]",
                    "must not specify anything other than name and generateName, but metadata is implicitly specified",
                )
            )
    return errors


def _webhook_errors(conversion: dict) -> list[FieldError]:
    webhook = conversion.get("webhook")
    if not isinstance(webhook, dict):
        return [required("spec.conversion.webhook", "required when strategy is set to Webhook")]
    errors: list[FieldError] = []
    config = webhook["clientConfig"] if isinstance(webhook.get("clientConfig"), dict) else {}
    if bool(config.get("url")) == bool(config.get("service")):
        errors.append(required("spec.conversion.webhook.clientConfig", "exactly one of url or service is required"))
    elif config.get("url") and not str(config["url"]).startswith("https://"):
        errors.append(
            invalid("spec.conversion.webhook.clientConfig.url", config["url"], "'https' is the only allowed URL scheme")
        )
    versions = webhook.get("conversionReviewVersions") or []
    if not any(v in ("v1", "v1beta1") for v in versions):
        errors.append(
            invalid(
                "spec.conversion.webhook.conversionReviewVersions", versions, "must include at least one of v1, v1beta1"
            )
        )
    return errors


class CustomResourceDefinitionStrategy(KindStrategy):
    def __init__(self, naming: Naming) -> None:
        super().__init__(naming)
        self.ext = Extensions(naming.product)

    def default(self, obj: Obj) -> None:
        spec = obj.setdefault("spec", {})
        if not isinstance(spec, dict):
            return
        names = spec.setdefault("names", {})
        if isinstance(names, dict) and isinstance(names.get("kind"), str):
            names.setdefault("singular", names["kind"].lower())
            names.setdefault("listKind", names["kind"] + "List")
        conversion = spec.setdefault("conversion", {})
        if isinstance(conversion, dict):
            conversion.setdefault("strategy", "None")
        spec.setdefault("preserveUnknownFields", False)

    def prepare_for_create(self, obj: Obj) -> None:
        self._drop_disabled_fields(obj, None)
        obj["status"] = {"conditions": [], "acceptedNames": {"plural": "", "kind": ""}, "storedVersions": []}
        self.default(obj)
        self._record_storage_version(obj)
        finalizers = obj.setdefault("metadata", {}).setdefault("finalizers", [])
        if cleanup_finalizer(self.naming) not in finalizers:
            finalizers.append(cleanup_finalizer(self.naming))

    def prepare_for_update(self, obj: Obj, old: Obj) -> None:
        self._drop_disabled_fields(obj, old)
        self.default(obj)
        self._record_storage_version(obj)

    def _drop_disabled_fields(self, obj: Obj, old: Obj | None) -> None:
        """CEL rules are dropped while their gate is off, unless the stored CRD already has some (as the
        reference: a server never strips what an earlier configuration stored)."""
        if features.enabled(GATE) or (old is not None and any(_has_rules(s, self.ext) for s in _schemas(old))):
            return
        for schema in _schemas(obj):
            if _has_rules(schema, self.ext):  # else dropping changes nothing
                drop_rules(schema, self.ext)

    @staticmethod
    def _record_storage_version(obj: Obj) -> None:
        status = obj.setdefault("status", {})
        stored = status.setdefault("storedVersions", [])
        version = storage_version(obj)
        if version and version not in stored:
            stored.append(version)

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = obj["spec"] if isinstance(obj.get("spec"), dict) else {}
        names = spec["names"] if isinstance(spec.get("names"), dict) else {}
        errors: list[FieldError] = []
        group = spec.get("group")
        if not group:
            errors.append(required("spec.group"))
        elif not isinstance(group, str) or not _DNS1123_SUBDOMAIN.match(group):
            errors.append(
                invalid(
                    "spec.group",
                    group,
                    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'",
                )
            )
        elif "." not in group:
            errors.append(invalid("spec.group", group, "should be a domain with at least one dot"))
        plural = names.get("plural")
        name = dig(obj, "metadata", "name", default="")
        if plural and group and name != f"{plural}.{group}":
            errors.append(invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group'))
        scope = spec.get("scope")
        if not scope:
            errors.append(required("spec.scope"))
        elif scope not in SCOPES:
            errors.append(not_supported("spec.scope", scope, SCOPES))
        errors += self._names_errors(names)
        errors += self._versions_errors(spec.get("versions"))
        strategy = (spec.get("conversion") or {}).get("strategy") if isinstance(spec.get("conversion"), dict) else None
        if strategy not in CONVERSION_STRATEGIES:
            errors.append(not_supported("spec.conversion.strategy", strategy, CONVERSION_STRATEGIES))
        elif strategy == "Webhook":
            errors += _webhook_errors(spec.get("conversion") or {})
        if spec.get("preserveUnknownFields") is True:
            errors.append(
                invalid(
                    "spec.preserveUnknownFields",
                    True,
                    "cannot set to true, set "
                    f"{self.ext.preserve_unknown_fields} to true in spec.versions[*].schema instead",
                )
            )
        return errors

    def _names_errors(self, names: dict) -> list[FieldError]:
        errors: list[FieldError] = []
        for key in ("plural", "kind"):
            if not names.get(key):
                errors.append(required(f"spec.names.{key}"))
        for key in ("plural", "singular"):
            value = names.get(key)
            if value and (not isinstance(value, str) or not _DNS1035.match(value)):
                errors.append(invalid(f"spec.names.{key}", value, DNS1035_MSG))
        for key in ("kind", "listKind"):
            value = names.get(key)
            if value and (not isinstance(value, str) or not _KIND.match(value)):
                errors.append(
                    invalid(
                        f"spec.names.{key}",
                        value,
                        "may have mixed case, but should otherwise match: [a-z]([-a-z0-9]*[a-z0-9])?",
                    )
                )
        if names.get("kind") and names.get("kind") == names.get("listKind"):
            errors.append(invalid("spec.names.listKind", names["listKind"], "kind and listKind may not be the same"))
        for i, short in enumerate(names.get("shortNames") or []):
            if not isinstance(short, str) or not _DNS1035.match(short):
                errors.append(invalid(f"spec.names.shortNames[{i}]", short, DNS1035_MSG))
        return errors

    def _versions_errors(self, versions: Any) -> list[FieldError]:
        if not isinstance(versions, list) or not versions:
            return [required("spec.versions", "must have exactly one version marked as storage version")]
        errors: list[FieldError] = []
        seen: set[str] = set()
        storage = 0
        for i, version in enumerate(versions):
            path = f"spec.versions[{i}]"
            if not isinstance(version, dict):
                errors.append(invalid(path, version, "must be an object"))
                continue
            name = version.get("name")
            if not name:
                errors.append(required(f"{path}.name"))
            elif not isinstance(name, str) or not _DNS1035.match(name):
                errors.append(invalid(f"{path}.name", name, DNS1035_MSG))
            elif name in seen:
                errors.append(FieldError("FieldValueDuplicate", f"{path}.name", "", name))
            seen.add(str(name))
            storage += bool(version.get("storage"))
            schema = dig(version, "schema", "openAPIV3Schema")
            errors += _root_rules(schema, f"{path}.schema.openAPIV3Schema", version.get("subresources"))
            errors += _root_schema_errors(schema, f"{path}.schema.openAPIV3Schema", self.ext)
            subresources = version["subresources"] if isinstance(version.get("subresources"), dict) else {}
            scale = subresources.get("scale")
            if isinstance(scale, dict):
                for key in ("specReplicasPath", "statusReplicasPath"):
                    if not str(scale.get(key) or "").startswith("."):
                        errors.append(
                            invalid(
                                f"{path}.subresources.scale.{key}",
                                scale.get(key),
                                "should be a json path starting with .",
                            )
                        )
        if storage != 1:
            errors.append(
                invalid(
                    "spec.versions",
                    versions if storage else None,
                    "must have exactly one version marked as storage version",
                )
            )
        if not any(isinstance(v, dict) and v.get("served") for v in versions):
            errors.append(invalid("spec.versions", None, "must have at least one version marked as served"))
        return errors

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        errors = []
        for key in ("group", "scope"):
            if dig(obj, "spec", key) != dig(old, "spec", key):
                errors.append(invalid(f"spec.{key}", dig(obj, "spec", key), "field is immutable"))
        stored = dig(old, "status", "storedVersions", default=[]) or []
        present = {v.get("name") for v in dig(obj, "spec", "versions", default=[]) or [] if isinstance(v, dict)}
        for version in stored:
            if version not in present:
                errors.append(invalid("status.storedVersions[0]", version, "must appear in spec.versions"))
        return errors


def _schemas(crd: Obj) -> list[Any]:
    return [
        dig(v, "schema", "openAPIV3Schema")
        for v in dig(crd, "spec", "versions", default=[]) or []
        if isinstance(v, dict)
    ]


def resource_types(naming: Naming) -> list[ResourceType]:
    example = {
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {"spec": {"type": "object", "properties": {"size": {"type": "integer"}}}},
                        }
                    },
                }
            ],
        }
    }
    return [
        ResourceType(
            naming.group("apiextensions"),
            "v1",
            "CustomResourceDefinition",
            "customresourcedefinitions",
            False,
            short_names=("crd", "crds"),
            categories=("api-extensions",),
            subresources=(status_subresource(),),
            strategy=CustomResourceDefinitionStrategy(naming),
            has_status=True,
            example=example,
        )
    ]
