"""The catalog as a whole: names, scopes and examples of every kind, and no spelled-out domain."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from orch_apiserver.naming import Naming
from orch_apiserver.resources import build_catalog

from tests.kinds import OWN_TESTS

from .helpers import CATALOG, created, rt

RESOURCES_DIR = Path(__file__).resolve().parents[2] / "app" / "resources"
KINDS = sorted(CATALOG, key=lambda t: (t.group, t.plural))
# strategies see objects in their stored version; other versions' examples are checked over HTTP (test_every_kind)
STORED_KINDS = [t for t in KINDS if t.conversion is None and t.plural not in OWN_TESTS]

# plural -> (group prefix or literal group, kind, namespaced, short names, categories)
EXPECTED = {
    ("", "bindings"): ("Binding", True, (), ()),
    ("", "configmaps"): ("ConfigMap", True, ("cm",), ()),
    ("", "endpoints"): ("Endpoints", True, ("ep",), ()),
    ("", "events"): ("Event", True, ("ev",), ()),
    ("", "limitranges"): ("LimitRange", True, ("limits",), ()),
    ("", "namespaces"): ("Namespace", False, ("ns",), ()),
    ("", "nodes"): ("Node", False, ("no",), ()),
    ("", "persistentvolumeclaims"): ("PersistentVolumeClaim", True, ("pvc",), ()),
    ("", "persistentvolumes"): ("PersistentVolume", False, ("pv",), ()),
    ("", "pods"): ("Pod", True, ("po",), ("all",)),
    ("", "podtemplates"): ("PodTemplate", True, (), ()),
    ("", "replicationcontrollers"): ("ReplicationController", True, ("rc",), ("all",)),
    ("", "resourcequotas"): ("ResourceQuota", True, ("quota",), ()),
    ("", "secrets"): ("Secret", True, (), ()),
    ("", "serviceaccounts"): ("ServiceAccount", True, ("sa",), ()),
    ("", "services"): ("Service", True, ("svc",), ("all",)),
    ("apiextensions.", "customresourcedefinitions"): (
        "CustomResourceDefinition",
        False,
        ("crd", "crds"),
        ("api-extensions",),
    ),
    ("", "componentstatuses"): ("ComponentStatus", False, ("cs",), ()),
    ("apiregistration.", "apiservices"): ("APIService", False, (), ("api-extensions",)),
    ("apps", "controllerrevisions"): ("ControllerRevision", True, (), ()),
    ("apps", "daemonsets"): ("DaemonSet", True, ("ds",), ("all",)),
    ("apps", "deployments"): ("Deployment", True, ("deploy",), ("all",)),
    ("apps", "replicasets"): ("ReplicaSet", True, ("rs",), ("all",)),
    ("apps", "statefulsets"): ("StatefulSet", True, ("sts",), ("all",)),
    ("batch", "cronjobs"): ("CronJob", True, ("cj",), ("all",)),
    ("batch", "jobs"): ("Job", True, (), ("all",)),
    ("autoscaling", "horizontalpodautoscalers"): ("HorizontalPodAutoscaler", True, ("hpa",), ("all",)),
    ("flowcontrol.apiserver.", "flowschemas"): ("FlowSchema", False, (), ()),
    ("flowcontrol.apiserver.", "prioritylevelconfigurations"): ("PriorityLevelConfiguration", False, (), ()),
    ("policy", "poddisruptionbudgets"): ("PodDisruptionBudget", True, ("pdb",), ()),
    ("policy", "podsecuritypolicies"): ("PodSecurityPolicy", False, ("psp",), ()),
    ("authentication.", "selfsubjectreviews"): ("SelfSubjectReview", False, (), ()),
    ("admissionregistration.", "mutatingwebhookconfigurations"): (
        "MutatingWebhookConfiguration",
        False,
        (),
        ("api-extensions",),
    ),
    ("admissionregistration.", "validatingwebhookconfigurations"): (
        "ValidatingWebhookConfiguration",
        False,
        (),
        ("api-extensions",),
    ),
    ("authentication.", "tokenreviews"): ("TokenReview", False, (), ()),
    ("authorization.", "localsubjectaccessreviews"): ("LocalSubjectAccessReview", True, (), ()),
    ("authorization.", "selfsubjectaccessreviews"): ("SelfSubjectAccessReview", False, (), ()),
    ("authorization.", "selfsubjectrulesreviews"): ("SelfSubjectRulesReview", False, (), ()),
    ("authorization.", "subjectaccessreviews"): ("SubjectAccessReview", False, (), ()),
    ("certificates.", "certificatesigningrequests"): ("CertificateSigningRequest", False, ("csr",), ()),
    ("coordination.", "leases"): ("Lease", True, (), ()),
    ("discovery.", "endpointslices"): ("EndpointSlice", True, (), ()),
    ("events.", "events"): ("Event", True, ("ev",), ()),
    ("networking.", "ingressclasses"): ("IngressClass", False, (), ()),
    ("networking.", "ingresses"): ("Ingress", True, ("ing",), ()),
    ("networking.", "networkpolicies"): ("NetworkPolicy", True, ("netpol",), ()),
    ("node.", "runtimeclasses"): ("RuntimeClass", False, (), ()),
    ("rbac.authorization.", "clusterrolebindings"): ("ClusterRoleBinding", False, (), ()),
    ("rbac.authorization.", "clusterroles"): ("ClusterRole", False, (), ()),
    ("rbac.authorization.", "rolebindings"): ("RoleBinding", True, (), ()),
    ("rbac.authorization.", "roles"): ("Role", True, (), ()),
    ("scheduling.", "priorityclasses"): ("PriorityClass", False, ("pc",), ()),
    ("storage.", "storageclasses"): ("StorageClass", False, ("sc",), ()),
    ("storage.", "csidrivers"): ("CSIDriver", False, (), ()),
    ("storage.", "csinodes"): ("CSINode", False, (), ()),
    ("storage.", "volumeattachments"): ("VolumeAttachment", False, (), ()),
    ("storage.", "csistoragecapacities"): ("CSIStorageCapacity", True, (), ()),
}


NOT_YET_V1 = {
    "csistoragecapacities": "v1beta1",
    "podsecuritypolicies": "v1beta1",
}  # a v1.23 server serves these in a beta version only


def _group(prefix: str, naming: Naming) -> str:
    return naming.group(prefix[:-1]) if prefix.endswith(".") else prefix


def test_catalog_holds_exactly_the_expected_kinds() -> None:
    naming = Naming()
    want = {(_group(g, naming), plural) for g, plural in EXPECTED}
    assert {(t.group, t.plural) for t in CATALOG} == want


@pytest.mark.parametrize("key", sorted(EXPECTED), ids=lambda k: f"{k[1]}.{k[0]}")
def test_kind_names_scope_short_names_and_categories(key: tuple[str, str]) -> None:
    kind, namespaced, short, categories = EXPECTED[key]
    version = NOT_YET_V1.get(key[1], "v1")
    t = rt(_group(key[0], Naming()), key[1], version)
    assert (t.kind, t.namespaced, t.short_names, t.categories) == (kind, namespaced, short, categories)
    assert t.version == version


@pytest.mark.parametrize("kind", STORED_KINDS, ids=lambda t: t.group_resource)
def test_every_kind_has_a_singular_name_and_a_valid_example(kind) -> None:
    assert kind.singular_name and kind.singular_name == kind.singular_name.lower()
    assert kind.example is not None and "metadata" not in kind.example and "kind" not in kind.example
    obj, errors = created(kind, copy.deepcopy(kind.example), name="example")
    assert errors == [], [str(e) for e in errors]
    # the create path is idempotent: defaulting again changes nothing
    again = copy.deepcopy(obj)
    kind.strategy.default(again)
    assert again == obj


@pytest.mark.parametrize("kind", STORED_KINDS, ids=lambda t: t.group_resource)
def test_an_unchanged_example_passes_update_validation(kind) -> None:
    obj, _ = created(kind, copy.deepcopy(kind.example), name="example")
    new = copy.deepcopy(obj)
    kind.strategy.default(new)
    kind.strategy.prepare_for_update(new, obj)
    assert kind.strategy.validate_update(new, obj) == []


@pytest.mark.parametrize("kind", KINDS, ids=lambda t: t.group_resource)
def test_status_subresource_matches_has_status(kind) -> None:
    assert (kind.subresource("status") is not None) == kind.has_status


def test_name_rules() -> None:
    labels = {t.plural for t in CATALOG if t.name_rule == "label"}
    assert labels == {"namespaces", "services"}
    paths = {t.plural for t in CATALOG if t.name_rule == "path"}
    assert paths == {
        "roles",
        "rolebindings",
        "clusterroles",
        "clusterrolebindings",
        "certificatesigningrequests",
        "apiservices",
    }


def test_verbs_follow_the_reference() -> None:
    assert "deletecollection" not in rt("", "namespaces").verbs
    assert "deletecollection" not in rt("", "services").verbs
    assert "deletecollection" in rt("", "pods").verbs
    finalize = rt("", "namespaces").subresource("finalize")
    assert finalize is not None and finalize.verbs == ("update",)


def test_delete_returns_the_object_for_the_reference_stores() -> None:
    returning = {t.plural for t in CATALOG if t.return_deleted_object}
    assert returning == {
        "namespaces",
        "pods",
        "podtemplates",
        "persistentvolumes",
        "persistentvolumeclaims",
        "resourcequotas",
        "serviceaccounts",
        "services",
        "storageclasses",
    }


def test_generation_only_for_kinds_whose_strategy_keeps_it() -> None:
    kept = {t.plural for t in CATALOG if t.strategy.generation}
    assert kept == {
        "deployments",
        "replicasets",
        "statefulsets",
        "daemonsets",
        "replicationcontrollers",
        "jobs",
        "cronjobs",
        "poddisruptionbudgets",
        "ingresses",
        "ingressclasses",
        "networkpolicies",
        "endpointslices",
        "flowschemas",
        "prioritylevelconfigurations",
        "customresourcedefinitions",
        "mutatingwebhookconfigurations",
        "validatingwebhookconfigurations",
    }


def test_scale_subresources_are_autoscaling_v1() -> None:
    scaled = {t.plural for t in CATALOG if t.subresource("scale") is not None}
    assert scaled == {"deployments", "replicasets", "statefulsets", "replicationcontrollers"}
    for plural in scaled:
        sub = next(t for t in CATALOG if t.plural == plural).subresource("scale")
        assert (sub.kind, sub.group, sub.version) == ("Scale", "autoscaling", "v1")


def test_groups_follow_the_configured_domain() -> None:
    other = build_catalog(Naming("example.net"))
    groups = {t.group for t in other}
    assert "rbac.authorization.example.net" in groups and "certificates.example.net" in groups
    assert not any("orch.io" in g for g in groups)
    binding = other.lookup("rbac.authorization.example.net", "v1", "rolebindings")
    assert binding is not None and binding.example["roleRef"]["apiGroup"] == "rbac.authorization.example.net"


def test_no_module_spells_out_a_domain() -> None:
    pattern = re.compile(r"orch\.io|k8s\.io|kubernetes\.io")
    offenders = [p.name for p in RESOURCES_DIR.glob("*.py") if pattern.search(p.read_text())]
    assert offenders == []
