"""storage/v1beta1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import meta
from .types import QUANTITY, STRING, Field, ListOf, Struct

_PKG = "storage/v1beta1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "storage"
GROUP_IN_DOMAIN = True
VERSION = "v1beta1"


CSIStorageCapacity = Struct(
    _PKG,
    "CSIStorageCapacity",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("nodeTopology", 2, meta.LabelSelector, nullable=True),
        Field("storageClassName", 3, STRING, omitempty=False, required=True),
        Field("capacity", 4, QUANTITY, nullable=True),
        Field("maximumVolumeSize", 5, QUANTITY, nullable=True),
    ],
    kind=True,
)

CSIStorageCapacityList = Struct(
    _PKG,
    "CSIStorageCapacityList",
    [
        Field("metadata", 1, meta.ListMeta),
        Field("items", 2, ListOf(CSIStorageCapacity), omitempty=False, required=True),
    ],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {"CSIStorageCapacity": CSIStorageCapacity, "CSIStorageCapacityList": CSIStorageCapacityList}
