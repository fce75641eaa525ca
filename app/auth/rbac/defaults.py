"""The default (bootstrap) policy: cluster roles and bindings present in every cluster.

The reference's policy (app/auth/rbac/reference_policy.py, in its own spelling) renamed for the configured
domain, plus the grants this server's own controllers and kubeadm-made objects need.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...naming import REFERENCE_SIGNERS, Naming
from ...user import ANONYMOUS_USER, NODES_GROUP
from ..bootstrap import GROUP as BOOTSTRAPPERS_GROUP
from . import reference_policy as ref

#: the config map of the public namespace anyone may read (signed by the bootstrapsigner controller)
CLUSTER_INFO = "cluster-info"
#: service accounts (system namespace) of the in-server controllers, as the reference names them
CERTIFICATE_CONTROLLER, BOOTSTRAP_SIGNER, TOKEN_CLEANER = "certificate-controller", "bootstrap-signer", "token-cleaner"
#: the other reference controllers this server runs in-process (their roles come with the reference policy;
#: the apiextensions controller writes through the registry, as the reference's does, and needs only its Lease)
IN_SERVER_CONTROLLERS = (
    "generic-garbage-collector",
    "service-account-controller",
    "root-ca-cert-publisher",
    "apiextensions-controller",
    "resourcequota-controller",
    "pvc-protection-controller",
    "pv-protection-controller",
    "pod-garbage-collector",
    "replicaset-controller",  # these two with --simulate-nodes (app/controllers/simulation/workloads.py)
    "deployment-controller",
    "statefulset-controller",  # these six with --simulate-nodes (app/controllers/simulation/batch.py)
    "daemon-set-controller",
    "job-controller",
    "cronjob-controller",
    "endpointslice-controller",
    "endpoint-controller",
)
#: the simulated cluster's controllers (--simulate-nodes, docs/simulation.md): service account -> rules in the
#: reference's spelling, as ref.CONTROLLER_ROLES; each gets `system:controller:<account>` and its Lease
SIMULATION_CONTROLLER_ROLES: dict[str, list[ref.Rule]] = {
    "sim-node-agent": [
        ("core", "nodes", f"{ref.GLW} create update patch delete"),
        ("core", "nodes/status", "patch update"),
        ("coordination.k8s.io", "leases", f"{ref.GLW} create update delete"),
        ("core", "pods", f"{ref.GLW} delete"),
        ("core", "pods/status", "patch update"),
        ref.EVENTS,
    ],
    "sim-scheduler": [
        ("core", "nodes pods", ref.GLW),
        ("core", "pods/binding bindings", "create"),
        ("core", "pods/status", "patch update"),
        ref.EVENTS,
    ],
}


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

    # -- the reference's policy, renamed ------------------------------------------------------------------

    def reference_name(self, text: str) -> str:
        """A string of the reference's policy in the configured domain (unchanged in k8s.io)."""
        return reference_renamer(self.naming)(text)

    def _rules(self, rules: list[ref.Rule]) -> list[dict]:
        out = []
        for groups, resources, verbs, *names in rules:
            if groups == ref.URLS:
                out.append(_urls(resources.split(), verbs.split()))
                continue
            api_groups = ["" if g == "core" else self.reference_name(g) for g in groups.split()]
            out.append(
                _r(
                    api_groups,
                    resources.split(),
                    verbs.split(),
                    [self.reference_name(n) for n in names[0].split()] if names else None,
                )
            )
        return out

    def _subjects(self, subjects: list[str]) -> list[dict]:
        out = []
        for subject in subjects:
            kind, _, name = subject.partition(" ")
            if kind == "ServiceAccount":
                namespace, _, account = name.partition("/")
                out.append(
                    {"kind": kind, "name": self.reference_name(account), "namespace": self.reference_name(namespace)}
                )
            else:
                out.append({"apiGroup": self.rbac, "kind": kind, "name": self.reference_name(name)})
        return out

    def reference_cluster_roles(self) -> list[dict]:
        roles = []
        for name, (rules, labels, aggregated_from) in ref.CLUSTER_ROLES.items():
            roles.append(
                self._role(
                    self.reference_name(name),
                    self._rules(rules),
                    {aggregate_label(self.naming, to): "true" for to in labels},
                    aggregated_from,
                )
            )
        for name, rules in ref.CONTROLLER_ROLES.items():
            roles.append(self._role(f"system:controller:{name}", self._rules(rules)))
        return roles

    def reference_cluster_role_bindings(self) -> list[dict]:
        bindings = []
        for name, subjects in ref.CLUSTER_ROLE_BINDINGS.items():
            binding = self._binding(self.reference_name(name), self.reference_name(name), [])
            binding["subjects"] = self._subjects(subjects)
            bindings.append(binding)
        for name in ref.CONTROLLER_ROLES:
            bindings.append(self._account_binding(f"system:controller:{name}", name))
        return bindings

    def reference_roles(self) -> list[dict]:
        return [
            self._namespaced(
                "Role", self.reference_name(namespace), self.reference_name(name), {"rules": self._rules(rules)}
            )
            for (namespace, name), rules in ref.ROLES.items()
        ]

    def reference_role_bindings(self) -> list[dict]:
        return [
            self._namespaced(
                "RoleBinding",
                self.reference_name(namespace),
                self.reference_name(name),
                {
                    "roleRef": {"apiGroup": self.rbac, "kind": "Role", "name": self.reference_name(role)},
                    "subjects": self._subjects(subjects),
                },
            )
            for (namespace, name), (role, subjects) in ref.ROLE_BINDINGS.items()
        ]

    # -- shapes ---------------------------------------------------------------------------------------------

    def _meta(self, name: str, labels: dict | None = None) -> dict:
        return {
            "name": name,
            "labels": {self.naming.key("bootstrapping"): "rbac-defaults", **(labels or {})},
            "annotations": {autoupdate_annotation(self.naming): "true"},
        }

    def _role(self, name: str, rules: list[dict], labels: dict | None = None, aggregate_from: str = "") -> dict:
        role: dict = {
            "apiVersion": f"{self.rbac}/v1",
            "kind": "ClusterRole",
            "metadata": self._meta(name, labels),
            "rules": rules,
        }
        if aggregate_from:
            role["aggregationRule"] = {
                "clusterRoleSelectors": [{"matchLabels": {aggregate_label(self.naming, aggregate_from): "true"}}]
            }
        return role

    def _binding(self, name: str, role: str, groups: list[str]) -> dict:
        return {
            "apiVersion": f"{self.rbac}/v1",
            "kind": "ClusterRoleBinding",
            "metadata": self._meta(name),
            "roleRef": {"apiGroup": self.rbac, "kind": "ClusterRole", "name": role},
            "subjects": [{"apiGroup": self.rbac, "kind": "Group", "name": g} for g in groups],
        }

    def _subject(self, account: str) -> dict:
        return {"kind": "ServiceAccount", "name": account, "namespace": self.naming.system_namespace}

    def _account_binding(self, name: str, account: str) -> dict:
        binding = self._binding(name, name, [])
        binding["subjects"] = [self._subject(account)]
        return binding

    def _namespaced(self, kind: str, namespace: str, name: str, body: dict) -> dict:
        return {
            "apiVersion": f"{self.rbac}/v1",
            "kind": kind,
            "metadata": {**self._meta(name), "namespace": namespace},
            **body,
        }

    # -- the policy: the reference's, then what this server adds -------------------------------------------

    def cluster_roles(self) -> list[dict]:
        simulation = SIMULATION_CONTROLLER_ROLES.items()
        return self.reference_cluster_roles() + [
            self._role(f"system:controller:{name}", self._rules(rules)) for name, rules in simulation
        ]

    def cluster_role_bindings(self) -> list[dict]:
        certs = self.naming.group("certificates")
        # kubeadm's grants for token-bootstrapping nodes (its kubeadm:kubelet-bootstrap and node-autoapprove)
        kubeadm = [
            self._binding("system:node-bootstrapper", "system:node-bootstrapper", [BOOTSTRAPPERS_GROUP]),
            self._binding(
                f"system:{certs}:certificatesigningrequests:nodeclient",
                f"system:{certs}:certificatesigningrequests:nodeclient",
                [BOOTSTRAPPERS_GROUP],
            ),
            # kubeadm:node-autoapprove-certificate-rotation: a node renews its own client certificate
            self._binding(
                f"system:{certs}:certificatesigningrequests:selfnodeclient",
                f"system:{certs}:certificatesigningrequests:selfnodeclient",
                [NODES_GROUP],
            ),
        ]
        simulation = [self._account_binding(f"system:controller:{name}", name) for name in SIMULATION_CONTROLLER_ROLES]
        return self.reference_cluster_role_bindings() + kubeadm + simulation

    def roles(self) -> list[dict]:
        """The reference's Roles of the system and public namespaces, plus this server's own."""
        n = self.naming
        system, public, coord = n.system_namespace, n.public_namespace, n.group("coordination")
        return self.reference_roles() + [
            # each in-server controller takes its own Lease (app/controllers/lease.py)
            self._namespaced(
                "Role",
                system,
                "system::leader-locking-controllers",
                {"rules": [_r([coord], ["leases"], ["create", "get", "update"])]},
            ),
            # kubeadm's: anonymous discovery of cluster-info
            self._namespaced(
                "Role",
                public,
                "kubeadm:bootstrap-signer-clusterinfo",
                {"rules": [_r([""], ["configmaps"], ["get"], [CLUSTER_INFO])]},
            ),
        ]

    def role_bindings(self) -> list[dict]:
        n = self.naming
        system, public = n.system_namespace, n.public_namespace

        def bind(namespace: str, name: str, subjects: list[dict]) -> dict:
            return self._namespaced(
                "RoleBinding",
                namespace,
                name,
                {"roleRef": {"apiGroup": self.rbac, "kind": "Role", "name": name}, "subjects": subjects},
            )

        return self.reference_role_bindings() + [
            bind(
                system,
                "system::leader-locking-controllers",
                [
                    self._subject(a)
                    for a in (
                        CERTIFICATE_CONTROLLER,
                        BOOTSTRAP_SIGNER,
                        TOKEN_CLEANER,
                        *IN_SERVER_CONTROLLERS,
                        *SIMULATION_CONTROLLER_ROLES,
                    )
                ],
            ),
            bind(
                public,
                "kubeadm:bootstrap-signer-clusterinfo",
                [{"apiGroup": self.rbac, "kind": "User", "name": ANONYMOUS_USER}],
            ),
        ]


