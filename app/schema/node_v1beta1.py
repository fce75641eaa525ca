"""node/v1beta1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import core_pod, meta
from .types import QUANTITY, STRING, Field, ListOf, MapOf, Struct

_PKG = "node/v1beta1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "node"
GROUP_IN_DOMAIN = True
VERSION = "v1beta1"


Overhead = Struct(_PKG, "Overhead", [Field("podFixed", 1, MapOf(QUANTITY))])

Scheduling = Struct(
    _PKG,
    "Scheduling",
    [
        Field("nodeSelector", 1, MapOf(STRING), map_type="atomic"),
        Field("tolerations", 2, ListOf(core_pod.Toleration), list_type="atomic"),
    ],
)

RuntimeClass = Struct(
    _PKG,
    "RuntimeClass",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("handler", 2, STRING, omitempty=False, required=True),
        Field("overhead", 3, Overhead, nullable=True),
        Field("scheduling", 4, Scheduling, nullable=True),
    ],
    kind=True,
)

RuntimeClassList = Struct(
    _PKG,
    "RuntimeClassList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(RuntimeClass), omitempty=False, required=True)],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {"RuntimeClass": RuntimeClass, "RuntimeClassList": RuntimeClassList}
