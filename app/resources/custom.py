"""Custom kinds: each served version of an established CustomResourceDefinition becomes a ResourceType whose
strategy is its schema (prune, default, validate), served by the same registry as built-in kinds.

Versions other than the storage one convert with the `None` strategy: only `apiVersion` changes."""

from __future__ import annotations

import copy
from typing import Any

from ..catalog import Conversion, CustomInfo, Deprecation, Obj, ResourceType, Subresource, status_subresource
from ..errors import FieldError
from ..naming import Naming
from .apiextensions import storage_version
from .common import KindStrategy, dig
from .crd_cel import CelValidator
from .crd_conversion import ConversionWebhook, ServiceResolver
from .crd_embedded import embedded_errors
from .crd_listtype import list_type_errors
from .crd_schema import Extensions, Validator, apply_defaults, prune, unknown_fields
from .crd_typed import typed_declaration


class CustomResourceStrategy(KindStrategy):
    """The CRD version's schema as the strategy: prune, default (create and update), validate (its CEL rules
    too when `cel` says the gate is on; compiled here, once per served version)."""

    def __init__(self, naming: Naming, schema: dict, cel: bool = False) -> None:
        super().__init__(naming)
        self.schema = schema
        self.ext = Extensions(naming.product)
        self.validator = Validator(self.ext)
        self.rules = CelValidator.build(schema, self.ext) if cel else None

    def default(self, obj: Obj) -> None:
        prune(obj, self.schema, self.ext)
        apply_defaults(obj, self.schema)

    def validate(self, obj: Obj) -> list[FieldError]:
        return self._errors(obj, None)

    def validate_update(self, obj: Obj, old: Obj) -> list[FieldError]:
        return self._errors(obj, old) + self.validate_change(obj, old)

    def _errors(self, obj: Obj, old: Obj | None) -> list[FieldError]:
        errors = self.validator.validate(obj, self.schema) + embedded_errors(obj, self.schema, self.ext)
        repeats = list_type_errors(obj, self.schema, self.ext)
        if repeats and (old is None or not list_type_errors(old, self.schema, self.ext)):
            errors += repeats  # as the reference: an object stored with repeats may keep them on update
        if self.rules is not None:
            errors += self.rules.validate(obj, self.schema)
        return errors

    def unknown_fields(self, obj: Obj) -> list[str]:
        return unknown_fields(obj, self.schema, self.ext)

    #: apiextensions-apiserver's crConverter.ConvertFieldLabel words every refusal so
    field_label_errors = True

    def unselectable_fields(self, namespaced: bool) -> frozenset[str]:
        return frozenset() if namespaced else frozenset({"metadata.namespace"})


def _path(text: str) -> list[str]:
    """`.spec.replicas` -> ["spec", "replicas"] (the simple JSON paths scale subresources use)."""
    return [part for part in text.strip().lstrip(".").split(".") if part]


def _get(obj: Obj, path: list[str]) -> Any:
    return dig(obj, *path) if path else None


def _set(obj: Obj, path: list[str], value: Any) -> None:
    for part in path[:-1]:
        nxt = obj.get(part)
        if not isinstance(nxt, dict):
            nxt = obj[part] = {}
        obj = nxt
    obj[path[-1]] = value


