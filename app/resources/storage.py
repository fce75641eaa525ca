"""The `storage.<domain>/v1` group: storage classes."""
from __future__ import annotations

from app.catalog import Obj, ResourceType
from app.errors import FieldError, forbidden, not_supported, required
from app.naming import Naming
from app.resources.common import NoSpecStrategy, immutable, setdefault_empty

RECLAIM_POLICIES = ["Delete", "Retain"]
BINDING_MODES = ["Immediate", "WaitForFirstConsumer"]


class StorageClassStrategy(NoSpecStrategy):
    def default(self, obj: Obj) -> None:
        setdefault_empty(obj, "reclaimPolicy", "Delete")
        setdefault_empty(obj, "volumeBindingMode", "Immediate")

    def validate(self, obj: Obj) -> list[FieldError]:
        errors: list[FieldError] = []
        if not obj.get("provisioner"):
            errors.append(required("provisioner"))
        if obj.get("reclaimPolicy") not in RECLAIM_POLICIES:
            errors.append(not_supported("reclaimPolicy", obj.get("reclaimPolicy"), RECLAIM_POLICIES))
        if obj.get("volumeBindingMode") not in BINDING_MODES:
            errors.append(not_supported("volumeBindingMode", obj.get("volumeBindingMode"), BINDING_MODES))
        return errors

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        errors = []
        for key in ("parameters", "provisioner", "reclaimPolicy"):
            if obj.get(key) != old.get(key):
                errors.append(forbidden(key, f"updates to {key} are forbidden."))
        return errors + immutable("volumeBindingMode", obj.get("volumeBindingMode"), old.get("volumeBindingMode"))


def resource_types(naming: Naming) -> list[ResourceType]:
    return [
        ResourceType(naming.group("storage"), "v1", "StorageClass", "storageclasses", False, short_names=("sc",),
                     strategy=StorageClassStrategy(naming), return_deleted_object=True,
                     example={"provisioner": "example.com/provisioner", "parameters": {"type": "standard"}}),
    ]
