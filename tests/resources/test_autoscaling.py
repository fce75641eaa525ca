"""HorizontalPodAutoscaler: conversions between autoscaling/v1, v2, v2beta1 and v2beta2, defaults, validation,
the printer, and the versions over HTTP."""

from __future__ import annotations

import copy
import itertools
import json
import threading
from datetime import UTC, datetime

import orjson
import pytest
from orch_apiserver.auth.rbac.defaults import DefaultPolicy
from orch_apiserver.resources.autoscaling_conversion import Annotations, HpaConversions
from orch_apiserver.tables import table_for

from .helpers import NAMING, create_ok, created, messages, rt, updated

GROUP = "autoscaling"
PLURAL = "horizontalpodautoscalers"
VERSIONS = ("v1", "v2", "v2beta1", "v2beta2")
KEYS = Annotations(NAMING)
CONV = HpaConversions(NAMING)
REF = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}


def hpa_kind(version: str = "v2"):
    return rt(GROUP, PLURAL, version)


def v2(spec: dict, status: dict | None = None, annotations: dict | None = None) -> dict:
    obj = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default", "uid": "u-1", "resourceVersion": "7"},
        "spec": {"scaleTargetRef": dict(REF), "minReplicas": 2, "maxReplicas": 10, **spec},
    }
    if status is not None:
        obj["status"] = status
    if annotations:
        obj["metadata"]["annotations"] = annotations
    return obj


def cpu(utilization: int) -> dict:
    return {
        "type": "Resource",
        "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": utilization}},
    }


PODS = {
    "type": "Pods",
    "pods": {
        "metric": {"name": "qps", "selector": {"matchLabels": {"a": "b"}}},
        "target": {"type": "AverageValue", "averageValue": "10"},
    },
}
OBJECT = {
    "type": "Object",
    "object": {
        "describedObject": {"apiVersion": "v1", "kind": "Service", "name": "front"},
        "metric": {"name": "hits"},
        "target": {"type": "Value", "value": "2k"},
    },
}
OBJECT_AVG = {
    "type": "Object",
    "object": {
        "describedObject": {"kind": "Service", "name": "front"},
        "metric": {"name": "hits"},
        "target": {"type": "AverageValue", "averageValue": "30"},
    },
}
OBJECT_BOTH = {
    "type": "Object",
    "object": {
        "describedObject": {"kind": "Service", "name": "front"},
        "metric": {"name": "hits"},
        "target": {"type": "Value", "value": "5", "averageValue": "3"},
    },
}
MEMORY = {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "1Gi"}}}
CONTAINER = {
    "type": "ContainerResource",
    "containerResource": {
        "name": "cpu",
        "container": "app",
        "target": {"type": "Utilization", "averageUtilization": 60},
    },
}
EXTERNAL = {
    "type": "External",
    "external": {
        "metric": {"name": "queue", "selector": {"matchLabels": {"q": "jobs"}}},
        "target": {"type": "AverageValue", "averageValue": "5"},
    },
}
BEHAVIOR = {
    "scaleUp": {
        "stabilizationWindowSeconds": 0,
        "selectPolicy": "Max",
        "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15}],
    },
    "scaleDown": {
        "stabilizationWindowSeconds": 120,
        "selectPolicy": "Min",
        "policies": [{"type": "Percent", "value": 50, "periodSeconds": 60}],
    },
}
STATUS = {
    "observedGeneration": 3,
    "lastScaleTime": "2026-01-02T03:04:05Z",
    "currentReplicas": 3,
    "desiredReplicas": 4,
    "currentMetrics": [
        {
            "type": "Resource",
            "resource": {"name": "cpu", "current": {"averageUtilization": 40, "averageValue": "200m"}},
        },
        {"type": "Pods", "pods": {"metric": {"name": "qps"}, "current": {"averageValue": "12"}}},
        {
            "type": "Object",
            "object": {
                "metric": {"name": "hits"},
                "current": {"value": "1k"},
                "describedObject": {"kind": "Service", "name": "front"},
            },
        },
        {"type": "External", "external": {"metric": {"name": "queue"}, "current": {"averageValue": "4"}}},
    ],
    "conditions": [
        {
            "type": "AbleToScale",
            "status": "True",
            "reason": "ReadyForNewScale",
            "lastTransitionTime": "2026-01-02T03:04:05Z",
        }
    ],
}

