"""The HorizontalPodAutoscaler printer (NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE).

Rows are read in the autoscaling/v2 shape whatever version the object is served in.
"""

from __future__ import annotations

from datetime import datetime

from ..naming import Naming
from ..resources.autoscaling import as_v2
from .columns import (
    NONE,
    UNKNOWN,
    UNSET,
    Cell,
    Column,
    Obj,
    TableSpec,
    age,
    age_column,
    dicts,
    integer,
    mapping,
    name_column,
    name_of,
    table,
    text,
)

MAX_SHOWN = 2


def _status_part(statuses: list[Obj], i: int, key: str) -> Obj | None:
    found = statuses[i].get(key) if i < len(statuses) else None
    return found if isinstance(found, dict) else None


def _value_pair(spec: Obj, status: Obj | None, avg_marker: bool) -> str:
    """`current/target` for a value target, `current/target (avg)` for an average-value one."""
    target = mapping(spec, "target")
    current = mapping(status, "current") if status else {}
    if target.get("averageValue") is not None:
        shown = text(current, "averageValue") if status and current.get("averageValue") is not None else UNKNOWN
        return f"{shown}/{text(target, 'averageValue')}" + (" (avg)" if avg_marker else "")
    shown = text(current, "value") if status and current.get("value") is not None else UNKNOWN
    return f"{shown}/{text(target, 'value')}"


def _resource_pair(spec: Obj, status: Obj | None) -> str:
    target = mapping(spec, "target")
    current = mapping(status, "current") if status else {}
    if target.get("averageValue") is not None:
        shown = text(current, "averageValue") if status and current.get("averageValue") is not None else UNKNOWN
        return f"{shown}/{text(target, 'averageValue')}"
    utilization = current.get("averageUtilization")
    shown = f"{utilization}%" if status and utilization is not None else UNKNOWN
    wanted = target.get("averageUtilization")
    return f"{shown}/{wanted}%" if wanted is not None else f"{shown}/<auto>"


def format_metrics(specs: list[Obj], statuses: list[Obj]) -> str:
    """formatHPAMetrics: up to two `current/target` pairs, then ` + N more...`."""
    if not specs:
        return NONE
    shown: list[str] = []
    for i, spec in enumerate(specs):
        kind = spec.get("type")
        if kind == "External":
            shown.append(_value_pair(mapping(spec, "external"), _status_part(statuses, i, "external"), True))
        elif kind == "Object":
            shown.append(_value_pair(mapping(spec, "object"), _status_part(statuses, i, "object"), True))
        elif kind == "Pods":
            status = _status_part(statuses, i, "pods")
            current = text(status, "current", "averageValue") if status else UNKNOWN
            shown.append(f"{current or UNKNOWN}/{text(spec, 'pods', 'target', 'averageValue')}")
        elif kind == "Resource":
            shown.append(_resource_pair(mapping(spec, "resource"), _status_part(statuses, i, "resource")))
        elif kind == "ContainerResource":
            shown.append(
                _resource_pair(mapping(spec, "containerResource"), _status_part(statuses, i, "containerResource"))
            )
        else:
            shown.append("<unknown type>")
    listed = ", ".join(shown[:MAX_SHOWN])
    return f"{listed} + {len(shown) - MAX_SHOWN} more..." if len(shown) > MAX_SHOWN else listed


def hpa_table(naming: Naming) -> TableSpec:
    def cells(obj: Obj, now: datetime) -> list[Cell]:
        v2 = as_v2(obj, naming)
        ref = mapping(v2, "spec", "scaleTargetRef")
        low = mapping(v2, "spec").get("minReplicas")
        return [
            name_of(v2),
            f"{text(ref, 'kind')}/{text(ref, 'name')}",
            format_metrics(dicts(v2, "spec", "metrics"), dicts(v2, "status", "currentMetrics")),
            str(low) if isinstance(low, int) else UNSET,
            integer(v2, "spec", "maxReplicas"),
            integer(v2, "status", "currentReplicas"),
            age(v2, now),
        ]

    return table(
        [
            name_column(),
            Column(
                "Reference",
                description="scaleTargetRef points to the target resource to scale, and is used to "
                "the pods for which metrics should be collected, as well as to actually "
                "change the replica count.",
            ),
            Column(
                "Targets",
                description="metrics contains the specifications for which to use to calculate the "
                "desired replica count (the maximum replica count across all metrics will "
                "be used).",
            ),
            Column(
                "MinPods",
                description="minReplicas is the lower limit for the number of replicas to which the "
                "autoscaler can scale down.",
            ),
            Column(
                "MaxPods",
                "integer",
                "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.",
            ),
            Column(
                "Replicas",
                description="currentReplicas is current number of replicas of pods managed by this "
                "autoscaler, as last seen by the autoscaler.",
            ),
            age_column(),
        ],
        cells,
    )


def tables(naming: Naming) -> dict[tuple[str, str], TableSpec]:
    return {("autoscaling", "horizontalpodautoscalers"): hpa_table(naming)}
