"""The default RBAC policy is the reference's bootstrap policy: its roles, rules and bindings in the k8s.io
domain, and the same policy renamed in ours (tests/e2e/test_reference_policy.py asks a real server)."""

from __future__ import annotations

import json
import re

from orch_apiserver.auth.rbac.defaults import SIMULATION_CONTROLLER_ROLES, DefaultPolicy, reference_renamer
from orch_apiserver.naming import Naming

REFERENCE, OURS = DefaultPolicy(Naming("k8s.io")), DefaultPolicy(Naming())

#: ClusterRoles the issue names, and the rest a v1.23 server lists (kubectl get clusterroles)
EXPECTED_CLUSTER_ROLES = {
    "admin",
    "cluster-admin",
    "edit",
    "view",
    "system:aggregate-to-admin",
    "system:aggregate-to-edit",
    "system:aggregate-to-view",
    "system:auth-delegator",
    "system:basic-user",
    "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
    "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
    "system:certificates.k8s.io:kube-apiserver-client-approver",
    "system:certificates.k8s.io:kube-apiserver-client-kubelet-approver",
    "system:certificates.k8s.io:kubelet-serving-approver",
    "system:certificates.k8s.io:legacy-unknown-approver",
    "system:discovery",
    "system:heapster",
    "system:kube-aggregator",
    "system:kube-controller-manager",
    "system:kube-dns",
    "system:kube-scheduler",
    "system:kubelet-api-admin",
    "system:monitoring",
    "system:node",
    "system:node-bootstrapper",
    "system:node-problem-detector",
    "system:node-proxier",
    "system:persistent-volume-provisioner",
    "system:public-info-viewer",
    "system:service-account-issuer-discovery",
    "system:volume-scheduler",
    *(
        f"system:controller:{c}"
        for c in (
            "attachdetach-controller",
            "certificate-controller",
            "clusterrole-aggregation-controller",
            "cronjob-controller",
            "daemon-set-controller",
            "deployment-controller",
            "disruption-controller",
            "endpoint-controller",
            "endpointslice-controller",
            "endpointslicemirroring-controller",
            "ephemeral-volume-controller",
            "expand-controller",
            "generic-garbage-collector",
            "horizontal-pod-autoscaler",
            "job-controller",
            "namespace-controller",
            "node-controller",
            "persistent-volume-binder",
            "pod-garbage-collector",
            "pv-protection-controller",
            "pvc-protection-controller",
            "replicaset-controller",
            "replication-controller",
            "resourcequota-controller",
            "root-ca-cert-publisher",
            "route-controller",
            "service-account-controller",
            "service-controller",
            "statefulset-controller",
            "ttl-after-finished-controller",
            "ttl-controller",
        )
    ),
    # ours: the simulated cluster's controllers (docs/simulation.md)
    *(f"system:controller:{c}" for c in SIMULATION_CONTROLLER_ROLES),
}


def by_name(objects: list[dict]) -> dict[str, dict]:
    return {o["metadata"]["name"]: o for o in objects}


def test_the_reference_s_cluster_roles_are_all_there():
    names = {r["metadata"]["name"] for r in REFERENCE.cluster_roles()}
    assert names == EXPECTED_CLUSTER_ROLES
    assert len(names) >= 62


def test_every_default_object_is_marked_as_the_reference_marks_it():
    for obj in (
        REFERENCE.cluster_roles() + REFERENCE.cluster_role_bindings() + REFERENCE.roles() + REFERENCE.role_bindings()
    ):
        assert obj["metadata"]["labels"]["kubernetes.io/bootstrapping"] == "rbac-defaults"
        assert obj["metadata"]["annotations"] == {"rbac.authorization.kubernetes.io/autoupdate": "true"}
        assert obj["apiVersion"] == "rbac.authorization.k8s.io/v1"


def _rules(name: str) -> list[dict]:
    return by_name(REFERENCE.cluster_roles())[name]["rules"]


def test_rules_read_as_the_reference_s():
    assert _rules("system:auth-delegator") == [
        {"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"], "verbs": ["create"]},
        {"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"], "verbs": ["create"]},
    ]
    assert {"apiGroups": [""], "resources": ["bindings", "pods/binding"], "verbs": ["create"]} in _rules(
        "system:kube-scheduler"
    )
    assert {
        "apiGroups": ["coordination.k8s.io"],
        "resources": ["leases"],
        "verbs": ["get", "update"],
        "resourceNames": ["kube-scheduler"],
    } in _rules("system:kube-scheduler")
    assert {
        "apiGroups": ["certificates.k8s.io"],
        "resources": ["signers"],
        "verbs": ["sign"],
        "resourceNames": [
            "kubernetes.io/kube-apiserver-client",
            "kubernetes.io/kube-apiserver-client-kubelet",
            "kubernetes.io/kubelet-serving",
            "kubernetes.io/legacy-unknown",
        ],
    } in _rules("system:controller:certificate-controller")
    assert {"nonResourceURLs": ["/healthz", "/livez", "/readyz", "/version", "/version/"], "verbs": ["get"]} in _rules(
        "system:public-info-viewer"
    )
    view = by_name(REFERENCE.cluster_roles())["view"]
    assert view["aggregationRule"] == {
        "clusterRoleSelectors": [{"matchLabels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"}}]
    }
    assert view["metadata"]["labels"]["rbac.authorization.k8s.io/aggregate-to-edit"] == "true"


def test_bindings_read_as_the_reference_s():
    bindings = by_name(REFERENCE.cluster_role_bindings())
    assert bindings["system:node-proxier"]["subjects"] == [
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "system:kube-proxy"}
    ]
    assert bindings["system:node"]["subjects"] == []  # nodes are authorized by the Node authorizer upstream
    assert bindings["system:controller:generic-garbage-collector"]["subjects"] == [
        {"kind": "ServiceAccount", "name": "generic-garbage-collector", "namespace": "kube-system"}
    ]
    roles = {(r["metadata"]["namespace"], r["metadata"]["name"]) for r in REFERENCE.roles()}
    assert {
        ("kube-system", "extension-apiserver-authentication-reader"),
        ("kube-system", "system::leader-locking-kube-scheduler"),
        ("kube-public", "system:controller:bootstrap-signer"),
    } <= roles


def test_our_domain_has_the_same_policy_renamed():
    rename = reference_renamer(Naming())
    for reference, ours in (
        (REFERENCE.cluster_roles(), OURS.cluster_roles()),
        (REFERENCE.cluster_role_bindings(), OURS.cluster_role_bindings()),
        (REFERENCE.roles(), OURS.roles()),
        (REFERENCE.role_bindings(), OURS.role_bindings()),
    ):
        assert [rename(o["metadata"]["name"]) for o in reference] == [o["metadata"]["name"] for o in ours]
    text = json.dumps(OURS.cluster_roles() + OURS.cluster_role_bindings() + OURS.roles() + OURS.role_bindings())
    leaked = set(re.findall(r'"([^"]*(?:kube|k8s|kubernetes)[^"]*)"', text)) - {"kubeadm:bootstrap-signer-clusterinfo"}
    assert not leaked
    names = {r["metadata"]["name"] for r in OURS.cluster_roles()}
    assert {
        "system:orch-scheduler",
        "system:certificates.orch.io:apiserver-client-approver",
        "system:node-api-admin",
    } <= names
