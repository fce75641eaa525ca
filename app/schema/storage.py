"""storage/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""
from __future__ import annotations

from app.schema import core, meta
from app.schema.types import BOOL, STRING, Field, ListOf, MapOf, Struct

_PKG = "storage/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "storage"
GROUP_IN_DOMAIN = True
VERSION = "v1"


StorageClass = Struct(_PKG, "StorageClass", [
    Field("metadata", 1, meta.ObjectMeta),
    Field("provisioner", 2, STRING, omitempty=False, required=True),
    Field("parameters", 3, MapOf(STRING)),
    Field("reclaimPolicy", 4, STRING, nullable=True),
    Field("mountOptions", 5, ListOf(STRING), list_type="atomic"),
    Field("allowVolumeExpansion", 6, BOOL, nullable=True),
    Field("volumeBindingMode", 7, STRING, nullable=True),
    Field("allowedTopologies", 8, ListOf(core.TopologySelectorTerm), list_type="atomic"),
], kind=True)

StorageClassList = Struct(_PKG, "StorageClassList", [
    Field("metadata", 1, meta.ListMeta),
    Field("items", 2, ListOf(StorageClass), omitempty=False, required=True),
], kind=True)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {
    "StorageClass": StorageClass,
    "StorageClassList": StorageClassList,
}
