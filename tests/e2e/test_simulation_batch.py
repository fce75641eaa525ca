"""The simulated cluster's StatefulSet, DaemonSet, Job, CronJob and endpoints controllers on a real server with
`--simulate-nodes 3` (SQLite and PostgreSQL, API domain k8s.io), through the official Python client and kubectl:
the simulated nodes, scheduler and node agents run the pods, nothing here plays the kubelet."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes import config

from . import RunningServer, poll, server_on

pytestmark = pytest.mark.e2e

SIM_ARGS = ["--api-domain", "k8s.io", "--simulate-nodes", "3"]
TEMPLATE = {
    "metadata": {"labels": {"app": "web"}},
    "spec": {"containers": [{"name": "app", "image": "nginx", "ports": [{"name": "http", "containerPort": 8080}]}]},
}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def cluster(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    with server_on(request.param, tmp_path_factory.mktemp(f"sim-batch-{request.param}"), SIM_ARGS) as running:
        yield running


class Cluster:
    def __init__(self, server: RunningServer, kubectl: str, api_client: Any, ns: str) -> None:
        self.server, self.kubectl_path, self.ns = server, kubectl, ns
        self.core, self.apps = k8s.CoreV1Api(api_client), k8s.AppsV1Api(api_client)
        self.batch, self.discovery = k8s.BatchV1Api(api_client), k8s.DiscoveryV1Api(api_client)

    def kubectl(self, *args: str, timeout: float = 60) -> str:
        done = subprocess.run(
            [self.kubectl_path, "--kubeconfig", str(self.server.kubeconfig), "-n", self.ns, *args],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert done.returncode == 0, done.stderr + done.stdout
        return done.stdout

    def pods(self, selector: str) -> list[Any]:
        return self.core.list_namespaced_pod(self.ns, label_selector=selector).items


@pytest.fixture
def c(cluster: RunningServer, kubectl: str) -> Iterator[Cluster]:
    api_client = config.new_client_from_config(config_file=str(cluster.kubeconfig))
    core = k8s.CoreV1Api(api_client)
    ns = f"sim-{uuid.uuid4().hex[:8]}"
    core.create_namespace({"metadata": {"name": ns}})
    # pods need it (ServiceAccount admission)
    poll(lambda: any(a.metadata.name == "default" for a in core.list_namespaced_service_account(ns).items))
    poll(lambda: sum(1 for n in core.list_node().items if n.status and ready(n.status.conditions)) == 3)
    yield Cluster(cluster, kubectl, api_client, ns)
    api_client.close()


def ready(conditions: list[Any] | None) -> bool:
    return any(c.type == "Ready" and c.status == "True" for c in conditions or [])


def test_a_statefulset_starts_in_order(c: Cluster) -> None:
    body = {
        "metadata": {"name": "db"},
        "spec": {"replicas": 3, "serviceName": "db", "selector": {"matchLabels": {"app": "web"}}, "template": TEMPLATE},
    }
    c.apps.create_namespaced_stateful_set(c.ns, body)
    c.kubectl("rollout", "status", "statefulset/db", "--timeout=60s")
    sts = c.apps.read_namespaced_stateful_set("db", c.ns)
    assert (sts.status.ready_replicas, sts.status.current_revision) == (3, sts.status.update_revision)
    pods = {p.metadata.name: p for p in c.pods("app=web")}
    assert sorted(pods) == ["db-0", "db-1", "db-2"]
    for earlier, later in (("db-0", "db-1"), ("db-1", "db-2")):
        became_ready = next(x.last_transition_time for x in pods[earlier].status.conditions if x.type == "Ready")
        assert pods[later].metadata.creation_timestamp >= became_ready  # OrderedReady: after the previous was Ready
        assert pods[later].metadata.labels["statefulset.kubernetes.io/pod-name"] == later
        assert (pods[later].spec.hostname, pods[later].spec.subdomain) == (later, "db")


def test_a_daemonset_runs_on_every_node(c: Cluster) -> None:
    body = {"metadata": {"name": "agent"}, "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": TEMPLATE}}
    c.apps.create_namespaced_daemon_set(c.ns, body)
    c.kubectl("rollout", "status", "daemonset/agent", "--timeout=60s")
    pods = c.pods("app=web")
    assert sorted(p.spec.node_name for p in pods) == ["sim-node-0", "sim-node-1", "sim-node-2"]
    status = c.apps.read_namespaced_daemon_set("agent", c.ns).status
    assert (status.desired_number_scheduled, status.number_ready, status.number_available) == (3, 3, 3)
    assert status.updated_number_scheduled == 3


def job(name: str, **spec: Any) -> dict:
    template = {"spec": {"containers": [{"name": "task", "image": "busybox"}], "restartPolicy": "Never"}}
    return {"metadata": {"name": name}, "spec": {"template": template, **spec}}


def test_a_job_runs_to_its_completions(c: Cluster) -> None:
    c.batch.create_namespaced_job(c.ns, job("pi", completions=3, parallelism=2))
    c.kubectl("wait", "--for=condition=complete", "job/pi", "--timeout=60s")
    status = c.batch.read_namespaced_job("pi", c.ns).status
    assert (status.succeeded, status.active) == (3, None)
    assert status.completion_time >= status.start_time
    pods = c.pods("job-name=pi")
    assert len(pods) == 3 and all(p.status.phase == "Succeeded" for p in pods)


def test_a_failing_job_hits_its_backoff_limit(c: Cluster) -> None:
    body = job("flaky", backoffLimit=1)
    body["spec"]["template"]["metadata"] = {"annotations": {"sim.kubernetes.io/fail": "true"}}
    c.batch.create_namespaced_job(c.ns, body)
    c.kubectl("wait", "--for=condition=failed", "job/flaky", "--timeout=60s")
    status = c.batch.read_namespaced_job("flaky", c.ns).status
    failed = next(x for x in status.conditions if x.type == "Failed")
    assert (failed.reason, status.failed) == ("BackoffLimitExceeded", 2)


def test_a_cronjob_fires(c: Cluster) -> None:
    # `@every` (robfig's descriptor, which the reference accepts) fires within seconds, not at the next minute
    body = {"metadata": {"name": "tick"}, "spec": {"schedule": "@every 2s", "jobTemplate": {"spec": job("x")["spec"]}}}
    c.batch.create_namespaced_cron_job(c.ns, body)

    def succeeded() -> Any:
        cj = c.batch.read_namespaced_cron_job("tick", c.ns)
        return cj if cj.status.last_successful_time else None

    cj = poll(succeeded, timeout=60)
    assert cj.status.last_schedule_time
    jobs = c.batch.list_namespaced_job(c.ns).items
    assert jobs and all(j.metadata.owner_references[0].name == "tick" for j in jobs)
    assert jobs[0].metadata.name.startswith("tick-")
    assert "tick-" in c.kubectl("get", "jobs")


def test_a_services_endpointslice_follows_its_ready_pods(c: Cluster) -> None:
    service = {
        "metadata": {"name": "web"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": "http"}]},
    }
    c.core.create_namespaced_service(c.ns, service)
    for name in ("a", "b"):
        c.core.create_namespaced_pod(c.ns, {**TEMPLATE, "metadata": {"name": name, "labels": {"app": "web"}}})

    def ready_endpoints(count: int) -> Any:
        slices = c.discovery.list_namespaced_endpoint_slice(c.ns, label_selector="kubernetes.io/service-name=web")
        endpoints = [e for s in slices.items for e in s.endpoints or [] if e.conditions.ready]
        return slices.items if len(endpoints) == count else None

    (es,) = poll(lambda: ready_endpoints(2), timeout=60)
    assert es.ports[0].port == 8080 and es.address_type == "IPv4"
    assert es.metadata.labels["endpointslice.kubernetes.io/managed-by"] == "endpointslice-controller.k8s.io"
    ips = sorted(p.status.pod_ip for p in c.pods("app=web"))
    assert sorted(e.addresses[0] for e in es.endpoints) == ips
    # the Endpoints controller follows the same pods on its own, as in the reference: it may be a moment behind
    subsets = lambda: c.core.read_namespaced_endpoints("web", c.ns).subsets or []
    poll(lambda: sum(len(s.addresses or []) for s in subsets()) == 2)
    endpoints = c.core.read_namespaced_endpoints("web", c.ns)
    assert sorted(a.ip for a in endpoints.subsets[0].addresses) == ips

    c.core.delete_namespaced_pod("a", c.ns)
    poll(lambda: ready_endpoints(1), timeout=60)
    remaining = c.core.read_namespaced_pod("b", c.ns).status.pod_ip
    poll(lambda: [a.ip for a in c.core.read_namespaced_endpoints("web", c.ns).subsets[0].addresses] == [remaining])
    assert "web" in c.kubectl("get", "endpointslices")
