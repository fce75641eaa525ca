"""Non-apply writes (create, update, patch): the writer's `Update` entry and the others' losses."""

from __future__ import annotations

import copy
import json

import pytest
from orch_apiserver.apply import apply, record_update

from tests.apply.helpers import (
    DEPLOYMENT,
    T1,
    T2,
    T3,
    WIDGET,
    WIDGET_VERSION,
    deployment,
    entries,
    entry,
    managers,
    owned_strings,
    widget,
)

KUBECTL_CREATE_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "nginx", "namespace": "default", "labels": {"app": "nginx"}},
    "spec": {
        "replicas": 1,
        "revisionHistoryLimit": 10,
        "progressDeadlineSeconds": 600,
        "selector": {"matchLabels": {"app": "nginx"}},
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
        "template": {
            "metadata": {"labels": {"app": "nginx"}},
            "spec": {
                "containers": [
                    {
                        "name": "nginx",
                        "image": "nginx",
                        "imagePullPolicy": "Always",
                        "resources": {},
                        "terminationMessagePath": "/dev/termination-log",
                        "terminationMessagePolicy": "File",
                    }
                ],
                "dnsPolicy": "ClusterFirst",
                "restartPolicy": "Always",
                "schedulerName": "default-scheduler",
                "securityContext": {},
                "terminationGracePeriodSeconds": 30,
            },
        },
    },
    "status": {},
}

# What the reference records for `kubectl create deployment nginx --image=nginx` (defaults applied).
KUBECTL_CREATE_FIELDS = {
    "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
    "f:spec": {
        "f:progressDeadlineSeconds": {},
        "f:replicas": {},
        "f:revisionHistoryLimit": {},
        "f:selector": {},
        "f:strategy": {"f:rollingUpdate": {".": {}, "f:maxSurge": {}, "f:maxUnavailable": {}}, "f:type": {}},
        "f:template": {
            "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {
                "f:containers": {
                    'k:{"name":"nginx"}': {
                        ".": {},
                        "f:image": {},
                        "f:imagePullPolicy": {},
                        "f:name": {},
                        "f:resources": {},
                        "f:terminationMessagePath": {},
                        "f:terminationMessagePolicy": {},
                    }
                },
                "f:dnsPolicy": {},
                "f:restartPolicy": {},
                "f:schedulerName": {},
                "f:securityContext": {},
                "f:terminationGracePeriodSeconds": {},
            },
        },
    },
}


def test_create_records_what_the_reference_records() -> None:
    out = record_update(None, KUBECTL_CREATE_DEPLOYMENT, "kubectl-create", DEPLOYMENT, "apps/v1", T1)
    assert entries(out) == [
        {
            "manager": "kubectl-create",
            "operation": "Update",
            "apiVersion": "apps/v1",
            "time": T1,
            "fieldsType": "FieldsV1",
            "fieldsV1": KUBECTL_CREATE_FIELDS,
        }
    ]
    # exact key order, as kubectl --show-managed-fields prints it
    assert json.dumps(entries(out)[0]["fieldsV1"]) == json.dumps(KUBECTL_CREATE_FIELDS)
    assert {k: v for k, v in out.items() if k != "metadata"} == {
        k: v for k, v in KUBECTL_CREATE_DEPLOYMENT.items() if k != "metadata"
    }


def created() -> dict:
    return record_update(None, deployment(), "creator", DEPLOYMENT, "apps/v1", T1)


def test_update_moves_ownership_and_keeps_untouched_timestamps() -> None:
    obj = created()
    new = copy.deepcopy(obj)
    new["spec"]["replicas"] = 5
    out = record_update(obj, new, "scaler", DEPLOYMENT, "apps/v1", T2)
    assert owned_strings(out, "scaler") == [".spec.replicas"]
    assert ".spec.replicas" not in owned_strings(out, "creator")
    assert entry(out, "creator")["time"] == T1
    assert entry(out, "scaler")["time"] == T2


def test_noop_update_is_a_noop() -> None:
    obj = created()
    out = record_update(obj, copy.deepcopy(obj), "someone", DEPLOYMENT, "apps/v1", T3)
    assert out == obj


def test_same_manager_accumulates_and_refreshes_time() -> None:
    obj = created()
    new = copy.deepcopy(obj)
    new["spec"]["replicas"] = 4
    once = record_update(obj, new, "ctl", DEPLOYMENT, "apps/v1", T2)
    again = copy.deepcopy(once)
    again["spec"]["paused"] = True
    twice = record_update(once, again, "ctl", DEPLOYMENT, "apps/v1", T3)
    assert owned_strings(twice, "ctl") == [".spec.paused", ".spec.replicas"]
    assert entry(twice, "ctl")["time"] == T3


def test_removing_a_field_takes_it_from_every_owner_and_drops_empty_managers() -> None:
    obj = record_update(None, widget({"labels": {"a": "1"}}), "creator", WIDGET, WIDGET_VERSION, T1)
    tweaked = copy.deepcopy(obj)
    tweaked["spec"]["labels"]["b"] = "2"
    obj = record_update(obj, tweaked, "labeller", WIDGET, WIDGET_VERSION, T2)
    assert owned_strings(obj, "labeller") == [".spec.labels.b"]
    removed = copy.deepcopy(obj)
    del removed["spec"]["labels"]["b"]
    out = record_update(obj, removed, "cleaner", WIDGET, WIDGET_VERSION, T3)
    assert managers(out) == [("creator", "Update")]  # labeller owned nothing any more; cleaner changed nothing


