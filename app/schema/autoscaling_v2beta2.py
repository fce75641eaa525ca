"""autoscaling/v2beta2 declarations: field names and numbers as the reference's v0.35.7 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import meta
from .types import INT32, INT64, QUANTITY, STRING, TIME, Field, ListOf, Struct

_PKG = "autoscaling/v2beta2"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "autoscaling"
GROUP_IN_DOMAIN = False
VERSION = "v2beta2"


CrossVersionObjectReference = Struct(
    _PKG,
    "CrossVersionObjectReference",
    [
        Field("kind", 1, STRING, omitempty=False, required=True),
        Field("name", 2, STRING, omitempty=False, required=True),
        Field("apiVersion", 3, STRING),
    ],
)

MetricTarget = Struct(
    _PKG,
    "MetricTarget",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("value", 2, QUANTITY, nullable=True),
        Field("averageValue", 3, QUANTITY, nullable=True),
        Field("averageUtilization", 4, INT32, nullable=True),
    ],
)

MetricIdentifier = Struct(
    _PKG,
    "MetricIdentifier",
    [Field("name", 1, STRING, omitempty=False, required=True), Field("selector", 2, meta.LabelSelector, nullable=True)],
)

ObjectMetricSource = Struct(
    _PKG,
    "ObjectMetricSource",
    [
        Field("describedObject", 1, CrossVersionObjectReference, omitempty=False, required=True),
        Field("target", 2, MetricTarget, omitempty=False, required=True),
        Field("metric", 3, MetricIdentifier, omitempty=False, required=True),
    ],
)

PodsMetricSource = Struct(
    _PKG,
    "PodsMetricSource",
    [
        Field("metric", 1, MetricIdentifier, omitempty=False, required=True),
        Field("target", 2, MetricTarget, omitempty=False, required=True),
    ],
)

ResourceMetricSource = Struct(
    _PKG,
    "ResourceMetricSource",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("target", 2, MetricTarget, omitempty=False, required=True),
    ],
)

ContainerResourceMetricSource = Struct(
    _PKG,
    "ContainerResourceMetricSource",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("target", 2, MetricTarget, omitempty=False, required=True),
        Field("container", 3, STRING, omitempty=False, required=True),
    ],
)

ExternalMetricSource = Struct(
    _PKG,
    "ExternalMetricSource",
    [
        Field("metric", 1, MetricIdentifier, omitempty=False, required=True),
        Field("target", 2, MetricTarget, omitempty=False, required=True),
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

HPAScalingPolicy = Struct(
    _PKG,
    "HPAScalingPolicy",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("value", 2, INT32, omitempty=False, required=True),
        Field("periodSeconds", 3, INT32, omitempty=False, required=True),
    ],
)

HPAScalingRules = Struct(
    _PKG,
    "HPAScalingRules",
    [
        Field("stabilizationWindowSeconds", 3, INT32, nullable=True),
        Field("selectPolicy", 1, STRING, nullable=True),
        Field("policies", 2, ListOf(HPAScalingPolicy), list_type="atomic"),
    ],
)

HorizontalPodAutoscalerBehavior = Struct(
    _PKG,
    "HorizontalPodAutoscalerBehavior",
    [Field("scaleUp", 1, HPAScalingRules, nullable=True), Field("scaleDown", 2, HPAScalingRules, nullable=True)],
)

HorizontalPodAutoscalerSpec = Struct(
    _PKG,
    "HorizontalPodAutoscalerSpec",
    [
        Field("scaleTargetRef", 1, CrossVersionObjectReference, omitempty=False, required=True),
        Field("minReplicas", 2, INT32, nullable=True),
        Field("maxReplicas", 3, INT32, omitempty=False, required=True),
        Field("metrics", 4, ListOf(MetricSpec), list_type="atomic"),
        Field("behavior", 5, HorizontalPodAutoscalerBehavior, nullable=True),
    ],
)

MetricValueStatus = Struct(
    _PKG,
    "MetricValueStatus",
    [
        Field("value", 1, QUANTITY, nullable=True),
        Field("averageValue", 2, QUANTITY, nullable=True),
        Field("averageUtilization", 3, INT32, nullable=True),
    ],
)

ObjectMetricStatus = Struct(
    _PKG,
    "ObjectMetricStatus",
    [
        Field("metric", 1, MetricIdentifier, omitempty=False, required=True),
        Field("current", 2, MetricValueStatus, omitempty=False, required=True),
        Field("describedObject", 3, CrossVersionObjectReference, omitempty=False, required=True),
    ],
)

PodsMetricStatus = Struct(
    _PKG,
    "PodsMetricStatus",
    [
        Field("metric", 1, MetricIdentifier, omitempty=False, required=True),
        Field("current", 2, MetricValueStatus, omitempty=False, required=True),
    ],
)

ResourceMetricStatus = Struct(
    _PKG,
    "ResourceMetricStatus",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("current", 2, MetricValueStatus, omitempty=False, required=True),
    ],
)

ContainerResourceMetricStatus = Struct(
    _PKG,
    "ContainerResourceMetricStatus",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("current", 2, MetricValueStatus, omitempty=False, required=True),
        Field("container", 3, STRING, omitempty=False, required=True),
    ],
)

ExternalMetricStatus = Struct(
    _PKG,
    "ExternalMetricStatus",
    [
        Field("metric", 1, MetricIdentifier, omitempty=False, required=True),
        Field("current", 2, MetricValueStatus, omitempty=False, required=True),
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
