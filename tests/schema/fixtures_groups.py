"""Realistic objects of the kinds outside core/apps/batch/policy, in the canonical (decoded) form.

apiVersions are spelled as served for the default naming, through `Naming.group` for groups under the
API domain. Keys are `<group prefix>/<Kind>` ("" for a core-group kind is never used here).
"""

from __future__ import annotations

import base64
from typing import Any

from orch_apiserver.naming import Naming
from orch_apiserver.resources.certificates import EXAMPLE_REQUEST

from tests.schema.fixtures_versions import VERSION_OBJECTS

NAMING = Naming()


def gv(prefix: str, *, in_domain: bool = True, version: str = "v1") -> str:
    return f"{NAMING.group(prefix) if in_domain else prefix}/{version}"


META: dict[str, Any] = {
    "name": "obj-1",
    "namespace": "prod",
    "uid": "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
    "resourceVersion": "42",
    "generation": 2,
    "creationTimestamp": "2024-05-06T07:08:09Z",
    "labels": {"app": "web"},
    "annotations": {"note": "ünïcode ✓"},
}
CLUSTER_META: dict[str, Any] = {k: v for k, v in META.items() if k != "namespace"}
CSR_PEM = base64.b64decode(EXAMPLE_REQUEST)  # a real request: the server verifies its signature
CERT_PEM = b"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n"
RULES: list[dict[str, Any]] = [
    {
        "verbs": ["get", "list", "watch"],
        "apiGroups": ["", "apps"],
        "resources": ["pods", "deployments/scale"],
        "resourceNames": ["web"],
    },
    {"verbs": ["get"], "nonResourceURLs": ["/healthz", "/metrics"]},
]
SA_TOKEN = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImszIn0.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6Y2k6YnVpbGRlciJ9.c2ln"
SA_USER: dict[str, Any] = {
    "username": "system:serviceaccount:ci:builder",
    "uid": "5c1f0a9e-2b7d-4e3a-9f60-1d2c3b4a5e6f",
    "groups": ["system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated"],
    "extra": {
        NAMING.key("pod-name"): ["builder-7f9c"],
        NAMING.key("pod-uid"): ["7a6b5c4d-3e2f-1a0b-9c8d-7e6f5a4b3c2d"],
        "scopes": [],
    },
}
SUBJECTS: list[dict[str, Any]] = [
    {"kind": "User", "apiGroup": NAMING.group("rbac.authorization"), "name": "jane"},
    {"kind": "ServiceAccount", "name": "builder", "namespace": "ci"},
    {"kind": "Group", "apiGroup": NAMING.group("rbac.authorization"), "name": "system:authenticated"},
]

