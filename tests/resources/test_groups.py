"""The named groups beyond apps and batch: CSRs, RBAC, policy, networking, discovery, and friends."""

from __future__ import annotations

import copy

import pytest
from orch_apiserver.errors import Invalid
from orch_apiserver.resources.certificates import stamp_requester
from orch_apiserver.user import UserInfo

from .helpers import NAMING, create_ok, created, messages, rt, updated

CERTS = NAMING.group("certificates")
RBAC = NAMING.group("rbac.authorization")


# ----------------------------------------------------------------------------------- certificates


def csr_kind():
    return rt(CERTS, "certificatesigningrequests")


def test_csr_create_resets_status_and_requester_fields() -> None:
    body = copy.deepcopy(csr_kind().example)
    body["spec"]["username"] = "mallory"
    body["spec"]["groups"] = ["system:masters"]
    body["status"] = {"conditions": [{"type": "Approved", "status": "True"}]}
    csr = create_ok(csr_kind(), body)
    assert csr["status"] == {}
    assert "username" not in csr["spec"] and "groups" not in csr["spec"]
    assert csr_kind().strategy.field_selectors["spec.signerName"](csr) == NAMING.key("apiserver-client")


def test_stamp_requester_from_user() -> None:
    obj = {"spec": {"username": "x", "extra": {"a": ["b"]}}}
    stamp_requester(obj, UserInfo("alice", "u-1", ("dev", "system:authenticated"), {"scope": ("one",)}))
    assert obj["spec"] == {
        "username": "alice",
        "uid": "u-1",
        "groups": ["dev", "system:authenticated"],
        "extra": {"scope": ["one"]},
    }


def test_csr_structure_is_validated() -> None:
    errors = created(
        csr_kind(),
        {"spec": {"request": "%%%", "usages": ["client auth", "client auth", "bogus"], "expirationSeconds": 60}},
    )[1]
    assert [(e.reason, e.field) for e in errors] == [
        ("FieldValueInvalid", "spec.request"),
        ("FieldValueRequired", "spec.signerName"),
        ("FieldValueDuplicate", "spec.usages[1]"),
        ("FieldValueNotSupported", "spec.usages[2]"),
        ("FieldValueInvalid", "spec.expirationSeconds"),
    ]
    legacy = copy.deepcopy(csr_kind().example)
    legacy["spec"]["signerName"] = NAMING.key("legacy-unknown")
    assert [e.field for e in created(csr_kind(), legacy)[1]] == ["spec.signerName"]


def test_csr_update_keeps_spec_and_subresources_split_status() -> None:
    kind = csr_kind()
    old = create_ok(kind, copy.deepcopy(kind.example))
    new = copy.deepcopy(old)
    new["spec"]["signerName"] = "other.example/signer"
    assert updated(kind, new, old)[0]["spec"] == old["spec"]
    approval = kind.subresource("approval")
    approved = approval.merge(
        old,
        {
            "spec": {"usages": []},
            "status": {"certificate": "forged", "conditions": [{"type": "Approved", "status": "True", "reason": "OK"}]},
        },
    )
    assert approved["spec"] == old["spec"] and "certificate" not in approved["status"]
    cond = approved["status"]["conditions"][0]
    assert cond["lastUpdateTime"] and cond["lastTransitionTime"]
    assert kind.strategy.validate_update(approved, old) == []
    status = kind.subresource("status")
    with pytest.raises(Invalid, match="may not remove a condition"):  # the signer cannot undo an approval
        status.merge(approved, {"status": {"conditions": []}})
    failed = {"type": "Failed", "status": "True", "reason": "SignerValidationFailure"}
    signed = status.merge(approved, {"status": {"conditions": [*approved["status"]["conditions"], failed]}})
    assert signed["spec"] == old["spec"]
    assert [c["type"] for c in signed["status"]["conditions"]] == ["Approved", "Failed"]
    dup = approval.merge(
        old,
        {"status": {"conditions": [{"type": "Approved", "status": "True"}, {"type": "Approved", "status": "True"}]}},
    )
    assert [e.reason for e in kind.strategy.validate_update(dup, old)] == ["FieldValueDuplicate"]
    assert [s.name for s in kind.subresources] == ["approval", "status"]


# ----------------------------------------------------------------------------------- rbac


def test_binding_defaults_api_groups() -> None:
    binding = create_ok(
        rt(RBAC, "rolebindings"),
        {
            "roleRef": {"kind": "Role", "name": "r"},
            "subjects": [{"kind": "User", "name": "u"}, {"kind": "ServiceAccount", "name": "sa", "namespace": "ns"}],
        },
    )
    assert binding["roleRef"]["apiGroup"] == RBAC
    assert binding["subjects"][0]["apiGroup"] == RBAC and "apiGroup" not in binding["subjects"][1]


def test_binding_validation() -> None:
    errors = created(
        rt(RBAC, "clusterrolebindings"),
        {
            "roleRef": {"apiGroup": RBAC, "kind": "Role", "name": "r"},
            "subjects": [{"kind": "ServiceAccount", "name": "sa"}, {"kind": "Robot", "name": "x"}],
        },
    )[1]
    assert [e.field for e in errors] == ["roleRef.kind", "subjects[0].namespace", "subjects[1].kind"]
    kind = rt(RBAC, "rolebindings")
    old = create_ok(kind, copy.deepcopy(kind.example))
    new = copy.deepcopy(old)
    new["roleRef"]["name"] = "other"
    assert [e.detail for e in updated(kind, new, old)[1]] == ["cannot change roleRef"]
    assert not kind.strategy.generation and kind.strategy.allow_create_on_update


