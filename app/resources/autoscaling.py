"""The `autoscaling` group: HorizontalPodAutoscaler, stored as autoscaling/v2 and served as v1, v2, v2beta1, v2beta2
(conversions in app/resources/autoscaling_conversion.py)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from decimal import Decimal
from typing import Any, ClassVar

from ..catalog import Conversion, Deprecation, Obj, ResourceType, status_subresource
from ..errors import FieldError, forbidden, invalid, not_supported, required
from ..naming import Naming
from .autoscaling_conversion import (
    CPU,
    DEFAULT_CPU_UTILIZATION,
    GROUP,
    STORAGE_VERSION,
    Annotations,
    HpaConversions,
    annotations_without,
    cpu_metric,
)
from .common import KindStrategy, child, items, part, setdefault
from .defaults import parse_quantity

KIND, PLURAL = "HorizontalPodAutoscaler", "horizontalpodautoscalers"
SOURCE_TYPES = ["ContainerResource", "External", "Object", "Pods", "Resource"]
#: the stanza each metric source type fills (`type: Pods` -> `pods: {...}`).
SOURCE_FIELDS = {
    "Object": "object",
    "Pods": "pods",
    "Resource": "resource",
    "ContainerResource": "containerResource",
    "External": "external",
}
TARGET_TYPES = ("Utilization", "Value", "AverageValue")
SELECT_POLICIES = ["Disabled", "Max", "Min"]
SCALING_POLICY_TYPES = ["Percent", "Pods"]
MAX_STABILIZATION_WINDOW = 3600
MAX_PERIOD_SECONDS = 1800
SCALE_UP_DEFAULTS: Obj = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
SCALE_DOWN_DEFAULTS: Obj = {"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}


# ------------------------------------------------------------------------------------- strategy


def _scaling_rules(rules: Any, defaults: Obj) -> Obj:
    """GenerateHPAScale{Up,Down}Rules: fill what the client left out."""
    if not isinstance(rules, dict):
        return copy.deepcopy(defaults)
    out = copy.deepcopy(rules)
    if not out.get("policies"):
        out["policies"] = copy.deepcopy(defaults["policies"])
    setdefault(out, "selectPolicy", defaults["selectPolicy"])
    if "stabilizationWindowSeconds" in defaults:
        setdefault(out, "stabilizationWindowSeconds", defaults["stabilizationWindowSeconds"])
    return out


def _quantity_positive(path: str, value: Any) -> list[FieldError]:
    if value is None:
        return []
    number = parse_quantity(value)
    if number is None:
        return [invalid(path, value, "must be a valid quantity")]
    return [] if number > Decimal(0) else [invalid(path, value, "must be positive")]


def _object_reference_errors(ref: Any, path: str) -> list[FieldError]:
    ref = ref if isinstance(ref, dict) else {}
    errors: list[FieldError] = []
    for key in ("kind", "name"):
        value = ref.get(key)
        if not value:
            errors.append(required(f"{path}.{key}"))
        elif not isinstance(value, str) or "/" in value or "%" in value or value in (".", ".."):
            errors.append(invalid(f"{path}.{key}", value, "may not contain '/' or '%' and may not be '.' or '..'"))
    return errors


def _target_errors(target: Any, path: str) -> list[FieldError]:
    target = target if isinstance(target, dict) else {}
    kind = target.get("type")
    errors: list[FieldError] = []
    if not kind:
        errors.append(required(f"{path}.type", "must specify a metric target type"))
    elif kind not in TARGET_TYPES:
        errors.append(invalid(f"{path}.type", kind, "must be either Utilization, Value, or AverageValue"))
    errors += _quantity_positive(f"{path}.value", target.get("value"))
    errors += _quantity_positive(f"{path}.averageValue", target.get("averageValue"))
    utilization = target.get("averageUtilization")
    if isinstance(utilization, int) and utilization <= 0:
        errors.append(invalid(f"{path}.averageUtilization", utilization, "must be greater than 0"))
    wanted = {"Utilization": "averageUtilization", "Value": "value", "AverageValue": "averageValue"}.get(kind or "")
    if wanted and target.get(wanted) is None:
        errors.append(required(f"{path}.{wanted}", f"must set `{wanted}` when `type` is `{kind}`"))
    return errors


def _identifier_errors(metric: Any, path: str) -> list[FieldError]:
    if not isinstance(metric, dict) or not metric.get("name"):
        return [required(f"{path}.name", "must specify a metric name")]
    return []


def _source_errors(kind: str, src: Obj, path: str) -> list[FieldError]:
    target = part(src, "target")
    errors: list[FieldError] = []
    if kind == "Object":
        errors += _object_reference_errors(src.get("describedObject"), f"{path}.describedObject")
        errors += _identifier_errors(src.get("metric"), f"{path}.metric")
        errors += _target_errors(target, f"{path}.target")
        if target.get("value") is None and target.get("averageValue") is None:
            errors.append(required(f"{path}.target.averageValue", "must set either a target value or average value"))
    elif kind == "Pods":
        errors += _identifier_errors(src.get("metric"), f"{path}.metric")
        errors += _target_errors(target, f"{path}.target")
        if target.get("averageValue") is None:
            errors.append(required(f"{path}.target.averageValue", "must specify a positive target averageValue"))
    elif kind in ("Resource", "ContainerResource"):
        if not src.get("name"):
            errors.append(required(f"{path}.name", "must specify a resource name"))
        if kind == "ContainerResource" and not src.get("container"):
            errors.append(required(f"{path}.container", "must specify a container"))
        errors += _target_errors(target, f"{path}.target")
        has_util, has_value = target.get("averageUtilization") is not None, target.get("averageValue") is not None
        if not has_util and not has_value:
            errors.append(
                required(
                    f"{path}.target.averageUtilization", "must set either a target raw value or a target utilization"
                )
            )
        elif has_util and has_value:
            errors.append(
                forbidden(f"{path}.target.averageValue", "may not set both a target raw value and a target utilization")
            )
    elif kind == "External":
        errors += _identifier_errors(src.get("metric"), f"{path}.metric")
        errors += _target_errors(target, f"{path}.target")
        has_value, has_average = target.get("value") is not None, target.get("averageValue") is not None
        if not has_value and not has_average:
            errors.append(
                required(f"{path}.target.averageValue", "must set either a target value for metric or a per-pod target")
            )
        elif has_value and has_average:
            errors.append(
                forbidden(f"{path}.target.value", "may not set both a target value for metric and a per-pod target")
            )
    return errors


def metric_errors(metric: Obj, path: str) -> list[FieldError]:
    kind = metric.get("type")
    if not kind:
        return [required(f"{path}.type", "must specify a metric source type")]
    if kind not in SOURCE_TYPES:
        return [not_supported(f"{path}.type", kind, SOURCE_TYPES)]
    errors: list[FieldError] = []
    present = [f for f in SOURCE_FIELDS.values() if metric.get(f) is not None]
    own = SOURCE_FIELDS[kind]
    if own not in present:
        errors.append(required(f"{path}.{own}", "must populate information for the given metric source"))
    elif len(present) > 1:
        errors.append(forbidden(path, "must populate the given metric source only"))
    if isinstance(metric.get(own), dict):
        errors += _source_errors(kind, metric[own], f"{path}.{own}")
    return errors


def _rules_errors(rules: Any, path: str) -> list[FieldError]:
    if not isinstance(rules, dict):
        return []
    errors: list[FieldError] = []
    window = rules.get("stabilizationWindowSeconds")
    if isinstance(window, int) and window < 0:
        errors.append(invalid(f"{path}.stabilizationWindowSeconds", window, "must be greater than or equal to zero"))
    elif isinstance(window, int) and window > MAX_STABILIZATION_WINDOW:
        errors.append(
            invalid(
                f"{path}.stabilizationWindowSeconds",
                window,
                f"must be less than or equal to {MAX_STABILIZATION_WINDOW}",
            )
        )
    policy = rules.get("selectPolicy")
    if policy is not None and policy not in SELECT_POLICIES:
        errors.append(not_supported(f"{path}.selectPolicy", policy, SELECT_POLICIES))
    policies = items(rules, "policies")
    if not policies:
        errors.append(required(f"{path}.policies", "must specify at least one Policy"))
    for i, p in enumerate(policies):
        at = f"{path}.policies[{i}]"
        if p.get("type") not in SCALING_POLICY_TYPES:
            errors.append(not_supported(f"{at}.type", p.get("type"), SCALING_POLICY_TYPES))
        value, period = p.get("value"), p.get("periodSeconds")
        if not isinstance(value, int) or value <= 0:
            errors.append(invalid(f"{at}.value", value, "must be greater than zero"))
        if not isinstance(period, int) or period <= 0:
            errors.append(invalid(f"{at}.periodSeconds", period, "must be greater than zero"))
        elif period > MAX_PERIOD_SECONDS:
            errors.append(invalid(f"{at}.periodSeconds", period, f"must be less than or equal to {MAX_PERIOD_SECONDS}"))
    return errors


class HorizontalPodAutoscalerStrategy(KindStrategy):
    """Works on the storage form (autoscaling/v2); other versions are converted before it runs."""

    generation = False  # the reference's HPA strategy leaves metadata.generation alone
    initial_status: ClassVar[Obj] = {"currentReplicas": 0, "desiredReplicas": 0}

    def __init__(self, naming: Naming) -> None:
        super().__init__(naming)
        self.keys = Annotations(naming)

    def default(self, obj: Obj) -> None:
        # v2 objects never keep the other versions' round-trip annotations (as the reference's conversion)
        annotations_without(obj, self.keys.all)
        spec = child(obj, "spec")
        setdefault(spec, "minReplicas", 1)
        if not spec.get("metrics"):
            spec["metrics"] = [cpu_metric(DEFAULT_CPU_UTILIZATION)]
        behavior = spec.get("behavior")
        if isinstance(behavior, dict):
            behavior["scaleUp"] = _scaling_rules(behavior.get("scaleUp"), SCALE_UP_DEFAULTS)
            behavior["scaleDown"] = _scaling_rules(behavior.get("scaleDown"), SCALE_DOWN_DEFAULTS)

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = part(obj, "spec")
        errors = _object_reference_errors(spec.get("scaleTargetRef"), "spec.scaleTargetRef")
        low, high = spec.get("minReplicas"), spec.get("maxReplicas")
        if isinstance(low, int) and low < 1:  # 0 needs the HPAScaleToZero gate, which this server lacks
            errors.append(invalid("spec.minReplicas", low, "must be greater than or equal to 1"))
        if not isinstance(high, int) or isinstance(high, bool) or high < 1:
            errors.append(invalid("spec.maxReplicas", high, "must be greater than 0"))
        elif isinstance(low, int) and high < low:
            errors.append(invalid("spec.maxReplicas", high, "must be greater than or equal to `minReplicas`"))
        for i, metric in enumerate(items(spec, "metrics")):
            errors += metric_errors(metric, f"spec.metrics[{i}]")
        behavior = spec.get("behavior")
        if isinstance(behavior, dict):
            errors += _rules_errors(behavior.get("scaleUp"), "spec.behavior.scaleUp")
            errors += _rules_errors(behavior.get("scaleDown"), "spec.behavior.scaleDown")
        return errors


def as_v2(obj: Obj, naming: Naming) -> Obj:
    """Any served version's object in the v2 shape (printers read one shape)."""
    conversions = HpaConversions(naming)
    version = str(obj.get("apiVersion", "")).rpartition("/")[2]
    to_storage = {"v1": conversions.v1_to_storage, "v2beta1": conversions.v2beta1_to_storage}.get(version)
    return to_storage(obj) if to_storage else obj