def test_update_never_conflicts_it_takes_over_an_applied_field() -> None:
    obj = apply(None, deployment(replicas=3), "kubectl", DEPLOYMENT, "apps/v1", False, T1)
    new = copy.deepcopy(obj)
    new["spec"]["replicas"] = 7
    out = record_update(obj, new, "hpa", DEPLOYMENT, "apps/v1", T2)
    assert out["spec"]["replicas"] == 7
    assert owned_strings(out, "hpa") == [".spec.replicas"]
    assert ".spec.replicas" not in owned_strings(out, "kubectl", "Apply")


def test_reset_with_one_empty_entry_strips_everything() -> None:
    obj = created()
    new = copy.deepcopy(obj)
    new["metadata"]["managedFields"] = [{}]
    out = record_update(obj, new, "resetter", DEPLOYMENT, "apps/v1", T2)
    assert "managedFields" not in out["metadata"]


def test_reset_is_processed_first_then_the_writer_owns_its_changes() -> None:
    obj = created()
    new = copy.deepcopy(obj)
    new["metadata"]["managedFields"] = [{}]
    new["metadata"]["labels"]["tier"] = "web"
    out = record_update(obj, new, "resetter", DEPLOYMENT, "apps/v1", T2)
    assert managers(out) == [("resetter", "Update")]
    assert owned_strings(out, "resetter") == [".metadata.labels.tier"]


def test_empty_list_does_not_reset() -> None:
    obj = created()
    new = copy.deepcopy(obj)
    new["metadata"]["managedFields"] = []
    assert record_update(obj, new, "someone", DEPLOYMENT, "apps/v1", T2) == obj


def test_missing_managed_fields_in_the_request_keep_the_live_ones() -> None:
    obj = created()
    new = copy.deepcopy(obj)
    del new["metadata"]["managedFields"]
    assert record_update(obj, new, "someone", DEPLOYMENT, "apps/v1", T2) == obj


def test_writer_may_overwrite_managed_fields() -> None:
    obj = created()
    new = copy.deepcopy(obj)
    new["metadata"]["managedFields"] = [
        {
            "manager": "forged",
            "operation": "Update",
            "apiVersion": "apps/v1",
            "time": T1,
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": {}},
        }
    ]
    out = record_update(obj, new, "someone", DEPLOYMENT, "apps/v1", T2)
    assert managers(out) == [("forged", "Update")]


def test_status_subresource_records_only_status_and_ignores_requested_entries() -> None:
    obj = created()
    new = copy.deepcopy(obj)
    new["status"] = {"replicas": 3}
    new["spec"]["replicas"] = 9  # a status write never owns spec (the strategy resets it anyway)
    new["metadata"]["managedFields"] = [{}]  # ignored through a subresource
    out = record_update(obj, new, "controller", DEPLOYMENT, "apps/v1", T2, subresource="status")
    e = entry(out, "controller")
    assert e["subresource"] == "status"
    assert owned_strings(out, "controller") == [".status.replicas"]
    assert ".spec.replicas" in owned_strings(out, "creator")


def test_main_resource_write_never_owns_status() -> None:
    obj = created()
    new = copy.deepcopy(obj)
    new["status"] = {"replicas": 3}
    out = record_update(obj, new, "sneaky", DEPLOYMENT, "apps/v1", T2)
    assert entry(out, "sneaky") is None


def test_each_update_version_has_its_own_entry() -> None:
    obj = created()
    new = copy.deepcopy(obj)
    new["spec"]["replicas"] = 2
    out = record_update(obj, new, "creator", DEPLOYMENT, "apps/v1beta2", T2)
    assert sorted(e["apiVersion"] for e in entries(out)) == ["apps/v1", "apps/v1beta2"]


def test_empty_manager_is_unknown() -> None:
    out = record_update(None, deployment(), "", DEPLOYMENT, "apps/v1", T1)
    assert managers(out) == [("unknown", "Update")]


def test_untrackable_object_keeps_live_entries() -> None:
    obj = created()
    new = copy.deepcopy(obj)
    new["spec"]["template"]["spec"]["containers"].append("not-an-object")  # an item no key can name
    out = record_update(obj, new, "someone", DEPLOYMENT, "apps/v1", T2)
    assert entries(out) == entries(obj)


@pytest.mark.parametrize("subresource", [None, "status"])
def test_subresource_entries_are_distinct(subresource: str | None) -> None:
    obj = created()
    new = copy.deepcopy(obj)
    new["status"] = {"observedGeneration": 1}
    new["spec"]["replicas"] = 4
    out = record_update(obj, new, "ctl", DEPLOYMENT, "apps/v1", T2, subresource=subresource)
    e = entry(out, "ctl")
    assert (e or {}).get("subresource") == subresource