#: storage (v2) objects, from plain to everything v1 and v2beta1 cannot spell.
STORED = {
    "cpu-only": v2({"metrics": [cpu(70)]}),
    "cpu-with-status": v2(
        {"metrics": [cpu(70)]},
        {
            "currentReplicas": 1,
            "desiredReplicas": 1,
            "currentMetrics": [
                {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 55}}}
            ],
        },
    ),
    "every-source": v2({"metrics": [cpu(50), PODS, OBJECT, OBJECT_AVG, MEMORY, CONTAINER, EXTERNAL]}, STATUS),
    "cpu-not-first": v2({"metrics": [PODS, cpu(50)]}),
    "two-cpu-targets": v2({"metrics": [cpu(50), cpu(90)]}),
    "value-and-average": v2({"metrics": [OBJECT_BOTH]}),
    "behavior": v2({"metrics": [cpu(80)], "behavior": BEHAVIOR}),
    "no-cpu": v2({"metrics": [MEMORY]}),
    "user-annotations": v2({"metrics": [PODS], "behavior": BEHAVIOR}, STATUS, {"team": "web"}),
}


def from_storage(version: str, obj: dict) -> dict:
    if version == "v2":
        return copy.deepcopy(obj)
    return getattr(CONV, f"{version}_from_storage")(obj)


def to_storage(version: str, obj: dict) -> dict:
    if version == "v2":
        return copy.deepcopy(obj)
    return getattr(CONV, f"{version}_to_storage")(obj)


# ------------------------------------------------------------------------------------------ round trips


@pytest.mark.parametrize("name", sorted(STORED))
@pytest.mark.parametrize("version", VERSIONS)
def test_storage_to_version_and_back_is_lossless(name: str, version: str) -> None:
    stored = STORED[name]
    served = from_storage(version, stored)
    assert served["apiVersion"] == f"autoscaling/{version}"
    assert to_storage(version, served) == stored


@pytest.mark.parametrize("name", sorted(STORED))
@pytest.mark.parametrize(("first", "second"), list(itertools.permutations(VERSIONS, 2)))
def test_every_version_pair_round_trips_through_storage(name: str, first: str, second: str) -> None:
    stored = STORED[name]
    via_first = to_storage(first, from_storage(first, stored))
    via_second = to_storage(second, from_storage(second, via_first))
    assert via_first == stored and via_second == stored


def test_conversions_never_mutate_their_input() -> None:
    stored = STORED["every-source"]
    before = copy.deepcopy(stored)
    for version in VERSIONS:
        served = from_storage(version, stored)
        frozen = copy.deepcopy(served)
        to_storage(version, served)
        assert served == frozen
    assert stored == before


def test_v1_keeps_what_it_cannot_spell_in_the_reference_annotations() -> None:
    served = CONV.v1_from_storage(
        STORED["every-source"] | {"spec": {**STORED["every-source"]["spec"], "behavior": BEHAVIOR}}
    )
    assert served["spec"]["targetCPUUtilizationPercentage"] == 50
    assert "metrics" not in served["spec"] and "behavior" not in served["spec"]
    assert served["status"]["currentCPUUtilizationPercentage"] == 40
    assert "currentMetrics" not in served["status"] and "conditions" not in served["status"]
    notes = served["metadata"]["annotations"]
    assert KEYS.metrics == "autoscaling.alpha.orch.io/metrics"  # the reference's key with our domain
    others = json.loads(notes[KEYS.metrics])
    assert {
        "type": "Pods",
        "pods": {"metricName": "qps", "targetAverageValue": "10", "selector": {"matchLabels": {"a": "b"}}},
    } in others
    assert {"type": "Resource", "resource": {"name": "memory", "targetAverageValue": "1Gi"}} in others
    assert all(m.get("resource", {}).get("name") != "cpu" for m in others)  # the CPU target is a v1 field
    assert json.loads(notes[KEYS.current_metrics])[0] == {
        "type": "Resource",
        "resource": {"name": "cpu", "currentAverageUtilization": 40, "currentAverageValue": "200m"},
    }
    assert json.loads(notes[KEYS.conditions]) == STATUS["conditions"]
    assert json.loads(notes[KEYS.behavior]) == BEHAVIOR


