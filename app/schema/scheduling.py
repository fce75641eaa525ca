"""scheduling/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import meta
from .types import BOOL, INT32, STRING, Field, ListOf, Struct

_PKG = "scheduling/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "scheduling"
GROUP_IN_DOMAIN = True
VERSION = "v1"


PriorityClass = Struct(
    _PKG,
    "PriorityClass",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("value", 2, INT32, omitempty=False),
        Field("globalDefault", 3, BOOL),
        Field("description", 4, STRING),
        Field("preemptionPolicy", 5, STRING, nullable=True),
    ],
    kind=True,
)

PriorityClassList = Struct(
    _PKG,
    "PriorityClassList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(PriorityClass), omitempty=False, required=True)],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {"PriorityClass": PriorityClass, "PriorityClassList": PriorityClassList}
