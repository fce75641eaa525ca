from __future__ import annotations

from tests.tables.helpers import ago, cells, column_names, obj

TEMPLATE = {
    "metadata": {"labels": {"app": "web"}},
    "spec": {"containers": [{"name": "app", "image": "nginx:1.25"}, {"name": "log", "image": "fluent"}]},
}
SELECTOR = {"matchLabels": {"app": "web"}}


def test_deployment() -> None:
    assert column_names("apps", "deployments") == [
        "Name",
        "Ready",
        "Up-to-date",
        "Available",
        "Age",
        "Containers",
        "Images",
        "Selector",
    ]
    dep = obj(
        "web",
        created=ago(days=2, hours=3),
        spec={"replicas": 3, "selector": SELECTOR, "template": TEMPLATE},
        status={"replicas": 3, "readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2},
    )
    assert cells("apps", "deployments", dep) == ["web", "2/3", 3, 2, "2d3h", "app,log", "nginx:1.25,fluent", "app=web"]
    # a fresh deployment has no status yet
    assert cells("apps", "deployments", obj("new", spec={"template": TEMPLATE}))[1:4] == ["0/1", 0, 0]


def test_replica_set_and_replication_controller() -> None:
    rs = obj(
        "web-abc",
        spec={"replicas": 2, "selector": SELECTOR, "template": TEMPLATE},
        status={"replicas": 2, "readyReplicas": 1},
    )
    assert column_names("apps", "replicasets") == [
        "Name",
        "Desired",
        "Current",
        "Ready",
        "Age",
        "Containers",
        "Images",
        "Selector",
    ]
    assert cells("apps", "replicasets", rs) == ["web-abc", 2, 2, 1, "5m", "app,log", "nginx:1.25,fluent", "app=web"]
    rc = obj("old", spec={"replicas": 0, "selector": {"app": "web"}, "template": TEMPLATE})
    assert cells("", "replicationcontrollers", rc) == ["old", 0, 0, 0, "5m", "app,log", "nginx:1.25,fluent", "app=web"]


def test_stateful_set() -> None:
    sts = obj("db", spec={"replicas": 3, "template": TEMPLATE}, status={"readyReplicas": 3})
    assert column_names("apps", "statefulsets") == ["Name", "Ready", "Age", "Containers", "Images"]
    assert cells("apps", "statefulsets", sts) == ["db", "3/3", "5m", "app,log", "nginx:1.25,fluent"]


def test_daemon_set() -> None:
    template = {**TEMPLATE, "spec": {**TEMPLATE["spec"], "nodeSelector": {"os": "linux", "arch": "amd64"}}}
    ds = obj(
        "agent",
        spec={"selector": SELECTOR, "template": template},
        status={
            "desiredNumberScheduled": 4,
            "currentNumberScheduled": 4,
            "numberReady": 3,
            "updatedNumberScheduled": 4,
            "numberAvailable": 3,
        },
    )
    assert column_names("apps", "daemonsets") == [
        "Name",
        "Desired",
        "Current",
        "Ready",
        "Up-to-date",
        "Available",
        "Node Selector",
        "Age",
        "Containers",
        "Images",
        "Selector",
    ]
    assert cells("apps", "daemonsets", ds) == [
        "agent",
        4,
        4,
        3,
        4,
        3,
        "arch=amd64,os=linux",
        "5m",
        "app,log",
        "nginx:1.25,fluent",
        "app=web",
    ]


def job(status: dict, deleting: bool = False, **spec: object) -> dict:
    item = obj(
        "backup",
        created=ago(hours=2),
        spec={"selector": {"matchLabels": {"batch.orch.io/controller-uid": "u1"}}, "template": TEMPLATE, **spec},
        status=status,
    )
    if deleting:
        item["metadata"]["deletionTimestamp"] = ago(seconds=1)
    return item


def test_job_completed_with_duration() -> None:
    done = job(
        {
            "succeeded": 3,
            "startTime": ago(hours=1, minutes=30),
            "completionTime": ago(hours=1, minutes=27),
            "conditions": [{"type": "SuccessCriteriaMet", "status": "True"}, {"type": "Complete", "status": "True"}],
        },
        completions=3,
        parallelism=2,
    )
    assert column_names("batch", "jobs") == [
        "Name",
        "Status",
        "Completions",
        "Duration",
        "Age",
        "Containers",
        "Images",
        "Selector",
    ]
    assert cells("batch", "jobs", done) == [
        "backup",
        "Complete",
        "3/3",
        "3m",
        "120m",
        "app,log",
        "nginx:1.25,fluent",
        "batch.orch.io/controller-uid=u1",
    ]


def test_job_running_duration_counts_to_now() -> None:
    running = job({"active": 1, "startTime": ago(seconds=95)}, parallelism=1)
    assert cells("batch", "jobs", running)[1:4] == ["Running", "0/1", "95s"]
    assert cells("batch", "jobs", job({}, parallelism=4))[1:4] == ["Running", "0/1 of 4", ""]


def test_job_statuses() -> None:
    failed = job({"conditions": [{"type": "Failed", "status": "True"}]}, completions=1)
    assert cells("batch", "jobs", failed)[1] == "Failed"
    assert cells("batch", "jobs", job({}, deleting=True))[1] == "Terminating"
    suspended = job({"conditions": [{"type": "Suspended", "status": "True"}]})
    assert cells("batch", "jobs", suspended)[1] == "Suspended"
    target = job({"conditions": [{"type": "FailureTarget", "status": "True"}]})
    assert cells("batch", "jobs", target)[1] == "FailureTarget"
    resumed = job({"conditions": [{"type": "Suspended", "status": "False"}]})
    assert cells("batch", "jobs", resumed)[1] == "Running"


def test_cron_job() -> None:
    cron = obj(
        "nightly",
        created=ago(days=30),
        spec={
            "schedule": "0 3 * * *",
            "timeZone": "Etc/UTC",
            "suspend": False,
            "jobTemplate": {"spec": {"template": TEMPLATE}},
        },
        status={"active": [{"name": "nightly-1"}], "lastScheduleTime": ago(hours=9)},
    )
    assert column_names("batch", "cronjobs") == [
        "Name",
        "Schedule",
        "Timezone",
        "Suspend",
        "Active",
        "Last Schedule",
        "Age",
        "Containers",
        "Images",
        "Selector",
    ]
    assert cells("batch", "cronjobs", cron) == [
        "nightly",
        "0 3 * * *",
        "Etc/UTC",
        "False",
        1,
        "9h",
        "30d",
        "app,log",
        "nginx:1.25,fluent",
        "<none>",
    ]
    fresh = obj("new", spec={"schedule": "@hourly", "suspend": True, "jobTemplate": {"spec": {"template": TEMPLATE}}})
    assert cells("batch", "cronjobs", fresh)[1:6] == ["@hourly", "<none>", "True", 0, "<none>"]