def test_v1_of_a_plain_cpu_autoscaler_carries_no_annotations() -> None:
    served = CONV.v1_from_storage(STORED["cpu-only"])
    assert served["spec"] == {
        "scaleTargetRef": REF,
        "minReplicas": 2,
        "maxReplicas": 10,
        "targetCPUUtilizationPercentage": 70,
    }
    assert "annotations" not in served["metadata"]


def test_v1_without_a_target_means_80_percent_cpu() -> None:
    v1 = {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "a"},
        "spec": {"scaleTargetRef": REF, "maxReplicas": 3},
    }
    assert CONV.v1_to_storage(v1)["spec"]["metrics"] == [cpu(80)]


def test_v2beta1_maps_targets_onto_its_own_fields() -> None:
    served = CONV.v2beta1_from_storage(STORED["every-source"])
    metrics = served["spec"]["metrics"]
    assert metrics[0] == {"type": "Resource", "resource": {"name": "cpu", "targetAverageUtilization": 50}}
    assert metrics[2] == {
        "type": "Object",
        "object": {
            "target": {"apiVersion": "v1", "kind": "Service", "name": "front"},
            "metricName": "hits",
            "targetValue": "2k",
        },
    }
    assert metrics[6] == {
        "type": "External",
        "external": {
            "metricName": "queue",
            "metricSelector": {"matchLabels": {"q": "jobs"}},
            "targetAverageValue": "5",
        },
    }
    assert served["status"]["conditions"] == STATUS["conditions"]  # a v2beta1 field
    assert "annotations" not in served["metadata"]


def test_v2beta1_keeps_behavior_in_an_annotation() -> None:
    served = CONV.v2beta1_from_storage(STORED["behavior"])
    assert "behavior" not in served["spec"]
    assert json.loads(served["metadata"]["annotations"][KEYS.behavior]) == BEHAVIOR


@pytest.mark.parametrize("version", ["v1", "v2beta1"])
def test_a_v1_or_v2beta1_native_object_round_trips(version: str) -> None:
    native = {
        "v1": {
            "spec": {"scaleTargetRef": REF, "minReplicas": 1, "maxReplicas": 4, "targetCPUUtilizationPercentage": 65},
            "status": {"currentReplicas": 2, "desiredReplicas": 2, "currentCPUUtilizationPercentage": 30},
        },
        "v2beta1": {
            "spec": {
                "scaleTargetRef": REF,
                "minReplicas": 1,
                "maxReplicas": 4,
                "metrics": [
                    {"type": "Pods", "pods": {"metricName": "qps", "targetAverageValue": "9"}},
                    {
                        "type": "Object",
                        "object": {
                            "target": {"kind": "Service", "name": "s"},
                            "metricName": "m",
                            "targetValue": "0",
                            "averageValue": "3",
                        },
                    },
                ],
            }
        },
    }[version]
    obj = {
        "apiVersion": f"autoscaling/{version}",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "a", "namespace": "default"},
        **native,
    }
    back = from_storage(version, to_storage(version, obj))
    # as the reference, v1 also saves the raw current metrics the CPU field was taken from
    notes = back["metadata"].pop("annotations", {})
    assert back == obj
    if version == "v1":
        assert json.loads(notes[KEYS.current_metrics]) == [
            {"type": "Resource", "resource": {"name": "cpu", "currentAverageUtilization": 30}}
        ]


