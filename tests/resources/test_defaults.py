"""Shared pod-template defaulting, QoS, selectors and the scale subresource."""

from __future__ import annotations

import copy
from decimal import Decimal

import pytest
from orch_apiserver.resources.defaults import (
    default_pod,
    default_pod_spec,
    image_pull_policy,
    label_selector_string,
    map_selector_string,
    parse_quantity,
    pod_qos_class,
    scale_subresource,
    selector_matches,
    validate_pod_spec,
)

from .helpers import messages


@pytest.mark.parametrize(
    ("image", "policy"),
    [
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("nginx:1.21", "IfNotPresent"),
        ("registry.local:5000/nginx", "Always"),
        ("registry.local:5000/nginx:1.0", "IfNotPresent"),
        ("nginx@sha256:" + "a" * 64, "IfNotPresent"),
        ("nginx:latest@sha256:" + "a" * 64, "Always"),
    ],
)
def test_image_pull_policy(image: str, policy: str) -> None:
    assert image_pull_policy(image) == policy


def test_pod_spec_defaults() -> None:
    spec = {
        "containers": [
            {
                "name": "a",
                "image": "nginx:1.2",
                "ports": [{"containerPort": 80}],
                "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                "livenessProbe": {"httpGet": {"port": 80}},
            }
        ],
        "volumes": [{"name": "v"}, {"name": "s", "secret": {"secretName": "x"}}],
    }
    default_pod_spec(spec)
    assert spec["restartPolicy"] == "Always"
    assert spec["terminationGracePeriodSeconds"] == 30
    assert spec["dnsPolicy"] == "ClusterFirst"
    assert spec["schedulerName"] == "default-scheduler"
    assert spec["securityContext"] == {}
    assert "enableServiceLinks" not in spec  # pod-only default
    c = spec["containers"][0]
    assert c["imagePullPolicy"] == "IfNotPresent"
    assert c["terminationMessagePath"] == "/dev/termination-log"
    assert c["terminationMessagePolicy"] == "File"
    assert c["resources"] == {}
    assert c["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    assert c["env"][0]["valueFrom"]["fieldRef"]["apiVersion"] == "v1"
    assert c["livenessProbe"] == {
        "httpGet": {"port": 80, "path": "/", "scheme": "HTTP"},
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    }
    assert spec["volumes"][0] == {"name": "v", "emptyDir": {}}
    assert spec["volumes"][1]["secret"]["defaultMode"] == 420


def test_pod_spec_defaults_keep_given_values_and_are_idempotent() -> None:
    spec = {
        "restartPolicy": "Never",
        "terminationGracePeriodSeconds": 0,
        "dnsPolicy": "Default",
        "containers": [{"name": "a", "image": "x", "imagePullPolicy": "Never"}],
    }
    default_pod_spec(spec)
    assert (spec["restartPolicy"], spec["terminationGracePeriodSeconds"], spec["dnsPolicy"]) == ("Never", 0, "Default")
    assert spec["containers"][0]["imagePullPolicy"] == "Never"
    again = copy.deepcopy(spec)
    default_pod_spec(again)
    assert again == spec


def test_restart_policy_can_be_left_alone() -> None:
    spec = {"containers": [{"name": "a", "image": "x"}]}
    default_pod_spec(spec, restart_policy=False)
    assert "restartPolicy" not in spec


def test_service_account_mirrors_and_host_network_ports() -> None:
    spec = {
        "serviceAccount": "builder",
        "hostNetwork": True,
        "containers": [{"name": "a", "image": "x", "ports": [{"containerPort": 8080}]}],
    }
    default_pod_spec(spec)
    assert spec["serviceAccountName"] == spec["serviceAccount"] == "builder"
    assert spec["containers"][0]["ports"][0]["hostPort"] == 8080


def test_pod_defaults_requests_from_limits() -> None:
    pod = {
        "spec": {
            "containers": [
                {
                    "name": "a",
                    "image": "x",
                    "resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}},
                }
            ]
        }
    }
    default_pod(pod)
    assert pod["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "500m", "memory": "1Gi"}
    assert pod["spec"]["enableServiceLinks"] is True


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("500m", Decimal("0.5")),
        ("1", Decimal(1)),
        ("1Gi", Decimal(2**30)),
        ("2k", Decimal(2000)),
        ("1.5", Decimal("1.5")),
        ("1e3", Decimal(1000)),
        (3, Decimal(3)),
        ("abc", None),
        ("", None),
    ],
)
def test_parse_quantity(text: object, value: Decimal | None) -> None:
    assert parse_quantity(text) == value


