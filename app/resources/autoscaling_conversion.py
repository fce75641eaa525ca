"""HorizontalPodAutoscaler conversions between the stored autoscaling/v2 and the served v1, v2beta1, v2beta2.

v1 keeps what it cannot express (metrics other than CPU utilization, current metrics, conditions, behavior) in
`autoscaling.alpha.<domain>/...` annotations as the reference does; v2beta1 maps `target{type,...}` onto
`targetValue`/`targetAverageValue`/`targetAverageUtilization` and keeps behavior in an annotation. Where the
reference's mapping would still lose something (two CPU-utilization metrics, reordered metrics, a target carrying
both a value and an average value), the exact v2 fields ride along in one more annotation,
`autoscaling.alpha.<domain>/v2-fields` (ours, not the reference's), used only while the version-specific part of
the view is unchanged, so no round trip drops data.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from ..catalog import Obj
from ..naming import Naming
from .common import child, dig, items, part

GROUP = "autoscaling"
STORAGE_VERSION = "v2"
CPU = "cpu"
DEFAULT_CPU_UTILIZATION = 80


class Annotations:
    """The round-trip annotation keys (the reference's `autoscaling.alpha.<upstream domain>/...`)."""

    def __init__(self, naming: Naming) -> None:
        prefix = naming.key_group("autoscaling.alpha")
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
        out["object"] = _prune(
            {
                "target": copy.deepcopy(src.get("describedObject")),
                "metricName": metric.get("name"),
                "targetValue": target.get("value"),
                "selector": copy.deepcopy(metric.get("selector")),
                "averageValue": target.get("averageValue"),
            }
        )
    if isinstance(m.get("pods"), dict):
        target, metric = part(m["pods"], "target"), part(m["pods"], "metric")
        out["pods"] = _prune(
            {
                "metricName": metric.get("name"),
                "targetAverageValue": target.get("averageValue"),
                "selector": copy.deepcopy(metric.get("selector")),
            }
        )
    for key in ("resource", "containerResource"):
        if isinstance(m.get(key), dict):
            src, target = m[key], part(m[key], "target")
            out[key] = _prune(
                {
                    "name": src.get("name"),
                    "targetAverageUtilization": target.get("averageUtilization"),
                    "targetAverageValue": target.get("averageValue"),
                    "container": src.get("container"),
                }
            )
    if isinstance(m.get("external"), dict):
        target, metric = part(m["external"], "target"), part(m["external"], "metric")
        out["external"] = _prune(
            {
                "metricName": metric.get("name"),
                "metricSelector": copy.deepcopy(metric.get("selector")),
                "targetValue": target.get("value"),
                "targetAverageValue": target.get("averageValue"),
            }
        )
    return out


def metric_spec_from_beta1(m: Obj) -> Obj:
    """A v2beta1-shaped MetricSpec as v2 (the target type follows from which target is set)."""
    out: Obj = _prune({"type": m.get("type")})
    if isinstance(m.get("object"), dict):
        src = m["object"]
        kind = "AverageValue" if src.get("averageValue") is not None else "Value"
        out["object"] = _prune(
            {
                "describedObject": copy.deepcopy(src.get("target")),
                "metric": _identifier(src.get("metricName"), src.get("selector")),
                "target": _prune(
                    {"type": kind, "value": src.get("targetValue"), "averageValue": src.get("averageValue")}
                ),
            }
        )
    if isinstance(m.get("pods"), dict):
        src = m["pods"]
        out["pods"] = {
            "metric": _identifier(src.get("metricName"), src.get("selector")),
            "target": _prune({"type": "AverageValue", "averageValue": src.get("targetAverageValue")}),
        }
    for key in ("resource", "containerResource"):
        if isinstance(m.get(key), dict):
            src = m[key]
            kind = "Utilization" if src.get("targetAverageUtilization") is not None else "AverageValue"
            out[key] = _prune(
                {
                    "name": src.get("name"),
                    "container": src.get("container"),
                    "target": _prune(
                        {
                            "type": kind,
                            "averageUtilization": src.get("targetAverageUtilization"),
                            "averageValue": src.get("targetAverageValue"),
                        }
                    ),
                }
            )
    if isinstance(m.get("external"), dict):
        src = m["external"]
        kind = "Value" if src.get("targetValue") is not None else "AverageValue"
        out["external"] = {
            "metric": _identifier(src.get("metricName"), src.get("metricSelector")),
            "target": _prune(
                {"type": kind, "value": src.get("targetValue"), "averageValue": src.get("targetAverageValue")}
            ),
        }
    return out


def metric_status_to_beta1(m: Obj) -> Obj:
    out: Obj = _prune({"type": m.get("type")})
    if isinstance(m.get("object"), dict):
        src, current, metric = m["object"], part(m["object"], "current"), part(m["object"], "metric")
        out["object"] = _prune(
            {
                "target": copy.deepcopy(src.get("describedObject")),
                "metricName": metric.get("name"),
                "currentValue": current.get("value"),
                "selector": copy.deepcopy(metric.get("selector")),
                "averageValue": current.get("averageValue"),
            }
        )
    if isinstance(m.get("pods"), dict):
        current, metric = part(m["pods"], "current"), part(m["pods"], "metric")
        out["pods"] = _prune(
            {
                "metricName": metric.get("name"),
                "currentAverageValue": current.get("averageValue"),
                "selector": copy.deepcopy(metric.get("selector")),
            }
        )
    for key in ("resource", "containerResource"):
        if isinstance(m.get(key), dict):
            src, current = m[key], part(m[key], "current")
            out[key] = _prune(
                {
                    "name": src.get("name"),
                    "currentAverageUtilization": current.get("averageUtilization"),
                    "currentAverageValue": current.get("averageValue"),
                    "container": src.get("container"),
                }
            )
    if isinstance(m.get("external"), dict):
        current, metric = part(m["external"], "current"), part(m["external"], "metric")
        out["external"] = _prune(
            {
                "metricName": metric.get("name"),
                "metricSelector": copy.deepcopy(metric.get("selector")),
                "currentValue": current.get("value"),
                "currentAverageValue": current.get("averageValue"),
            }
        )
    return out


def metric_status_from_beta1(m: Obj) -> Obj:
    out: Obj = _prune({"type": m.get("type")})
    if isinstance(m.get("object"), dict):
        src = m["object"]
        out["object"] = _prune(
            {
                "metric": _identifier(src.get("metricName"), src.get("selector")),
                "current": _prune({"value": src.get("currentValue"), "averageValue": src.get("averageValue")}),
                "describedObject": copy.deepcopy(src.get("target")),
            }
        )
    if isinstance(m.get("pods"), dict):
        src = m["pods"]
        out["pods"] = {
            "metric": _identifier(src.get("metricName"), src.get("selector")),
            "current": _prune({"averageValue": src.get("currentAverageValue")}),
        }
    for key in ("resource", "containerResource"):
        if isinstance(m.get(key), dict):
            src = m[key]
            out[key] = _prune(
                {
                    "name": src.get("name"),
                    "container": src.get("container"),
                    "current": _prune(
                        {
                            "averageValue": src.get("currentAverageValue"),
                            "averageUtilization": src.get("currentAverageUtilization"),
                        }
                    ),
                }
            )
    if isinstance(m.get("external"), dict):
        src = m["external"]
        out["external"] = {
            "metric": _identifier(src.get("metricName"), src.get("metricSelector")),
            "current": _prune({"value": src.get("currentValue"), "averageValue": src.get("currentAverageValue")}),
        }
    return out


def _is_cpu_utilization(m: Obj) -> bool:
    res = m.get("resource")
    return (
        m.get("type") == "Resource"
        and isinstance(res, dict)
        and res.get("name") == CPU
        and dig(res, "target", "averageUtilization") is not None
    )


# ------------------------------------------------------------------------------ whole objects


def _metadata_copy(obj: Obj) -> Obj:
    return {k: copy.deepcopy(v) for k, v in obj.items() if k not in ("spec", "status")}


def annotations_without(obj: Obj, keys: tuple[str, ...]) -> None:
    """Drop the round-trip keys from obj's (copied) annotations; an annotation map left empty goes too."""
    md = obj.get("metadata")
    annotations = md.get("annotations") if isinstance(md, dict) else None
    if not isinstance(annotations, dict) or not any(k in annotations for k in keys):
        return
    for key in keys:
        annotations.pop(key, None)
    if not annotations and md is not None:
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
        annotations_without(out, self.keys.all)
        return out

    def v2beta2_to_storage(self, obj: Obj) -> Obj:
        out = copy.deepcopy(obj)
        out["apiVersion"] = f"{GROUP}/{STORAGE_VERSION}"
        annotations_without(out, self.keys.all)
        return out

    # -- v2beta1: metrics in the beta1 shape, behavior in an annotation

    def v2beta1_from_storage(self, obj: Obj) -> Obj:
        out = self._v2beta1_view(obj)
        self._keep_exact(obj, out, self._v2beta1_back)
        return out

    def v2beta1_to_storage(self, obj: Obj) -> Obj:
        out = self._v2beta1_back(obj)
        self._restore_exact(obj, out)
        annotations_without(out, self.keys.all)
        return out

    def _v2beta1_view(self, obj: Obj) -> Obj:
        out = _metadata_copy(obj)
        out["apiVersion"] = f"{GROUP}/v2beta1"
        annotations_without(out, self.keys.all)
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
        annotations_without(out, self.keys.all)
        return out

    # -- v1: a CPU utilization target; everything else in annotations

    def v1_from_storage(self, obj: Obj) -> Obj:
        out = self._v1_view(obj)
        self._keep_exact(obj, out, self._v1_back)
        return out

    def v1_to_storage(self, obj: Obj) -> Obj:
        out = self._v1_back(obj)
        self._restore_exact(obj, out)
        annotations_without(out, self.keys.all)
        return out

    def _v1_view(self, obj: Obj) -> Obj:
        out = _metadata_copy(obj)
        out["apiVersion"] = f"{GROUP}/v1"
        annotations_without(out, self.keys.all)
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
            metrics.append(cpu_metric(target))
        # autoscaling/v1's implicit default (80% CPU) is explicit in v2
        spec["metrics"] = metrics or [cpu_metric(DEFAULT_CPU_UTILIZATION)]
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
                status["currentMetrics"] = [
                    {"type": "Resource", "resource": {"name": CPU, "current": {"averageUtilization": cpu}}}
                ]
            conditions = _annotation(obj, self.keys.conditions)
            if isinstance(conditions, list):
                status["conditions"] = conditions
        annotations_without(out, self.keys.all)
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
        return {
            "spec": {k: v for k, v in part(view, "spec").items() if k not in SHARED_SPEC},
            "status": {k: v for k, v in part(view, "status").items() if k not in SHARED_STATUS},
            "notes": {k: annotations.get(k) for k in self.keys.all if k != self.keys.exact},
        }


#: fields every served version spells and means the same way (edits to them keep the saved exact fields).
SHARED_SPEC = frozenset({"scaleTargetRef", "minReplicas", "maxReplicas"})
SHARED_STATUS = frozenset({"observedGeneration", "lastScaleTime", "currentReplicas", "desiredReplicas"})


def cpu_metric(utilization: Any) -> Obj:
    return {
        "type": "Resource",
        "resource": {"name": CPU, "target": {"type": "Utilization", "averageUtilization": utilization}},
    }
