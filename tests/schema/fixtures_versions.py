"""Realistic objects of the older served versions (and the kinds added with them), canonical (decoded) form.

Keys are `<group prefix>_<version>/<Kind>`; merged into fixtures_groups.GROUP_OBJECTS.
"""

from __future__ import annotations

from typing import Any

from orch_apiserver.naming import Naming

NAMING = Naming()
META: dict[str, Any] = {
    "name": "obj-1",
    "namespace": "prod",
    "uid": "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
    "resourceVersion": "42",
    "generation": 2,
    "creationTimestamp": "2024-05-06T07:08:09Z",
    "labels": {"app": "web"},
}
CLUSTER_META: dict[str, Any] = {k: v for k, v in META.items() if k != "namespace"}
TARGET = {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"}
CONDITION = {
    "type": "AbleToScale",
    "status": "True",
    "lastTransitionTime": "2024-05-06T07:08:09Z",
    "reason": "ReadyForNewScale",
    "message": "recommended size matches current size",
}
SELECTOR = {"matchLabels": {"tier": "frontend"}}
FS_SPEC: dict[str, Any] = {
    "priorityLevelConfiguration": {"name": "workload-high"},
    "matchingPrecedence": 800,
    "distinguisherMethod": {"type": "ByUser"},
    "rules": [
        {
            "subjects": [
                {"kind": "ServiceAccount", "serviceAccount": {"namespace": "ci", "name": "builder"}},
                {"kind": "Group", "group": {"name": "system:nodes"}},
            ],
            "resourceRules": [
                {
                    "verbs": ["get", "list"],
                    "apiGroups": ["apps"],
                    "resources": ["deployments"],
                    "clusterScope": True,
                    "namespaces": ["*"],
                }
            ],
            "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}],
        }
    ],
}
FS_STATUS = {
    "conditions": [
        {
            "type": "Dangling",
            "status": "False",
            "lastTransitionTime": "2024-05-06T07:08:09Z",
            "reason": "Found",
            "message": "the priority level exists",
        }
    ]
}
QUEUING = {"type": "Queue", "queuing": {"queues": 64, "handSize": 6, "queueLengthLimit": 50}}


def _gv(prefix: str, version: str) -> str:
    return f"{NAMING.group(prefix)}/{version}"


def _flow_schema(version: str) -> dict[str, Any]:
    return {
        "apiVersion": _gv("flowcontrol.apiserver", version),
        "kind": "FlowSchema",
        "metadata": CLUSTER_META,
        "spec": FS_SPEC,
        "status": FS_STATUS,
    }


def _priority_level(version: str, shares_field: str) -> dict[str, Any]:
    return {
        "apiVersion": _gv("flowcontrol.apiserver", version),
        "kind": "PriorityLevelConfiguration",
        "metadata": CLUSTER_META,
        "spec": {
            "type": "Limited",
            "limited": {shares_field: 30, "limitResponse": QUEUING, "lendablePercent": 50, "borrowingLimitPercent": 10},
        },
        "status": {
            "conditions": [
                {"type": "ConcurrencyShared", "status": "True", "lastTransitionTime": "2024-05-06T07:08:09Z"}
            ]
        },
    }


def _hpa_v2(version: str) -> dict[str, Any]:
    return {
        "apiVersion": f"autoscaling/{version}",
        "kind": "HorizontalPodAutoscaler",
        "metadata": META,
        "spec": {
            "scaleTargetRef": TARGET,
            "minReplicas": 2,
            "maxReplicas": 10,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}},
                },
                {
                    "type": "Pods",
                    "pods": {
                        "metric": {"name": "rps", "selector": SELECTOR},
                        "target": {"type": "AverageValue", "averageValue": "100"},
                    },
                },
                {
                    "type": "Object",
                    "object": {
                        "describedObject": {"kind": "Ingress", "name": "main"},
                        "metric": {"name": "hits"},
                        "target": {"type": "Value", "value": "2k"},
                    },
                },
            ],
            "behavior": {
                "scaleDown": {
                    "stabilizationWindowSeconds": 300,
                    "selectPolicy": "Max",
                    "policies": [{"type": "Percent", "value": 10, "periodSeconds": 60}],
                }
            },
        },
        "status": {
            "observedGeneration": 2,
            "lastScaleTime": "2024-05-06T07:08:09Z",
            "currentReplicas": 3,
            "desiredReplicas": 4,
            "currentMetrics": [
                {
                    "type": "Resource",
                    "resource": {"name": "cpu", "current": {"averageValue": "350m", "averageUtilization": 70}},
                }
            ],
            "conditions": [CONDITION],
        },
    }