def test_edited_v1_view_wins_over_the_saved_exact_metrics() -> None:
    served = CONV.v1_from_storage(STORED["two-cpu-targets"])
    assert KEYS.exact in served["metadata"]["annotations"]
    served["spec"]["targetCPUUtilizationPercentage"] = 33
    back = CONV.v1_to_storage(served)
    assert back["spec"]["metrics"] == [cpu(33)]
    assert "annotations" not in back["metadata"]


def test_unrelated_edits_keep_the_saved_exact_metrics() -> None:
    served = CONV.v1_from_storage(STORED["cpu-not-first"])
    served["spec"]["maxReplicas"] = 20
    assert CONV.v1_to_storage(served)["spec"]["metrics"] == [PODS, cpu(50)]


@pytest.mark.parametrize("version", ["v2beta2", "v2beta1", "v1"])
def test_round_trip_annotations_sent_by_a_client_are_dropped(version: str) -> None:
    obj = from_storage(version, STORED["cpu-only"])
    obj["metadata"]["annotations"] = {KEYS.behavior: "not json", KEYS.conditions: "[]", "keep": "me"}
    stored = to_storage(version, obj)
    assert stored["metadata"]["annotations"] == {"keep": "me"}


# ------------------------------------------------------------------------------------------ defaults


def test_defaults_min_replicas_cpu_metric_and_behavior_rules() -> None:
    obj = create_ok(
        hpa_kind(),
        {
            "spec": {
                "scaleTargetRef": REF,
                "maxReplicas": 5,
                "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}},
            }
        },
    )
    spec = obj["spec"]
    assert spec["minReplicas"] == 1
    assert spec["metrics"] == [cpu(80)]
    assert spec["behavior"]["scaleUp"] == {
        "stabilizationWindowSeconds": 0,
        "selectPolicy": "Max",
        "policies": [
            {"type": "Pods", "value": 4, "periodSeconds": 15},
            {"type": "Percent", "value": 100, "periodSeconds": 15},
        ],
    }
    assert spec["behavior"]["scaleDown"] == {
        "stabilizationWindowSeconds": 60,
        "selectPolicy": "Max",
        "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
    }
    assert obj["status"] == {"currentReplicas": 0, "desiredReplicas": 0}
    assert "generation" not in obj["metadata"]


def test_no_behavior_stays_no_behavior() -> None:
    obj = create_ok(hpa_kind(), {"spec": {"scaleTargetRef": REF, "maxReplicas": 5}})
    assert "behavior" not in obj["spec"]


# ------------------------------------------------------------------------------------------ validation