@pytest.mark.parametrize(
    ("resources", "qos"),
    [
        ([{}], "BestEffort"),
        ([{"requests": {"cpu": "0"}}], "BestEffort"),
        ([{"requests": {"cpu": "100m"}}], "Burstable"),
        ([{"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1", "memory": "1Gi"}}], "Guaranteed"),
        ([{"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1000m", "memory": "1Gi"}}], "Guaranteed"),
        ([{"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m", "memory": "1Gi"}}], "Burstable"),
        ([{"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1", "memory": "1Gi"}}, {}], "Burstable"),
    ],
)
def test_pod_qos_class(resources: list[dict], qos: str) -> None:
    spec = {"containers": [{"name": f"c{i}", "image": "x", "resources": r} for i, r in enumerate(resources)]}
    assert pod_qos_class(spec) == qos


def test_validate_pod_spec() -> None:
    assert messages(validate_pod_spec({"containers": []}, "spec")) == [
        "spec.containers: Required value",
        ('spec.restartPolicy: Unsupported value: "": supported values: "Always", "OnFailure", "Never"'),
    ]
    spec = {"restartPolicy": "Always", "containers": [{"name": "a"}, {"name": "a", "image": "x"}]}
    assert messages(validate_pod_spec(spec, "spec")) == [
        "spec.containers[0].image: Required value",
        'spec.containers[1].name: Duplicate value: "a"',
    ]
    assert validate_pod_spec(None, "spec.template.spec")[0].field == "spec.template.spec.containers"


@pytest.mark.parametrize(
    ("selector", "text"),
    [
        (
            {
                "matchLabels": {"app": "web"},
                "matchExpressions": [{"key": "tier", "operator": "In", "values": ["b", "a"]}],
            },
            "app=web,tier in (a,b)",
        ),
        ({"matchLabels": {"b": "2", "a": "1"}}, "a=1,b=2"),
        (
            {
                "matchExpressions": [
                    {"key": "z", "operator": "NotIn", "values": ["x"]},
                    {"key": "m", "operator": "Exists"},
                    {"key": "a", "operator": "DoesNotExist"},
                ]
            },
            "!a,m,z notin (x)",
        ),
        ({}, ""),
        (None, ""),
    ],
)
def test_label_selector_string(selector: dict | None, text: str) -> None:
    assert label_selector_string(selector) == text


def test_map_selector_string_and_matching() -> None:
    assert map_selector_string({"tier": "a", "app": "web"}) == "app=web,tier=a"
    assert map_selector_string(None) == ""
    sel = {"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["x"]}]}
    assert selector_matches(sel, {"app": "web"})
    assert not selector_matches(sel, {"app": "web", "tier": "x"})
    assert not selector_matches({"matchExpressions": [{"key": "a", "operator": "Bogus"}]}, {"a": "b"})


def test_scale_view_and_merge_round_trip() -> None:
    sub = scale_subresource(lambda obj: label_selector_string(obj["spec"]["selector"]))
    assert (sub.name, sub.kind, sub.group, sub.version) == ("scale", "Scale", "autoscaling", "v1")
    obj = {
        "metadata": {
            "name": "web",
            "namespace": "ns",
            "uid": "u1",
            "resourceVersion": "7",
            "creationTimestamp": "2024-01-01T00:00:00Z",
            "labels": {"a": "b"},
        },
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}},
        "status": {"replicas": 2},
    }
    view = sub.view(obj)
    assert view == {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": "web",
            "namespace": "ns",
            "uid": "u1",
            "resourceVersion": "7",
            "creationTimestamp": "2024-01-01T00:00:00Z",
        },
        "spec": {"replicas": 3},
        "status": {"replicas": 2, "selector": "app=web"},
    }
    view["spec"]["replicas"] = 5
    merged = sub.merge(obj, view)
    assert merged["spec"]["replicas"] == 5 and obj["spec"]["replicas"] == 3
    assert {k: v for k, v in merged.items() if k != "spec"} == {k: v for k, v in obj.items() if k != "spec"}
    assert sub.view(merged)["spec"]["replicas"] == 5
    assert sub.view({"metadata": {"name": "x"}, "spec": {"replicas": 1, "selector": {}}})["status"] == {"replicas": 0}
