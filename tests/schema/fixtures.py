"""Realistic objects of every declared kind, written in the canonical form the decoder produces.

Canonical means what Go's encoding/json prints for the decoded struct: non-pointer structs present
(`"resources": {}`), non-omitempty scalars present even when zero, empty lists and maps left out.
"""

from __future__ import annotations

from typing import Any

META: dict[str, Any] = {
    "name": "web-1",
    "generateName": "web-",
    "namespace": "prod",
    "uid": "7d3f8c8e-1b2a-4c5d-9e0f-112233445566",
    "resourceVersion": "12345",
    "generation": 3,
    "creationTimestamp": "2024-05-06T07:08:09Z",
    "deletionTimestamp": "2024-05-07T00:00:00Z",
    "deletionGracePeriodSeconds": 30,
    "labels": {"app": "web", "tier": "frontend"},
    "annotations": {"example.com/note": "héllo ✓", "empty": ""},
    "ownerReferences": [
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "name": "web-abc",
            "uid": "0a1b2c3d-0000-0000-0000-000000000001",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ],
    "finalizers": ["example.com/cleanup", "orphan"],
    "managedFields": [
        {
            "manager": "kubectl-create",
            "operation": "Update",
            "apiVersion": "v1",
            "time": "2024-05-06T07:08:09Z",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}, "f:spec": {"f:replicas": {}}},
        },
        {
            "manager": "kubelet",
            "operation": "Update",
            "apiVersion": "v1",
            "time": "2024-05-06T07:08:10Z",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:status": {"f:phase": {}}},
            "subresource": "status",
        },
    ],
}

