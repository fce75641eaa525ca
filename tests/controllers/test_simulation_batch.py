"""The simulation's StatefulSet, DaemonSet, Job, CronJob, EndpointSlice and Endpoints controllers on both stores,
driven by hand (`sync()`) as their own service accounts under the default RBAC policy; the test plays the
kubelet (binds pods, writes their status through pods/status) and moves a fake clock."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver.controllers.base import Context, Controller
from orch_apiserver.controllers.manager import ensure_namespaced_policy
from orch_apiserver.controllers.simulation import SIMULATION_CONTROLLERS
from orch_apiserver.controllers.simulation.cron import ScheduleError, parse
from orch_apiserver.controllers.simulation.cronjob import CronJobController
from orch_apiserver.controllers.simulation.daemonset import DaemonSetController
from orch_apiserver.controllers.simulation.endpoints import EndpointsController, EndpointSliceController
from orch_apiserver.controllers.simulation.job import JobController
from orch_apiserver.controllers.simulation.statefulset import StatefulSetController

from tests.conftest import _shutdown, admin_app
from tests.controllers.conftest import FakeClock

NS = "default"
PODS = f"/api/v1/namespaces/{NS}/pods"
APPS = f"/apis/apps/v1/namespaces/{NS}"
BATCH = f"/apis/batch/v1/namespaces/{NS}"
SLICES = f"/apis/discovery.orch.io/v1/namespaces/{NS}/endpointslices"
TEMPLATE = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "app", "image": "nginx"}]}}


@pytest.fixture
def sim(database_url: str, tmp_path: Path, clock: FakeClock) -> Iterator[Any]:
    app = admin_app(database_url, tmp_path)
    client = app.test_client()
    assert client.get("/api").status_code == 200  # the first request reconciles the default policy
    svc = app.extensions["orch"]
    ctx = Context(svc.registry, svc.naming, svc.hub, app.extensions["orch.auth"], clock=clock, settings={})
    ensure_namespaced_policy(ctx)
    yield Sim(client, ctx, clock)
    _shutdown(app)


class Sim:
    """The admin's HTTP client, the controllers' context, and a kubelet played by hand."""

    def __init__(self, http: Any, ctx: Context, clock: FakeClock) -> None:
        self.http, self.ctx, self.clock = http, ctx, clock
        self.ips = 0

    def controller(self, kind: type[Controller], **settings: object) -> Controller:
        self.ctx.settings.update(settings)
        return kind(self.ctx)

    def create(self, url: str, body: dict) -> dict:
        made = self.http.post(url, json=body)
        assert made.status_code == 201, made.get_json()
        return made.get_json()

    def merge(self, url: str, patch: dict) -> None:
        answer = self.http.patch(url, json=patch, content_type="application/merge-patch+json")
        assert answer.status_code == 200, answer.get_json()

    def get(self, url: str) -> dict:
        got = self.http.get(url)
        assert got.status_code == 200, got.get_json()
        return got.get_json()

    def pods(self, selector: str = "") -> dict[str, dict]:
        items = self.get(f"{PODS}?labelSelector={selector}")["items"]
        return {p["metadata"]["name"]: p for p in items}

    def node(self, name: str, labels: dict | None = None, taints: list | None = None) -> None:
        """A Node as its node controller leaves it once Ready: with `taints` only (admission adds not-ready)."""
        body: dict = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}}}
        made = self.create("/api/v1/nodes", body)
        made["spec"]["taints"] = taints or []
        assert self.http.put(f"/api/v1/nodes/{name}", json=made).status_code == 200

    def bind(self, pod: dict, node: str = "n1") -> dict:
        name = pod["metadata"]["name"]
        if not pod["spec"].get("nodeName"):
            binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name}, "target": {"name": node}}
            assert self.http.post(f"{PODS}/{name}/binding", json=binding).status_code == 201
        return self.get(f"{PODS}/{name}")

    def events(self, name: str) -> list[tuple[str, str]]:
        """(reason, message) of the events about the object `name`."""
        items = self.get(f"/api/v1/namespaces/{NS}/events?fieldSelector=involvedObject.name={name}")["items"]
        return [(e["reason"], e["message"]) for e in items]

    def terminating(self) -> list[str]:
        return sorted(n for n, p in self.pods().items() if p["metadata"].get("deletionTimestamp"))

    def reap(self) -> None:
        """End the graceful deletions, as the pods' kubelet does (delete with grace 0)."""
        for name, pod in self.pods().items():
            if pod["metadata"].get("deletionTimestamp"):
                assert self.http.delete(f"{PODS}/{name}", json={"gracePeriodSeconds": 0}).status_code == 200

    def kubelet(self, pod: dict, phase: str = "Running", ready: bool = True, node: str = "n1") -> dict:
        """Bind (as the scheduler) and write the status a kubelet reports: Running (Ready or not) with an IP, or
        Succeeded/Failed."""
        pod = self.bind(pod, node)
        self.ips += 1
        status = {
            "phase": phase,
            "podIP": pod.get("status", {}).get("podIP") or f"10.244.0.{self.ips}",
            "conditions": [{"type": "Ready", "status": "True" if ready and phase == "Running" else "False"}],
        }
        pod["status"] = status
        written = self.http.put(f"{PODS}/{pod['metadata']['name']}/status", json=pod)
        assert written.status_code == 200, written.get_json()
        return written.get_json()