# ------------------------------------------------------------------------------------- the group

REF = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
V2_EXAMPLE: Obj = {
    "spec": {
        "scaleTargetRef": REF,
        "minReplicas": 1,
        "maxReplicas": 5,
        "metrics": [
            {"type": "Resource", "resource": {"name": CPU, "target": {"type": "Utilization", "averageUtilization": 70}}}
        ],
    }
}
V1_EXAMPLE: Obj = {
    "spec": {"scaleTargetRef": REF, "minReplicas": 1, "maxReplicas": 5, "targetCPUUtilizationPercentage": 70}
}
V2BETA1_EXAMPLE: Obj = {
    "spec": {
        "scaleTargetRef": REF,
        "minReplicas": 1,
        "maxReplicas": 5,
        "metrics": [{"type": "Resource", "resource": {"name": CPU, "targetAverageUtilization": 70}}],
    }
}


def resource_types(naming: Naming) -> list[ResourceType]:
    strategy = HorizontalPodAutoscalerStrategy(naming)
    conv = HpaConversions(naming)
    replacement = f"{GROUP}/{STORAGE_VERSION} {KIND}"

    def served(
        version: str,
        example: Obj,
        to_storage: Callable[[Obj], Obj] | None = None,
        from_storage: Callable[[Obj], Obj] | None = None,
        deprecation: Deprecation | None = None,
    ) -> ResourceType:
        conversion = None
        if to_storage is not None and from_storage is not None:
            conversion = Conversion(GROUP, STORAGE_VERSION, PLURAL, to_storage, from_storage)
        return ResourceType(
            GROUP,
            version,
            KIND,
            PLURAL,
            True,
            short_names=("hpa",),
            categories=("all",),
            subresources=(status_subresource(),),
            strategy=strategy,
            has_status=True,
            example=copy.deepcopy(example),
            conversion=conversion,
            deprecation=deprecation,
        )

    # declaration order is discovery order: v1.23 still preferred autoscaling/v1
    return [
        served("v1", V1_EXAMPLE, conv.v1_to_storage, conv.v1_from_storage),
        served(STORAGE_VERSION, V2_EXAMPLE),
        served(
            "v2beta1",
            V2BETA1_EXAMPLE,
            conv.v2beta1_to_storage,
            conv.v2beta1_from_storage,
            Deprecation("1.22", "1.25", replacement),
        ),
        served(
            "v2beta2",
            V2_EXAMPLE,
            conv.v2beta2_to_storage,
            conv.v2beta2_from_storage,
            Deprecation("1.23", "1.26", replacement),
        ),
    ]
