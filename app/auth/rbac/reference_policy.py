"""The reference's default RBAC policy as data, spelled as the reference spells it (`--api-domain k8s.io`).

`DefaultPolicy` renames every domain-bearing string for the configured domain (`reference_name`). Rules are
`(groups, resources, verbs[, resourceNames])`, each a space-separated word list; `core` is the core group.
Roles of controllers and APIs that came after v1.23 are left out; the leader-election Roles drop the
`leasecandidates` rule for the same reason.
"""

from __future__ import annotations

Rule = tuple[str, ...]

GLW = "get list watch"
WRITES = "create delete deletecollection patch update"
EVENTS: Rule = ("core events.k8s.io", "events", "create patch update")
URLS = "urls"  # a rule whose second word list is nonResourceURLs

AGGREGATE_TO = "rbac.authorization.k8s.io/aggregate-to-"

#: name -> (rules, labels, aggregated from) of every bootstrap ClusterRole
CLUSTER_ROLES: dict[str, tuple[list[Rule], tuple[str, ...], str]] = {
    "admin": ([], (), "admin"),
    "cluster-admin": ([("*", "*", "*"), (URLS, "*", "*")], (), ""),
    "edit": ([], ("admin",), "edit"),
    "view": ([], ("edit",), "view"),
    "system:aggregate-to-admin": (
        [
            ("authorization.k8s.io", "localsubjectaccessreviews", "create"),
            ("rbac.authorization.k8s.io", "rolebindings roles", f"{WRITES} get list watch"),
        ],
        ("admin",),
        "",
    ),
    "system:aggregate-to-edit": (
        [
            ("core", "pods/attach pods/exec pods/portforward pods/proxy secrets services/proxy", GLW),
            ("core", "serviceaccounts", "impersonate"),
            ("core", "pods pods/attach pods/exec pods/portforward pods/proxy", WRITES),
            ("core", "pods/eviction", "create"),
            (
                "core",
                (
                    "configmaps events persistentvolumeclaims replicationcontrollers replicationcontrollers/scale "
                    "secrets serviceaccounts services services/proxy"
                ),
                WRITES,
            ),
            ("core", "serviceaccounts/token", "create"),
            (
                "apps",
                (
                    "daemonsets deployments deployments/rollback deployments/scale replicasets replicasets/scale "
                    "statefulsets statefulsets/scale"
                ),
                WRITES,
            ),
            ("autoscaling", "horizontalpodautoscalers", WRITES),
            ("batch", "cronjobs jobs", WRITES),
            (
                "extensions",
                (
                    "daemonsets deployments deployments/rollback deployments/scale ingresses networkpolicies "
                    "replicasets replicasets/scale replicationcontrollers/scale"
                ),
                WRITES,
            ),
            ("policy", "poddisruptionbudgets", WRITES),
            ("networking.k8s.io", "ingresses networkpolicies", WRITES),
            ("coordination.k8s.io", "leases", f"{WRITES} get list watch"),
        ],
        ("edit",),
        "",
    ),
    "system:aggregate-to-view": (
        [
            (
                "core",
                (
                    "configmaps endpoints persistentvolumeclaims persistentvolumeclaims/status pods "
                    "replicationcontrollers replicationcontrollers/scale serviceaccounts services services/status"
                ),
                GLW,
            ),
            (
                "core",
                (
                    "bindings events limitranges namespaces/status pods/log pods/status replicationcontrollers/status "
                    "resourcequotas resourcequotas/status"
                ),
                GLW,
            ),
            ("core", "namespaces", GLW),
            ("discovery.k8s.io", "endpointslices", GLW),
            (
                "apps",
                (
                    "controllerrevisions daemonsets daemonsets/status deployments deployments/scale deployments/status "
                    "replicasets replicasets/scale replicasets/status statefulsets statefulsets/scale "
                    "statefulsets/status"
                ),
                GLW,
            ),
            ("autoscaling", "horizontalpodautoscalers horizontalpodautoscalers/status", GLW),
            ("batch", "cronjobs cronjobs/status jobs jobs/status", GLW),
            (
                "extensions",
                (
                    "daemonsets daemonsets/status deployments deployments/scale deployments/status ingresses "
                    "ingresses/status networkpolicies replicasets replicasets/scale replicasets/status "
                    "replicationcontrollers/scale"
                ),
                GLW,
            ),
            ("policy", "poddisruptionbudgets poddisruptionbudgets/status", GLW),
            ("networking.k8s.io", "ingresses ingresses/status networkpolicies", GLW),
        ],
        ("view",),
        "",
    ),
    "system:auth-delegator": (
        [
            ("authentication.k8s.io", "tokenreviews", "create"),
            ("authorization.k8s.io", "subjectaccessreviews", "create"),
        ],
        (),
        "",
    ),
    "system:basic-user": (
        [
            ("authorization.k8s.io", "selfsubjectaccessreviews selfsubjectrulesreviews", "create"),
            ("authentication.k8s.io", "selfsubjectreviews", "create"),
        ],
        (),
        "",
    ),
    "system:certificates.k8s.io:certificatesigningrequests:nodeclient": (
        [("certificates.k8s.io", "certificatesigningrequests/nodeclient", "create")],
        (),
        "",
    ),
    "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient": (
        [("certificates.k8s.io", "certificatesigningrequests/selfnodeclient", "create")],
        (),
        "",
    ),
    "system:certificates.k8s.io:kube-apiserver-client-approver": (
        [("certificates.k8s.io", "signers", "approve", "kubernetes.io/kube-apiserver-client")],
        (),
        "",
    ),
    "system:certificates.k8s.io:kube-apiserver-client-kubelet-approver": (
        [("certificates.k8s.io", "signers", "approve", "kubernetes.io/kube-apiserver-client-kubelet")],
        (),
        "",
    ),
    "system:certificates.k8s.io:kubelet-serving-approver": (
        [("certificates.k8s.io", "signers", "approve", "kubernetes.io/kubelet-serving")],
        (),
        "",
    ),
    "system:certificates.k8s.io:legacy-unknown-approver": (
        [("certificates.k8s.io", "signers", "approve", "kubernetes.io/legacy-unknown")],
        (),
        "",
    ),
    "system:discovery": (
        [(URLS, "/api /api/* /apis /apis/* /healthz /livez /openapi /openapi/* /readyz /version /version/", "get")],
        (),
        "",
    ),
    "system:heapster": ([("core", "events namespaces nodes pods", GLW), ("extensions", "deployments", GLW)], (), ""),
    "system:kube-aggregator": ([("core", "endpoints services", GLW)], (), ""),
    "system:kube-controller-manager": (
        [
            EVENTS,
            ("coordination.k8s.io", "leases", "create"),
            ("coordination.k8s.io", "leases", "get update", "kube-controller-manager"),
            ("core", "secrets serviceaccounts", "create"),
            ("core", "secrets", "delete"),
            ("core", "configmaps namespaces secrets serviceaccounts", "get"),
            ("core", "secrets serviceaccounts", "update"),
            ("authentication.k8s.io", "tokenreviews", "create"),
            ("authorization.k8s.io", "subjectaccessreviews", "create"),
            ("*", "*", "list watch"),
            ("core", "serviceaccounts/token", "create"),
        ],
        (),
        "",
    ),
    "system:kube-dns": ([("core", "endpoints services", "list watch")], (), ""),
    "system:kube-scheduler": (
        [
            EVENTS,
            ("coordination.k8s.io", "leases", "create"),
            ("coordination.k8s.io", "leases", "get update", "kube-scheduler"),
            ("core", "nodes", GLW),
            ("core", "pods", "delete get list watch"),
            ("core", "bindings pods/binding", "create"),
            ("core", "pods/status", "patch update"),
            ("core", "replicationcontrollers services", GLW),
            ("apps extensions", "replicasets", GLW),
            ("apps", "statefulsets", GLW),
            ("policy", "poddisruptionbudgets", GLW),
            ("core", "persistentvolumeclaims persistentvolumes", GLW),
            ("authentication.k8s.io", "tokenreviews", "create"),
            ("authorization.k8s.io", "subjectaccessreviews", "create"),
            ("storage.k8s.io", "csinodes", GLW),
            ("core", "namespaces", GLW),
            ("storage.k8s.io", "csidrivers", GLW),
            ("storage.k8s.io", "csistoragecapacities", GLW),
        ],
        (),
        "",
    ),
    "system:kubelet-api-admin": (
        [
            ("core", "nodes", GLW),
            ("core", "nodes", "proxy"),
            ("core", "nodes/log nodes/metrics nodes/proxy nodes/stats", "*"),
        ],
        (),
        "",
    ),
    "system:monitoring": (
        [(URLS, "/healthz /healthz/* /livez /livez/* /metrics /metrics/slis /readyz /readyz/*", "get")],
        (),
        "",
    ),
    "system:node": (
        [
            ("authentication.k8s.io", "tokenreviews", "create"),
            ("authorization.k8s.io", "localsubjectaccessreviews subjectaccessreviews", "create"),
            ("core", "services", GLW),
            ("core", "nodes", "create get list watch"),
            ("core", "nodes/status", "patch update"),
            ("core", "nodes", "patch update"),
            ("core", "events", "create patch update"),
            ("core", "pods", GLW),
            ("core", "pods", "create delete"),
            ("core", "pods/status", "patch update"),
            ("core", "pods/eviction", "create"),
            ("core", "configmaps secrets", GLW),
            ("core", "persistentvolumeclaims persistentvolumes", "get"),
            ("core", "endpoints", "get"),
            ("certificates.k8s.io", "certificatesigningrequests", "create get list watch"),
            ("coordination.k8s.io", "leases", "create delete get patch update"),
            ("storage.k8s.io", "volumeattachments", "get"),
            ("core", "serviceaccounts/token", "create"),
            ("core", "persistentvolumeclaims/status", "get patch update"),
            ("storage.k8s.io", "csidrivers", GLW),
            ("storage.k8s.io", "csinodes", "create delete get patch update"),
            ("node.k8s.io", "runtimeclasses", GLW),
        ],
        (),
        "",
    ),
    "system:node-bootstrapper": (
        [("certificates.k8s.io", "certificatesigningrequests", "create get list watch")],
        (),
        "",
    ),
    "system:node-problem-detector": ([("core", "nodes", "get"), ("core", "nodes/status", "patch"), EVENTS], (), ""),
    "system:node-proxier": (
        [
            ("core", "endpoints services", "list watch"),
            ("core", "nodes", GLW),
            EVENTS,
            ("discovery.k8s.io", "endpointslices", "list watch"),
        ],
        (),
        "",
    ),
    "system:persistent-volume-provisioner": (
        [
            ("core", "persistentvolumes", "create delete get list watch"),
            ("core", "persistentvolumeclaims", "get list update watch"),
            ("storage.k8s.io", "storageclasses", GLW),
            ("core", "events", "watch"),
            EVENTS,
        ],
        (),
        "",
    ),
    "system:public-info-viewer": ([(URLS, "/healthz /livez /readyz /version /version/", "get")], (), ""),
    "system:service-account-issuer-discovery": (
        [(URLS, "/.well-known/openid-configuration /openid/v1/jwks", "get")],
        (),
        "",
    ),
    "system:volume-scheduler": (
        [
            ("core", "persistentvolumes", "get list patch update watch"),
            ("storage.k8s.io", "storageclasses", GLW),
            ("core", "persistentvolumeclaims", "get list patch update watch"),
        ],
        (),
        "",
    ),
}

