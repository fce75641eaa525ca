"""autoscaling/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""
from __future__ import annotations

from app.schema import meta
from app.schema.types import INT32, STRING, Field, Struct

_PKG = "autoscaling/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "autoscaling"
GROUP_IN_DOMAIN = False
VERSION = "v1"


ScaleSpec = Struct(_PKG, "ScaleSpec", [
    Field("replicas", 1, INT32),
])

ScaleStatus = Struct(_PKG, "ScaleStatus", [
    Field("replicas", 1, INT32, omitempty=False, required=True),
    Field("selector", 2, STRING),
])

Scale = Struct(_PKG, "Scale", [
    Field("metadata", 1, meta.ObjectMeta),
    Field("spec", 2, ScaleSpec),
    Field("status", 3, ScaleStatus),
], kind=True)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {
    "Scale": Scale,
}
