"""PUT and PATCH start from the watch hub's memory of the object instead of reading it from the store (one round
trip less per write). The memory may be behind the store, as when another server process wrote last and this
one's hub has not read that change yet: clients must see no difference, on both stores."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from orch_apiserver.registry.keys import object_key
from orch_apiserver.storage.store import Storage

from tests.conftest import _shutdown, admin_app

CM = "/api/v1/namespaces/default/configmaps"


@pytest.fixture
def stale(database_url: str, tmp_path: Path) -> Iterator[tuple]:
    """A test client of a server whose hub remembers configmap `c` at {"a": "1"}, while another process (a bare
    store: its commits neither notify nor reach that hub before its 30 s poll) has since written {"a": "2"}."""
    app = admin_app(database_url, tmp_path, WATCH_POLL_INTERVAL=30)
    client = app.test_client()
    other = Storage(database_url)
    try:
        made = client.post(CM, json={"metadata": {"name": "c"}, "data": {"a": "1"}})
        assert made.status_code == 201
        svc = app.extensions["orch"]
        key = object_key(svc.registry.catalog.known_type("", "v1", "configmaps"), "default", "c")
        deadline = time.monotonic() + 10
        while svc.hub.remembered(key) is None and time.monotonic() < deadline:
            time.sleep(0.02)
        remembered = svc.hub.remembered(key)
        assert remembered is not None, "the hub never remembered the create"
        current = other.get(key)
        other.update(key, {**current.decode(), "data": {"a": "2"}}, current)
        assert svc.hub.remembered(key).rv == remembered.rv  # the hub is behind the store
        yield client, made.get_json()["metadata"]["resourceVersion"]
    finally:
        other.dispose()
        _shutdown(app)


def test_a_put_conditional_on_the_stored_revision_succeeds(stale) -> None:
    client, _ = stale
    fresh = client.get(f"{CM}/c").get_json()
    assert fresh["data"] == {"a": "2"}
    fresh["data"]["b"] = "3"
    put = client.put(f"{CM}/c", json=fresh)
    assert put.status_code == 200, put.get_json()
    assert client.get(f"{CM}/c").get_json()["data"] == {"a": "2", "b": "3"}


def test_a_put_conditional_on_the_remembered_revision_is_a_conflict(stale) -> None:
    client, first_revision = stale
    put = client.put(f"{CM}/c", json={"metadata": {"name": "c", "resourceVersion": first_revision}, "data": {"a": "9"}})
    assert put.status_code == 409 and put.get_json()["reason"] == "Conflict"
    assert client.get(f"{CM}/c").get_json()["data"] == {"a": "2"}


def test_a_patch_that_changes_nothing_in_memory_is_still_written(stale) -> None:
    client, first_revision = stale
    patched = client.patch(
        f"{CM}/c", data='{"data":{"a":"1"}}', headers={"Content-Type": "application/merge-patch+json"}
    )
    assert patched.status_code == 200
    assert patched.get_json()["data"] == {"a": "1"}
    stored = client.get(f"{CM}/c").get_json()
    assert stored["data"] == {"a": "1"} and stored["metadata"]["resourceVersion"] != first_revision


def test_an_unconditional_patch_applies_to_the_stored_object(stale) -> None:
    client, _ = stale
    patched = client.patch(
        f"{CM}/c", data='{"data":{"b":"3"}}', headers={"Content-Type": "application/merge-patch+json"}
    )
    assert patched.status_code == 200 and patched.get_json()["data"] == {"a": "2", "b": "3"}


def test_a_dry_run_answers_from_the_stored_object(stale) -> None:
    client, _ = stale
    dry = client.patch(
        f"{CM}/c?dryRun=All", data='{"data":{"b":"3"}}', headers={"Content-Type": "application/merge-patch+json"}
    )
    assert dry.status_code == 200 and dry.get_json()["data"] == {"a": "2", "b": "3"}
    assert client.get(f"{CM}/c").get_json()["data"] == {"a": "2"}
