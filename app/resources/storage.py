"""The `storage.<domain>` group: storage classes and the CSI kinds (drivers, nodes, attachments, capacities)."""

from __future__ import annotations

from typing import Any

from ..catalog import Obj, ResourceType, status_subresource
from ..errors import FieldError, forbidden, invalid, not_supported, required
from ..naming import Naming
from ..registry.meta import name_errors, qualified_name_errors
from .common import (
    KindStrategy,
    NoSpecStrategy,
    child,
    dig,
    immutable,
    items,
    non_negative,
    setdefault,
    setdefault_empty,
)
from .defaults import parse_quantity, selector_errors

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


LIFECYCLE_MODES = ["Persistent", "Ephemeral"]
FS_GROUP_POLICIES = ["ReadWriteOnceWithFSType", "File", "None"]
CSI_NODE_ID_MAX_LENGTH = 192


def driver_name_errors(name: Any, path: str) -> list[FieldError]:
    """The reference's ValidateCSIDriverName: required, at most 63 characters, a DNS subdomain (any case)."""
    if not name:
        return [required(path)]
    if not isinstance(name, str):
        return [invalid(path, name, "must be a string")]
    if len(name) > 63:
        return [FieldError("FieldValueTooLong", path, "must have at most 63 bytes", name)]
    return name_errors(name.lower(), "subdomain", path)


class CSIDriverStrategy(KindStrategy):
    """What a CSI driver needs from the cluster; the reference's v1 defaults, most of the spec immutable."""

    generation = False  # a v1.23 server keeps no generation for CSI drivers

    def default(self, obj: Obj) -> None:
        spec = child(obj, "spec")
        for key, value in (
            ("attachRequired", True),
            ("podInfoOnMount", False),
            ("storageCapacity", False),
            ("requiresRepublish", False),
            ("fsGroupPolicy", "ReadWriteOnceWithFSType"),
        ):
            setdefault(spec, key, value)
        if not spec.get("volumeLifecycleModes"):
            spec["volumeLifecycleModes"] = ["Persistent"]

    def validate(self, obj: Obj) -> list[FieldError]:
        errors = driver_name_errors(dig(obj, "metadata", "name"), "metadata.name")
        spec = obj.get("spec") or {}
        for key in ("attachRequired", "podInfoOnMount", "storageCapacity", "requiresRepublish"):
            if not isinstance(spec.get(key), bool):
                errors.append(required(f"spec.{key}"))
        if spec.get("fsGroupPolicy") not in FS_GROUP_POLICIES:
            errors.append(not_supported("spec.fsGroupPolicy", spec.get("fsGroupPolicy"), FS_GROUP_POLICIES))
        for i, mode in enumerate(spec.get("volumeLifecycleModes") or ()):
            if mode not in LIFECYCLE_MODES:
                errors.append(not_supported(f"spec.volumeLifecycleModes[{i}]", mode, LIFECYCLE_MODES))
        for i, request in enumerate(items(spec, "tokenRequests")):
            path = f"spec.tokenRequests[{i}]"
            if request.get("audience") is None:  # "" is an audience: the server's own
                errors.append(required(f"{path}.audience"))
            seconds = request.get("expirationSeconds")
            if isinstance(seconds, int) and seconds < 600:
                errors.append(
                    invalid(f"{path}.expirationSeconds", seconds, "may not specify a duration less than 10 minutes")
                )
            elif isinstance(seconds, int) and seconds > 1 << 32:
                errors.append(
                    invalid(f"{path}.expirationSeconds", seconds, "may not specify a duration larger than 2^32 seconds")
                )
        return errors

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        errors: list[FieldError] = []
        for key in ("attachRequired", "podInfoOnMount", "volumeLifecycleModes", "fsGroupPolicy"):
            errors += immutable(f"spec.{key}", dig(obj, "spec", key), dig(old, "spec", key))
        return errors


class CSINodeStrategy(NoSpecStrategy):
    """The drivers registered on a node (named after it); a registered driver's identity does not change."""

    def validate(self, obj: Obj) -> list[FieldError]:
        drivers = dig(obj, "spec", "drivers")
        if not isinstance(drivers, list):
            return [required("spec.drivers")]
        errors: list[FieldError] = []
        seen: set[str] = set()
        for i, driver in enumerate(drivers):
            path = f"spec.drivers[{i}]"
            if not isinstance(driver, dict):
                errors.append(invalid(path, driver, "must be an object"))
                continue
            name = driver.get("name")
            errors += driver_name_errors(name, f"{path}.name")
            if isinstance(name, str) and name in seen:
                errors.append(FieldError("FieldValueDuplicate", f"{path}.name", value=name))
            seen.add(name if isinstance(name, str) else "")
            node_id = driver.get("nodeID")
            if not node_id:
                errors.append(required(f"{path}.nodeID"))
            elif isinstance(node_id, str) and len(node_id) > CSI_NODE_ID_MAX_LENGTH:
                errors.append(
                    invalid(f"{path}.nodeID", node_id, f"must be {CSI_NODE_ID_MAX_LENGTH} characters or less")
                )
            keys = driver.get("topologyKeys") or []
            for j, key in enumerate(keys):
                if not isinstance(key, str) or not key:
                    errors.append(required(f"{path}.topologyKeys[{j}]"))
                else:
                    errors += qualified_name_errors(key, f"{path}.topologyKeys[{j}]")
                    if key in keys[:j]:
                        errors.append(FieldError("FieldValueDuplicate", f"{path}.topologyKeys[{j}]", value=key))
            errors += non_negative(f"{path}.allocatable.count", dig(driver, "allocatable", "count"))
        return errors

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        before = {d.get("name"): d for d in items(old.get("spec") or {}, "drivers")}
        errors: list[FieldError] = []
        for i, driver in enumerate(items(obj.get("spec") or {}, "drivers")):
            previous = before.get(driver.get("name"))
            if previous is None:
                continue
            for key in ("nodeID", "topologyKeys", "allocatable"):
                errors += immutable(f"spec.drivers[{i}].{key}", driver.get(key), previous.get(key))
        return errors


