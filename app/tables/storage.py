"""Printers for the CSI kinds of the storage group, with the reference's columns and empty-value spellings."""

from __future__ import annotations

from datetime import datetime

from .columns import (
    UNSET,
    Cell,
    Column,
    Obj,
    TableSpec,
    age,
    age_column,
    count,
    mapping,
    name_column,
    name_of,
    table,
    text,
)


def _flag(obj: Obj, key: str, default: bool) -> bool:
    value = mapping(obj, "spec").get(key)
    return value if isinstance(value, bool) else default


def _csi_driver_cells(obj: Obj, now: datetime) -> list[Cell]:
    spec = mapping(obj, "spec")
    modes = ",".join(str(m) for m in spec.get("volumeLifecycleModes") or ()) or "<none>"
    requests = spec.get("tokenRequests")
    audiences = (
        UNSET if requests is None else ",".join(str(r.get("audience", "")) for r in requests if isinstance(r, dict))
    )
    return [
        name_of(obj),
        _flag(obj, "attachRequired", True),
        _flag(obj, "podInfoOnMount", False),
        _flag(obj, "storageCapacity", False),
        audiences,
        _flag(obj, "requiresRepublish", False),
        modes,
        age(obj, now),
    ]


CSIDRIVER_TABLE = table(
    [
        name_column(),
        Column(
            "AttachRequired", "boolean", "attachRequired indicates this CSI volume driver requires an attach operation."
        ),
        Column(
            "PodInfoOnMount",
            "boolean",
            "podInfoOnMount indicates this CSI volume driver requires additional "
            "pod information (like podName, podUID, etc.) during mount operations.",
        ),
        Column(
            "StorageCapacity",
            "boolean",
            "storageCapacity indicates that the CSI volume driver wants pod "
            "scheduling to consider the storage capacity that the driver "
            "deployment will report.",
        ),
        Column(
            "TokenRequests",
            description="tokenRequests indicates the CSI driver needs pods' service account "
            "tokens it is mounting volume for to do necessary authentication.",
        ),
        Column(
            "RequiresRepublish",
            "boolean",
            "requiresRepublish indicates the CSI driver wants `NodePublishVolume` "
            "being periodically called to reflect any possible change in the "
            "mounted volume.",
        ),
        Column(
            "Modes", description="volumeLifecycleModes defines what kind of volumes this CSI volume driver supports."
        ),
        age_column(),
    ],
    _csi_driver_cells,
)

CSINODE_TABLE = table(
    [
        name_column(),
        Column("Drivers", "integer", "Drivers indicates the number of CSI drivers registered on the node"),
        age_column(),
    ],
    lambda obj, now: [name_of(obj), count(obj, "spec", "drivers"), age(obj, now)],
)

VOLUMEATTACHMENT_TABLE = table(
    [
        name_column(),
        Column(
            "Attacher",
            format="name",
            description="attacher indicates the name of the volume driver that MUST handle this request.",
        ),
        Column("PV", description="persistentVolumeName represents the name of the persistent volume to attach."),
        Column("Node", description="nodeName represents the node that the volume should be attached to."),
        Column("Attached", "boolean", "attached indicates the volume is successfully attached."),
        age_column(),
    ],
    lambda obj, now: [
        name_of(obj),
        text(obj, "spec", "attacher"),
        text(obj, "spec", "source", "persistentVolumeName"),
        text(obj, "spec", "nodeName"),
        mapping(obj, "status").get("attached") is True,
        age(obj, now),
    ],
)

CSISTORAGECAPACITY_TABLE = table(
    [
        name_column(),
        Column(
            "StorageClassName",
            description="storageClassName represents the name of the StorageClass that the "
            "reported capacity applies to.",
        ),
        Column(
            "Capacity",
            description="capacity is the value reported by the CSI driver in its GetCapacityResponse "
            "for a GetCapacityRequest with topology and parameters that match the previous "
            "fields.",
        ),
    ],
    lambda obj, now: [
        name_of(obj),
        text(obj, "storageClassName"),
        str(obj["capacity"]) if obj.get("capacity") is not None else UNSET,
    ],
)


def tables() -> dict[tuple[str, str], TableSpec]:
    """(group prefix, plural) -> printer."""
    return {
        ("storage", "csidrivers"): CSIDRIVER_TABLE,
        ("storage", "csinodes"): CSINODE_TABLE,
        ("storage", "volumeattachments"): VOLUMEATTACHMENT_TABLE,
        ("storage", "csistoragecapacities"): CSISTORAGECAPACITY_TABLE,
    }
