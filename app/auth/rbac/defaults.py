"""The default (bootstrap) policy: cluster roles and bindings present in every cluster.

Shaped after the reference's bootstrap policy; every domain-bearing name comes from `Naming`.
"""
from __future__ import annotations

from app.auth.bootstrap import GROUP as BOOTSTRAPPERS_GROUP
from app.auth.user import (
    ANONYMOUS_USER,
    AUTHENTICATED_GROUP,
    MASTERS_GROUP,
    UNAUTHENTICATED_GROUP,
)
from app.naming import Naming

READ = ["get", "list", "watch"]
WRITE = ["create", "delete", "deletecollection", "patch", "update"]
PUBLIC_PATHS = ["/healthz", "/livez", "/readyz", "/version", "/version/"]
#: the config map of the public namespace anyone may read (signed by the bootstrapsigner controller)
CLUSTER_INFO = "cluster-info"
#: service accounts (system namespace) of the in-server controllers, as the reference names them
CERTIFICATE_CONTROLLER, BOOTSTRAP_SIGNER, TOKEN_CLEANER = "certificate-controller", "bootstrap-signer", "token-cleaner"
#: role, binding and group of metric scrapers and health probes (the reference's system:monitoring)
MONITORING = "system:monitoring"
MONITORING_PATHS = ["/healthz", "/healthz/*", "/livez", "/livez/*", "/readyz", "/readyz/*", "/metrics",
                    "/metrics/slis"]
DISCOVERY_PATHS = ["/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*",
                   "/readyz", "/version", "/version/"]


def _r(groups: list[str], resources: list[str], verbs: list[str], names: list[str] | None = None) -> dict:
    rule: dict = {"apiGroups": groups, "resources": resources, "verbs": verbs}
    if names:
        rule["resourceNames"] = names
    return rule


def _urls(urls: list[str], verbs: list[str]) -> dict:
    return {"nonResourceURLs": urls, "verbs": verbs}


def aggregate_label(naming: Naming, to: str) -> str:
    return f"{naming.group('rbac.authorization')}/aggregate-to-{to}"


def autoupdate_annotation(naming: Naming) -> str:
    return f"{naming.key_group('rbac.authorization')}/autoupdate"


