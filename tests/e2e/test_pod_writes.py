"""pods/binding, bindings and pods/eviction on a real server (SQLite and PostgreSQL): a scheduler's bind, a
drain's evictions within PodDisruptionBudgets, with the reference's answers; `kubectl drain` end to end."""

from __future__ import annotations

import subprocess
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from . import RunningServer

pytestmark = pytest.mark.e2e

PDBS = "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets"


@pytest.fixture
def ns(any_server: RunningServer) -> str:
    name = f"pw-{uuid.uuid4().hex[:8]}"
    assert any_server.session.post("/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
    return name


def pod(server: RunningServer, ns: str, name: str, node: str = "", ready: bool = True, **labels: str) -> dict:
    spec: dict[str, Any] = {"containers": [{"name": "app", "image": "nginx"}]}
    if node:
        spec["nodeName"] = node
    created = server.session.post(
        f"/api/v1/namespaces/{ns}/pods", json={"metadata": {"name": name, "labels": labels}, "spec": spec}
    )
    assert created.status_code == 201, created.text
    status = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}
    body = {**created.json(), "status": status}
    updated = server.session.put(f"/api/v1/namespaces/{ns}/pods/{name}/status", json=body)
    assert updated.status_code == 200, updated.text
    return updated.json()


def budget(server: RunningServer, ns: str, name: str, allowed: int, healthy: int = 2, **labels: str) -> dict:
    """A PodDisruptionBudget with the status the disruption controller would write (none runs here)."""
    created = server.session.post(
        PDBS.format(ns=ns),
        json={"metadata": {"name": name}, "spec": {"minAvailable": 1, "selector": {"matchLabels": labels}}},
    )
    assert created.status_code == 201, created.text
    body = created.json()
    body["status"] = {
        "observedGeneration": body["metadata"]["generation"],
        "disruptionsAllowed": allowed,
        "currentHealthy": healthy,
        "desiredHealthy": 1,
        "expectedPods": healthy,
    }
    updated = server.session.put(f"{PDBS.format(ns=ns)}/{name}/status", json=body)
    assert updated.status_code == 200, updated.text
    return updated.json()


def evict(server: RunningServer, ns: str, name: str, version: str = "v1", **extra: Any):
    return server.session.post(
        f"/api/v1/namespaces/{ns}/pods/{name}/eviction",
        json={
            "apiVersion": f"policy/{version}",
            "kind": "Eviction",
            "metadata": {"name": name, "namespace": ns},
            **extra,
        },
    )


def test_binding_assigns_the_node_once(any_server: RunningServer, ns: str):
    pod(any_server, ns, "web")
    bound = any_server.session.post(
        f"/api/v1/namespaces/{ns}/pods/web/binding",
        json={
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": "web", "annotations": {"scheduler": "test"}},
            "target": {"apiVersion": "v1", "kind": "Node", "name": "node-1"},
        },
    )
    assert bound.status_code == 201, bound.text
    assert bound.json()["status"] == "Success"
    got = any_server.get(f"/api/v1/namespaces/{ns}/pods/web").json()
    assert got["spec"]["nodeName"] == "node-1" and got["metadata"]["annotations"] == {"scheduler": "test"}
    assert {"type": "PodScheduled", "status": "True"}.items() <= next(
        c for c in got["status"]["conditions"] if c["type"] == "PodScheduled"
    ).items()

    again = any_server.session.post(
        f"/api/v1/namespaces/{ns}/bindings", json={"metadata": {"name": "web"}, "target": {"name": "node-2"}}
    )
    assert again.status_code == 409, again.text
    assert again.json()["message"] == (
        'Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "node-1"'
    )


def test_the_bindings_collection_binds_and_bad_bindings_are_refused(any_server: RunningServer, ns: str):
    pod(any_server, ns, "api")
    url = f"/api/v1/namespaces/{ns}/bindings"
    empty = any_server.session.post(url, json={"metadata": {"name": "api"}, "target": {"name": ""}})
    assert empty.status_code == 422 and empty.json()["details"]["causes"][0]["field"] == "target.name", empty.text
    wrong = any_server.session.post(
        f"/api/v1/namespaces/{ns}/pods/api/binding", json={"metadata": {"name": "other"}, "target": {"name": "n"}}
    )
    assert wrong.status_code == 400 and "does not match" in wrong.json()["message"]
    missing = any_server.session.post(url, json={"metadata": {"name": "nope"}, "target": {"name": "n"}})
    assert missing.status_code == 404, missing.text
    ok = any_server.session.post(url, json={"metadata": {"name": "api"}, "target": {"name": "node-9"}})
    assert ok.status_code == 201, ok.text
    assert any_server.get(f"/api/v1/namespaces/{ns}/pods/api").json()["spec"]["nodeName"] == "node-9"


