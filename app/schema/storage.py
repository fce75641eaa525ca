"""storage/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import core, core_volume, meta
from .types import BOOL, INT32, INT64, STRING, TIME, Field, ListOf, MapOf, Struct

_PKG = "storage/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "storage"
GROUP_IN_DOMAIN = True
VERSION = "v1"


StorageClass = Struct(
    _PKG,
    "StorageClass",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("provisioner", 2, STRING, omitempty=False, required=True),
        Field("parameters", 3, MapOf(STRING)),
        Field("reclaimPolicy", 4, STRING, nullable=True),
        Field("mountOptions", 5, ListOf(STRING), list_type="atomic"),
        Field("allowVolumeExpansion", 6, BOOL, nullable=True),
        Field("volumeBindingMode", 7, STRING, nullable=True),
        Field("allowedTopologies", 8, ListOf(core.TopologySelectorTerm), list_type="atomic"),
    ],
    kind=True,
)

StorageClassList = Struct(
    _PKG,
    "StorageClassList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(StorageClass), omitempty=False, required=True)],
    kind=True,
)

TokenRequest = Struct(
    _PKG,
    "TokenRequest",
    [Field("audience", 1, STRING, omitempty=False, required=True), Field("expirationSeconds", 2, INT64, nullable=True)],
)

CSIDriverSpec = Struct(
    _PKG,
    "CSIDriverSpec",
    [
        Field("attachRequired", 1, BOOL, nullable=True),
        Field("podInfoOnMount", 2, BOOL, nullable=True),
        Field("volumeLifecycleModes", 3, ListOf(STRING), list_type="set"),
        Field("storageCapacity", 4, BOOL, nullable=True),
        Field("fsGroupPolicy", 5, STRING, nullable=True),
        Field("tokenRequests", 6, ListOf(TokenRequest), list_type="atomic"),
        Field("requiresRepublish", 7, BOOL, nullable=True),
        Field("seLinuxMount", 8, BOOL, nullable=True),
        Field("nodeAllocatableUpdatePeriodSeconds", 9, INT64, nullable=True),
        Field("serviceAccountTokenInSecrets", 10, BOOL, nullable=True),
        Field("preventPodSchedulingIfMissing", 11, BOOL, nullable=True),
    ],
)

CSIDriver = Struct(
    _PKG,
    "CSIDriver",
    [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, CSIDriverSpec, omitempty=False, required=True)],
    kind=True,
)

CSIDriverList = Struct(
    _PKG,
    "CSIDriverList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(CSIDriver), omitempty=False, required=True)],
    kind=True,
)

VolumeNodeResources = Struct(_PKG, "VolumeNodeResources", [Field("count", 1, INT32, nullable=True)])

CSINodeDriver = Struct(
    _PKG,
    "CSINodeDriver",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("nodeID", 2, STRING, omitempty=False, required=True),
        Field("topologyKeys", 3, ListOf(STRING), omitempty=False, list_type="atomic"),
        Field("allocatable", 4, VolumeNodeResources, nullable=True),
    ],
)

CSINodeSpec = Struct(
    _PKG,
    "CSINodeSpec",
    [
        Field(
            "drivers",
            1,
            ListOf(CSINodeDriver),
            omitempty=False,
            required=True,
            list_type="map",
            list_map_keys=("name",),
            patch_strategy="merge",
            patch_merge_key="name",
        )
    ],
)

CSINode = Struct(
    _PKG,
    "CSINode",
    [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, CSINodeSpec, omitempty=False, required=True)],
    kind=True,
)

CSINodeList = Struct(
    _PKG,
    "CSINodeList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(CSINode), omitempty=False, required=True)],
    kind=True,
)

VolumeAttachmentSource = Struct(
    _PKG,
    "VolumeAttachmentSource",
    [
        Field("persistentVolumeName", 1, STRING, nullable=True),
        Field("inlineVolumeSpec", 2, core_volume.PersistentVolumeSpec, nullable=True),
    ],
)

VolumeAttachmentSpec = Struct(
    _PKG,
    "VolumeAttachmentSpec",
    [
        Field("attacher", 1, STRING, omitempty=False, required=True),
        Field("source", 2, VolumeAttachmentSource, omitempty=False, required=True),
        Field("nodeName", 3, STRING, omitempty=False, required=True),
    ],
)

VolumeError = Struct(
    _PKG,
    "VolumeError",
    [Field("time", 1, TIME), Field("message", 2, STRING), Field("errorCode", 3, INT32, nullable=True)],
)

VolumeAttachmentStatus = Struct(
    _PKG,
    "VolumeAttachmentStatus",
    [
        Field("attached", 1, BOOL, omitempty=False, required=True),
        Field("attachmentMetadata", 2, MapOf(STRING)),
        Field("attachError", 3, VolumeError, nullable=True),
        Field("detachError", 4, VolumeError, nullable=True),
    ],
)

VolumeAttachment = Struct(
    _PKG,
    "VolumeAttachment",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, VolumeAttachmentSpec, omitempty=False, required=True),
        Field("status", 3, VolumeAttachmentStatus),
    ],
    kind=True,
)

VolumeAttachmentList = Struct(
    _PKG,
    "VolumeAttachmentList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(VolumeAttachment), omitempty=False, required=True)],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {
    "StorageClass": StorageClass,
    "StorageClassList": StorageClassList,
    "CSIDriver": CSIDriver,
    "CSIDriverList": CSIDriverList,
    "CSINode": CSINode,
    "CSINodeList": CSINodeList,
    "VolumeAttachment": VolumeAttachment,
    "VolumeAttachmentList": VolumeAttachmentList,
}