GROUP_OBJECTS: dict[str, dict[str, Any]] = {
    "coordination/Lease": {
        "apiVersion": gv("coordination"),
        "kind": "Lease",
        "metadata": META,
        "spec": {
            "holderIdentity": "node-1_7d3f",
            "leaseDurationSeconds": 15,
            "acquireTime": "2024-05-06T07:08:09.123456Z",
            "renewTime": "2024-05-06T07:09:00.000001Z",
            "leaseTransitions": 0,  # a pointer: an explicit zero is data
            "strategy": "OldestEmulationVersion",
            "preferredHolder": "node-2",
        },
    },
    "coordination/LeaseList": {
        "apiVersion": gv("coordination"),
        "kind": "LeaseList",
        "metadata": {"resourceVersion": "99", "continue": "eyJydiI6OTl9", "remainingItemCount": 3},
        "items": [
            {"metadata": {"name": "a", "namespace": "prod"}, "spec": {}},
            {"metadata": {"name": "b", "namespace": "prod"}, "spec": {"holderIdentity": ""}},
        ],
    },
    "events/Event": {
        "apiVersion": gv("events"),
        "kind": "Event",
        "metadata": META,
        "eventTime": "2024-05-06T07:08:09.500000Z",
        "series": {"count": 4, "lastObservedTime": "2024-05-06T07:18:09.000250Z"},
        "reportingController": "example.com/scheduler",
        "reportingInstance": "scheduler-0",
        "action": "Binding",
        "reason": "Scheduled",
        "regarding": {
            "kind": "Pod",
            "namespace": "prod",
            "name": "web-1",
            "uid": "u-1",
            "apiVersion": "v1",
            "resourceVersion": "7",
            "fieldPath": "spec.containers{app}",
        },
        "related": {"kind": "Node", "name": "node-1", "apiVersion": "v1"},
        "note": "Successfully assigned prod/web-1 to node-1",
        "type": "Normal",
        "deprecatedSource": {"component": "scheduler", "host": "cp-1"},
        "deprecatedFirstTimestamp": "2024-05-06T07:08:09Z",
        "deprecatedLastTimestamp": "2024-05-06T07:18:09Z",
        "deprecatedCount": 4,
    },
    "certificates/CertificateSigningRequest": {
        "apiVersion": gv("certificates"),
        "kind": "CertificateSigningRequest",
        "metadata": CLUSTER_META,
        "spec": {
            "request": base64.b64encode(CSR_PEM).decode(),
            "signerName": NAMING.key("kube-apiserver-client"),
            "expirationSeconds": 86400,
            "usages": ["digital signature", "key encipherment", "client auth"],
            "username": "jane",
            "uid": "1001",
            "groups": ["system:authenticated", "devs"],
            "extra": {"scopes": ["read", "write"], "empty": [], "team": ["platform"]},
        },
        "status": {
            "conditions": [
                {
                    "type": "Approved",
                    "status": "True",
                    "reason": "AutoApproved",
                    "message": "ok",
                    "lastUpdateTime": "2024-05-06T07:08:10Z",
                    "lastTransitionTime": "2024-05-06T07:08:10Z",
                },
                {"type": "Failed", "status": "False", "lastUpdateTime": None, "lastTransitionTime": None},
            ],
            "certificate": base64.b64encode(CERT_PEM).decode(),
        },
    },
    "rbac/Role": {"apiVersion": gv("rbac.authorization"), "kind": "Role", "metadata": META, "rules": RULES[:1]},
    "rbac/ClusterRole": {
        "apiVersion": gv("rbac.authorization"),
        "kind": "ClusterRole",
        "metadata": CLUSTER_META,
        "rules": RULES,
        "aggregationRule": {
            "clusterRoleSelectors": [
                {"matchLabels": {NAMING.key("aggregate-to-view"): "true"}},
                {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]},
            ]
        },
    },
    "rbac/RoleBinding": {
        "apiVersion": gv("rbac.authorization"),
        "kind": "RoleBinding",
        "metadata": META,
        "subjects": SUBJECTS,
        "roleRef": {"apiGroup": NAMING.group("rbac.authorization"), "kind": "Role", "name": "reader"},
    },
    "rbac/ClusterRoleBinding": {
        "apiVersion": gv("rbac.authorization"),
        "kind": "ClusterRoleBinding",
        "metadata": CLUSTER_META,
        "subjects": SUBJECTS[:1],
        "roleRef": {"apiGroup": NAMING.group("rbac.authorization"), "kind": "ClusterRole", "name": "view"},
    },
    "networking/Ingress": {
        "apiVersion": gv("networking"),
        "kind": "Ingress",
        "metadata": META,
        "spec": {
            "ingressClassName": "nginx",
            "defaultBackend": {"service": {"name": "fallback", "port": {"number": 8080}}},
            "tls": [
                {"hosts": ["a.example.com", "b.example.com"], "secretName": "tls-ab"},
                {"hosts": ["c.example.com"]},
            ],
            "rules": [
                {
                    "host": "a.example.com",
                    "http": {
                        "paths": [
                            {
                                "path": "/api",
                                "pathType": "Prefix",
                                "backend": {"service": {"name": "api", "port": {"name": "http"}}},
                            },
                            {
                                "pathType": "ImplementationSpecific",
                                "backend": {
                                    "resource": {"apiGroup": "example.com", "kind": "Bucket", "name": "static"}
                                },
                            },
                        ]
                    },
                },
                {"host": "*.wild.example.com"},
                {
                    "http": {
                        "paths": [
                            {
                                "path": "/",
                                "pathType": "Exact",
                                "backend": {"service": {"name": "root", "port": {"number": 80}}},
                            }
                        ]
                    }
                },
            ],
        },
        "status": {
            "loadBalancer": {
                "ingress": [
                    {
                        "ip": "203.0.113.7",
                        "ports": [{"port": 443, "protocol": "TCP", "error": "Pending"}, {"port": 0, "protocol": "UDP"}],
                    },
                    {"hostname": "lb.example.com"},
                ]
            }
        },
    },
    "networking/NetworkPolicy": {
        "apiVersion": gv("networking"),
        "kind": "NetworkPolicy",
        "metadata": META,
        "spec": {
            "podSelector": {"matchLabels": {"app": "db"}},
            "ingress": [
                {
                    "ports": [
                        {"protocol": "TCP", "port": 5432},
                        {"port": "metrics"},
                        {"protocol": "UDP", "port": 3000, "endPort": 3100},
                    ],
                    "from": [
                        {"podSelector": {"matchLabels": {"app": "web"}}},
                        {
                            "namespaceSelector": {},
                            "podSelector": {"matchExpressions": [{"key": "role", "operator": "Exists"}]},
                        },
                        {"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16"]}},
                    ],
                },
                {},
            ],
            "egress": [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": [{"port": 53, "protocol": "UDP"}]}],
            "policyTypes": ["Ingress", "Egress"],
        },
    },
    "networking/IngressClass": {
        "apiVersion": gv("networking"),
        "kind": "IngressClass",
        "metadata": {**CLUSTER_META, "annotations": {NAMING.group("ingressclass") + "/is-default-class": "true"}},
        "spec": {
            "controller": "example.com/ingress-controller",
            "parameters": {
                "apiGroup": "example.com",
                "kind": "IngressParameters",
                "name": "external-lb",
                "scope": "Namespace",
                "namespace": "ingress",
            },
        },
    },
    "discovery/EndpointSlice": {
        "apiVersion": gv("discovery"),
        "kind": "EndpointSlice",
        "metadata": {**META, "labels": {NAMING.key("service-name"): "web"}},
        "addressType": "IPv4",
        "endpoints": [
            {
                "addresses": ["10.244.1.5"],
                "conditions": {"ready": True, "serving": True, "terminating": False},
                "hostname": "web-0",
                "targetRef": {"kind": "Pod", "namespace": "prod", "name": "web-0", "uid": "u-0"},
                "deprecatedTopology": {"topology.example.com/rack": "r1"},
                "nodeName": "node-1",
                "zone": "zone-a",
                "hints": {"forZones": [{"name": "zone-a"}], "forNodes": [{"name": "node-1"}]},
            },
            {"addresses": ["10.244.2.9"], "conditions": {}},
        ],
        "ports": [
            {"name": "http", "protocol": "TCP", "port": 80, "appProtocol": "http"},
            {"name": "", "protocol": "UDP", "port": 53},
        ],
    },
    "scheduling/PriorityClass": {
        "apiVersion": gv("scheduling"),
        "kind": "PriorityClass",
        "metadata": CLUSTER_META,
        "value": -10,
        "globalDefault": True,
        "description": "best effort batch work",
        "preemptionPolicy": "Never",
    },
    "storage/StorageClass": {
        "apiVersion": gv("storage"),
        "kind": "StorageClass",
        "metadata": CLUSTER_META,
        "provisioner": "csi.example.com",
        "parameters": {"type": "ssd", "fsType": "ext4"},
        "reclaimPolicy": "Retain",
        "mountOptions": ["noatime", "nodiratime"],
        "allowVolumeExpansion": False,
        "volumeBindingMode": "WaitForFirstConsumer",
        "allowedTopologies": [
            {"matchLabelExpressions": [{"key": "topology.example.com/zone", "values": ["zone-a", "zone-b"]}]},
            {},
        ],
    },
    "storage/CSIDriver": {
        "apiVersion": gv("storage"),
        "kind": "CSIDriver",
        "metadata": {**CLUSTER_META, "name": "hostpath.csi.example.com"},
        "spec": {
            "attachRequired": False,
            "podInfoOnMount": True,
            "volumeLifecycleModes": ["Persistent", "Ephemeral"],
            "storageCapacity": True,
            "fsGroupPolicy": "File",
            "tokenRequests": [{"audience": "vault", "expirationSeconds": 3600}, {"audience": ""}],
            "requiresRepublish": False,
        },
    },
    "storage/CSINode": {
        "apiVersion": gv("storage"),
        "kind": "CSINode",
        "metadata": {**CLUSTER_META, "name": "node-1"},
        "spec": {
            "drivers": [
                {
                    "name": "hostpath.csi.example.com",
                    "nodeID": "node-1",
                    "topologyKeys": ["topology.example.com/zone"],
                    "allocatable": {"count": 16},
                },
                {"name": "other.csi.example.com", "nodeID": "i-0abc"},
            ]
        },
    },
    "storage/VolumeAttachment": {
        "apiVersion": gv("storage"),
        "kind": "VolumeAttachment",
        "metadata": CLUSTER_META,
        "spec": {
            "attacher": "hostpath.csi.example.com",
            "nodeName": "node-1",
            "source": {"persistentVolumeName": "pv-1"},
        },
        "status": {
            "attached": True,
            "attachmentMetadata": {"devicePath": "/dev/xvdf"},
            "detachError": {"time": "2024-05-06T07:08:10Z", "message": "busy"},
        },
    },
    "storage/CSIStorageCapacity": {
        "apiVersion": gv("storage", version="v1beta1"),
        "kind": "CSIStorageCapacity",
        "metadata": META,
        "nodeTopology": {"matchLabels": {"topology.example.com/zone": "zone-a"}},
        "storageClassName": "standard",
        "capacity": "10Gi",
        "maximumVolumeSize": "1Ti",
    },
    "policy/PodSecurityPolicy": {
        "apiVersion": "policy/v1beta1",
        "kind": "PodSecurityPolicy",
        "metadata": CLUSTER_META,
        "spec": {
            "allowedCapabilities": ["NET_BIND_SERVICE"],
            "requiredDropCapabilities": ["ALL"],
            "volumes": ["configMap", "secret"],
            "hostPorts": [{"min": 8000, "max": 8080}],
            "seLinux": {"rule": "RunAsAny"},
            "runAsUser": {"rule": "MustRunAs", "ranges": [{"min": 1000, "max": 2000}]},
            "runAsGroup": {"rule": "MayRunAs", "ranges": [{"min": 1, "max": 65535}]},
            "supplementalGroups": {"rule": "RunAsAny"},
            "fsGroup": {"rule": "RunAsAny"},
            "readOnlyRootFilesystem": True,
            "allowPrivilegeEscalation": False,
            "allowedHostPaths": [{"pathPrefix": "/var/log", "readOnly": True}],
        },
    },
    "node/RuntimeClass": {
        "apiVersion": gv("node"),
        "kind": "RuntimeClass",
        "metadata": CLUSTER_META,
        "handler": "runsc",
        "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}},
        "scheduling": {
            "nodeSelector": {"sandbox": "gvisor"},
            "tolerations": [
                {"key": "sandbox", "operator": "Equal", "value": "gvisor", "effect": "NoSchedule"},
                {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60},
            ],
        },
    },
    "authentication/TokenReview": {
        "apiVersion": gv("authentication"),
        "kind": "TokenReview",
        "metadata": {},
        "spec": {"token": SA_TOKEN, "audiences": ["https://orch.io", "vault"]},
        "status": {"authenticated": True, "user": SA_USER, "audiences": ["vault"]},
    },
    "authentication/TokenReview-rejected": {
        "apiVersion": gv("authentication"),
        "kind": "TokenReview",
        "metadata": {"name": "check"},
        "spec": {"token": "not-a-token"},
        "status": {"user": {}, "error": "[invalid bearer token, token lookup failed]"},
    },
    "authentication/SelfSubjectReview": {
        "apiVersion": gv("authentication"),
        "kind": "SelfSubjectReview",
        "metadata": {"creationTimestamp": "2024-05-06T07:08:09Z"},
        "status": {
            "userInfo": {
                "username": "jane",
                "groups": ["devs", "system:authenticated"],
                "extra": {"team": ["platform", "sre"]},
            }
        },
    },
    "authentication/TokenRequest": {
        "apiVersion": gv("authentication"),
        "kind": "TokenRequest",
        "metadata": {"name": "builder", "namespace": "ci", "creationTimestamp": "2024-05-06T07:08:09Z"},
        "spec": {
            "audiences": ["https://orch.io"],
            "expirationSeconds": 3600,
            "boundObjectRef": {
                "kind": "Pod",
                "apiVersion": "v1",
                "name": "builder-7f9c",
                "uid": "7a6b5c4d-3e2f-1a0b-9c8d-7e6f5a4b3c2d",
            },
        },
        "status": {"token": SA_TOKEN, "expirationTimestamp": "2024-05-06T08:08:09Z"},
    },
    "authorization/SubjectAccessReview": {
        "apiVersion": gv("authorization"),
        "kind": "SubjectAccessReview",
        "metadata": {},
        "spec": {
            "resourceAttributes": {
                "namespace": "prod",
                "verb": "list",
                "group": "apps",
                "version": "v1",
                "resource": "deployments",
                "subresource": "scale",
                "name": "web",
                "fieldSelector": {
                    "requirements": [
                        {"key": "spec.nodeName", "operator": "In", "values": ["node-1", "node-2"]},
                        {"key": "metadata.name", "operator": "Exists"},
                    ]
                },
                "labelSelector": {"rawSelector": "app=web,tier in (a,b)"},
            },
            "user": "jane",
            "groups": ["devs", "system:authenticated"],
            "extra": {"scopes": ["read", "write"], "empty": []},
            "uid": "1001",
        },
        "status": {"allowed": True, "reason": 'RBAC: allowed by RoleBinding "readers/prod" of Role "reader"'},
    },
    "authorization/SubjectAccessReview-denied": {
        "apiVersion": gv("authorization"),
        "kind": "SubjectAccessReview",
        "metadata": {},
        "spec": {
            "nonResourceAttributes": {"path": "/metrics", "verb": "get"},
            "user": "system:anonymous",
            "groups": ["system:unauthenticated"],
        },
        "status": {
            "allowed": False,
            "denied": True,
            "reason": "anonymous access is disabled",
            "evaluationError": "webhook: connection refused",
        },
    },
    "authorization/SelfSubjectAccessReview": {
        "apiVersion": gv("authorization"),
        "kind": "SelfSubjectAccessReview",
        "metadata": {},
        "spec": {"resourceAttributes": {"namespace": "prod", "verb": "create", "resource": "pods"}},
        "status": {"allowed": False},
    },
    "authorization/LocalSubjectAccessReview": {
        "apiVersion": gv("authorization"),
        "kind": "LocalSubjectAccessReview",
        "metadata": {"namespace": "prod"},
        "spec": {
            "resourceAttributes": {
                "namespace": "prod",
                "verb": "get",
                "resource": "secrets",
                "name": "db",
                "labelSelector": {"requirements": [{"key": "tier", "operator": "NotIn", "values": ["a"]}]},
            },
            "user": "system:serviceaccount:ci:builder",
            "groups": ["system:serviceaccounts"],
        },
        "status": {"allowed": True},
    },
    "authorization/SelfSubjectRulesReview": {
        "apiVersion": gv("authorization"),
        "kind": "SelfSubjectRulesReview",
        "metadata": {},
        "spec": {"namespace": "prod"},
        "status": {
            "resourceRules": [
                {
                    "verbs": ["create"],
                    "apiGroups": [NAMING.group("authorization")],
                    "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
                },
                {
                    "verbs": ["get", "list", "watch"],
                    "apiGroups": ["", "apps"],
                    "resources": ["pods", "deployments"],
                    "resourceNames": ["web"],
                },
            ],
            "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/version"]}],
            "incomplete": False,
        },
    },
    "autoscaling/Scale": {
        "apiVersion": gv("autoscaling", in_domain=False),
        "kind": "Scale",
        "metadata": {
            "name": "web",
            "namespace": "prod",
            "uid": "u-9",
            "resourceVersion": "12",
            "creationTimestamp": "2024-05-06T07:08:09Z",
        },
        "spec": {"replicas": 3},
        "status": {"replicas": 0, "selector": "app=web,tier in (a,b)"},
    },
    "apiregistration/APIService": {
        "apiVersion": gv("apiregistration"),
        "kind": "APIService",
        "metadata": {**{k: v for k, v in META.items() if k != "namespace"}, "name": "v1beta1.metrics.example.com"},
        "spec": {
            "service": {"namespace": "monitoring", "name": "metrics-server", "port": 443},
            "group": "metrics.example.com",
            "version": "v1beta1",
            "caBundle": "LS0tLS1CRUdJTg==",
            "groupPriorityMinimum": 100,
            "versionPriority": 100,
        },
        "status": {
            "conditions": [
                {
                    "type": "Available",
                    "status": "False",
                    "lastTransitionTime": "2024-05-06T07:08:09Z",
                    "reason": "FailedDiscoveryCheck",
                    "message": "failing or missing response",
                }
            ]
        },
    },
    "apiextensions/CustomResourceDefinition": {
        "apiVersion": gv("apiextensions"),
        "kind": "CustomResourceDefinition",
        "metadata": {**{k: v for k, v in META.items() if k != "namespace"}, "name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {
                "plural": "widgets",
                "singular": "widget",
                "shortNames": ["wd"],
                "kind": "Widget",
                "listKind": "WidgetList",
                "categories": ["all"],
            },
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "properties": {
                                        "size": {"type": "integer", "minimum": 1, "default": 3},
                                        "mode": {"type": "string", "enum": ["fast", "slow"]},
                                    },
                                }
                            },
                        }
                    },
                    "subresources": {
                        "status": {},
                        "scale": {"specReplicasPath": ".spec.size", "statusReplicasPath": ".status.size"},
                    },
                    "additionalPrinterColumns": [{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}],
                }
            ],
            "conversion": {"strategy": "None"},
        },
        "status": {
            "conditions": [
                {
                    "type": "Established",
                    "status": "True",
                    "lastTransitionTime": "2024-05-06T07:08:09Z",
                    "reason": "InitialNamesAccepted",
                    "message": "the initial names have been accepted",
                }
            ],
            "acceptedNames": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "storedVersions": ["v1"],
        },
    },
    "admissionregistration/MutatingWebhookConfiguration": {
        "apiVersion": gv("admissionregistration"),
        "kind": "MutatingWebhookConfiguration",
        "metadata": {**{k: v for k, v in META.items() if k != "namespace"}, "name": "sidecar-injector"},
        "webhooks": [
            {
                "name": "inject.sidecars.example.com",
                "clientConfig": {
                    "service": {"namespace": "mesh", "name": "injector", "path": "/inject", "port": 8443},
                    "caBundle": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t",
                },
                "rules": [
                    {
                        "operations": ["CREATE"],
                        "apiGroups": [""],
                        "apiVersions": ["v1"],
                        "resources": ["pods"],
                        "scope": "Namespaced",
                    }
                ],
                "failurePolicy": "Ignore",
                "matchPolicy": "Equivalent",
                "namespaceSelector": {"matchExpressions": [{"key": "mesh", "operator": "In", "values": ["on"]}]},
                "objectSelector": {},
                "sideEffects": "None",
                "timeoutSeconds": 5,
                "admissionReviewVersions": ["v1", "v1beta1"],
                "reinvocationPolicy": "IfNeeded",
            }
        ],
    },
    "admissionregistration/ValidatingWebhookConfiguration": {
        "apiVersion": gv("admissionregistration"),
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {**{k: v for k, v in META.items() if k != "namespace"}, "name": "policy"},
        "webhooks": [
            {
                "name": "check.policy.example.com",
                "clientConfig": {"url": "https://policy.example.com:9443/validate"},
                "rules": [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*/*"]}],
                "failurePolicy": "Fail",
                "matchPolicy": "Exact",
                "namespaceSelector": {},
                "objectSelector": {"matchLabels": {"policy": "enforced"}},
                "sideEffects": "NoneOnDryRun",
                "timeoutSeconds": 10,
                "admissionReviewVersions": ["v1"],
            }
        ],
    },
}

# the older served versions, and the kinds added with them (autoscaling, flowcontrol)
GROUP_OBJECTS.update(VERSION_OBJECTS)