CONTAINER: dict[str, Any] = {
    "name": "app",
    "image": "registry.example.com/app:1.2.3",
    "command": ["/bin/app"],
    "args": ["--port=8080", "--verbose"],
    "workingDir": "/srv",
    "ports": [
        {"name": "http", "containerPort": 8080, "protocol": "TCP"},
        {"containerPort": 9090, "hostPort": 19090, "protocol": "UDP", "hostIP": "0.0.0.0"},
    ],
    "envFrom": [
        {"prefix": "CFG_", "configMapRef": {"name": "app-config", "optional": True}},
        {"secretRef": {"name": "app-secret"}},
    ],
    "env": [
        {"name": "PLAIN", "value": "1"},
        {"name": "EMPTY"},
        {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
        {
            "name": "CPU",
            "valueFrom": {"resourceFieldRef": {"containerName": "app", "resource": "limits.cpu", "divisor": "1m"}},
        },
        {"name": "PASS", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password", "optional": False}}},
        {"name": "MODE", "valueFrom": {"configMapKeyRef": {"name": "app-config", "key": "mode"}}},
    ],
    "resources": {
        "limits": {"cpu": "500m", "memory": "256Mi"},
        "requests": {"cpu": "250m", "ephemeral-storage": "1Gi", "memory": "128Mi"},
    },
    "volumeMounts": [
        {"name": "data", "mountPath": "/data"},
        {"name": "config", "readOnly": True, "mountPath": "/etc/app", "subPath": "app.yaml"},
    ],
    "livenessProbe": {
        "httpGet": {
            "path": "/healthz",
            "port": 8080,
            "scheme": "HTTP",
            "httpHeaders": [{"name": "X-Probe", "value": "1"}],
        },
        "initialDelaySeconds": 5,
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    },
    "readinessProbe": {"tcpSocket": {"port": "http"}, "periodSeconds": 5},
    "startupProbe": {
        "exec": {"command": ["cat", "/tmp/ready"]},
        "failureThreshold": 30,
        "terminationGracePeriodSeconds": 10,
    },
    "lifecycle": {
        "postStart": {"exec": {"command": ["/bin/warm"]}},
        "preStop": {"httpGet": {"path": "/quit", "port": "http"}},
    },
    "terminationMessagePath": "/dev/termination-log",
    "terminationMessagePolicy": "File",
    "imagePullPolicy": "IfNotPresent",
    "securityContext": {
        "capabilities": {"add": ["NET_BIND_SERVICE"], "drop": ["ALL"]},
        "privileged": False,
        "runAsUser": 1000,
        "runAsNonRoot": True,
        "readOnlyRootFilesystem": True,
        "allowPrivilegeEscalation": False,
        "seccompProfile": {"type": "RuntimeDefault"},
    },
    "stdin": True,
    "stdinOnce": True,
    "tty": True,
}

POD_SPEC: dict[str, Any] = {
    "volumes": [
        {"name": "data", "persistentVolumeClaim": {"claimName": "data-pvc", "readOnly": True}},
        {"name": "scratch", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}},
        {
            "name": "config",
            "configMap": {
                "name": "app-config",
                "items": [{"key": "a", "path": "a.txt", "mode": 420}],
                "defaultMode": 420,
                "optional": True,
            },
        },
        {"name": "creds", "secret": {"secretName": "db", "defaultMode": 256}},
        {"name": "host", "hostPath": {"path": "/var/log", "type": "Directory"}},
        {"name": "info", "downwardAPI": {"items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]}},
        {
            "name": "proj",
            "projected": {
                "sources": [
                    {"serviceAccountToken": {"audience": "vault", "expirationSeconds": 3600, "path": "token"}},
                    {"configMap": {"name": "ca", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                ],
                "defaultMode": 420,
            },
        },
    ],
    "initContainers": [{"name": "init", "image": "busybox", "command": ["sh", "-c", "true"], "resources": {}}],
    "containers": [CONTAINER, {"name": "sidecar", "image": "envoy", "resources": {}}],
    "restartPolicy": "Always",
    "terminationGracePeriodSeconds": 30,
    "activeDeadlineSeconds": 600,
    "dnsPolicy": "ClusterFirst",
    "nodeSelector": {"disktype": "ssd"},
    "serviceAccountName": "web",
    "serviceAccount": "web",
    "automountServiceAccountToken": False,
    "nodeName": "node-1",
    "hostNetwork": True,
    "hostPID": True,
    "hostIPC": True,
    "shareProcessNamespace": True,
    "securityContext": {
        "runAsUser": 1000,
        "runAsGroup": 3000,
        "runAsNonRoot": True,
        "fsGroup": 2000,
        "supplementalGroups": [4000, 5000],
        "sysctls": [{"name": "net.core.somaxconn", "value": "1024"}],
        "fsGroupChangePolicy": "OnRootMismatch",
    },
    "imagePullSecrets": [{"name": "regcred"}],
    "hostname": "web-1",
    "subdomain": "web",
    "affinity": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}]
            },
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 10,
                    "preference": {
                        "matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["node-9"]}]
                    },
                }
            ],
        },
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}
            ]
        },
    },
    "schedulerName": "default-scheduler",
    "tolerations": [
        {"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"},
        {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    ],
    "hostAliases": [{"ip": "10.0.0.1", "hostnames": ["db.local"]}],
    "priorityClassName": "high",
    "priority": 1000,
    "dnsConfig": {"nameservers": ["1.1.1.1"], "searches": ["svc.local"], "options": [{"name": "ndots", "value": "2"}]},
    "readinessGates": [{"conditionType": "example.com/ready"}],
    "runtimeClassName": "runc",
    "enableServiceLinks": False,
    "preemptionPolicy": "Never",
    "overhead": {"cpu": "10m"},
    "topologySpreadConstraints": [
        {
            "maxSkew": 1,
            "topologyKey": "zone",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]},
        }
    ],
}

POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": META,
    "spec": POD_SPEC,
    "status": {
        "phase": "Running",
        "conditions": [
            {"type": "Ready", "status": "True", "lastProbeTime": None, "lastTransitionTime": "2024-05-06T07:09:00Z"},
            {
                "type": "PodScheduled",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": None,
                "reason": "Scheduled",
                "message": "ok",
            },
        ],
        "hostIP": "10.0.0.5",
        "hostIPs": [{"ip": "10.0.0.5"}],
        "podIP": "172.16.0.9",
        "podIPs": [{"ip": "172.16.0.9"}, {"ip": "fd00::9"}],
        "startTime": "2024-05-06T07:08:30Z",
        "containerStatuses": [
            {
                "name": "app",
                "state": {"running": {"startedAt": "2024-05-06T07:08:40Z"}},
                "lastState": {
                    "terminated": {
                        "exitCode": 137,
                        "signal": 9,
                        "reason": "OOMKilled",
                        "startedAt": "2024-05-06T07:00:00Z",
                        "finishedAt": "2024-05-06T07:08:00Z",
                        "containerID": "containerd://x",
                    }
                },
                "ready": True,
                "restartCount": 1,
                "image": "registry.example.com/app:1.2.3",
                "imageID": "sha256:abc",
                "containerID": "containerd://y",
                "started": True,
            }
        ],
        "qosClass": "Burstable",
    },
}