def condition(obj: dict, kind: str) -> dict:
    return next(c for c in obj["status"].get("conditions") or [] if c["type"] == kind)


def test_the_batch_controllers_are_the_simulations() -> None:
    names = {c.name for c in SIMULATION_CONTROLLERS}
    assert {"statefulset", "daemonset", "job", "cronjob", "endpointslice", "endpoint"} <= names


# ----------------------------------------------------------------------------------- StatefulSet


def statefulset(name: str = "web", replicas: int = 3, **spec: object) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "serviceName": "web",
            "selector": {"matchLabels": {"app": "web"}},
            "template": TEMPLATE,
            **spec,
        },
    }


def test_a_statefulset_starts_its_pods_in_order_and_scales_down_in_reverse(sim: Sim) -> None:
    ctl = sim.controller(StatefulSetController)
    sim.create(f"{APPS}/statefulsets", statefulset())
    ctl.sync()
    ctl.sync()
    assert list(sim.pods()) == ["web-0"]  # the next waits until web-0 is Running and Ready
    web0 = sim.pods()["web-0"]
    assert web0["metadata"]["labels"]["statefulset.orch.io/pod-name"] == "web-0"
    assert web0["spec"]["hostname"] == "web-0" and web0["spec"]["subdomain"] == "web"
    assert web0["metadata"]["ownerReferences"][0]["kind"] == "StatefulSet"
    sim.kubelet(web0, ready=False)
    ctl.sync()
    assert list(sim.pods()) == ["web-0"]
    sim.kubelet(sim.pods()["web-0"])
    ctl.sync()
    assert sorted(sim.pods()) == ["web-0", "web-1"]
    sim.kubelet(sim.pods()["web-1"])
    ctl.sync()
    sim.kubelet(sim.pods()["web-2"])
    ctl.sync()
    sts = sim.get(f"{APPS}/statefulsets/web")
    status = sts["status"]
    assert status["observedGeneration"] == sts["metadata"]["generation"]
    assert (status["replicas"], status["readyReplicas"], status["availableReplicas"]) == (3, 3, 3)
    assert (status["currentReplicas"], status["updatedReplicas"]) == (3, 3)
    assert status["currentRevision"] == status["updateRevision"]
    revision = status["updateRevision"]
    assert all(p["metadata"]["labels"]["controller-revision-hash"] == revision for p in sim.pods().values())
    revisions = sim.get(f"{APPS}/controllerrevisions")["items"]
    assert [r["metadata"]["name"] for r in revisions] == [revision] and revisions[0]["revision"] == 1

    sim.merge(f"{APPS}/statefulsets/web", {"spec": {"replicas": 1}})
    ctl.sync()
    assert sim.terminating() == ["web-2"]  # the highest first
    ctl.sync()
    assert sim.terminating() == ["web-2"]  # one at a time: web-1 waits until web-2 is gone
    sim.reap()
    ctl.sync()
    assert sim.terminating() == ["web-1"]
    sim.reap()
    ctl.sync()
    assert sorted(sim.pods()) == ["web-0"]
    events = sim.events("web")
    assert ("SuccessfulCreate", "create Pod web-2 in StatefulSet web successful") in events
    assert ("SuccessfulDelete", "delete Pod web-2 in StatefulSet web successful") in events
    assert sim.get(f"{APPS}/statefulsets/web")["status"]["replicas"] == 1


