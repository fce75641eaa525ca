"""The reference's class plugins: DefaultStorageClass and DefaultIngressClass (a new claim or ingress without a
class gets the one class marked default; two marked defaults refuse it) and PersistentVolumeClaimResize (a claim
grows only when its class allows volume expansion)."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from ..registry.admission import CREATE, UPDATE, Attributes, Plugin, forbidden, is_kind, object_spec
from ..resources.defaults import parse_quantity
from .source import ConfigurationSource

if TYPE_CHECKING:
    from ..registry.store import Registry
    from ..storage.hub import WatchHub


def storage_classes(registry: Registry, hub: WatchHub | None) -> ConfigurationSource[dict]:
    rt = registry.catalog.known_type(registry.naming.group("storage"), "v1", "storageclasses")
    return ConfigurationSource(registry, rt, lambda obj: [obj], hub)


class DefaultClass(Plugin):
    """A new object of `group`/`plural` whose `field` is unset gets the name of the one class marked default."""

    operations = frozenset({CREATE})
    group, plural, field = "", "", ""
    too_many = "{} default classes were found"

    def __init__(self, classes: ConfigurationSource[dict], marks: tuple[str, ...]) -> None:
        self.classes, self.marks = classes, marks

    def handles(self, attrs: Attributes) -> bool:
        return attrs.operation == CREATE and is_kind(attrs, self.group, self.plural)

    def unclassed(self, attrs: Attributes) -> bool:
        return object_spec(attrs).get(self.field) is None  # "" asks for no class at all

    def admit(self, attrs: Attributes) -> None:
        if not self.unclassed(attrs):
            return
        defaults = [
            c
            for c in self.classes.current()
            if any(((c.get("metadata") or {}).get("annotations") or {}).get(mark) == "true" for mark in self.marks)
        ]
        if len(defaults) > 1:
            raise forbidden(attrs, "Internal error occurred: " + self.too_many.format(len(defaults)))
        if defaults:
            object_spec(attrs)[self.field] = defaults[0]["metadata"]["name"]


class DefaultStorageClass(DefaultClass):
    name, plural, field = "DefaultStorageClass", "persistentvolumeclaims", "storageClassName"
    too_many = "{} default StorageClasses were found"

    def __init__(self, registry: Registry, hub: WatchHub | None) -> None:
        naming = registry.naming
        super().__init__(
            storage_classes(registry, hub),
            (
                naming.key_group("storageclass") + "/is-default-class",
                naming.key_group("storageclass.beta") + "/is-default-class",
            ),
        )


class DefaultIngressClass(DefaultClass):
    name, plural, field = "DefaultIngressClass", "ingresses", "ingressClassName"
    too_many = "{} default IngressClasses were found, only 1 allowed"

    def __init__(self, registry: Registry, hub: WatchHub | None) -> None:
        naming = registry.naming
        self.group = naming.group("networking")
        self.legacy_annotation = naming.key("ingress.class")
        rt = registry.catalog.known_type(self.group, "v1", "ingressclasses")
        super().__init__(
            ConfigurationSource(registry, rt, lambda obj: [obj], hub),
            (naming.key_group("ingressclass") + "/is-default-class",),
        )

    def unclassed(self, attrs: Attributes) -> bool:
        annotations = ((attrs.obj or {}).get("metadata") or {}).get("annotations") or {}
        return super().unclassed(attrs) and self.legacy_annotation not in annotations


class PersistentVolumeClaimResize(Plugin):
    name = "PersistentVolumeClaimResize"
    operations = frozenset({UPDATE})

    def __init__(self, registry: Registry, hub: WatchHub | None) -> None:
        self.classes = storage_classes(registry, hub)

    def handles(self, attrs: Attributes) -> bool:
        return attrs.operation == UPDATE and is_kind(attrs, "", "persistentvolumeclaims")

    def validate(self, attrs: Attributes) -> None:
        def size(obj: dict | None) -> Decimal | None:
            resources = ((obj or {}).get("spec") or {}).get("resources") or {}
            return parse_quantity((resources.get("requests") or {}).get("storage"))

        new, old = size(attrs.obj), size(attrs.old)
        if new is None or old is None or new <= old:
            return
        if ((attrs.old or {}).get("status") or {}).get("phase") != "Bound":
            raise forbidden(attrs, "Only bound persistent volume claims can be expanded")
        class_name = ((attrs.obj or {}).get("spec") or {}).get("storageClassName")
        old_class = ((attrs.old or {}).get("spec") or {}).get("storageClassName")
        found = next((c for c in self.classes.current() if c["metadata"]["name"] == class_name), None)
        if not class_name or class_name != old_class or found is None or found.get("allowVolumeExpansion") is not True:
            raise forbidden(
                attrs,
                "only dynamically provisioned pvc can be resized and the storageclass that "
                "provisions the pvc must support resize",
            )


class StorageObjectInUseProtection(Plugin):
    """New claims and volumes carry the protection finalizers, so they outlive their last user: the pvcprotection
    and pvprotection controllers remove them once nothing uses the object."""

    name = "StorageObjectInUseProtection"
    operations = frozenset({CREATE})

    def __init__(self, registry: Registry) -> None:
        self.finalizers = {
            "persistentvolumeclaims": registry.naming.key("pvc-protection"),
            "persistentvolumes": registry.naming.key("pv-protection"),
        }

    def handles(self, attrs: Attributes) -> bool:
        return (
            attrs.operation == CREATE
            and attrs.rt.group == ""
            and attrs.rt.plural in self.finalizers
            and not attrs.subresource
            and attrs.obj is not None
        )

    def admit(self, attrs: Attributes) -> None:
        metadata = (attrs.obj or {}).setdefault("metadata", {})
        finalizer = self.finalizers[attrs.rt.plural]
        if finalizer not in (metadata.get("finalizers") or []):
            metadata["finalizers"] = [*(metadata.get("finalizers") or []), finalizer]
