"""The `autoscaling` group: HorizontalPodAutoscaler, stored as autoscaling/v2 and served as v1, v2, v2beta1, v2beta2.

Conversions follow the reference's: v1 keeps what it cannot express (metrics other than CPU utilization,
current metrics, conditions, behavior) in `autoscaling.alpha.<domain>/...` annotations; v2beta1 maps
`target{type,...}` onto `targetValue`/`targetAverageValue`/`targetAverageUtilization` and keeps behavior in an
annotation. Where the reference's mapping would still lose something (two CPU-utilization metrics, reordered
metrics, a target carrying both a value and an average value), the exact v2 fields ride along in one more
annotation, `autoscaling.alpha.<domain>/v2-fields` (ours, not the reference's), used only while the
version-specific part of the view is unchanged, so no round trip drops data.
"""
from __future__ import annotations

import copy
import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any, ClassVar

from app.catalog import Conversion, Deprecation, Obj, ResourceType, status_subresource
from app.errors import FieldError, forbidden, invalid, not_supported, required
from app.naming import Naming
from app.resources.common import KindStrategy, child, dig, items, part, setdefault
from app.resources.defaults import parse_quantity

GROUP = "autoscaling"
STORAGE_VERSION = "v2"
KIND, PLURAL = "HorizontalPodAutoscaler", "horizontalpodautoscalers"
CPU = "cpu"
DEFAULT_CPU_UTILIZATION = 80
SOURCE_TYPES = ["ContainerResource", "External", "Object", "Pods", "Resource"]
#: the stanza each metric source type fills (`type: Pods` -> `pods: {...}`).
SOURCE_FIELDS = {"Object": "object", "Pods": "pods", "Resource": "resource",
                 "ContainerResource": "containerResource", "External": "external"}
TARGET_TYPES = ("Utilization", "Value", "AverageValue")
SELECT_POLICIES = ["Disabled", "Max", "Min"]
SCALING_POLICY_TYPES = ["Percent", "Pods"]
MAX_STABILIZATION_WINDOW = 3600
MAX_PERIOD_SECONDS = 1800
SCALE_UP_DEFAULTS: Obj = {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
                          "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15},
                                       {"type": "Percent", "value": 100, "periodSeconds": 15}]}