def scale_subresource(spec: dict) -> Subresource:
    """`/scale` as an autoscaling/v1 Scale from the CRD's specReplicasPath, statusReplicasPath and
    labelSelectorPath."""
    spec_path, status_path = _path(spec.get("specReplicasPath", "")), _path(spec.get("statusReplicasPath", ""))
    selector_path = _path(spec.get("labelSelectorPath") or "")

    def view(obj: Obj) -> Obj:
        md = obj.get("metadata") or {}
        meta = {k: md[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp") if k in md}
        status: Obj = {"replicas": _get(obj, status_path) or 0}
        if selector_path and isinstance(selector := _get(obj, selector_path), str) and selector:
            status["selector"] = selector
        return {
            "kind": "Scale",
            "apiVersion": "autoscaling/v1",
            "metadata": meta,
            "spec": {"replicas": _get(obj, spec_path) or 0},
            "status": status,
        }

    def merge(old: Obj, scale: Obj) -> Obj:
        out = copy.deepcopy(old)
        _set(out, spec_path, dig(scale, "spec", "replicas", default=0))
        return out

    return Subresource("scale", kind="Scale", group="autoscaling", version="v1", view=view, merge=merge)


def _with_api_version(api_version: str):
    def convert(obj: Obj) -> Obj:
        return {**obj, "apiVersion": api_version}

    return convert


def types_from_crd(
    crd: Obj, naming: Naming, resolve: ServiceResolver | None = None, cel: bool = False
) -> list[ResourceType]:
    """The served versions of a CRD as catalog entries (its storage version always, for the registry); `cel`:
    whether the CustomResourceValidationExpressions gate is on."""
    spec = crd.get("spec") or {}
    names = (crd.get("status") or {}).get("acceptedNames") or spec.get("names") or {}
    group, plural = spec["group"], names["plural"]
    stored = storage_version(crd)
    out = []
    for version in spec.get("versions") or []:
        name = version["name"]
        if not version.get("served") and name != stored:
            continue
        subs = version.get("subresources") or {}
        subresources = []
        if isinstance(subs.get("scale"), dict):
            subresources.append(scale_subresource(subs["scale"]))
        if "status" in subs:
            subresources.append(status_subresource())
        schema = dig(version, "schema", "openAPIV3Schema") or {}
        conversion = None
        if name != stored:
            hook = _webhook(crd, naming, names["kind"], resolve)
            to_storage, from_storage = (
                (_with_api_version(f"{group}/{stored}"), _with_api_version(f"{group}/{name}"))
                if hook is None
                else (_converting(hook, f"{group}/{stored}"), _converting(hook, f"{group}/{name}"))
            )
            conversion = Conversion(
                group,
                str(stored),
                plural,
                to_storage,
                from_storage,
                from_storage_many=None if hook is None else _converting_many(hook, f"{group}/{name}"),
            )
        out.append(
            ResourceType(
                group,
                name,
                names["kind"],
                plural,
                spec.get("scope") == "Namespaced",
                singular=names.get("singular") or names["kind"].lower(),
                short_names=tuple(names.get("shortNames") or ()),
                categories=tuple(names.get("categories") or ()),
                subresources=tuple(subresources),
                strategy=CustomResourceStrategy(naming, schema, cel),
                has_status="status" in subs,
                conversion=conversion,
                deprecation=_deprecation(version, group, names["kind"]),
                custom=CustomInfo(
                    served=bool(version.get("served")),
                    printer_columns=tuple(version.get("additionalPrinterColumns") or ()),
                    schema=schema,
                    typed=typed_declaration(schema, Extensions(naming.product), f"{group}/{name}", names["kind"]),
                ),
            )
        )
    return out


def _webhook(crd: Obj, naming: Naming, kind: str, resolve: ServiceResolver | None) -> ConversionWebhook | None:
    conversion = (crd.get("spec") or {}).get("conversion") or {}
    if conversion.get("strategy") != "Webhook":
        return None
    webhook = conversion.get("webhook") or {}
    return ConversionWebhook(
        naming.group("apiextensions"),
        kind,
        webhook.get("clientConfig") or {},
        tuple(webhook.get("conversionReviewVersions") or ()),
        resolve,
    )


def _converting(hook: ConversionWebhook, desired: str):
    return lambda obj: hook.convert(obj, desired)


def _converting_many(hook: ConversionWebhook, desired: str):
    return lambda objs: hook.convert_many(objs, desired)


def _deprecation(version: dict, group: str, kind: str) -> Deprecation | None:
    """A deprecated version warns with its deprecationWarning, or the reference's default text."""
    if not version.get("deprecated"):
        return None
    text = version.get("deprecationWarning") or f"{group}/{version['name']} {kind} is deprecated"
    return Deprecation("", warning=text)