BAD = [
    ({"scaleTargetRef": {"name": "web"}, "maxReplicas": 3}, "spec.scaleTargetRef.kind: Required value"),
    ({"scaleTargetRef": {"kind": "Deployment"}, "maxReplicas": 3}, "spec.scaleTargetRef.name: Required value"),
    ({"scaleTargetRef": {"kind": "Deployment", "name": "a/b"}, "maxReplicas": 3}, "spec.scaleTargetRef.name: Invalid"),
    (
        {"scaleTargetRef": REF, "minReplicas": 0, "maxReplicas": 3},
        "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
    ),
    ({"scaleTargetRef": REF, "maxReplicas": 0}, "spec.maxReplicas: Invalid value: 0: must be greater than 0"),
    (
        {"scaleTargetRef": REF, "minReplicas": 5, "maxReplicas": 3},
        "spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`",
    ),
    ({"scaleTargetRef": REF, "maxReplicas": 3, "metrics": [{"type": "Nope"}]}, "spec.metrics[0].type: Unsupported"),
    (
        {"scaleTargetRef": REF, "maxReplicas": 3, "metrics": [{"type": "Pods"}]},
        "spec.metrics[0].pods: Required value: must populate information for the given metric source",
    ),
    (
        {"scaleTargetRef": REF, "maxReplicas": 3, "metrics": [{**PODS, "resource": MEMORY["resource"]}]},
        "spec.metrics[0]: Forbidden: must populate the given metric source only",
    ),
    (
        {
            "scaleTargetRef": REF,
            "maxReplicas": 3,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization"}}}],
        },
        "spec.metrics[0].resource.target.averageUtilization: Required value",
    ),
    (
        {
            "scaleTargetRef": REF,
            "maxReplicas": 3,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {
                        "name": "cpu",
                        "target": {"type": "Utilization", "averageUtilization": 5, "averageValue": "1"},
                    },
                }
            ],
        },
        "may not set both a target raw value and a target utilization",
    ),
    (
        {
            "scaleTargetRef": REF,
            "maxReplicas": 3,
            "metrics": [
                {
                    "type": "Pods",
                    "pods": {"metric": {"name": "q"}, "target": {"type": "AverageValue", "averageValue": "-1"}},
                }
            ],
        },
        'spec.metrics[0].pods.target.averageValue: Invalid value: "-1": must be positive',
    ),
    (
        {
            "scaleTargetRef": REF,
            "maxReplicas": 3,
            "metrics": [
                {
                    "type": "Object",
                    "object": {
                        "describedObject": {"kind": "Service", "name": "s"},
                        "metric": {},
                        "target": {"type": "Value", "value": "1"},
                    },
                }
            ],
        },
        "spec.metrics[0].object.metric.name: Required value: must specify a metric name",
    ),
    (
        {
            "scaleTargetRef": REF,
            "maxReplicas": 3,
            "metrics": [
                {"type": "External", "external": {"metric": {"name": "q"}, "target": {"type": "Bogus", "value": "1"}}}
            ],
        },
        (
            'spec.metrics[0].external.target.type: Invalid value: "Bogus": must be either Utilization, Value, or '
            "AverageValue"
        ),
    ),
    (
        {"scaleTargetRef": REF, "maxReplicas": 3, "behavior": {"scaleUp": {"stabilizationWindowSeconds": 4000}}},
        "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600",
    ),
    (
        {
            "scaleTargetRef": REF,
            "maxReplicas": 3,
            "behavior": {"scaleDown": {"policies": [{"type": "Pods", "value": 0, "periodSeconds": 2000}]}},
        },
        "spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 2000: must be less than or equal to 1800",
    ),
    (
        {"scaleTargetRef": REF, "maxReplicas": 3, "behavior": {"scaleDown": {"selectPolicy": "Any"}}},
        'spec.behavior.scaleDown.selectPolicy: Unsupported value: "Any"',
    ),
]


@pytest.mark.parametrize(("spec", "message"), BAD, ids=[m for _, m in BAD])
def test_invalid_autoscalers_are_refused(spec: dict, message: str) -> None:
    _, errors = created(hpa_kind(), {"spec": spec})
    assert any(message in m for m in messages(errors)), messages(errors)


def test_every_source_type_is_valid() -> None:
    create_ok(
        hpa_kind(),
        {
            "spec": {
                "scaleTargetRef": REF,
                "maxReplicas": 4,
                "behavior": BEHAVIOR,
                "metrics": [cpu(50), PODS, OBJECT, OBJECT_AVG, MEMORY, CONTAINER, EXTERNAL],
            }
        },
    )


def test_update_keeps_status() -> None:
    old = create_ok(hpa_kind(), {"spec": {"scaleTargetRef": REF, "maxReplicas": 4}})
    old["status"] = {"currentReplicas": 2, "desiredReplicas": 3}
    new = copy.deepcopy(old)
    new["spec"]["maxReplicas"] = 6
    new["status"] = {"currentReplicas": 99, "desiredReplicas": 99}
    out, errors = updated(hpa_kind(), new, old)
    assert errors == [] and out["status"] == old["status"]


# ------------------------------------------------------------------------------------------ catalog, printer, RBAC


def test_every_version_is_served_with_the_reference_deprecations() -> None:
    kinds = {v: hpa_kind(v) for v in VERSIONS}
    assert kinds["v2"].conversion is None
    assert all(kinds[v].conversion.storage_version == "v2" for v in ("v1", "v2beta1", "v2beta2"))
    assert kinds["v1"].deprecation is None and kinds["v2"].deprecation is None
    beta1, beta2 = kinds["v2beta1"].deprecation, kinds["v2beta2"].deprecation
    assert (beta1.deprecated_in, beta1.removed_in, beta1.replacement) == (
        "1.22",
        "1.25",
        "autoscaling/v2 HorizontalPodAutoscaler",
    )
    assert (beta2.deprecated_in, beta2.removed_in) == ("1.23", "1.26")
    assert all(k.short_names == ("hpa",) and k.categories == ("all",) and k.namespaced for k in kinds.values())