#: ClusterRoleBinding (named as its role) -> subjects as "Kind name" (ServiceAccounts "ServiceAccount ns/name")
CLUSTER_ROLE_BINDINGS: dict[str, list[str]] = {
    "cluster-admin": ["Group system:masters"],
    "system:basic-user": ["Group system:authenticated"],
    "system:discovery": ["Group system:authenticated"],
    "system:kube-controller-manager": ["User system:kube-controller-manager"],
    "system:kube-dns": ["ServiceAccount kube-system/kube-dns"],
    "system:kube-scheduler": ["User system:kube-scheduler"],
    "system:monitoring": ["Group system:monitoring"],
    "system:node": [],
    "system:node-proxier": ["User system:kube-proxy"],
    "system:public-info-viewer": ["Group system:authenticated", "Group system:unauthenticated"],
    "system:service-account-issuer-discovery": ["Group system:serviceaccounts"],
    "system:volume-scheduler": ["User system:kube-scheduler"],
}

#: `system:controller:<name>` roles, each bound to the ServiceAccount <name> of the system namespace
CONTROLLER_ROLES: dict[str, list[Rule]] = {
    "attachdetach-controller": [
        ("core", "persistentvolumeclaims persistentvolumes", "list watch"),
        ("core", "nodes", GLW),
        ("core", "nodes/status", "patch update"),
        ("core", "pods", "list watch"),
        EVENTS,
        ("storage.k8s.io", "volumeattachments", "create delete get list watch"),
        ("storage.k8s.io", "csidrivers", GLW),
        ("storage.k8s.io", "csinodes", GLW),
    ],
    "certificate-controller": [
        ("certificates.k8s.io", "certificatesigningrequests", "delete get list watch"),
        ("certificates.k8s.io", "certificatesigningrequests/approval certificatesigningrequests/status", "update"),
        ("certificates.k8s.io", "signers", "approve", "kubernetes.io/kube-apiserver-client-kubelet"),
        (
            "certificates.k8s.io",
            "signers",
            "sign",
            (
                "kubernetes.io/kube-apiserver-client "
                "kubernetes.io/kube-apiserver-client-kubelet kubernetes.io/kubelet-serving kubernetes.io/legacy-unknown"
            ),
        ),
        ("authorization.k8s.io", "subjectaccessreviews", "create"),
        EVENTS,
    ],
    "clusterrole-aggregation-controller": [
        ("rbac.authorization.k8s.io", "clusterroles", "escalate get list patch update watch")
    ],
    "cronjob-controller": [
        ("batch", "cronjobs", "get list update watch"),
        ("batch", "jobs", "create delete get list patch update watch"),
        ("batch", "cronjobs/status", "update"),
        ("batch", "cronjobs/finalizers", "update"),
        ("core", "pods", "delete list watch"),
        EVENTS,
    ],
    "daemon-set-controller": [
        ("apps extensions", "daemonsets", GLW),
        ("apps extensions", "daemonsets/status", "update"),
        ("apps extensions", "daemonsets/finalizers", "update"),
        ("core", "nodes", "list watch"),
        ("core", "pods", "create delete list patch watch"),
        ("core", "pods/binding", "create"),
        ("apps", "controllerrevisions", "create delete get list patch update watch"),
        EVENTS,
    ],
    "deployment-controller": [
        ("apps extensions", "deployments", "get list update watch"),
        ("apps extensions", "deployments/status", "update"),
        ("apps extensions", "deployments/finalizers", "update"),
        ("apps extensions", "replicasets", "create delete get list patch update watch"),
        ("core", "pods", "get list update watch"),
        EVENTS,
    ],
    "disruption-controller": [
        ("apps extensions", "deployments", GLW),
        ("apps extensions", "replicasets", GLW),
        ("core", "replicationcontrollers", GLW),
        ("policy", "poddisruptionbudgets", GLW),
        ("apps", "statefulsets", GLW),
        ("policy", "poddisruptionbudgets/status", "update"),
        ("core", "pods/status", "patch update"),
        ("*", "*/scale", "get"),
        EVENTS,
    ],
    "endpoint-controller": [
        ("core", "pods services", GLW),
        ("core", "endpoints", "create delete get list update watch"),
        ("core", "endpoints/restricted", "create"),
        EVENTS,
    ],
    "endpointslice-controller": [
        ("core", "nodes pods services", GLW),
        ("core", "services/finalizers", "update"),
        ("discovery.k8s.io", "endpointslices", "create delete get list update watch"),
        EVENTS,
    ],
    "endpointslicemirroring-controller": [
        ("core", "endpoints services", GLW),
        ("core", "services/finalizers", "update"),
        ("core", "endpoints/finalizers", "update"),
        ("discovery.k8s.io", "endpointslices", "create delete get list update watch"),
        EVENTS,
    ],
    "ephemeral-volume-controller": [
        ("core", "pods", GLW),
        ("core", "pods/finalizers", "update"),
        ("core", "persistentvolumeclaims", "create get list watch"),
        EVENTS,
    ],
    "expand-controller": [
        ("core", "persistentvolumes", "get list patch update watch"),
        ("core", "persistentvolumeclaims/status", "patch update"),
        ("core", "persistentvolumeclaims", GLW),
        EVENTS,
    ],
    "generic-garbage-collector": [("*", "*", "delete get list patch update watch"), EVENTS],
    "horizontal-pod-autoscaler": [
        ("autoscaling", "horizontalpodautoscalers", GLW),
        ("autoscaling", "horizontalpodautoscalers/status", "update"),
        ("*", "*/scale", "get update"),
        ("core", "pods", "list watch"),
        ("metrics.k8s.io", "pods", "list watch"),
        ("custom.metrics.k8s.io", "*", GLW),
        ("external.metrics.k8s.io", "*", GLW),
        EVENTS,
    ],
    "job-controller": [
        ("batch", "jobs", "get list patch update watch"),
        ("batch", "jobs/status", "update"),
        ("batch", "jobs/finalizers", "update"),
        ("core", "pods", "create delete list patch watch"),
        EVENTS,
    ],
    "namespace-controller": [
        ("core", "namespaces", "delete get list watch"),
        ("core", "namespaces/finalize namespaces/status", "update"),
        ("*", "*", "delete deletecollection get list watch"),
    ],
    "node-controller": [
        ("core", "nodes", "delete get list patch update watch"),
        ("core", "nodes/status", "patch update"),
        ("core", "pods/status", "patch update"),
        ("core", "pods", "delete get list watch"),
        EVENTS,
    ],
    "persistent-volume-binder": [
        ("core", "persistentvolumes", "create delete get list update watch"),
        ("core", "persistentvolumes/status", "update"),
        ("core", "persistentvolumeclaims", "get list update watch"),
        ("core", "persistentvolumeclaims/status", "update"),
        ("core", "pods", "create delete get list watch"),
        ("storage.k8s.io", "storageclasses", GLW),
        ("core", "nodes", "list watch"),
        EVENTS,
        ("core", "events", "watch"),
    ],
    "pod-garbage-collector": [
        ("core", "pods", "delete list watch"),
        ("core", "nodes", GLW),
        ("core", "pods/status", "patch"),
    ],
    "pv-protection-controller": [("core", "persistentvolumes", "get list update watch"), EVENTS],
    "pvc-protection-controller": [
        ("core", "persistentvolumeclaims", "get list update watch"),
        ("core", "persistentvolumeclaims/status", "update"),
        ("core", "pods", GLW),
        EVENTS,
    ],
    "replicaset-controller": [
        ("apps extensions", "replicasets", "get list update watch"),
        ("apps extensions", "replicasets/status", "update"),
        ("apps extensions", "replicasets/finalizers", "update"),
        ("core", "pods", "create delete list patch watch"),
        EVENTS,
    ],
    "replication-controller": [
        ("core", "replicationcontrollers", "get list update watch"),
        ("core", "replicationcontrollers/status", "update"),
        ("core", "replicationcontrollers/finalizers", "update"),
        ("core", "pods", "create delete list patch watch"),
        EVENTS,
    ],
    "resourcequota-controller": [("*", "*", "list watch"), ("core", "resourcequotas/status", "update"), EVENTS],
    "root-ca-cert-publisher": [("core", "configmaps", "create update"), EVENTS],
    "route-controller": [("core", "nodes", "list watch"), ("core", "nodes/status", "patch"), EVENTS],
    "service-account-controller": [("core", "serviceaccounts", "create"), EVENTS],
    "service-controller": [
        ("core", "services", GLW),
        ("core", "services/status", "patch update"),
        ("core", "nodes", "list watch"),
        EVENTS,
    ],
    "statefulset-controller": [
        ("core", "pods", "list watch"),
        ("apps", "statefulsets", GLW),
        ("apps", "statefulsets/status", "update"),
        ("apps", "statefulsets/finalizers", "update"),
        ("core", "pods", "create delete get patch update"),
        ("apps", "controllerrevisions", "create delete get list patch update watch"),
        ("core", "persistentvolumeclaims", "create get list watch"),
        ("core", "persistentvolumeclaims", "delete update"),
        ("core", "pods/finalizers", "update"),
        EVENTS,
    ],
    "ttl-after-finished-controller": [("batch", "jobs", "delete get list watch"), EVENTS],
    "ttl-controller": [("core", "nodes", "list patch update watch"), EVENTS],
}