def test_a_parallel_statefulset_rolls_an_update_from_the_highest_ordinal(sim: Sim) -> None:
    ctl = sim.controller(StatefulSetController)
    sim.create(f"{APPS}/statefulsets", statefulset(podManagementPolicy="Parallel"))
    ctl.sync()
    assert sorted(sim.pods()) == ["web-0", "web-1", "web-2"]  # all at once
    for pod in sim.pods().values():
        sim.kubelet(pod)
    ctl.sync()
    old = sim.get(f"{APPS}/statefulsets/web")["status"]["currentRevision"]

    template = {**TEMPLATE, "spec": {"containers": [{"name": "app", "image": "nginx:2"}]}}
    sim.merge(f"{APPS}/statefulsets/web", {"spec": {"template": template}})
    ctl.sync()
    assert sim.terminating() == ["web-2"]  # the highest goes first
    status = sim.get(f"{APPS}/statefulsets/web")["status"]
    assert status["currentRevision"] == old and status["updateRevision"] != old
    new = status["updateRevision"]
    for step in ("web-2", "web-1", "web-0"):
        assert sim.terminating() == [step]
        sim.reap()
        ctl.sync()
        pod = sim.pods()[step]
        assert pod["metadata"]["labels"]["controller-revision-hash"] == new
        assert pod["spec"]["containers"][0]["image"] == "nginx:2"
        sim.kubelet(pod)
        ctl.sync()
    ctl.sync()
    status = sim.get(f"{APPS}/statefulsets/web")["status"]
    assert status["currentRevision"] == status["updateRevision"] == new
    assert status["updatedReplicas"] == status["readyReplicas"] == 3
    revisions = {r["metadata"]["name"]: r["revision"] for r in sim.get(f"{APPS}/controllerrevisions")["items"]}
    assert revisions == {old: 1, new: 2}

    # back to the first template (what `kubectl rollout undo` does): its revision becomes the latest
    sim.merge(f"{APPS}/statefulsets/web", {"spec": {"template": TEMPLATE}})
    ctl.sync()
    assert sim.get(f"{APPS}/statefulsets/web")["status"]["updateRevision"] == old
    revisions = {r["metadata"]["name"]: r["revision"] for r in sim.get(f"{APPS}/controllerrevisions")["items"]}
    assert revisions == {old: 3, new: 2}


# ----------------------------------------------------------------------------------- DaemonSet


def test_a_daemonset_runs_one_pod_per_eligible_node(sim: Sim) -> None:
    sim.node("n1", {"disk": "ssd"})
    sim.node("n2", {"disk": "ssd"}, [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}])
    # the daemon pods' default tolerations cover a not-ready node
    sim.node("n3", {"disk": "ssd"}, [{"key": "node.orch.io/not-ready", "effect": "NoExecute"}])
    sim.node("n4", {"disk": "hdd"})
    ctl = sim.controller(DaemonSetController)
    body = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {**TEMPLATE, "spec": {**TEMPLATE["spec"], "nodeSelector": {"disk": "ssd"}}},
        },
    }
    sim.create(f"{APPS}/daemonsets", body)
    ctl.sync()
    pods = list(sim.pods().values())
    pinned = {}
    for pod in pods:
        terms = pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        (node,) = terms["nodeSelectorTerms"][0]["matchFields"][0]["values"]
        pinned[pod["metadata"]["name"]] = node
        assert {"key": "node.orch.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"} in pod["spec"][
            "tolerations"
        ]
        assert not pod["spec"].get("nodeName")  # the scheduler binds it
    assert sorted(pinned.values()) == ["n1", "n3"]
    ctl.sync()
    status = sim.get(f"{APPS}/daemonsets/agent")["status"]
    assert (status["desiredNumberScheduled"], status["currentNumberScheduled"], status["numberReady"]) == (2, 2, 0)
    assert status["numberUnavailable"] == 2
    for pod in pods:
        sim.kubelet(pod, node=pinned[pod["metadata"]["name"]])
    ctl.sync()
    ds = sim.get(f"{APPS}/daemonsets/agent")
    status = ds["status"]
    assert status["observedGeneration"] == ds["metadata"]["generation"]
    assert (status["numberReady"], status["numberAvailable"], status["updatedNumberScheduled"]) == (2, 2, 2)
    assert "numberUnavailable" not in status

    sim.node("n5", {"disk": "ssd"})  # a new node gets its pod
    ctl.sync()
    (added,) = [p for p in sim.pods().values() if not p["spec"].get("nodeName")]
    terms = added["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms["nodeSelectorTerms"][0]["matchFields"][0]["values"] == ["n5"]


# ----------------------------------------------------------------------------------- Job


def job(name: str, **spec: object) -> dict:
    template = {"spec": {"containers": [{"name": "task", "image": "busybox"}], "restartPolicy": "Never"}}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name}, "spec": {"template": template, **spec}}