def test_role_rules() -> None:
    errors = created(
        rt(RBAC, "roles"),
        {"rules": [{"apiGroups": [""], "resources": ["pods"]}, {"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]},
    )[1]
    assert messages(errors) == [
        "rules[0].verbs: Required value: verbs must contain at least one value",
        'rules[1].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs',
    ]
    assert created(rt(RBAC, "clusterroles"), {"rules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]})[1] == []


# ----------------------------------------------------------------------------------- the rest


def test_pod_disruption_budget() -> None:
    kind = rt("policy", "poddisruptionbudgets")
    pdb = create_ok(kind, copy.deepcopy(kind.example))
    assert pdb["status"] == {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}
    errors = created(kind, {"spec": {"minAvailable": 1, "maxUnavailable": "150%"}})[1]
    assert [e.field for e in errors] == ["spec", "spec.maxUnavailable"]


def test_ingress_and_network_policy() -> None:
    group = NAMING.group("networking")
    ingress = create_ok(rt(group, "ingresses"), copy.deepcopy(rt(group, "ingresses").example))
    assert ingress["status"] == {"loadBalancer": {}}
    bad = {
        "spec": {
            "rules": [
                {
                    "http": {
                        "paths": [
                            {"path": "x", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {}}}},
                            {"path": "/", "backend": {"service": {"name": "web", "port": {"number": 80}}}},
                        ]
                    }
                }
            ]
        }
    }
    assert [e.field for e in created(rt(group, "ingresses"), bad)[1]] == [
        "spec.rules[0].http.paths[0].path",
        "spec.rules[0].http.paths[0].backend.service.port",
        "spec.rules[0].http.paths[1].pathType",
    ]
    policy = create_ok(rt(group, "networkpolicies"), {"spec": {"podSelector": {}, "egress": [{"ports": [{}]}]}})
    assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"]
    assert policy["spec"]["egress"][0]["ports"][0]["protocol"] == "TCP"
    kind = rt(group, "ingressclasses")
    assert [e.field for e in created(kind, {"spec": {"controller": "nginx"}})[1]] == ["spec.controller"]


def test_endpoint_slice() -> None:
    kind = rt(NAMING.group("discovery"), "endpointslices")
    eps = create_ok(kind, {"addressType": "IPv4", "ports": [{"port": 80}], "endpoints": []})
    assert eps["ports"] == [{"port": 80, "name": "", "protocol": "TCP"}]
    assert [e.field for e in created(kind, {"endpoints": [{"addresses": []}]})[1]] == [
        "addressType",
        "endpoints[0].addresses",
    ]
    changed = {**copy.deepcopy(eps), "addressType": "IPv6"}
    assert [e.field for e in updated(kind, changed, eps)[1]] == ["addressType"]


def test_priority_class() -> None:
    kind = rt(NAMING.group("scheduling"), "priorityclasses")
    pc = create_ok(kind, {"value": 10})
    assert pc["preemptionPolicy"] == "PreemptLowerPriority"
    assert [e.field for e in created(kind, {"value": 10}, name="system-mine")[1]] == ["metadata.name"]
    assert [e.reason for e in created(kind, {"value": 2_000_000_000})[1]] == ["FieldValueForbidden"]
    assert [e.field for e in updated(kind, {**pc, "value": 11}, pc)[1]] == ["value"]
    assert kind.strategy.forbid_delete({"metadata": {"name": "system-node-critical"}})
    assert kind.strategy.forbid_delete({"metadata": {"name": "mine"}}) is None


def test_storage_class() -> None:
    kind = rt(NAMING.group("storage"), "storageclasses")
    sc = create_ok(kind, {"provisioner": "example.com/p"})
    assert (sc["reclaimPolicy"], sc["volumeBindingMode"]) == ("Delete", "Immediate")
    assert messages(created(kind, {})[1]) == ["provisioner: Required value"]
    assert messages(updated(kind, {**sc, "reclaimPolicy": "Retain"}, sc)[1]) == [
        "reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden."
    ]


def test_runtime_class_and_lease() -> None:
    runtime = rt(NAMING.group("node"), "runtimeclasses")
    assert [e.field for e in created(runtime, {"handler": "Not_A_Label"})[1]] == ["handler"]
    old = create_ok(runtime, {"handler": "runc"})
    assert [e.field for e in updated(runtime, {**old, "handler": "kata"}, old)[1]] == ["handler"]
    lease = rt(NAMING.group("coordination"), "leases")
    assert [e.field for e in created(lease, {"spec": {"leaseDurationSeconds": 0}})[1]] == ["spec.leaseDurationSeconds"]
    assert lease.strategy.allow_create_on_update and not lease.strategy.generation


@pytest.mark.parametrize("missing", ["eventTime", "reportingController", "reportingInstance", "action", "reason"])
def test_structured_events_require_reporting_fields(missing: str) -> None:
    kind = rt(NAMING.group("events"), "events")
    body = copy.deepcopy(kind.example)
    del body[missing]
    assert [e.field for e in created(kind, body)[1]] == [missing]


def test_structured_event_rules() -> None:
    kind = rt(NAMING.group("events"), "events")
    body = {**copy.deepcopy(kind.example), "type": "Odd", "deprecatedCount": 3}
    assert [e.field for e in created(kind, body)[1]] == ["type", "deprecatedCount"]
    old = create_ok(kind, copy.deepcopy(kind.example))
    assert updated(kind, {**old, "series": {"count": 2, "lastObservedTime": old["eventTime"]}}, old)[1] == []
    assert [e.field for e in updated(kind, {**old, "note": "changed"}, old)[1]] == ["message"]
    assert kind.strategy.field_selectors["regarding.name"](old) == "web"