class DefaultPolicy:
    def __init__(self, naming: Naming):
        self.naming = naming
        self.rbac = naming.group("rbac.authorization")

    def _meta(self, name: str, labels: dict | None = None) -> dict:
        return {"name": name, "labels": {self.naming.key("bootstrapping"): "rbac-defaults", **(labels or {})},
                "annotations": {autoupdate_annotation(self.naming): "true"}}

    def _role(self, name: str, rules: list[dict], labels: dict | None = None, aggregate_from: str = "") -> dict:
        role: dict = {"apiVersion": f"{self.rbac}/v1", "kind": "ClusterRole", "metadata": self._meta(name, labels),
                      "rules": rules}
        if aggregate_from:
            role["aggregationRule"] = {"clusterRoleSelectors": [
                {"matchLabels": {aggregate_label(self.naming, aggregate_from): "true"}}]}
        return role

    def _binding(self, name: str, role: str, groups: list[str]) -> dict:
        return {"apiVersion": f"{self.rbac}/v1", "kind": "ClusterRoleBinding", "metadata": self._meta(name),
                "roleRef": {"apiGroup": self.rbac, "kind": "ClusterRole", "name": role},
                "subjects": [{"apiGroup": self.rbac, "kind": "Group", "name": g} for g in groups]}

    def cluster_roles(self) -> list[dict]:
        n = self.naming
        apps, batch, policy, net = "apps", "batch", "policy", n.group("networking")  # these groups carry no domain
        authz, authn, certs = n.group("authorization"), n.group("authentication"), n.group("certificates")
        coord, discovery = n.group("coordination"), n.group("discovery")
        core_read = ["pods", "pods/log", "pods/status", "configmaps", "endpoints", "persistentvolumeclaims",
                     "persistentvolumeclaims/status", "replicationcontrollers", "replicationcontrollers/scale",
                     "replicationcontrollers/status", "serviceaccounts", "services", "services/status",
                     "bindings", "events", "limitranges", "namespaces", "namespaces/status", "resourcequotas",
                     "resourcequotas/status"]
        app_kinds = ["controllerrevisions", "daemonsets", "daemonsets/status", "deployments", "deployments/scale",
                     "deployments/status", "replicasets", "replicasets/scale", "replicasets/status", "statefulsets",
                     "statefulsets/scale", "statefulsets/status"]
        view = [_r([""], core_read, READ), _r([apps], app_kinds, READ),
                _r([batch], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"], READ),
                _r(["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"], READ),
                _r([policy], ["poddisruptionbudgets", "poddisruptionbudgets/status"], READ),
                _r([net], ["ingresses", "ingresses/status", "networkpolicies"], READ),
                _r([discovery], ["endpointslices"], READ)]
        edit = [_r([""], ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets",
                          "services/proxy"], READ),
                _r([""], ["serviceaccounts"], ["impersonate"]),
                _r([""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "pods/eviction",
                          "configmaps", "endpoints", "events", "persistentvolumeclaims", "replicationcontrollers",
                          "replicationcontrollers/scale", "secrets", "serviceaccounts", "services",
                          "services/proxy"], WRITE),
                _r([""], ["serviceaccounts/token"], ["create"]),
                _r([apps], [k for k in app_kinds if not k.endswith("/status")], WRITE),
                _r([batch], ["cronjobs", "jobs"], WRITE),
                _r(["autoscaling"], ["horizontalpodautoscalers"], WRITE),
                _r([policy], ["poddisruptionbudgets"], WRITE),
                _r([net], ["ingresses", "networkpolicies"], WRITE),
                _r([discovery], ["endpointslices"], WRITE),
                _r([coord], ["leases"], READ + WRITE)]
        admin = [_r([authz], ["localsubjectaccessreviews"], ["create"]),
                 _r([self.rbac], ["rolebindings", "roles"], READ + WRITE)]
        return [
            self._role("cluster-admin", [_r(["*"], ["*"], ["*"]), _urls(["*"], ["*"])]),
            self._role("system:discovery", [_urls(DISCOVERY_PATHS, ["get"])]),
            self._role("system:public-info-viewer", [_urls(PUBLIC_PATHS, ["get"])]),
            self._role(MONITORING, [_urls(MONITORING_PATHS, ["get"])]),
            self._role("system:basic-user", [
                _r([authz], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"], ["create"]),
                _r([authn], ["selfsubjectreviews"], ["create"])]),
            self._role("admin", [], aggregate_from="admin"),
            self._role("edit", [], {aggregate_label(n, "admin"): "true"}, aggregate_from="edit"),
            self._role("view", [], {aggregate_label(n, "edit"): "true"}, aggregate_from="view"),
            self._role("system:aggregate-to-admin", admin, {aggregate_label(n, "admin"): "true"}),
            self._role("system:aggregate-to-edit", edit, {aggregate_label(n, "edit"): "true"}),
            self._role("system:aggregate-to-view", view, {aggregate_label(n, "view"): "true"}),
            self._role("system:node-bootstrapper", [_r([certs], ["certificatesigningrequests"],
                                                       ["create", "get", "list", "watch"])]),
            self._role(f"system:{certs}:certificatesigningrequests:nodeclient",
                       [_r([certs], ["certificatesigningrequests/nodeclient"], ["create"])]),
            self._role(f"system:{certs}:certificatesigningrequests:selfnodeclient",
                       [_r([certs], ["certificatesigningrequests/selfnodeclient"], ["create"])]),
            self._role(f"system:{certs}:apiserver-client-approver",
                       [_r([certs], ["signers"], ["approve"], [n.signer("apiserver-client")])]),
            self._role(f"system:{certs}:apiserver-client-node-approver",
                       [_r([certs], ["signers"], ["approve"], [n.signer("apiserver-client-node")])]),
            self._role("system:controller:certificate-controller", [
                _r([certs], ["certificatesigningrequests"], ["delete", "get", "list", "watch"]),
                _r([certs], ["certificatesigningrequests/approval", "certificatesigningrequests/status"],
                   ["update"]),
                _r([certs], ["signers"], ["approve", "sign"], [n.key("*")]),
                _r([authz], ["subjectaccessreviews"], ["create"])]),
            self._role("system:controller:namespace-controller", [
                _r(["*"], ["*"], ["delete", "deletecollection", "get", "list"]),
                _r([""], ["namespaces"], ["delete", "get", "list", "watch"]),
                _r([""], ["namespaces/finalize", "namespaces/status"], ["update"])]),
        ]

    def cluster_role_bindings(self) -> list[dict]:
        certs = self.naming.group("certificates")
        everyone = [AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP]
        return [
            self._binding("cluster-admin", "cluster-admin", [MASTERS_GROUP]),
            self._binding("system:discovery", "system:discovery", [AUTHENTICATED_GROUP]),
            self._binding("system:basic-user", "system:basic-user", [AUTHENTICATED_GROUP]),
            self._binding("system:public-info-viewer", "system:public-info-viewer", everyone),
            self._binding(MONITORING, MONITORING, [MONITORING]),
            self._binding("system:node-bootstrapper", "system:node-bootstrapper", [BOOTSTRAPPERS_GROUP]),
            self._binding(f"system:{certs}:certificatesigningrequests:nodeclient",
                          f"system:{certs}:certificatesigningrequests:nodeclient", [BOOTSTRAPPERS_GROUP]),
            self._account_binding("system:controller:certificate-controller", CERTIFICATE_CONTROLLER),
        ]

    # -- in-server controllers (app/controllers): their service accounts and namespaced grants ---------

    def _subject(self, account: str) -> dict:
        return {"kind": "ServiceAccount", "name": account, "namespace": self.naming.system_namespace}

    def _account_binding(self, name: str, account: str) -> dict:
        binding = self._binding(name, name, [])
        binding["subjects"] = [self._subject(account)]
        return binding

    def _namespaced(self, kind: str, namespace: str, name: str, body: dict) -> dict:
        return {"apiVersion": f"{self.rbac}/v1", "kind": kind,
                "metadata": {**self._meta(name), "namespace": namespace}, **body}

    def roles(self) -> list[dict]:
        """Roles in the system and public namespaces (the reference's bootstrap namespace roles)."""
        n = self.naming
        system, public, coord = n.system_namespace, n.public_namespace, n.group("coordination")
        events = _r([""], ["events"], ["create", "patch", "update"])
        return [
            self._namespaced("Role", system, "system:controller:bootstrap-signer",
                             {"rules": [_r([""], ["secrets"], READ)]}),
            self._namespaced("Role", system, "system:controller:token-cleaner",
                             {"rules": [_r([""], ["secrets"], ["delete", *READ]), events]}),
            self._namespaced("Role", system, "system::leader-locking-controllers",
                             {"rules": [_r([coord], ["leases"], ["create", "get", "update"])]}),
            self._namespaced("Role", public, "system:controller:bootstrap-signer", {"rules": [
                _r([""], ["configmaps"], READ), _r([""], ["configmaps"], ["update"], [CLUSTER_INFO]), events]}),
            self._namespaced("Role", public, "kubeadm:bootstrap-signer-clusterinfo",
                             {"rules": [_r([""], ["configmaps"], ["get"], [CLUSTER_INFO])]}),
        ]

    def role_bindings(self) -> list[dict]:
        n = self.naming
        system, public = n.system_namespace, n.public_namespace

        def bind(namespace: str, name: str, subjects: list[dict]) -> dict:
            return self._namespaced("RoleBinding", namespace, name, {
                "roleRef": {"apiGroup": self.rbac, "kind": "Role", "name": name}, "subjects": subjects})

        return [
            bind(system, "system:controller:bootstrap-signer", [self._subject(BOOTSTRAP_SIGNER)]),
            bind(system, "system:controller:token-cleaner", [self._subject(TOKEN_CLEANER)]),
            bind(system, "system::leader-locking-controllers",
                 [self._subject(a) for a in (CERTIFICATE_CONTROLLER, BOOTSTRAP_SIGNER, TOKEN_CLEANER)]),
            bind(public, "system:controller:bootstrap-signer", [self._subject(BOOTSTRAP_SIGNER)]),
            bind(public, "kubeadm:bootstrap-signer-clusterinfo",
                 [{"apiGroup": self.rbac, "kind": "User", "name": ANONYMOUS_USER}]),
        ]