def _row(version: str, obj: dict) -> list:
    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    return table_for(hpa_kind(version), NAMING).row(obj, now)["cells"]


def test_printer_columns_and_targets() -> None:
    spec = table_for(hpa_kind(), NAMING)
    assert [c.name for c in spec.columns] == ["Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"]
    stored = copy.deepcopy(STORED["every-source"])
    stored["metadata"]["creationTimestamp"] = "2026-01-02T03:00:05Z"
    assert _row("v2", stored) == ["web", "Deployment/web", "40%/50%, 12/10 + 5 more...", "2", 10, 3, "4m"]


def test_printer_reads_every_version_the_same() -> None:
    stored = STORED["cpu-with-status"]
    expected = _row("v2", stored)
    assert expected[2] == "55%/70%"
    for version in VERSIONS:
        assert _row(version, from_storage(version, stored)) == expected


def test_printer_without_status_or_metrics() -> None:
    obj = v2({"metrics": [OBJECT_AVG, EXTERNAL]})
    del obj["spec"]["minReplicas"]
    assert _row("v2", obj)[2:4] == ["<unknown>/30 (avg), <unknown>/5 (avg)", "<unset>"]
    assert _row("v2", v2({"metrics": []}))[2] == "<none>"


def test_view_and_edit_roles_cover_autoscalers() -> None:
    roles = {r["metadata"]["name"]: r for r in DefaultPolicy(NAMING).cluster_roles()}
    view = roles["system:aggregate-to-view"]["rules"]
    edit = roles["system:aggregate-to-edit"]["rules"]
    assert any(
        GROUP in r["apiGroups"] and "horizontalpodautoscalers" in r["resources"] and "watch" in r["verbs"] for r in view
    )
    assert any(
        GROUP in r["apiGroups"] and "horizontalpodautoscalers" in r["resources"] and "create" in r["verbs"]
        for r in edit
    )


# ------------------------------------------------------------------------------------------ HTTP


def url(version: str, name: str = "") -> str:
    base = f"/apis/autoscaling/{version}/namespaces/default/horizontalpodautoscalers"
    return f"{base}/{name}" if name else base


def read_events(resp, count: int) -> list[dict]:
    events: list[dict] = []
    buffer = b""
    for chunk in resp.response:
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            events.append(orjson.loads(line))
        if len(events) >= count:
            break
    return events


def test_created_through_v1_reads_through_every_version(any_client) -> None:
    body = {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {"scaleTargetRef": REF, "maxReplicas": 5, "targetCPUUtilizationPercentage": 60},
    }
    made = any_client.post(url("v1"), json=body)
    assert made.status_code == 201, made.get_json()
    assert made.get_json()["apiVersion"] == "autoscaling/v1"
    assert made.get_json()["spec"]["targetCPUUtilizationPercentage"] == 60

    as_v2 = any_client.get(url("v2", "web")).get_json()
    assert as_v2["apiVersion"] == "autoscaling/v2"
    assert as_v2["spec"]["metrics"] == [cpu(60)] and as_v2["spec"]["minReplicas"] == 1
    as_beta2 = any_client.get(url("v2beta2", "web")).get_json()
    assert as_beta2["apiVersion"] == "autoscaling/v2beta2" and as_beta2["spec"] == as_v2["spec"]
    assert as_beta2["metadata"]["resourceVersion"] == as_v2["metadata"]["resourceVersion"]

    listed = any_client.get(url("v2beta1")).get_json()
    assert listed["kind"] == "HorizontalPodAutoscalerList" and listed["apiVersion"] == "autoscaling/v2beta1"
    assert [i["apiVersion"] for i in listed["items"]] == ["autoscaling/v2beta1"]
    assert listed["items"][0]["spec"]["metrics"] == [
        {"type": "Resource", "resource": {"name": "cpu", "targetAverageUtilization": 60}}
    ]


