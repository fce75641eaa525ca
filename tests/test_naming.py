"""Every domain-bearing identifier the server spells through `Naming`, checked in the reference's own domain.

With `--api-domain k8s.io` stock tools look for the reference's exact names. The source is scanned for
every literal the tree passes to a `Naming` method, so a new identifier cannot slip in without being
added (with its reference spelling) to the table below.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from orch_apiserver.naming import Naming

APP = Path(__file__).resolve().parent.parent / "app"
REFERENCE = Naming("k8s.io")
OURS = Naming()

#: method -> literal argument -> the reference's spelling (v1.23 sources and API docs)
REFERENCE_SPELLINGS: dict[str, dict[str, str]] = {
    "key": {
        "config.mirror": "kubernetes.io/config.mirror",
        "ingress.class": "kubernetes.io/ingress.class",
        "limit-ranger": "kubernetes.io/limit-ranger",
        "pv-protection": "kubernetes.io/pv-protection",
        "pvc-protection": "kubernetes.io/pvc-protection",
        "metadata.name": "kubernetes.io/metadata.name",
        "service-account-token": "kubernetes.io/service-account-token",
        "service-account.name": "kubernetes.io/service-account.name",
        "service-account.uid": "kubernetes.io/service-account.uid",
        "hostname": "kubernetes.io/hostname",
        "role": "kubernetes.io/role",
        "bootstrapping": "kubernetes.io/bootstrapping",
        "service-name": "kubernetes.io/service-name",
        "arch": "kubernetes.io/arch",
        "os": "kubernetes.io/os",
        "*": "kubernetes.io/*",
    },
    "api_key": {
        "deprecated": "k8s.io/deprecated",
        "removed-release": "k8s.io/removed-release",
        "initial-events-end": "k8s.io/initial-events-end",
        # history's query parameters (docs/history.md): ours, no reference name to meet
        "asOf": "k8s.io/asOf",
        "history": "k8s.io/history",
        "since": "k8s.io/since",
    },
    "key_group": {
        "node-role": "node-role.kubernetes.io",
        "volume.beta": "volume.beta.kubernetes.io",
        "storageclass": "storageclass.kubernetes.io",
        "ingressclass": "ingressclass.kubernetes.io",
        "pod-security": "pod-security.kubernetes.io",
        "node": "node.kubernetes.io",
        "storageclass.beta": "storageclass.beta.kubernetes.io",
        "bootstrap": "bootstrap.kubernetes.io",
        "topology": "topology.kubernetes.io",
        "pdb": "pdb.kubernetes.io",
        "autoscaling.alpha": "autoscaling.alpha.kubernetes.io",
        "authentication": "authentication.kubernetes.io",
        "rbac.authorization": "rbac.authorization.kubernetes.io",
        "endpointslice": "endpointslice.kubernetes.io",
        "service": "service.kubernetes.io",
        "apiserver": "apiserver.kubernetes.io",
        "batch": "batch.kubernetes.io",
        "beta": "beta.kubernetes.io",
        "controller": "controller.kubernetes.io",
        "deployment": "deployment.kubernetes.io",
        "kubectl": "kubectl.kubernetes.io",
        "node.alpha": "node.alpha.kubernetes.io",
        "statefulset": "statefulset.kubernetes.io",
        "apf": "apf.kubernetes.io",  # autoupdate-spec of the priority-and-fairness bootstrap objects
        "sim": "sim.kubernetes.io",  # the simulation's own keys (docs/simulation.md): no reference name to meet
    },
    "signer": {
        "apiserver-client": "kubernetes.io/kube-apiserver-client",
        "apiserver-client-node": "kubernetes.io/kube-apiserver-client-kubelet",
        "node-serving": "kubernetes.io/kubelet-serving",
        "legacy-unknown": "kubernetes.io/legacy-unknown",
    },
    "namespace": {"system": "kube-system", "public": "kube-public", "node-lease": "kube-node-lease"},
}
NAMING_METHODS = frozenset(REFERENCE_SPELLINGS)


def _receiver_is_naming(node: ast.expr) -> bool:
    """`naming.x(...)`, `self.naming.x(...)`, `ctx.naming.x(...)`, `NAMING.x(...)` or the short `n.x(...)`."""
    if isinstance(node, ast.Name):
        return node.id in ("naming", "NAMING", "n")
    return isinstance(node, ast.Attribute) and node.attr == "naming"


def literal_calls() -> set[tuple[str, str]]:
    """(method, literal argument) of every Naming call with a string literal in app/."""
    found = set()
    for path in APP.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in NAMING_METHODS
                and _receiver_is_naming(node.func.value)
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                found.add((node.func.attr, node.args[0].value))
    return found


def test_the_scan_finds_the_tree_s_identifiers():
    calls = literal_calls()
    assert ("signer", "apiserver-client") in calls and ("key", "service-account-token") in calls
    assert len(calls) >= 20


@pytest.mark.parametrize(("method", "argument"), sorted(literal_calls()))
def test_every_identifier_has_the_reference_spelling_in_the_k8s_io_domain(method: str, argument: str):
    known = REFERENCE_SPELLINGS[method]
    assert argument in known, (
        f"naming.{method}({argument!r}) is new: add its reference spelling to "
        f"REFERENCE_SPELLINGS in {Path(__file__).name}"
    )
    assert getattr(REFERENCE, method)(argument) == known[argument]


@pytest.mark.parametrize(("method", "argument"), [(m, a) for m, table in REFERENCE_SPELLINGS.items() for a in table])
def test_our_domain_spells_no_reference_name(method: str, argument: str):
    ours = getattr(OURS, method)(argument)
    domain_words = ours.replace("kubectl", "")  # the tool's name is no reference domain (kubectl.orch.io/...)
    assert "orch" in ours and not any(word in domain_words for word in ("kube", "k8s")), ours


def test_product_names_in_both_domains():
    assert (
        REFERENCE.protobuf_media_type,
        REFERENCE.openapi_extension("int-or-string"),
        REFERENCE.env_var("EXEC_INFO"),
        REFERENCE.namespace_finalizer,
        REFERENCE.apiserver_name,
        REFERENCE.group("rbac.authorization"),
        REFERENCE.root_ca_config_map,
    ) == (
        "application/vnd.kubernetes.protobuf",
        "x-kubernetes-int-or-string",
        "KUBERNETES_EXEC_INFO",
        "kubernetes",
        "kube-apiserver",
        "rbac.authorization.k8s.io",
        "kube-root-ca.crt",
    )
    assert (
        OURS.protobuf_media_type,
        OURS.openapi_extension("int-or-string"),
        OURS.env_var("EXEC_INFO"),
        OURS.namespace_finalizer,
        OURS.apiserver_name,
        OURS.system_namespace,
        OURS.root_ca_config_map,
    ) == (
        "application/vnd.orch.protobuf",
        "x-orch-int-or-string",
        "ORCH_EXEC_INFO",
        "orch",
        "orch-apiserver",
        "orch-system",
        "orch-root-ca.crt",
    )