LEADER_LOCKING: list[Rule] = [("coordination.k8s.io", "leases", "create get list update watch")]

#: (namespace, name) -> rules of the bootstrap Roles
ROLES: dict[tuple[str, str], list[Rule]] = {
    ("kube-public", "system:controller:bootstrap-signer"): [
        ("core", "configmaps", GLW),
        ("core", "configmaps", "update", "cluster-info"),
        EVENTS,
    ],
    ("kube-system", "extension-apiserver-authentication-reader"): [
        ("core", "configmaps", GLW, "extension-apiserver-authentication")
    ],
    ("kube-system", "system::leader-locking-kube-controller-manager"): LEADER_LOCKING,
    ("kube-system", "system::leader-locking-kube-scheduler"): LEADER_LOCKING,
    ("kube-system", "system:controller:bootstrap-signer"): [("core", "secrets", GLW)],
    ("kube-system", "system:controller:cloud-provider"): [("core", "configmaps", "create get list watch")],
    ("kube-system", "system:controller:token-cleaner"): [("core", "secrets", "delete get list watch"), EVENTS],
}

#: (namespace, binding name) -> (role, subjects)
ROLE_BINDINGS: dict[tuple[str, str], tuple[str, list[str]]] = {
    ("kube-public", "system:controller:bootstrap-signer"): (
        "system:controller:bootstrap-signer",
        ["ServiceAccount kube-system/bootstrap-signer"],
    ),
    ("kube-system", "system::extension-apiserver-authentication-reader"): (
        "extension-apiserver-authentication-reader",
        ["User system:kube-controller-manager", "User system:kube-scheduler"],
    ),
    ("kube-system", "system::leader-locking-kube-controller-manager"): (
        "system::leader-locking-kube-controller-manager",
        [
            "User system:kube-controller-manager",
            "ServiceAccount kube-system/kube-controller-manager",
            "ServiceAccount kube-system/leader-election-controller",
        ],
    ),
    ("kube-system", "system::leader-locking-kube-scheduler"): (
        "system::leader-locking-kube-scheduler",
        ["User system:kube-scheduler", "ServiceAccount kube-system/kube-scheduler"],
    ),
    ("kube-system", "system:controller:bootstrap-signer"): (
        "system:controller:bootstrap-signer",
        ["ServiceAccount kube-system/bootstrap-signer"],
    ),
    ("kube-system", "system:controller:cloud-provider"): (
        "system:controller:cloud-provider",
        ["ServiceAccount kube-system/cloud-provider"],
    ),
    ("kube-system", "system:controller:token-cleaner"): (
        "system:controller:token-cleaner",
        ["ServiceAccount kube-system/token-cleaner"],
    ),
}
