"""Watches indexed by a field they select on (a pod's spec.nodeName, any kind's metadata.name): the hub offers a
watcher only the changes that can match it, and the events stay exactly those of a filtered watch (both stores)."""

from __future__ import annotations

import json
import time

from orch_apiserver.context import services
from orch_apiserver.registry.options import ListOptions


def _pods(any_app):
    assert any_app.test_client().get("/api/v1/namespaces/default").status_code == 200  # start-up has run
    with any_app.app_context():
        svc = services()
        return svc.registry, svc.catalog.known_type("", "v1", "pods")


def _pod(name: str, node: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": "registry.example/app:1"}]},
    }


def _events(watch, count: int, timeout: float = 5.0) -> list[tuple[str, str]]:
    got: list[tuple[str, str]] = []
    deadline = time.monotonic() + timeout
    while len(got) < count and time.monotonic() < deadline:
        for (kind, obj), _encodings in watch.take_now(100):
            name = (obj if isinstance(obj, dict) else json.loads(obj))["metadata"]["name"]
            got.append((kind, name))
        time.sleep(0.02)
    return got


def _open(registry, pods, selector: str, labels: str = ""):
    current = registry.list(pods, "default", ListOptions(limit=1)).revision
    watch = registry.watch(
        pods, None, ListOptions(resource_version=str(current), field_selector=selector, label_selector=labels)
    )
    assert watch.open() == []
    return watch


def test_a_node_watch_is_offered_only_its_own_pods(any_app) -> None:
    registry, pods = _pods(any_app)
    mine = _open(registry, pods, "spec.nodeName=node-a")
    others = _open(registry, pods, "spec.nodeName=node-b")
    assert mine.index() is not None and mine.index().name == "spec.nodeName"
    registry.create(pods, "default", _pod("on-b", "node-b"))
    assert _events(others, 1) == [("ADDED", "on-b")]
    assert mine._subscription().take_nowait() == []  # not even queued: the hub never offered it
    registry.create(pods, "default", _pod("on-a", "node-a"))
    assert _events(mine, 1) == [("ADDED", "on-a")]
    mine.close()
    others.close()


def test_an_indexed_watch_with_a_label_selector_still_sees_pods_leave_it(any_app) -> None:
    registry, pods = _pods(any_app)
    watch = _open(registry, pods, "spec.nodeName=node-c", "app=web")
    registry.create(pods, "default", _pod("leaving", "node-c"))
    assert _events(watch, 1) == [("ADDED", "leaving")]
    stored = registry.get(pods, "default", "leaving")
    stored["metadata"]["labels"] = {"app": "db"}
    registry.update(pods, "default", "leaving", stored)
    assert _events(watch, 1) == [("DELETED", "leaving")]  # left the label selector: DELETED, as unindexed
    watch.close()


def test_a_watch_by_name_is_indexed_by_the_key(any_app) -> None:
    registry, pods = _pods(any_app)
    watch = _open(registry, pods, "metadata.name=wanted")
    assert watch.index() is not None and watch.index().name == "metadata.name"
    registry.create(pods, "default", _pod("unwanted", "node-d"))
    registry.create(pods, "default", _pod("wanted", "node-d"))
    assert _events(watch, 1) == [("ADDED", "wanted")]
    watch.close()
