"""coordination/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import meta
from .types import INT32, MICRO_TIME, STRING, Field, ListOf, Struct

_PKG = "coordination/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "coordination"
GROUP_IN_DOMAIN = True
VERSION = "v1"


LeaseSpec = Struct(
    _PKG,
    "LeaseSpec",
    [
        Field("holderIdentity", 1, STRING, nullable=True),
        Field("leaseDurationSeconds", 2, INT32, nullable=True),
        Field("acquireTime", 3, MICRO_TIME, nullable=True),
        Field("renewTime", 4, MICRO_TIME, nullable=True),
        Field("leaseTransitions", 5, INT32, nullable=True),
        Field("strategy", 6, STRING, nullable=True),
        Field("preferredHolder", 7, STRING, nullable=True),
    ],
)

Lease = Struct(_PKG, "Lease", [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, LeaseSpec)], kind=True)

LeaseList = Struct(
    _PKG,
    "LeaseList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(Lease), omitempty=False, required=True)],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {"Lease": Lease, "LeaseList": LeaseList}
