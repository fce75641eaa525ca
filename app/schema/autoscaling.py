"""autoscaling/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import meta
from .types import INT32, INT64, STRING, TIME, Field, ListOf, Struct

_PKG = "autoscaling/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "autoscaling"
GROUP_IN_DOMAIN = False
VERSION = "v1"


ScaleSpec = Struct(_PKG, "ScaleSpec", [Field("replicas", 1, INT32)])

ScaleStatus = Struct(
    _PKG, "ScaleStatus", [Field("replicas", 1, INT32, omitempty=False, required=True), Field("selector", 2, STRING)]
)

Scale = Struct(
    _PKG,
    "Scale",
    [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, ScaleSpec), Field("status", 3, ScaleStatus)],
    kind=True,
)

CrossVersionObjectReference = Struct(
    _PKG,
    "CrossVersionObjectReference",
    [
        Field("kind", 1, STRING, omitempty=False, required=True),
        Field("name", 2, STRING, omitempty=False, required=True),
        Field("apiVersion", 3, STRING),
    ],
    struct_type="atomic",
)

HorizontalPodAutoscalerSpec = Struct(
    _PKG,
    "HorizontalPodAutoscalerSpec",
    [
        Field("scaleTargetRef", 1, CrossVersionObjectReference, omitempty=False, required=True),
        Field("minReplicas", 2, INT32, nullable=True),
        Field("maxReplicas", 3, INT32, omitempty=False, required=True),
        Field("targetCPUUtilizationPercentage", 4, INT32, nullable=True),
    ],
)

HorizontalPodAutoscalerStatus = Struct(
    _PKG,
    "HorizontalPodAutoscalerStatus",
    [
        Field("observedGeneration", 1, INT64, nullable=True),
        Field("lastScaleTime", 2, TIME, nullable=True),
        Field("currentReplicas", 3, INT32, omitempty=False, required=True),
        Field("desiredReplicas", 4, INT32, omitempty=False, required=True),
        Field("currentCPUUtilizationPercentage", 5, INT32, nullable=True),
    ],
)

HorizontalPodAutoscaler = Struct(
    _PKG,
    "HorizontalPodAutoscaler",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, HorizontalPodAutoscalerSpec, required=True),
        Field("status", 3, HorizontalPodAutoscalerStatus),
    ],
    kind=True,
)

HorizontalPodAutoscalerList = Struct(
    _PKG,
    "HorizontalPodAutoscalerList",
    [
        Field("metadata", 1, meta.ListMeta),
        Field("items", 2, ListOf(HorizontalPodAutoscaler), omitempty=False, required=True),
    ],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {
    "Scale": Scale,
    "HorizontalPodAutoscaler": HorizontalPodAutoscaler,
    "HorizontalPodAutoscalerList": HorizontalPodAutoscalerList,
}