def test_a_job_runs_pods_until_its_completions_succeeded(sim: Sim) -> None:
    ctl = sim.controller(JobController)
    made = sim.create(f"{BATCH}/jobs", job("pi", completions=3, parallelism=2))
    ctl.sync()
    pods = sim.pods("job-name=pi")
    assert len(pods) == 2
    for pod in pods.values():
        assert pod["metadata"]["labels"]["controller-uid"] == made["metadata"]["uid"]
        assert pod["metadata"]["generateName"] == "pi-"
    status = sim.get(f"{BATCH}/jobs/pi")["status"]
    assert status["active"] == 2 and status["startTime"]
    for pod in pods.values():
        sim.kubelet(pod, "Succeeded")
    ctl.sync()
    pods = sim.pods("job-name=pi")
    assert len(pods) == 3  # one completion left: one more pod
    status = sim.get(f"{BATCH}/jobs/pi")["status"]
    assert (status["active"], status["succeeded"]) == (1, 2)
    last = next(p for p in pods.values() if p["status"].get("phase") != "Succeeded")
    sim.kubelet(last, "Succeeded")
    ctl.sync()
    status = sim.get(f"{BATCH}/jobs/pi")["status"]
    assert status["succeeded"] == 3 and "active" not in status
    assert condition({"status": status}, "Complete")["status"] == "True"
    assert status["completionTime"]
    ctl.sync()
    assert len(sim.pods("job-name=pi")) == 3  # a complete job makes no more pods
    events = sim.events("pi")
    assert sorted(m for r, m in events if r == "SuccessfulCreate") == sorted(f"Created pod: {n}" for n in pods)
    assert ("Completed", "Job completed") in events


def test_a_failing_job_stops_at_its_backoff_limit(sim: Sim) -> None:
    ctl = sim.controller(JobController)
    sim.create(f"{BATCH}/jobs", job("flaky", backoffLimit=1))
    for _ in range(2):
        ctl.sync()
        running = [p for p in sim.pods("job-name=flaky").values() if p.get("status", {}).get("phase") != "Failed"]
        assert len(running) == 1
        sim.kubelet(running[0], "Failed")
    ctl.sync()
    status = sim.get(f"{BATCH}/jobs/flaky")["status"]
    failed = condition({"status": status}, "Failed")
    assert (failed["status"], failed["reason"]) == ("True", "BackoffLimitExceeded")
    assert failed["message"] == "Job has reached the specified backoff limit"
    assert status["failed"] == 2 and "active" not in status
    assert ("BackoffLimitExceeded", "Job has reached the specified backoff limit") in sim.events("flaky")
    ctl.sync()
    assert len(sim.pods("job-name=flaky")) == 2


def test_an_indexed_job_gives_each_pod_its_index(sim: Sim) -> None:
    ctl = sim.controller(JobController)
    sim.create(f"{BATCH}/jobs", job("idx", completions=3, parallelism=3, completionMode="Indexed"))
    ctl.sync()
    pods = sim.pods("job-name=idx")
    indexes = sorted(p["metadata"]["annotations"]["batch.orch.io/job-completion-index"] for p in pods.values())
    assert indexes == ["0", "1", "2"]
    for pod in pods.values():
        sim.kubelet(pod, "Succeeded")
    ctl.sync()
    status = sim.get(f"{BATCH}/jobs/idx")["status"]
    assert status["completedIndexes"] == "0-2" and condition({"status": status}, "Complete")["status"] == "True"