SCALE_DOWN_DEFAULTS: Obj = {"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}


class Annotations:
    """The round-trip annotation keys (the reference's `autoscaling.alpha.<upstream domain>/...`)."""

    def __init__(self, naming: Naming) -> None:
        prefix = naming.group("autoscaling.alpha")
        self.metrics = f"{prefix}/metrics"
        self.current_metrics = f"{prefix}/current-metrics"
        self.conditions = f"{prefix}/conditions"
        self.behavior = f"{prefix}/behavior"
        #: ours: the exact v2 fields when the reference's mapping alone would lose information.
        self.exact = f"{prefix}/v2-fields"

    @property
    def all(self) -> tuple[str, ...]:
        return (self.metrics, self.current_metrics, self.conditions, self.behavior, self.exact)


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _load(text: Any) -> Any:
    try:
        return json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None


def _put(out: Obj, key: str, value: Any) -> None:
    if value is not None:
        out[key] = copy.deepcopy(value)


def _prune(obj: Obj) -> Obj:
    return {k: v for k, v in obj.items() if v is not None}


# ------------------------------------------------------------------ metric specs: v2 <-> v1/v2beta1 shape


def _identifier(name: Any, selector: Any) -> Obj:
    return _prune({"name": name, "selector": copy.deepcopy(selector)})


def metric_spec_to_beta1(m: Obj) -> Obj:
    """A v2 MetricSpec in the v2beta1 (and autoscaling/v1 annotation) shape."""
    out: Obj = _prune({"type": m.get("type")})
    if isinstance(m.get("object"), dict):
        src, target, metric = m["object"], part(m["object"], "target"), part(m["object"], "metric")
        out["object"] = _prune({"target": copy.deepcopy(src.get("describedObject")), "metricName": metric.get("name"),
                                "targetValue": target.get("value"), "selector": copy.deepcopy(metric.get("selector")),
                                "averageValue": target.get("averageValue")})
    if isinstance(m.get("pods"), dict):
        target, metric = part(m["pods"], "target"), part(m["pods"], "metric")
        out["pods"] = _prune({"metricName": metric.get("name"), "targetAverageValue": target.get("averageValue"),
                              "selector": copy.deepcopy(metric.get("selector"))})
    for key in ("resource", "containerResource"):
        if isinstance(m.get(key), dict):
            src, target = m[key], part(m[key], "target")
            out[key] = _prune({"name": src.get("name"), "targetAverageUtilization": target.get("averageUtilization"),
                               "targetAverageValue": target.get("averageValue"), "container": src.get("container")})
    if isinstance(m.get("external"), dict):
        target, metric = part(m["external"], "target"), part(m["external"], "metric")
        out["external"] = _prune({"metricName": metric.get("name"),
                                  "metricSelector": copy.deepcopy(metric.get("selector")),
                                  "targetValue": target.get("value"), "targetAverageValue": target.get("averageValue")})
    return out


def metric_spec_from_beta1(m: Obj) -> Obj:
    """A v2beta1-shaped MetricSpec as v2 (the target type follows from which target is set)."""
    out: Obj = _prune({"type": m.get("type")})
    if isinstance(m.get("object"), dict):
        src = m["object"]
        kind = "AverageValue" if src.get("averageValue") is not None else "Value"
        out["object"] = _prune({
            "describedObject": copy.deepcopy(src.get("target")),
            "metric": _identifier(src.get("metricName"), src.get("selector")),
            "target": _prune({"type": kind, "value": src.get("targetValue"), "averageValue": src.get("averageValue")}),
        })
    if isinstance(m.get("pods"), dict):
        src = m["pods"]
        out["pods"] = {"metric": _identifier(src.get("metricName"), src.get("selector")),
                       "target": _prune({"type": "AverageValue", "averageValue": src.get("targetAverageValue")})}
    for key in ("resource", "containerResource"):
        if isinstance(m.get(key), dict):
            src = m[key]
            kind = "Utilization" if src.get("targetAverageUtilization") is not None else "AverageValue"
            out[key] = _prune({"name": src.get("name"), "container": src.get("container"),
                               "target": _prune({"type": kind, "averageUtilization": src.get("targetAverageUtilization"),
                                                 "averageValue": src.get("targetAverageValue")})})
    if isinstance(m.get("external"), dict):
        src = m["external"]
        kind = "Value" if src.get("targetValue") is not None else "AverageValue"
        out["external"] = {"metric": _identifier(src.get("metricName"), src.get("metricSelector")),
                           "target": _prune({"type": kind, "value": src.get("targetValue"),
                                             "averageValue": src.get("targetAverageValue")})}
    return out


def metric_status_to_beta1(m: Obj) -> Obj:
    out: Obj = _prune({"type": m.get("type")})
    if isinstance(m.get("object"), dict):
        src, current, metric = m["object"], part(m["object"], "current"), part(m["object"], "metric")
        out["object"] = _prune({"target": copy.deepcopy(src.get("describedObject")), "metricName": metric.get("name"),
                                "currentValue": current.get("value"), "selector": copy.deepcopy(metric.get("selector")),
                                "averageValue": current.get("averageValue")})
    if isinstance(m.get("pods"), dict):
        current, metric = part(m["pods"], "current"), part(m["pods"], "metric")
        out["pods"] = _prune({"metricName": metric.get("name"), "currentAverageValue": current.get("averageValue"),
                              "selector": copy.deepcopy(metric.get("selector"))})
    for key in ("resource", "containerResource"):
        if isinstance(m.get(key), dict):
            src, current = m[key], part(m[key], "current")
            out[key] = _prune({"name": src.get("name"), "currentAverageUtilization": current.get("averageUtilization"),
                               "currentAverageValue": current.get("averageValue"), "container": src.get("container")})
    if isinstance(m.get("external"), dict):
        current, metric = part(m["external"], "current"), part(m["external"], "metric")
        out["external"] = _prune({"metricName": metric.get("name"),
                                  "metricSelector": copy.deepcopy(metric.get("selector")),
                                  "currentValue": current.get("value"),
                                  "currentAverageValue": current.get("averageValue")})
    return out


def metric_status_from_beta1(m: Obj) -> Obj:
    out: Obj = _prune({"type": m.get("type")})
    if isinstance(m.get("object"), dict):
        src = m["object"]
        out["object"] = _prune({
            "metric": _identifier(src.get("metricName"), src.get("selector")),
            "current": _prune({"value": src.get("currentValue"), "averageValue": src.get("averageValue")}),
            "describedObject": copy.deepcopy(src.get("target")),
        })
    if isinstance(m.get("pods"), dict):
        src = m["pods"]
        out["pods"] = {"metric": _identifier(src.get("metricName"), src.get("selector")),
                       "current": _prune({"averageValue": src.get("currentAverageValue")})}
    for key in ("resource", "containerResource"):
        if isinstance(m.get(key), dict):
            src = m[key]
            out[key] = _prune({"name": src.get("name"), "container": src.get("container"),
                               "current": _prune({"averageValue": src.get("currentAverageValue"),
                                                  "averageUtilization": src.get("currentAverageUtilization")})})
    if isinstance(m.get("external"), dict):
        src = m["external"]
        out["external"] = {"metric": _identifier(src.get("metricName"), src.get("metricSelector")),
                           "current": _prune({"value": src.get("currentValue"),
                                              "averageValue": src.get("currentAverageValue")})}
    return out


def _is_cpu_utilization(m: Obj) -> bool:
    res = m.get("resource")
    return (m.get("type") == "Resource" and isinstance(res, dict) and res.get("name") == CPU
            and dig(res, "target", "averageUtilization") is not None)


# ------------------------------------------------------------------------------ whole objects


def _metadata_copy(obj: Obj) -> Obj:
    return {k: copy.deepcopy(v) for k, v in obj.items() if k not in ("spec", "status")}


def _annotations_without(obj: Obj, keys: tuple[str, ...]) -> None:
    """Drop the round-trip keys from obj's (copied) annotations; an annotation map left empty goes too."""
    md = obj.get("metadata")
    annotations = md.get("annotations") if isinstance(md, dict) else None
    if not isinstance(annotations, dict) or not any(k in annotations for k in keys):
        return
    for key in keys:
        annotations.pop(key, None)
    if not annotations:
        del md["annotations"]


def _annotate(obj: Obj, values: dict[str, str]) -> None:
    if values:
        md = child(obj, "metadata")
        md["annotations"] = {**(md.get("annotations") or {}), **values}


def _annotation(obj: Obj, key: str) -> Any:
    return _load(dig(obj, "metadata", "annotations", key))


class HpaConversions:
    """Whole-object conversions between the storage version (v2) and the other served versions."""

    def __init__(self, naming: Naming) -> None:
        self.keys = Annotations(naming)

    # -- v2beta2: the same shape as v2

    def v2beta2_from_storage(self, obj: Obj) -> Obj:
        out = copy.deepcopy(obj)
        out["apiVersion"] = f"{GROUP}/v2beta2"
        _annotations_without(out, self.keys.all)
        return out

    def v2beta2_to_storage(self, obj: Obj) -> Obj:
        out = copy.deepcopy(obj)
        out["apiVersion"] = f"{GROUP}/{STORAGE_VERSION}"
        _annotations_without(out, self.keys.all)
        return out

    # -- v2beta1: metrics in the beta1 shape, behavior in an annotation

    def v2beta1_from_storage(self, obj: Obj) -> Obj:
        out = self._v2beta1_view(obj)
        self._keep_exact(obj, out, self._v2beta1_back)
        return out

    def v2beta1_to_storage(self, obj: Obj) -> Obj:
        out = self._v2beta1_back(obj)
        self._restore_exact(obj, out)
        _annotations_without(out, self.keys.all)
        return out

    def _v2beta1_view(self, obj: Obj) -> Obj:
        out = _metadata_copy(obj)
        out["apiVersion"] = f"{GROUP}/v2beta1"
        _annotations_without(out, self.keys.all)
        if isinstance(obj.get("spec"), dict):
            spec = out["spec"] = copy.deepcopy(obj["spec"])
            behavior = spec.pop("behavior", None)
            if isinstance(spec.get("metrics"), list):
                spec["metrics"] = [metric_spec_to_beta1(m) for m in items(spec, "metrics")]
            if behavior is not None:
                _annotate(out, {self.keys.behavior: _dump(behavior)})
        if isinstance(obj.get("status"), dict):
            status = out["status"] = copy.deepcopy(obj["status"])
            if isinstance(status.get("currentMetrics"), list):
                status["currentMetrics"] = [metric_status_to_beta1(m) for m in items(status, "currentMetrics")]
        return out

    def _v2beta1_back(self, obj: Obj) -> Obj:
        out = _metadata_copy(obj)
        out["apiVersion"] = f"{GROUP}/{STORAGE_VERSION}"
        if isinstance(obj.get("spec"), dict):
            spec = out["spec"] = copy.deepcopy(obj["spec"])
            if isinstance(spec.get("metrics"), list):
                spec["metrics"] = [metric_spec_from_beta1(m) for m in items(spec, "metrics")]
            behavior = _annotation(obj, self.keys.behavior)
            if isinstance(behavior, dict) and behavior:  # only well-formed data moves into the field
                spec["behavior"] = behavior
        if isinstance(obj.get("status"), dict):
            status = out["status"] = copy.deepcopy(obj["status"])
            if isinstance(status.get("currentMetrics"), list):
                status["currentMetrics"] = [metric_status_from_beta1(m) for m in items(status, "currentMetrics")]
        _annotations_without(out, self.keys.all)
        return out

    # -- v1: a CPU utilization target; everything else in annotations

    def v1_from_storage(self, obj: Obj) -> Obj:
        out = self._v1_view(obj)
        self._keep_exact(obj, out, self._v1_back)
        return out

    def v1_to_storage(self, obj: Obj) -> Obj:
        out = self._v1_back(obj)
        self._restore_exact(obj, out)
        _annotations_without(out, self.keys.all)
        return out

    def _v1_view(self, obj: Obj) -> Obj:
        out = _metadata_copy(obj)
        out["apiVersion"] = f"{GROUP}/v1"
        _annotations_without(out, self.keys.all)
        notes: dict[str, str] = {}
        if isinstance(obj.get("spec"), dict):
            spec = out["spec"] = copy.deepcopy(obj["spec"])
            metrics = items(spec, "metrics")
            behavior = spec.pop("behavior", None)
            spec.pop("metrics", None)
            for m in metrics:
                if m.get("type") == "Resource" and dig(m, "resource", "name") == CPU:
                    _put(spec, "targetCPUUtilizationPercentage", dig(m, "resource", "target", "averageUtilization"))
                    break
            others = [metric_spec_to_beta1(m) for m in metrics if not _is_cpu_utilization(m)]
            if others:
                notes[self.keys.metrics] = _dump(others)
            if behavior is not None:
                notes[self.keys.behavior] = _dump(behavior)
        if isinstance(obj.get("status"), dict):
            status = out["status"] = copy.deepcopy(obj["status"])
            current = items(status, "currentMetrics")
            conditions = status.pop("conditions", None)
            status.pop("currentMetrics", None)
            for m in current:
                if m.get("type") == "Resource" and dig(m, "resource", "name") == CPU:
                    _put(status, "currentCPUUtilizationPercentage", dig(m, "resource", "current", "averageUtilization"))
            if current:  # saved even when it maps onto the CPU field, to keep the raw values
                notes[self.keys.current_metrics] = _dump([metric_status_to_beta1(m) for m in current])
            if conditions:
                notes[self.keys.conditions] = _dump(conditions)
        _annotate(out, notes)
        return out

    def _v1_back(self, obj: Obj) -> Obj:
        out = _metadata_copy(obj)
        out["apiVersion"] = f"{GROUP}/{STORAGE_VERSION}"
        spec = out["spec"] = copy.deepcopy(part(obj, "spec"))
        target = spec.pop("targetCPUUtilizationPercentage", None)
        metrics: list[Obj] = []
        others = _annotation(obj, self.keys.metrics)
        if isinstance(others, list):
            metrics = [metric_spec_from_beta1(m) for m in others if isinstance(m, dict)]
        if target is not None:
            metrics.append(_cpu_metric(target))
        # autoscaling/v1's implicit default (80% CPU) is explicit in v2
        spec["metrics"] = metrics or [_cpu_metric(DEFAULT_CPU_UTILIZATION)]
        behavior = _annotation(obj, self.keys.behavior)
        if isinstance(behavior, dict) and behavior:
            spec["behavior"] = behavior
        if isinstance(obj.get("status"), dict):
            status = out["status"] = copy.deepcopy(obj["status"])
            cpu = status.pop("currentCPUUtilizationPercentage", None)
            current = _annotation(obj, self.keys.current_metrics)
            if isinstance(current, list):  # the annotation has more than the CPU field
                status["currentMetrics"] = [metric_status_from_beta1(m) for m in current if isinstance(m, dict)]
            elif cpu is not None:
                status["currentMetrics"] = [{"type": "Resource",
                                             "resource": {"name": CPU, "current": {"averageUtilization": cpu}}}]
            conditions = _annotation(obj, self.keys.conditions)
            if isinstance(conditions, list):
                status["conditions"] = conditions
        _annotations_without(out, self.keys.all)
        return out

    # -- exactness: what the reference's mapping alone would lose

    def _keep_exact(self, stored: Obj, view: Obj, back: Callable[[Obj], Obj]) -> None:
        """When converting `view` back would not give the stored spec/status, remember the fields that differ
        (and the version-specific part of the view they belong to) in an annotation."""
        returned = back(view)
        exact: Obj = {}
        for section in ("spec", "status"):
            mine, theirs = part(stored, section), part(returned, section)
            for key in sorted(set(mine) | set(theirs)):
                if mine.get(key) != theirs.get(key):
                    exact[f"{section}.{key}"] = copy.deepcopy(mine.get(key))
        if exact:
            exact["view"] = self._fingerprint(view)
            _annotate(view, {self.keys.exact: _dump(exact)})

    def _restore_exact(self, view: Obj, out: Obj) -> None:
        exact = _annotation(view, self.keys.exact)
        if not isinstance(exact, dict) or exact.get("view") != self._fingerprint(view):
            return  # the client changed what the saved fields describe: its version wins
        for path, value in exact.items():
            section, _, key = path.partition(".")
            if section not in ("spec", "status"):
                continue
            if value is None:
                part(out, section).pop(key, None)
            else:
                child(out, section)[key] = value

    def _fingerprint(self, view: Obj) -> Obj:
        """The version-specific part of a view: fields not spelled the same in every version, and the notes."""
        annotations = dig(view, "metadata", "annotations", default={})
        return {"spec": {k: v for k, v in part(view, "spec").items() if k not in SHARED_SPEC},
                "status": {k: v for k, v in part(view, "status").items() if k not in SHARED_STATUS},
                "notes": {k: annotations.get(k) for k in self.keys.all if k != self.keys.exact}}


#: fields every served version spells and means the same way (edits to them keep the saved exact fields).
SHARED_SPEC = frozenset({"scaleTargetRef", "minReplicas", "maxReplicas"})
SHARED_STATUS = frozenset({"observedGeneration", "lastScaleTime", "currentReplicas", "desiredReplicas"})


def _cpu_metric(utilization: Any) -> Obj:
    return {"type": "Resource",
            "resource": {"name": CPU, "target": {"type": "Utilization", "averageUtilization": utilization}}}


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
            errors.append(required(f"{path}.target.averageUtilization",
                                   "must set either a target raw value or a target utilization"))
        elif has_util and has_value:
            errors.append(forbidden(f"{path}.target.averageValue",
                                    "may not set both a target raw value and a target utilization"))
    elif kind == "External":
        errors += _identifier_errors(src.get("metric"), f"{path}.metric")
        errors += _target_errors(target, f"{path}.target")
        has_value, has_average = target.get("value") is not None, target.get("averageValue") is not None
        if not has_value and not has_average:
            errors.append(required(f"{path}.target.averageValue",
                                   "must set either a target value for metric or a per-pod target"))
        elif has_value and has_average:
            errors.append(forbidden(f"{path}.target.value",
                                    "may not set both a target value for metric and a per-pod target"))
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
        errors.append(invalid(f"{path}.stabilizationWindowSeconds", window,
                              f"must be less than or equal to {MAX_STABILIZATION_WINDOW}"))
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
        _annotations_without(obj, self.keys.all)
        spec = child(obj, "spec")
        setdefault(spec, "minReplicas", 1)
        if not spec.get("metrics"):
            spec["metrics"] = [_cpu_metric(DEFAULT_CPU_UTILIZATION)]
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
V2_EXAMPLE: Obj = {"spec": {"scaleTargetRef": REF, "minReplicas": 1, "maxReplicas": 5, "metrics": [
    {"type": "Resource", "resource": {"name": CPU, "target": {"type": "Utilization", "averageUtilization": 70}}}]}}
V1_EXAMPLE: Obj = {"spec": {"scaleTargetRef": REF, "minReplicas": 1, "maxReplicas": 5,
                            "targetCPUUtilizationPercentage": 70}}
V2BETA1_EXAMPLE: Obj = {"spec": {"scaleTargetRef": REF, "minReplicas": 1, "maxReplicas": 5, "metrics": [
    {"type": "Resource", "resource": {"name": CPU, "targetAverageUtilization": 70}}]}}


def resource_types(naming: Naming) -> list[ResourceType]:
    strategy = HorizontalPodAutoscalerStrategy(naming)
    conv = HpaConversions(naming)
    replacement = f"{GROUP}/{STORAGE_VERSION} {KIND}"

    def served(version: str, example: Obj, to_storage: Callable[[Obj], Obj] | None = None,
               from_storage: Callable[[Obj], Obj] | None = None,
               deprecation: Deprecation | None = None) -> ResourceType:
        conversion = None
        if to_storage is not None and from_storage is not None:
            conversion = Conversion(GROUP, STORAGE_VERSION, PLURAL, to_storage, from_storage)
        return ResourceType(GROUP, version, KIND, PLURAL, True, short_names=("hpa",), categories=("all",),
                            subresources=(status_subresource(),), strategy=strategy, has_status=True,
                            example=copy.deepcopy(example), conversion=conversion, deprecation=deprecation)

    # declaration order is discovery order: v1.23 still preferred autoscaling/v1
    return [
        served("v1", V1_EXAMPLE, conv.v1_to_storage, conv.v1_from_storage),
        served(STORAGE_VERSION, V2_EXAMPLE),
        served("v2beta1", V2BETA1_EXAMPLE, conv.v2beta1_to_storage, conv.v2beta1_from_storage,
               Deprecation("1.22", "1.25", replacement)),
        served("v2beta2", V2_EXAMPLE, conv.v2beta2_to_storage, conv.v2beta2_from_storage,
               Deprecation("1.23", "1.26", replacement)),
    ]