SMALL_META: dict[str, Any] = {"name": "obj", "namespace": "prod", "labels": {"app": "web"}}
TEMPLATE: dict[str, Any] = {
    "metadata": {"labels": {"app": "web"}},
    "spec": {"containers": [{"name": "app", "image": "nginx", "ports": [{"containerPort": 80}], "resources": {}}]},
}
TIMES = {"lastTransitionTime": "2024-05-06T07:08:09Z"}

OBJECTS: dict[str, dict[str, Any]] = {
    "Namespace": {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "team-a", "labels": {"team": "a"}},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {
            "phase": "Terminating",
            "conditions": [
                {
                    "type": "NamespaceDeletionContentFailure",
                    "status": "False",
                    **TIMES,
                    "reason": "Done",
                    "message": "all good",
                }
            ],
        },
    },
    "ConfigMap": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": SMALL_META,
        "immutable": True,
        "data": {"app.yaml": "a: 1\nb: [x, y]\n", "empty": "", "z": "last"},
        "binaryData": {"blob": "AAEC/w==", "none": ""},
    },
    "Secret": {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": SMALL_META,
        "immutable": False,
        "data": {"password": "czNjcjN0", "empty": ""},
        "stringData": {"user": "admin"},
        "type": "Opaque",
    },
    "ServiceAccount": {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": SMALL_META,
        "secrets": [
            {
                "kind": "Secret",
                "namespace": "prod",
                "name": "tok",
                "uid": "u-1",
                "apiVersion": "v1",
                "resourceVersion": "7",
                "fieldPath": "data",
            }
        ],
        "imagePullSecrets": [{"name": "regcred"}],
        "automountServiceAccountToken": False,
    },
    "Service": {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": SMALL_META,
        "spec": {
            "ports": [
                {
                    "name": "http",
                    "protocol": "TCP",
                    "appProtocol": "http",
                    "port": 80,
                    "targetPort": "http",
                    "nodePort": 30080,
                },
                {"name": "metrics", "protocol": "TCP", "port": 9090, "targetPort": 9091},
            ],
            "selector": {"app": "web"},
            "clusterIP": "10.96.0.10",
            "clusterIPs": ["10.96.0.10", "fd00::10"],
            "type": "LoadBalancer",
            "externalIPs": ["192.0.2.1"],
            "sessionAffinity": "ClientIP",
            "loadBalancerSourceRanges": ["0.0.0.0/0"],
            "externalTrafficPolicy": "Local",
            "healthCheckNodePort": 31000,
            "publishNotReadyAddresses": True,
            "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 10800}},
            "ipFamilies": ["IPv4", "IPv6"],
            "ipFamilyPolicy": "PreferDualStack",
            "allocateLoadBalancerNodePorts": True,
            "internalTrafficPolicy": "Cluster",
        },
        "status": {
            "loadBalancer": {
                "ingress": [
                    {"ip": "203.0.113.7", "ipMode": "VIP", "ports": [{"port": 80, "protocol": "TCP"}]},
                    {"hostname": "lb.example.com", "ports": [{"port": 443, "protocol": "TCP", "error": "Pending"}]},
                ]
            },
            "conditions": [
                {"type": "Ready", "status": "True", "observedGeneration": 2, **TIMES, "reason": "Ok", "message": ""}
            ],
        },
    },
    "ResourceQuota": {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": SMALL_META,
        "spec": {
            "hard": {"cpu": "4", "memory": "8Gi", "pods": "10", "requests.storage": "100Gi"},
            "scopes": ["NotBestEffort"],
            "scopeSelector": {
                "matchExpressions": [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]
            },
        },
        "status": {"hard": {"cpu": "4", "pods": "10"}, "used": {"cpu": "1500m", "pods": "3"}},
    },
    "Pod": POD,
    "PodList": {
        "apiVersion": "v1",
        "kind": "PodList",
        "metadata": {"resourceVersion": "999", "continue": "tok", "remainingItemCount": 5},
        "items": [
            {
                "metadata": {"name": "a"},
                "spec": {"containers": [{"name": "c", "image": "i", "resources": {}}]},
                "status": {},
            },
            {"metadata": {"name": "b"}, "spec": {}, "status": {"phase": "Pending"}},
        ],
    },
    "Deployment": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": SMALL_META,
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"app": "web"}},
            "template": TEMPLATE,
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": "25%"}},
            "minReadySeconds": 5,
            "revisionHistoryLimit": 10,
            "paused": True,
            "progressDeadlineSeconds": 600,
        },
        "status": {
            "observedGeneration": 4,
            "replicas": 3,
            "updatedReplicas": 3,
            "readyReplicas": 2,
            "availableReplicas": 2,
            "unavailableReplicas": 1,
            "terminatingReplicas": 0,
            "conditions": [
                {
                    "type": "Available",
                    "status": "True",
                    "lastUpdateTime": "2024-05-06T07:08:09Z",
                    **TIMES,
                    "reason": "MinimumReplicasAvailable",
                    "message": "Deployment has minimum availability.",
                },
                {"type": "Progressing", "status": "True", "lastUpdateTime": None, "lastTransitionTime": None},
            ],
            "collisionCount": 1,
        },
    },
    "Job": {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": SMALL_META,
        "spec": {
            "parallelism": 2,
            "completions": 4,
            "activeDeadlineSeconds": 3600,
            "backoffLimit": 6,
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u"}},
            "manualSelector": False,
            "template": {
                "metadata": {},
                "spec": {"containers": [{"name": "w", "image": "busybox", "resources": {}}], "restartPolicy": "Never"},
            },
            "ttlSecondsAfterFinished": 100,
            "completionMode": "Indexed",
            "suspend": False,
            "podFailurePolicy": {
                "rules": [
                    {"action": "FailJob", "onExitCodes": {"containerName": "w", "operator": "In", "values": [1, 42]}}
                ]
            },
        },
        "status": {
            "conditions": [{"type": "Complete", "status": "True", "lastProbeTime": "2024-05-06T07:08:09Z", **TIMES}],
            "startTime": "2024-05-06T07:00:00Z",
            "completionTime": "2024-05-06T07:08:09Z",
            "active": 1,
            "succeeded": 3,
            "failed": 1,
            "completedIndexes": "0-2",
            "uncountedTerminatedPods": {"succeeded": ["u1"]},
            "ready": 1,
        },
    },
    "CronJob": {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": SMALL_META,
        "spec": {
            "schedule": "*/5 * * * *",
            "timeZone": "Etc/UTC",
            "startingDeadlineSeconds": 60,
            "concurrencyPolicy": "Forbid",
            "suspend": True,
            "jobTemplate": {"metadata": {"labels": {"job": "x"}}, "spec": {"template": TEMPLATE}},
            "successfulJobsHistoryLimit": 3,
            "failedJobsHistoryLimit": 1,
        },
        "status": {
            "active": [{"kind": "Job", "namespace": "prod", "name": "obj-1", "uid": "u", "apiVersion": "batch/v1"}],
            "lastScheduleTime": "2024-05-06T07:05:00Z",
            "lastSuccessfulTime": "2024-05-06T07:00:30Z",
        },
    },
    "PodDisruptionBudget": {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": SMALL_META,
        "spec": {
            "minAvailable": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "unhealthyPodEvictionPolicy": "AlwaysAllow",
        },
        "status": {
            "observedGeneration": 1,
            "disruptedPods": {"web-1": "2024-05-06T07:08:09Z"},
            "disruptionsAllowed": 1,
            "currentHealthy": 3,
            "desiredHealthy": 2,
            "expectedPods": 3,
            "conditions": [
                {
                    "type": "DisruptionAllowed",
                    "status": "True",
                    "observedGeneration": 1,
                    **TIMES,
                    "reason": "SufficientPods",
                    "message": "",
                }
            ],
        },
    },
    "Eviction": {
        "apiVersion": "policy/v1",
        "kind": "Eviction",
        "metadata": {"name": "web-1", "namespace": "prod"},
        "deleteOptions": {"gracePeriodSeconds": 0, "preconditions": {"uid": "u"}, "dryRun": ["All"]},
    },
    "Status": {
        "apiVersion": "v1",
        "kind": "Status",
        "metadata": {},
        "status": "Failure",
        "message": 'Pod "web" is invalid: spec.containers: Required value',
        "reason": "Invalid",
        "details": {
            "name": "web",
            "kind": "Pod",
            "causes": [{"reason": "FieldValueRequired", "message": "Required value", "field": "spec.containers"}],
        },
        "code": 422,
    },
    "DeleteOptions": {
        "apiVersion": "v1",
        "kind": "DeleteOptions",
        "propagationPolicy": "Foreground",
        "orphanDependents": False,
    },
}