def test_eviction_within_the_budget_deletes_and_records_the_disruption(any_server: RunningServer, ns: str):
    for name in ("a", "b"):
        pod(any_server, ns, name, app="web")
    budget(any_server, ns, "web", allowed=1, app="web")
    first = evict(any_server, ns, "a")
    assert first.status_code == 201, first.text
    assert first.json()["status"] == "Success"
    assert any_server.get(f"/api/v1/namespaces/{ns}/pods/a").status_code == 404
    status = any_server.get(f"{PDBS.format(ns=ns)}/web").json()["status"]
    assert status["disruptionsAllowed"] == 0 and list(status["disruptedPods"]) == ["a"]
    assert next(c for c in status["conditions"] if c["type"] == "DisruptionAllowed")["reason"] == "InsufficientPods"

    refused = evict(any_server, ns, "b", version="v1beta1")
    assert refused.status_code == 429, refused.text
    body = refused.json()
    assert body["reason"] == "TooManyRequests"
    assert body["message"] == "Cannot evict pod as it would violate the pod's disruption budget."
    assert body["details"]["causes"] == [
        {"reason": "DisruptionBudget", "message": "The disruption budget web needs 1 healthy pods and has 2 currently"}
    ]
    assert any_server.get(f"/api/v1/namespaces/{ns}/pods/b").status_code == 200


