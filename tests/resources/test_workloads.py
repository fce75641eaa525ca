"""apps/v1 and batch/v1 strategies: defaults, selector rules, immutable fields, scale."""

from __future__ import annotations

import copy

import pytest

from .helpers import create_ok, created, messages, rt, updated

TEMPLATE = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "a", "image": "nginx:1"}]}}
SELECTOR = {"matchLabels": {"app": "web"}}
APPS = ["deployments", "replicasets", "statefulsets", "daemonsets"]


def workload(**spec: object) -> dict:
    return {"spec": {"selector": copy.deepcopy(SELECTOR), "template": copy.deepcopy(TEMPLATE), **spec}}


def test_deployment_defaults() -> None:
    d = create_ok(rt("apps", "deployments"), workload())
    spec = d["spec"]
    assert spec["replicas"] == 1
    assert spec["strategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}
    assert (spec["revisionHistoryLimit"], spec["progressDeadlineSeconds"]) == (10, 600)
    assert spec["template"]["spec"]["restartPolicy"] == "Always"
    assert spec["template"]["spec"]["containers"][0]["terminationMessagePolicy"] == "File"
    assert d["status"] == {}
    recreate = create_ok(rt("apps", "deployments"), workload(strategy={"type": "Recreate"}))
    assert recreate["spec"]["strategy"] == {"type": "Recreate"}


def test_replica_set_stateful_set_and_daemon_set_defaults() -> None:
    rs = create_ok(rt("apps", "replicasets"), workload())
    assert rs["spec"]["replicas"] == 1 and rs["status"] == {"replicas": 0}
    sts = create_ok(
        rt("apps", "statefulsets"),
        workload(volumeClaimTemplates=[{"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"]}}]),
    )
    spec = sts["spec"]
    assert (spec["replicas"], spec["podManagementPolicy"], spec["revisionHistoryLimit"]) == (1, "OrderedReady", 10)
    assert spec["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}
    assert spec["volumeClaimTemplates"][0]["spec"]["volumeMode"] == "Filesystem"
    on_delete = create_ok(rt("apps", "statefulsets"), workload(updateStrategy={"type": "OnDelete"}))
    assert on_delete["spec"]["updateStrategy"] == {"type": "OnDelete"}
    ds = create_ok(rt("apps", "daemonsets"), workload())
    assert ds["spec"]["updateStrategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0},
    }
    assert ds["spec"]["revisionHistoryLimit"] == 10 and "replicas" not in ds["spec"]


@pytest.mark.parametrize("plural", APPS)
def test_selector_and_template_are_required(plural: str) -> None:
    errors = created(rt("apps", plural), {"spec": {}})[1]
    assert [(e.reason, e.field) for e in errors][:2] == [
        ("FieldValueRequired", "spec.selector"),
        ("FieldValueRequired", "spec.template.spec.containers"),
    ]


@pytest.mark.parametrize(
    ("plural", "detail"),
    [
        ("deployments", "`selector` does not match template `labels`"),
        ("replicasets", "`selector` does not match template `labels`"),
        ("statefulsets", "`selector` does not match template `labels`"),
        ("daemonsets", "selector does not match template labels"),
    ],
)
def test_selector_must_match_template_labels(plural: str, detail: str) -> None:
    body = workload()
    body["spec"]["selector"] = {"matchLabels": {"app": "db"}}
    assert messages(created(rt("apps", plural), body)[1]) == [
        f'spec.template.metadata.labels: Invalid value: {{"app":"web"}}: {detail}'
    ]


@pytest.mark.parametrize("plural", APPS)
def test_selector_is_immutable(plural: str) -> None:
    kind = rt("apps", plural)
    old = create_ok(kind, workload())
    new = copy.deepcopy(old)
    new["spec"]["selector"] = {"matchLabels": {"app": "web", "tier": "x"}}
    new["spec"]["template"]["metadata"]["labels"]["tier"] = "x"
    fields = [e.field for e in updated(kind, new, old)[1]]
    assert "spec.selector" in fields or (plural == "statefulsets" and fields == ["spec"])


def test_template_restart_policy_must_be_always() -> None:
    body = workload()
    body["spec"]["template"]["spec"]["restartPolicy"] = "Never"
    assert messages(created(rt("apps", "deployments"), body)[1]) == [
        'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'
    ]


def test_deployment_strategy_validation() -> None:
    kind = rt("apps", "deployments")
    zero = workload(strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": "0%"}})
    assert messages(created(kind, zero)[1]) == [
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0'
    ]
    bad = workload(strategy={"type": "Recreate", "rollingUpdate": {}})
    assert [e.field for e in created(kind, bad)[1]] == ["spec.strategy.rollingUpdate"]
    assert [e.field for e in created(kind, workload(replicas=-1))[1]] == ["spec.replicas"]
    assert [e.field for e in created(kind, workload(selector={}))[1]] == ["spec.selector"]


def test_stateful_set_spec_updates_are_limited() -> None:
    kind = rt("apps", "statefulsets")
    old = create_ok(kind, workload(serviceName="web"))
    scaled = copy.deepcopy(old)
    scaled["spec"]["replicas"] = 3
    assert updated(kind, scaled, old)[1] == []
    renamed = copy.deepcopy(old)
    renamed["spec"]["serviceName"] = "other"
    errors = updated(kind, renamed, old)[1]
    assert [e.field for e in errors] == ["spec"] and "updates to statefulset spec" in errors[0].detail


@pytest.mark.parametrize("plural", ["deployments", "replicasets", "statefulsets"])
def test_scale_subresource(plural: str) -> None:
    kind = rt("apps", plural)
    obj = create_ok(kind, workload(replicas=2))
    scale = kind.subresource("scale")
    view = scale.view(obj)
    assert view["spec"] == {"replicas": 2} and view["status"]["selector"] == "app=web"
    view["spec"]["replicas"] = 4
    merged = scale.merge(obj, view)
    assert merged["spec"]["replicas"] == 4 and updated(kind, merged, obj)[1] == []
    view["spec"]["replicas"] = -1
    assert [e.field for e in kind.strategy.validate_update(scale.merge(obj, view), obj)] == ["spec.replicas"]


def test_replica_set_field_selector() -> None:
    kind = rt("apps", "replicasets")
    rs = create_ok(kind, workload())
    rs["status"]["replicas"] = 3
    assert kind.strategy.field_selectors["status.replicas"](rs) == "3"


# ----------------------------------------------------------------------------------- batch

JOB_TEMPLATE = {"spec": {"restartPolicy": "Never", "containers": [{"name": "a", "image": "busybox"}]}}


def test_job_defaults_and_generated_selector() -> None:
    job = create_ok(
        rt("batch", "jobs"),
        {"metadata": {"name": "pi", "uid": "u-1"}, "spec": {"template": copy.deepcopy(JOB_TEMPLATE)}},
    )
    spec = job["spec"]
    assert (
        spec["parallelism"],
        spec["completions"],
        spec["backoffLimit"],
        spec["completionMode"],
        spec["suspend"],
    ) == (1, 1, 6, "NonIndexed", False)
    assert spec["selector"] == {"matchLabels": {"controller-uid": "u-1"}}
    assert spec["template"]["metadata"]["labels"] == {"job-name": "pi", "controller-uid": "u-1"}
    assert job["metadata"]["labels"] == {"job-name": "pi", "controller-uid": "u-1"}
    assert spec["template"]["spec"]["restartPolicy"] == "Never"
    assert job["status"] == {}


def test_job_completions_default_only_when_parallelism_unset() -> None:
    job = create_ok(rt("batch", "jobs"), {"spec": {"parallelism": 3, "template": copy.deepcopy(JOB_TEMPLATE)}})
    assert job["spec"]["parallelism"] == 3 and "completions" not in job["spec"]


def test_job_restart_policy_stays_as_given() -> None:
    template = copy.deepcopy(JOB_TEMPLATE)
    del template["spec"]["restartPolicy"]
    job, errors = created(rt("batch", "jobs"), {"spec": {"template": template}})
    assert "restartPolicy" not in job["spec"]["template"]["spec"]
    assert messages(errors) == [
        ('spec.template.spec.restartPolicy: Unsupported value: "": supported values: "OnFailure", "Never"')
    ]


def test_job_manual_selector_and_user_selector() -> None:
    kind = rt("batch", "jobs")
    template = {**copy.deepcopy(JOB_TEMPLATE), "metadata": {"labels": {"app": "x"}}}
    manual = create_ok(
        kind, {"spec": {"manualSelector": True, "selector": {"matchLabels": {"app": "x"}}, "template": template}}
    )
    assert manual["spec"]["selector"] == {"matchLabels": {"app": "x"}}
    errors = created(kind, {"spec": {"selector": {"matchLabels": {"app": "x"}}, "template": template}})[1]
    assert [e.detail for e in errors] == ["`selector` not auto-generated"]


def test_job_template_is_immutable() -> None:
    kind = rt("batch", "jobs")
    old = create_ok(kind, {"metadata": {"uid": "u"}, "spec": {"template": copy.deepcopy(JOB_TEMPLATE)}})
    new = copy.deepcopy(old)
    new["spec"]["template"]["spec"]["containers"][0]["image"] = "other"
    assert [e.field for e in updated(kind, new, old)[1]] == ["spec.template"]
    relabelled = copy.deepcopy(old)
    relabelled["metadata"]["labels"]["extra"] = "yes"
    assert updated(kind, relabelled, old)[1] == []
    old["status"]["succeeded"] = 2
    assert kind.strategy.field_selectors["status.successful"](old) == "2"


def test_cron_job_defaults_and_validation() -> None:
    kind = rt("batch", "cronjobs")
    cj = create_ok(kind, copy.deepcopy(kind.example))
    spec = cj["spec"]
    assert (
        spec["concurrencyPolicy"],
        spec["suspend"],
        spec["successfulJobsHistoryLimit"],
        spec["failedJobsHistoryLimit"],
    ) == ("Allow", False, 3, 1)
    pod = spec["jobTemplate"]["spec"]["template"]["spec"]
    assert pod["restartPolicy"] == "OnFailure" and pod["dnsPolicy"] == "ClusterFirst"
    assert "backoffLimit" not in spec["jobTemplate"]["spec"]
    bad = copy.deepcopy(kind.example)
    bad["spec"]["schedule"] = "* * *"
    bad["spec"]["concurrencyPolicy"] = "Sometimes"
    assert [e.field for e in created(kind, bad, name="n" * 53)[1]] == [
        "metadata.name",
        "spec.schedule",
        "spec.concurrencyPolicy",
    ]
    assert created(kind, {"spec": {"schedule": "@hourly", "jobTemplate": kind.example["spec"]["jobTemplate"]}})[1] == []