# ----------------------------------------------------------------------------------- CronJob


def cronjob(name: str, schedule: str, **spec: object) -> dict:
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name},
        "spec": {"schedule": schedule, "jobTemplate": {"spec": job("x")["spec"]}, **spec},
    }


def test_cron_schedules_as_the_reference_reads_them() -> None:
    at = datetime(2024, 1, 31, 10, 7, 30, tzinfo=UTC)  # a Wednesday
    assert parse("*/5 * * * *").next(at) == at.replace(minute=10, second=0)
    assert parse("@hourly").next(at) == at.replace(hour=11, minute=0, second=0)
    assert parse("0 0 29 2 *").next(at) == datetime(2024, 2, 29, tzinfo=UTC)
    # both day fields restricted: either matches (the 1st or a Friday)
    assert parse("0 9 15 * fri").next(at) == datetime(2024, 2, 2, 9, tzinfo=UTC)
    assert parse("0 9 * * sun").next(at) == datetime(2024, 2, 4, 9, tzinfo=UTC)
    assert parse("@every 90s").next(at) == at + timedelta(seconds=90)
    assert parse("CRON_TZ=Europe/Paris 0 12 * * *").next(at) == at.replace(hour=11, minute=0, second=0)
    for bad in ("* * * *", "61 * * * *", "@fortnightly", "*/0 * * * *", "0 9 * * 7"):  # robfig: Sunday is 0
        with pytest.raises(ScheduleError):
            parse(bad)


def test_a_cronjob_creates_jobs_at_its_schedule_times(sim: Sim) -> None:
    ctl = sim.controller(CronJobController)
    jobs = sim.controller(JobController)
    made = sim.create(f"{BATCH}/cronjobs", cronjob("tick", "*/5 * * * *", concurrencyPolicy="Forbid"))
    created = datetime.fromisoformat(made["metadata"]["creationTimestamp"].replace("Z", "+00:00"))
    sim.clock.now = created + timedelta(seconds=1)
    ctl.sync()
    assert sim.get(f"{BATCH}/jobs")["items"] == []
    first = parse("*/5 * * * *").next(created)
    sim.clock.now = first + timedelta(seconds=1)
    ctl.sync()
    items = sim.get(f"{BATCH}/jobs")["items"]
    assert [j["metadata"]["name"] for j in items] == [f"tick-{int(first.timestamp()) // 60}"]
    assert items[0]["metadata"]["ownerReferences"][0]["kind"] == "CronJob"
    status = sim.get(f"{BATCH}/cronjobs/tick")["status"]
    assert status["lastScheduleTime"] == first.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert [a["name"] for a in status["active"]] == [items[0]["metadata"]["name"]]

    sim.clock.advance(minutes=5)  # Forbid: the active job blocks the next run
    ctl.sync()
    assert len(sim.get(f"{BATCH}/jobs")["items"]) == 1
    jobs.sync()
    for pod in sim.pods().values():
        sim.kubelet(pod, "Succeeded")
    jobs.sync()
    ctl.sync()  # the job ended: the schedule time it waited for runs now
    status = sim.get(f"{BATCH}/cronjobs/tick")["status"]
    assert status["lastSuccessfulTime"]
    assert ("SawCompletedJob", f"Saw completed job: {items[0]['metadata']['name']}, status: Complete") in sim.events(
        "tick"
    )
    assert len(sim.get(f"{BATCH}/jobs")["items"]) == 2


def test_a_suspended_cronjob_runs_nothing_and_history_is_trimmed(sim: Sim) -> None:
    ctl = sim.controller(CronJobController)
    jobs = sim.controller(JobController)
    sim.create(f"{BATCH}/cronjobs", cronjob("often", "* * * * *", successfulJobsHistoryLimit=1))
    for _ in range(3):
        sim.clock.advance(minutes=1)
        ctl.sync()
        jobs.sync()
        for pod in sim.pods().values():
            if pod.get("status", {}).get("phase") != "Succeeded":
                sim.kubelet(pod, "Succeeded")
        jobs.sync()
    ctl.sync()
    assert len(sim.get(f"{BATCH}/jobs")["items"]) == 1  # only the newest finished job stays
    sim.merge(f"{BATCH}/cronjobs/often", {"spec": {"suspend": True}})
    before = sim.get(f"{BATCH}/cronjobs/often")["status"]["lastScheduleTime"]
    sim.clock.advance(minutes=3)
    ctl.sync()
    assert sim.get(f"{BATCH}/cronjobs/often")["status"]["lastScheduleTime"] == before