def test_a_budget_not_yet_observed_asks_to_retry(any_server: RunningServer, ns: str):
    pod(any_server, ns, "a", app="db")
    created = any_server.session.post(
        PDBS.format(ns=ns),
        json={"metadata": {"name": "db"}, "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "db"}}}},
    )
    assert created.status_code == 201
    refused = evict(any_server, ns, "a")
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "10", refused.text
    assert (
        refused.json()["details"]["causes"][0]["message"]
        == "The disruption budget db is still being processed by the server."
    )


def test_dry_run_evictions_change_nothing_and_pods_outside_budgets_go(any_server: RunningServer, ns: str):
    pod(any_server, ns, "a", app="web")
    pod(any_server, ns, "lone")
    budget(any_server, ns, "web", allowed=1, app="web")
    dry = any_server.session.post(
        f"/api/v1/namespaces/{ns}/pods/a/eviction", params={"dryRun": "All"}, json={"metadata": {"name": "a"}}
    )
    assert dry.status_code == 201, dry.text
    assert any_server.get(f"/api/v1/namespaces/{ns}/pods/a").status_code == 200
    assert any_server.get(f"{PDBS.format(ns=ns)}/web").json()["status"]["disruptionsAllowed"] == 1
    mismatch = evict(any_server, ns, "a", deleteOptions={"dryRun": []}, metadata={"name": "other"})
    assert (
        mismatch.status_code == 400
        and mismatch.json()["message"] == "name in URL does not match name in Eviction object"
    )
    assert evict(any_server, ns, "lone").status_code == 201
    assert evict(any_server, ns, "lone").status_code == 404


def test_two_budgets_over_one_pod_are_refused_as_the_reference_does(any_server: RunningServer, ns: str):
    pod(any_server, ns, "a", app="web", tier="front")
    budget(any_server, ns, "by-app", allowed=1, app="web")
    budget(any_server, ns, "by-tier", allowed=1, tier="front")
    refused = evict(any_server, ns, "a")
    assert refused.status_code == 500 and "more than one PodDisruptionBudget" in refused.json()["message"]
    assert any_server.get(f"/api/v1/namespaces/{ns}/pods/a").status_code == 200


def test_discovery_lists_the_subresources_as_the_reference(any_server: RunningServer):
    resources = {r["name"]: r for r in any_server.get("/api/v1").json()["resources"]}
    assert resources["pods/eviction"] == {
        "name": "pods/eviction",
        "singularName": "",
        "namespaced": True,
        "group": "policy",
        "version": "v1",
        "kind": "Eviction",
        "verbs": ["create"],
    }
    assert resources["pods/binding"]["kind"] == "Binding" and resources["pods/binding"]["verbs"] == ["create"]
    assert resources["bindings"]["verbs"] == ["create"] and resources["bindings"]["namespaced"] is True


@contextmanager
def node_agent_finishing_deletions(server: RunningServer, ns: str) -> Iterator[None]:
    """What the node agent of the drained node does: delete each terminating pod with grace 0 (its containers
    stopped), which ends the graceful deletion an eviction starts."""
    done = threading.Event()

    def run() -> None:
        while not done.wait(0.1):
            for item in server.get(f"/api/v1/namespaces/{ns}/pods").json()["items"]:
                if item["metadata"].get("deletionTimestamp"):
                    server.session.delete(
                        f"/api/v1/namespaces/{ns}/pods/{item['metadata']['name']}?gracePeriodSeconds=0"
                    )

    agent = threading.Thread(target=run, daemon=True)
    agent.start()
    try:
        yield
    finally:
        done.set()
        agent.join()


def test_kubectl_drain_evicts_the_node_s_pods_and_waits_for_the_budget(kubectl: str, server: RunningServer, tmp_path):
    ns = f"drain-{uuid.uuid4().hex[:8]}"
    node = f"node-{uuid.uuid4().hex[:6]}"
    assert server.session.post("/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
    assert server.session.post("/api/v1/nodes", json={"metadata": {"name": node}}).status_code == 201
    for name in ("web-1", "web-2", "other"):
        pod(server, ns, name, node=node, app="web" if name.startswith("web") else "other")
    budget(server, ns, "web", allowed=1, app="web")

    def drain() -> subprocess.CompletedProcess[str]:
        with node_agent_finishing_deletions(server, ns):
            return subprocess.run(
                [kubectl, "--kubeconfig", str(server.kubeconfig), "drain", node, "--force", "--timeout", "3s"],
                capture_output=True,
                text=True,
                timeout=90,
                check=False,
            )

    done = drain()
    # one web pod may go, the other is held by the budget: kubectl retries the 429 until its timeout
    assert done.returncode != 0, done.stdout + done.stderr
    assert "Cannot evict pod as it would violate the pod's disruption budget." in done.stderr
    left = {p["metadata"]["name"] for p in server.get(f"/api/v1/namespaces/{ns}/pods").json()["items"]}
    assert len(left & {"web-1", "web-2"}) == 1 and "other" not in left
    assert server.get(f"/api/v1/nodes/{node}").json()["spec"]["unschedulable"] is True

    budget_now = server.get(f"{PDBS.format(ns=ns)}/web").json()
    budget_now["status"]["disruptionsAllowed"] = 1  # what the disruption controller would write next
    assert server.session.put(f"{PDBS.format(ns=ns)}/web/status", json=budget_now).status_code == 200
    done = drain()
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"node/{node} drained" in done.stdout
    assert server.get(f"/api/v1/namespaces/{ns}/pods").json()["items"] == []


def test_kubectl_debug_adds_an_ephemeral_container_that_stays(kubectl: str, server: RunningServer):
    ns = f"dbg-{uuid.uuid4().hex[:8]}"
    assert server.session.post("/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
    pod(server, ns, "app", node="node-1")
    done = subprocess.run(
        [
            kubectl,
            "--kubeconfig",
            str(server.kubeconfig),
            "debug",
            "-n",
            ns,
            "pod/app",
            "--image=busybox",
            "--container=debugger",
            "--",
            "sleep",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    url = f"/api/v1/namespaces/{ns}/pods/app"
    got = server.get(url).json()
    [added] = got["spec"]["ephemeralContainers"]
    assert (added["name"], added["image"], added["command"]) == ("debugger", "busybox", ["sleep", "1"])
    assert added["terminationMessagePolicy"] == "File"  # defaulted as a container is

    removed = server.session.put(
        f"{url}/ephemeralcontainers", json={**got, "spec": {**got["spec"], "ephemeralContainers": []}}
    )
    assert removed.status_code == 422, removed.text
    assert (
        removed.json()["details"]["causes"][0]["message"]
        == 'Forbidden: existing ephemeral containers "debugger" may not be removed'
    )
    ported = dict(got)
    ported["spec"] = {
        **got["spec"],
        "ephemeralContainers": [added, {"name": "two", "image": "x", "ports": [{"containerPort": 80}]}],
    }
    refused = server.session.put(f"{url}/ephemeralcontainers", json=ported)
    assert (
        refused.status_code == 422
        and refused.json()["details"]["causes"][0]["field"] == "spec.ephemeralContainers[1].ports"
    )
    # the pod itself cannot add or drop them
    main = server.get(url).json()
    main["spec"]["ephemeralContainers"] = []
    assert server.session.put(url, json=main).json()["spec"]["ephemeralContainers"][0]["name"] == "debugger"
    resources = {r["name"]: r for r in server.get("/api/v1").json()["resources"]}
    assert resources["pods/ephemeralcontainers"]["verbs"] == ["get", "patch", "update"]
