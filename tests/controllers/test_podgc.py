"""podgc on both stores: pods bound to a node that does not exist are force-deleted once the node stayed missing for
the quarantine (terminating or not); pods on an existing node wait for their node agent; and a namespace whose pods
are bound to nodes finishes its deletion."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver.controllers.base import Context
from orch_apiserver.controllers.manager import ensure_namespaced_policy
from orch_apiserver.controllers.podgc import PodGarbageCollector

from tests.conftest import _shutdown, admin_app, wait_for
from tests.controllers.conftest import FakeClock

PODS = "/api/v1/namespaces/default/pods"


def pod(name: str, node: str = "", phase: str = "Running") -> dict:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "nginx"}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec, "status": {"phase": phase}}


def created(client: Any, url: str, body: dict) -> dict:
    made = client.post(url, json=body)
    assert made.status_code == 201, made.get_json()
    obj = made.get_json()
    if "status" in body:
        obj["status"] = body["status"]
        written = client.put(f"{url}/{obj['metadata']['name']}/status", json=obj)
        assert written.status_code == 200, written.get_json()
        obj = written.get_json()
    return obj


@pytest.fixture
def gc_app(database_url: str, tmp_path: Path) -> Iterator[Any]:
    app = admin_app(database_url, tmp_path)
    yield app
    _shutdown(app)


def test_pods_of_a_missing_node_go_after_the_quarantine(gc_app: Any, clock: FakeClock) -> None:
    client = gc_app.test_client()
    assert client.get("/api").status_code == 200  # the first request reconciles the default policy
    svc = gc_app.extensions["orch"]
    ctx = Context(svc.registry, svc.naming, svc.hub, gc_app.extensions["orch.auth"], clock=clock)
    ensure_namespaced_policy(ctx)
    gc = PodGarbageCollector(ctx)  # acts as the pod-garbage-collector account, under the default RBAC policy
    created(client, "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "alive"}})
    for name, node in (("lost", "ghost"), ("lost-terminating", "ghost"), ("kept", "alive"), ("held", "alive")):
        created(client, PODS, pod(name, node))
    for name in ("lost-terminating", "held"):
        assert client.delete(f"{PODS}/{name}").get_json()["metadata"]["deletionGracePeriodSeconds"] == 30

    gc.sync()
    clock.advance(seconds=39)
    gc.sync()
    assert all(client.get(f"{PODS}/{n}").status_code == 200 for n in ("lost", "lost-terminating", "kept", "held"))

    clock.advance(seconds=2)
    gc.sync()
    assert client.get(f"{PODS}/lost").status_code == 404
    assert client.get(f"{PODS}/lost-terminating").status_code == 404
    # the node exists: its agent (none here) finishes the graceful deletion, not the collector
    assert client.get(f"{PODS}/kept").status_code == 200
    assert client.get(f"{PODS}/held").get_json()["metadata"]["deletionTimestamp"]


def test_a_node_that_comes_back_within_the_quarantine_keeps_its_pods(gc_app: Any, clock: FakeClock) -> None:
    client = gc_app.test_client()
    assert client.get("/api").status_code == 200
    svc = gc_app.extensions["orch"]
    gc = PodGarbageCollector(Context(svc.registry, svc.naming, svc.hub, None, clock=clock))
    created(client, PODS, pod("web", "late"))
    gc.sync()
    clock.advance(seconds=30)
    created(client, "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "late"}})
    gc.sync()
    clock.advance(seconds=60)
    gc.sync()
    assert client.get(f"{PODS}/web").status_code == 200


def test_finished_pods_beyond_the_threshold_go_oldest_first(gc_app: Any, clock: FakeClock) -> None:
    client = gc_app.test_client()
    assert client.get("/api").status_code == 200
    svc = gc_app.extensions["orch"]
    ctx = Context(svc.registry, svc.naming, svc.hub, None, clock=clock, settings={"TERMINATED_POD_GC_THRESHOLD": 1})
    for name in ("done-1", "done-2"):
        created(client, PODS, pod(name, phase="Succeeded"))
    created(client, PODS, pod("running", phase="Running"))
    PodGarbageCollector(ctx).sync()
    left = {p["metadata"]["name"] for p in client.get(PODS).get_json()["items"]}
    assert len(left & {"done-1", "done-2"}) == 1 and "running" in left


def test_namespace_deletion_with_bound_pods_completes(database_url: str, tmp_path: Path) -> None:
    app = admin_app(database_url, tmp_path, CONTROLLERS="podgc", POD_GC_QUARANTINE_SECONDS=0.2)
    try:
        client = app.test_client()
        for name in ("orphans", "served"):
            created(client, "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        created(client, "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "agent-node"}})
        created(client, "/api/v1/namespaces/orphans/pods", pod("a", "no-such-node"))
        created(client, "/api/v1/namespaces/served/pods", pod("b", "agent-node"))
        created(client, "/api/v1/namespaces/served/pods", pod("pending"))
        for name in ("orphans", "served"):
            assert client.delete(f"/api/v1/namespaces/{name}").status_code == 200

        # no node agent answers for a missing node: the pod collector removes its pods, then the namespace goes
        wait_for(lambda: client.get("/api/v1/namespaces/orphans").status_code == 404, timeout=30)

        # the pod on a live node stays terminating (its grace) until the node agent deletes it with grace 0
        bound = wait_for(
            lambda: client.get("/api/v1/namespaces/served/pods/b").get_json()["metadata"].get("deletionTimestamp")
        )
        assert bound and client.get("/api/v1/namespaces/served/pods/pending").status_code == 404
        assert client.get("/api/v1/namespaces/served").get_json()["status"]["phase"] == "Terminating"
        assert client.delete("/api/v1/namespaces/served/pods/b?gracePeriodSeconds=0").status_code == 200
        wait_for(lambda: client.get("/api/v1/namespaces/served").status_code == 404, timeout=30)
    finally:
        _shutdown(app)


def test_followed_changes_after_its_one_list_count_as_a_list_would(gc_app: Any, clock: FakeClock) -> None:
    """Fed by the loop's changes (no list after the first), a pod bound later to a missing node and the pods of a
    node deleted later go after the quarantine; a pod deleted meanwhile is not deleted again."""
    from orch_apiserver.registry.informer import ChangeFeed

    client = gc_app.test_client()
    assert client.get("/api").status_code == 200
    svc = gc_app.extensions["orch"]
    gc = PodGarbageCollector(Context(svc.registry, svc.naming, svc.hub, None, clock=clock))
    feed = ChangeFeed(svc.registry, gc.watched_keys())
    feed.open()
    gc.feed_opened(True)
    created(client, "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "leaving"}})
    created(client, PODS, pod("on-leaving", "leaving"))
    gc.sync()  # the one list

    def no_more_lists(*args: Any) -> None:
        raise AssertionError("listed again while following")

    gc.client.list_at = no_more_lists  # type: ignore[method-assign]
    created(client, PODS, pod("late", "ghost"))
    created(client, PODS, pod("gone-by-itself", "ghost"))
    assert client.delete(f"{PODS}/gone-by-itself?gracePeriodSeconds=0").status_code == 200
    assert client.delete("/api/v1/nodes/leaving").status_code == 200

    def caught_up() -> bool:
        gc.observe(feed.take(0.1))
        return {f.name for f in (gc.view or {}).values()} == {"on-leaving", "late"} and not gc.node_names

    wait_for(caught_up)
    gc.sync()
    clock.advance(seconds=41)
    gc.sync()
    assert client.get(f"{PODS}/late").status_code == 404
    assert client.get(f"{PODS}/on-leaving").status_code == 404
    feed.close()