_REFERENCE_API_GROUP = re.compile(r"\b([a-z0-9-]+(?:\.[a-z0-9-]+)*)\.k8s\.io\b")
_REFERENCE_KEY_DOMAIN = re.compile(r"\b(?:([a-z0-9-]+(?:\.[a-z0-9-]+)*)\.)?kubernetes\.io\b")
_REFERENCE_COMPONENT = re.compile(r"\bkube-")
_REFERENCE_NODE_AGENT = re.compile(r"\bkubelet\b")  # our domain calls it the node agent: node-serving signer


def reference_renamer(naming: Naming) -> Callable[[str], str]:
    """Rename a string of the reference's policy: signers first (their names change, not only the domain),
    then API groups, key domains and `kube-` component names."""
    if naming.is_reference:
        return lambda text: text
    reference = Naming("k8s.io")
    signers = {reference.signer(ours): naming.signer(ours) for ours in (*REFERENCE_SIGNERS, "legacy-unknown")}
    approvers = {
        f":{theirs.split('/', 1)[1]}-approver": f":{ours.split('/', 1)[1]}-approver" for theirs, ours in signers.items()
    }

    def rename(text: str) -> str:
        if text in signers:
            return signers[text]
        for theirs, ours in approvers.items():
            text = text.replace(theirs, ours)
        text = _REFERENCE_API_GROUP.sub(lambda m: naming.group(m.group(1)), text)
        text = _REFERENCE_KEY_DOMAIN.sub(
            lambda m: naming.key_group(m.group(1)) if m.group(1) else naming.key_domain, text
        )
        text = _REFERENCE_NODE_AGENT.sub("node", text)
        return _REFERENCE_COMPONENT.sub(f"{naming.namespace_prefix}-", text)

    return rename