def test_a_time_factor_makes_a_cronjob_fire_sooner(sim: Sim) -> None:
    ctl = sim.controller(CronJobController, SIMULATE_CRON_TIME_FACTOR=60)
    made = sim.create(f"{BATCH}/cronjobs", cronjob("fast", "@hourly"))
    created = datetime.fromisoformat(made["metadata"]["creationTimestamp"].replace("Z", "+00:00"))
    sim.clock.now = created + timedelta(minutes=61)  # 61 simulated hours
    ctl.sync()
    assert len(sim.get(f"{BATCH}/jobs")["items"]) == 1
    assert ctl.resync_seconds <= 60  # the next simulated hour comes within a real minute


# ----------------------------------------------------------------------------------- endpoints


def test_a_services_endpointslice_and_endpoints_follow_its_ready_pods(sim: Sim) -> None:
    slices, endpoints = sim.controller(EndpointSliceController), sim.controller(EndpointsController)
    sim.node("n1")
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web", "labels": {"tier": "front"}},
        "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": "web"}]},
    }
    sim.create(f"/api/v1/namespaces/{NS}/services", service)
    spec = {"containers": [{"name": "app", "image": "nginx", "ports": [{"name": "web", "containerPort": 8080}]}]}
    for name in ("ready", "starting", "leaving", "no-ip"):
        sim.create(
            PODS,
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": "web"}}, "spec": spec},
        )
    pods = sim.pods()
    ips = {n: sim.kubelet(pods[n], ready=n != "starting")["status"]["podIP"] for n in ("ready", "starting", "leaving")}
    assert sim.http.delete(f"{PODS}/leaving").status_code == 200  # bound: terminating until its kubelet ends it
    slices.sync()
    endpoints.sync()

    items = sim.get(f"{SLICES}?labelSelector=orch.io/service-name=web")["items"]
    assert len(items) == 1
    es = items[0]
    assert es["addressType"] == "IPv4" and es["metadata"]["labels"]["tier"] == "front"
    assert es["metadata"]["labels"]["endpointslice.orch.io/managed-by"] == "endpointslice-controller.orch.io"
    assert es["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]
    conditions = {e["targetRef"]["name"]: e["conditions"] for e in es["endpoints"]}
    assert conditions == {
        "ready": {"ready": True, "serving": True, "terminating": False},
        "starting": {"ready": False, "serving": False, "terminating": False},
        "leaving": {"ready": False, "serving": True, "terminating": True},
    }
    ep = sim.get(f"/api/v1/namespaces/{NS}/endpoints/web")
    (subset,) = ep["subsets"]
    assert [a["ip"] for a in subset["addresses"]] == [ips["ready"]]
    assert [a["ip"] for a in subset["notReadyAddresses"]] == [ips["starting"]]
    assert subset["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]

    sim.kubelet(sim.pods()["starting"])  # now Ready
    slices.sync()
    endpoints.sync()
    es = sim.get(f"{SLICES}?labelSelector=orch.io/service-name=web")["items"][0]
    assert {e["targetRef"]["name"]: e["conditions"]["ready"] for e in es["endpoints"]}["starting"] is True
    ep = sim.get(f"/api/v1/namespaces/{NS}/endpoints/web")
    assert sorted(a["ip"] for a in ep["subsets"][0]["addresses"]) == sorted([ips["ready"], ips["starting"]])

    # the server's own service has no selector: its endpoints stay as the server keeps them
    before = sim.get(f"/api/v1/namespaces/{NS}/endpoints").get("items")
    assert sim.http.delete(f"/api/v1/namespaces/{NS}/services/web").status_code == 200
    slices.sync()
    endpoints.sync()
    assert sim.get(f"{SLICES}")["items"] == []
    assert sim.http.get(f"/api/v1/namespaces/{NS}/endpoints/web").status_code == 404
    others = [e for e in before if e["metadata"]["name"] != "web"]
    assert sim.get(f"/api/v1/namespaces/{NS}/endpoints")["items"] == others