VERSION_OBJECTS: dict[str, dict[str, Any]] = {
    "events_v1beta1/Event": {
        "apiVersion": _gv("events", "v1beta1"),
        "kind": "Event",
        "metadata": META,
        "eventTime": "2024-05-06T07:08:09.500000Z",
        "series": {"count": 4, "lastObservedTime": "2024-05-06T07:18:09.000250Z"},
        "reportingController": "example.com/scheduler",
        "reportingInstance": "scheduler-0",
        "action": "Binding",
        "reason": "Scheduled",
        "regarding": {"kind": "Pod", "namespace": "prod", "name": "web-1", "uid": "u-1", "apiVersion": "v1"},
        "note": "Successfully assigned prod/web-1 to node-1",
        "type": "Normal",
        "deprecatedSource": {"component": "scheduler", "host": "cp-1"},
        "deprecatedFirstTimestamp": "2024-05-06T07:08:09Z",
        "deprecatedLastTimestamp": "2024-05-06T07:18:09Z",
        "deprecatedCount": 4,
    },
    "discovery_v1beta1/EndpointSlice": {
        "apiVersion": _gv("discovery", "v1beta1"),
        "kind": "EndpointSlice",
        "metadata": META,
        "addressType": "IPv4",
        "endpoints": [
            {
                "addresses": ["10.244.1.5"],
                "conditions": {"ready": True, "serving": True, "terminating": False},
                "hostname": "web-0",
                "targetRef": {"kind": "Pod", "namespace": "prod", "name": "web-0"},
                "topology": {NAMING.key("hostname"): "node-1", f"topology.{NAMING.domain}/zone": "zone-a"},
                "nodeName": "node-1",
                "hints": {"forZones": [{"name": "zone-a"}]},
            },
            {"addresses": ["10.244.2.9"], "conditions": {}},
        ],
        "ports": [{"name": "http", "protocol": "TCP", "port": 80, "appProtocol": "http"}],
    },
    "node_v1beta1/RuntimeClass": {
        "apiVersion": _gv("node", "v1beta1"),
        "kind": "RuntimeClass",
        "metadata": CLUSTER_META,
        "handler": "kata",
        "overhead": {"podFixed": {"cpu": "250m"}},
        "scheduling": {
            "nodeSelector": {"sandbox": "kata"},
            "tolerations": [{"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}],
        },
    },
    "autoscaling/HorizontalPodAutoscaler": {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": META,
        "spec": {"scaleTargetRef": TARGET, "minReplicas": 2, "maxReplicas": 10, "targetCPUUtilizationPercentage": 60},
        "status": {
            "observedGeneration": 2,
            "lastScaleTime": "2024-05-06T07:08:09Z",
            "currentReplicas": 3,
            "desiredReplicas": 4,
            "currentCPUUtilizationPercentage": 70,
        },
    },
    "autoscaling_v2/HorizontalPodAutoscaler": _hpa_v2("v2"),
    "autoscaling_v2beta2/HorizontalPodAutoscaler": _hpa_v2("v2beta2"),
    "autoscaling_v2beta1/HorizontalPodAutoscaler": {
        "apiVersion": "autoscaling/v2beta1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": META,
        "spec": {
            "scaleTargetRef": TARGET,
            "minReplicas": 2,
            "maxReplicas": 10,
            "metrics": [
                {"type": "Resource", "resource": {"name": "cpu", "targetAverageUtilization": 60}},
                {
                    "type": "Object",
                    "object": {
                        "target": {"kind": "Ingress", "name": "main"},
                        "metricName": "hits",
                        "targetValue": "2k",
                        "selector": SELECTOR,
                    },
                },
            ],
        },
        "status": {
            "observedGeneration": 2,
            "currentReplicas": 3,
            "desiredReplicas": 4,
            "currentMetrics": [
                {
                    "type": "Resource",
                    "resource": {"name": "cpu", "currentAverageUtilization": 70, "currentAverageValue": "350m"},
                }
            ],
            "conditions": [CONDITION],
        },
    },
    "flowcontrol/FlowSchema": _flow_schema("v1"),
    "flowcontrol_v1beta2/FlowSchema": _flow_schema("v1beta2"),
    "flowcontrol_v1beta1/FlowSchema": _flow_schema("v1beta1"),
    "flowcontrol/PriorityLevelConfiguration": _priority_level("v1", "nominalConcurrencyShares"),
    "flowcontrol_v1beta2/PriorityLevelConfiguration": _priority_level("v1beta2", "assuredConcurrencyShares"),
    "flowcontrol_v1beta1/PriorityLevelConfiguration": _priority_level("v1beta1", "assuredConcurrencyShares"),
}
