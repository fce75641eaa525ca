"""The registry's change feed and follower: how in-process consumers follow kinds (on both stores)."""

from __future__ import annotations

import threading
import time

from orch_apiserver.context import services
from orch_apiserver.registry.informer import ChangeFeed, Follower
from orch_apiserver.registry.keys import resource_prefix


def _configmap(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}}


def _secret(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name, "namespace": "default"}}


def _kinds(any_app):
    assert any_app.test_client().get("/api/v1/namespaces/default").status_code == 200  # start-up has run
    with any_app.app_context():
        svc = services()
        catalog = svc.catalog
        return (
            svc.registry,
            catalog.known_type("", "v1", "configmaps"),
            catalog.known_type("", "v1", "secrets"),
            catalog.known_type("", "v1", "serviceaccounts"),
        )


def _take(feed: ChangeFeed, count: int, timeout: float = 5.0) -> list:
    got: list = []
    deadline = time.monotonic() + timeout
    while len(got) < count and time.monotonic() < deadline:
        got += feed.take(0.1)
    return got


def test_a_feed_gives_the_changes_of_its_kinds_after_it_opens(any_app) -> None:
    registry, configmaps, secrets, accounts = _kinds(any_app)
    registry.create(configmaps, "default", _configmap("before"))
    feed = ChangeFeed(registry, [resource_prefix(configmaps), resource_prefix(secrets)])
    assert feed.lost  # not open yet: the consumer opens, then lists
    feed.open()
    assert not feed.lost
    registry.create(accounts, "default", {"metadata": {"name": "robot", "namespace": "default"}})
    registry.create(configmaps, "default", _configmap("after"))
    registry.create(secrets, "default", _secret("token"))
    changes = _take(feed, 2)
    assert [(c.type, c.key.rsplit("/", 1)[1]) for c in changes + feed.take(0.2)] == [
        ("ADDED", "after"),
        ("ADDED", "token"),
    ]
    feed.close()
    assert feed.lost and feed.take(0.01) == []


def test_a_feed_the_hub_dropped_is_lost_until_opened_again(any_app) -> None:
    registry, configmaps, _, _ = _kinds(any_app)
    feed = ChangeFeed(registry, [resource_prefix(configmaps)])
    feed.open()
    registry.hub.stop()  # as a slow reader's or a stopping server's subscriptions are closed
    assert feed.lost
    registry.hub = type(registry.hub)(registry.storage, poll_interval=0.05)
    feed = ChangeFeed(registry, [resource_prefix(configmaps)])
    feed.open()
    registry.create(configmaps, "default", _configmap("again"))
    assert [c.key.rsplit("/", 1)[1] for c in _take(feed, 1)] == ["again"]
    feed.close()
    registry.hub.stop()


def test_a_follower_is_called_from_the_hub_for_each_change(any_app) -> None:
    registry, configmaps, secrets, _ = _kinds(any_app)
    seen: list[str] = []
    arrived = threading.Event()

    def changed(change) -> None:
        seen.append(change.key.rsplit("/", 1)[1])
        arrived.set()

    follower = Follower(registry, [resource_prefix(secrets)], changed)
    follower.open()
    registry.create(configmaps, "default", _configmap("ignored"))
    registry.create(secrets, "default", _secret("wanted"))
    assert arrived.wait(5.0)
    assert seen == ["wanted"]
    follower.close()
    assert follower.lost