class VolumeAttachmentStrategy(KindStrategy):
    """A request to attach a volume to a node: the spec is fixed at creation, the attacher reports in status."""

    generation = False

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = obj.get("spec") or {}
        errors = driver_name_errors(spec.get("attacher"), "spec.attacher")
        node = spec.get("nodeName")
        errors += [required("spec.nodeName")] if not node else name_errors(str(node), "subdomain", "spec.nodeName")
        source = spec.get("source") or {}
        given = [key for key in ("persistentVolumeName", "inlineVolumeSpec") if source.get(key) is not None]
        if len(given) != 1:
            errors.append(
                FieldError(
                    "FieldValueRequired",
                    "spec.source",
                    "must specify exactly one of inlineVolumeSpec and persistentVolumeName",
                )
            )
        elif given == ["persistentVolumeName"] and not source["persistentVolumeName"]:
            errors.append(required("spec.source.persistentVolumeName", "must specify non empty persistentVolumeName"))
        return errors

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        if obj.get("spec") != old.get("spec"):
            return [invalid("spec", obj.get("spec"), "field is immutable")]
        return []


class CSIStorageCapacityStrategy(NoSpecStrategy):
    """Capacity a CSI driver reports for a storage class in a topology segment; only the sizes change."""

    def validate(self, obj: Obj) -> list[FieldError]:
        errors: list[FieldError] = []
        class_name = obj.get("storageClassName")
        if not class_name:
            errors.append(required("storageClassName"))
        else:
            errors += name_errors(str(class_name), "subdomain", "storageClassName")
        if obj.get("nodeTopology") is not None:
            errors += selector_errors(obj["nodeTopology"], "nodeTopology")
        for key in ("capacity", "maximumVolumeSize"):
            size = parse_quantity(obj.get(key))
            if size is not None and size < 0:
                errors.append(invalid(key, obj[key], "must be greater than or equal to 0"))
        return errors

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        return immutable("nodeTopology", obj.get("nodeTopology"), old.get("nodeTopology")) + immutable(
            "storageClassName", obj.get("storageClassName"), old.get("storageClassName")
        )


def resource_types(naming: Naming) -> list[ResourceType]:
    group = naming.group("storage")
    return [
        ResourceType(
            group,
            "v1",
            "StorageClass",
            "storageclasses",
            False,
            short_names=("sc",),
            strategy=StorageClassStrategy(naming),
            return_deleted_object=True,
            example={"provisioner": "example.com/provisioner", "parameters": {"type": "standard"}},
        ),
        ResourceType(
            group,
            "v1",
            "CSIDriver",
            "csidrivers",
            False,
            strategy=CSIDriverStrategy(naming),
            example={"spec": {"attachRequired": False, "podInfoOnMount": True}},
        ),
        ResourceType(
            group,
            "v1",
            "CSINode",
            "csinodes",
            False,
            strategy=CSINodeStrategy(naming),
            example={
                "spec": {
                    "drivers": [
                        {
                            "name": "hostpath.csi.example.com",
                            "nodeID": "node-1",
                            "topologyKeys": ["topology.example.com/zone"],
                        }
                    ]
                }
            },
        ),
        ResourceType(
            group,
            "v1",
            "VolumeAttachment",
            "volumeattachments",
            False,
            subresources=(status_subresource(),),
            strategy=VolumeAttachmentStrategy(naming),
            has_status=True,
            example={
                "spec": {
                    "attacher": "hostpath.csi.example.com",
                    "nodeName": "node-1",
                    "source": {"persistentVolumeName": "pv-1"},
                }
            },
        ),
        ResourceType(
            group,
            "v1beta1",
            "CSIStorageCapacity",
            "csistoragecapacities",
            True,
            strategy=CSIStorageCapacityStrategy(naming),
            example={
                "storageClassName": "standard",
                "capacity": "10Gi",
                "nodeTopology": {"matchLabels": {"topology.example.com/zone": "a"}},
            },
        ),
    ]