def test_v2_only_fields_survive_a_write_through_v1(any_client) -> None:
    body = v2({"metrics": [cpu(50), PODS], "behavior": BEHAVIOR})
    del body["metadata"]["uid"], body["metadata"]["resourceVersion"]
    assert any_client.post(url("v2"), json=body).status_code == 201
    stored = any_client.get(url("v2", "web")).get_json()

    through_v1 = any_client.get(url("v1", "web")).get_json()
    assert KEYS.metrics in through_v1["metadata"]["annotations"]
    through_v1["metadata"]["labels"] = {"edited": "v1"}
    put = any_client.put(url("v1", "web"), json=through_v1)
    assert put.status_code == 200, put.get_json()

    after = any_client.get(url("v2", "web")).get_json()
    assert after["spec"] == stored["spec"]
    assert after["metadata"]["labels"] == {"edited": "v1"}
    assert "annotations" not in after["metadata"]


def test_status_written_through_v1_is_read_through_v2(client) -> None:
    body = {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {"scaleTargetRef": REF, "maxReplicas": 5},
    }
    client.post(url("v1"), json=body)
    view = client.get(url("v1", "web") + "/status").get_json()
    view["status"] = {"currentReplicas": 2, "desiredReplicas": 3, "currentCPUUtilizationPercentage": 45}
    resp = client.put(url("v1", "web") + "/status", json=view)
    assert resp.status_code == 200, resp.get_json()
    status = client.get(url("v2", "web")).get_json()["status"]
    assert status["currentReplicas"] == 2 and status["desiredReplicas"] == 3
    assert status["currentMetrics"] == [
        {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 45}}}
    ]


def test_watch_through_another_version(any_app) -> None:
    c = any_app.test_client()
    resp = c.get(url("v2beta2") + "?watch=1&timeoutSeconds=5", buffered=False)
    assert resp.status_code == 200

    def write() -> None:
        body = {
            "apiVersion": "autoscaling/v1",
            "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "w"},
            "spec": {"scaleTargetRef": REF, "maxReplicas": 2, "targetCPUUtilizationPercentage": 75},
        }
        any_app.test_client().post(url("v1"), json=body)

    threading.Timer(0.2, write).start()
    events = read_events(resp, 1)
    resp.close()
    assert events[0]["type"] == "ADDED"
    assert events[0]["object"]["apiVersion"] == "autoscaling/v2beta2"
    assert events[0]["object"]["spec"]["metrics"] == [cpu(75)]


def test_deprecated_versions_warn(client) -> None:
    listed = client.get(url("v2beta1"))
    assert listed.status_code == 200
    assert listed.headers.get("Warning") == (
        '299 - "autoscaling/v2beta1 HorizontalPodAutoscaler is deprecated in v1.22+, unavailable in v1.25+; '
        'use autoscaling/v2 HorizontalPodAutoscaler"'
    )
    assert "Warning" not in client.get(url("v1")).headers
    assert "Warning" not in client.get(url("v2")).headers


def test_invalid_through_v1_is_a_422(client) -> None:
    body = {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "bad"},
        "spec": {"scaleTargetRef": REF, "minReplicas": 4, "maxReplicas": 2},
    }
    resp = client.post(url("v1"), json=body)
    assert resp.status_code == 422
    assert resp.get_json()["details"]["causes"][0]["field"] == "spec.maxReplicas"


def test_table_through_v1(client) -> None:
    body = {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {"scaleTargetRef": REF, "maxReplicas": 5, "targetCPUUtilizationPercentage": 60},
    }
    client.post(url("v1"), json=body)
    resp = client.get(url("v1"), headers={"Accept": "application/json;as=Table;v=v1;g=meta.orch.io"})
    assert resp.status_code == 200, resp.get_json()
    row = resp.get_json()["rows"][0]["cells"]
    assert row[:6] == ["web", "Deployment/web", "<unknown>/60%", "1", 5, 0]
