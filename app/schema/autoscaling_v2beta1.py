"""autoscaling/v2beta1 declarations: field names and numbers as the reference's v0.35.7 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import meta
from .types import INT32, INT64, QUANTITY, STRING, TIME, Field, ListOf, Struct

_PKG = "autoscaling/v2beta1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "autoscaling"
GROUP_IN_DOMAIN = False
VERSION = "v2beta1"


CrossVersionObjectReference = Struct(
    _PKG,
    "CrossVersionObjectReference",
    [
        Field("kind", 1, STRING, omitempty=False, required=True),
        Field("name", 2, STRING, omitempty=False, required=True),
        Field("apiVersion", 3, STRING),
    ],
)

ObjectMetricSource = Struct(
    _PKG,
    "ObjectMetricSource",
    [
        Field("target", 1, CrossVersionObjectReference, omitempty=False, required=True),
        Field("metricName", 2, STRING, omitempty=False, required=True),
        Field("targetValue", 3, QUANTITY, omitempty=False, required=True),
        Field("selector", 4, meta.LabelSelector, nullable=True),
        Field("averageValue", 5, QUANTITY, nullable=True),
    ],
)

PodsMetricSource = Struct(
    _PKG,
    "PodsMetricSource",
    [
        Field("metricName", 1, STRING, omitempty=False, required=True),
        Field("targetAverageValue", 2, QUANTITY, omitempty=False, required=True),
        Field("selector", 3, meta.LabelSelector, nullable=True),
    ],
)

ResourceMetricSource = Struct(
    _PKG,
    "ResourceMetricSource",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("targetAverageUtilization", 2, INT32, nullable=True),
        Field("targetAverageValue", 3, QUANTITY, nullable=True),
    ],
)

ContainerResourceMetricSource = Struct(
    _PKG,
    "ContainerResourceMetricSource",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("targetAverageUtilization", 2, INT32, nullable=True),
        Field("targetAverageValue", 3, QUANTITY, nullable=True),
        Field("container", 4, STRING, omitempty=False, required=True),
    ],
)

ExternalMetricSource = Struct(
    _PKG,
    "ExternalMetricSource",
    [
        Field("metricName", 1, STRING, omitempty=False, required=True),
        Field("metricSelector", 2, meta.LabelSelector, nullable=True),
        Field("targetValue", 3, QUANTITY, nullable=True),
        Field("targetAverageValue", 4, QUANTITY, nullable=True),
    ],
)

MetricSpec = Struct(
    _PKG,
    "MetricSpec",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("object", 2, ObjectMetricSource, nullable=True),
        Field("pods", 3, PodsMetricSource, nullable=True),
        Field("resource", 4, ResourceMetricSource, nullable=True),
        Field("containerResource", 7, ContainerResourceMetricSource, nullable=True),
        Field("external", 5, ExternalMetricSource, nullable=True),
    ],
)

HorizontalPodAutoscalerSpec = Struct(
    _PKG,
    "HorizontalPodAutoscalerSpec",
    [
        Field("scaleTargetRef", 1, CrossVersionObjectReference, omitempty=False, required=True),
        Field("minReplicas", 2, INT32, nullable=True),
        Field("maxReplicas", 3, INT32, omitempty=False, required=True),
        Field("metrics", 4, ListOf(MetricSpec), list_type="atomic"),
    ],
)

ObjectMetricStatus = Struct(
    _PKG,
    "ObjectMetricStatus",
    [
        Field("target", 1, CrossVersionObjectReference, omitempty=False, required=True),
        Field("metricName", 2, STRING, omitempty=False, required=True),
        Field("currentValue", 3, QUANTITY, omitempty=False, required=True),
        Field("selector", 4, meta.LabelSelector, nullable=True),
        Field("averageValue", 5, QUANTITY, nullable=True),
    ],
)

PodsMetricStatus = Struct(
    _PKG,
    "PodsMetricStatus",
    [
        Field("metricName", 1, STRING, omitempty=False, required=True),
        Field("currentAverageValue", 2, QUANTITY, omitempty=False, required=True),
        Field("selector", 3, meta.LabelSelector, nullable=True),
    ],
)

ResourceMetricStatus = Struct(
    _PKG,
    "ResourceMetricStatus",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("currentAverageUtilization", 2, INT32, nullable=True),
        Field("currentAverageValue", 3, QUANTITY, omitempty=False, required=True),
    ],
)

ContainerResourceMetricStatus = Struct(
    _PKG,
    "ContainerResourceMetricStatus",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("currentAverageUtilization", 2, INT32, nullable=True),
        Field("currentAverageValue", 3, QUANTITY, omitempty=False, required=True),
        Field("container", 4, STRING, omitempty=False, required=True),
    ],
)

ExternalMetricStatus = Struct(
    _PKG,
    "ExternalMetricStatus",
    [
        Field("metricName", 1, STRING, omitempty=False, required=True),
        Field("metricSelector", 2, meta.LabelSelector, nullable=True),
        Field("currentValue", 3, QUANTITY, omitempty=False, required=True),
        Field("currentAverageValue", 4, QUANTITY, nullable=True),
    ],
)

MetricStatus = Struct(
    _PKG,
    "MetricStatus",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("object", 2, ObjectMetricStatus, nullable=True),
        Field("pods", 3, PodsMetricStatus, nullable=True),
        Field("resource", 4, ResourceMetricStatus, nullable=True),
        Field("containerResource", 7, ContainerResourceMetricStatus, nullable=True),
        Field("external", 5, ExternalMetricStatus, nullable=True),
    ],
)

HorizontalPodAutoscalerCondition = Struct(
    _PKG,
    "HorizontalPodAutoscalerCondition",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("status", 2, STRING, omitempty=False, required=True),
        Field("lastTransitionTime", 3, TIME),
        Field("reason", 4, STRING),
        Field("message", 5, STRING),
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
        Field("currentMetrics", 5, ListOf(MetricStatus), omitempty=False, list_type="atomic"),
        Field("conditions", 6, ListOf(HorizontalPodAutoscalerCondition), omitempty=False, list_type="atomic"),
    ],
)

HorizontalPodAutoscaler = Struct(
    _PKG,
    "HorizontalPodAutoscaler",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, HorizontalPodAutoscalerSpec),
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
    "HorizontalPodAutoscaler": HorizontalPodAutoscaler,
    "HorizontalPodAutoscalerList": HorizontalPodAutoscalerList,
}
