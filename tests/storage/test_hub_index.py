"""The hub's index: a subscription selecting one value of a field is offered only the changes whose old or new
object has that value (on both stores)."""

from __future__ import annotations

import json

import pytest
from orch_apiserver.storage.hub import Index, WatchHub
from orch_apiserver.storage.store import Change, Storage

from .test_hub import take_until


@pytest.fixture
def hub(storage: Storage):
    h = WatchHub(storage, poll_interval=0.05)
    yield h
    h.stop()


def colors(change: Change) -> set[str]:
    """The change's old and new `color` (what a kind's index field getter gives)."""
    found = {json.loads(change.data).get("color", "")}
    if change.prev is not None:
        found.add(json.loads(change.prev).get("color", ""))
    return found


def by_color(color: str) -> Index:
    return Index("color", color, colors)


def names(changes: list[Change]) -> list[tuple[str, str]]:
    return [(c.type, c.key.rsplit("/", 1)[1]) for c in changes]


def test_an_indexed_subscription_gets_the_changes_whose_old_or_new_value_it_selects(
    storage: Storage, hub: WatchHub
) -> None:
    hub.start()
    start = storage.current_revision()
    red, _ = hub.subscribe("/k/", start, index=by_color("red"))
    blue, _ = hub.subscribe("/k/", start, index=by_color("blue"))
    everything, _ = hub.subscribe("/k/", start)
    storage.create("/k/a", {"metadata": {"name": "a"}, "color": "red"})
    storage.create("/k/b", {"metadata": {"name": "b"}, "color": "green"})
    stored = storage.get("/k/a")
    assert stored is not None
    moved = storage.update("/k/a", {**stored.decode(), "color": "blue"}, stored)  # leaves red, enters blue
    storage.delete("/k/a", moved)
    assert names(take_until(everything, 4)) == [("ADDED", "a"), ("ADDED", "b"), ("MODIFIED", "a"), ("DELETED", "a")]
    assert names(take_until(blue, 2)) == [("MODIFIED", "a"), ("DELETED", "a")]
    assert names(take_until(red, 2)) == [("ADDED", "a"), ("MODIFIED", "a")]  # the move is its leaving
    assert red.take(0.2) == [] and blue.take(0.2) == []  # green's create reached neither


def test_the_backlog_of_an_indexed_subscription_is_indexed_too(storage: Storage, hub: WatchHub) -> None:
    start = storage.current_revision()
    storage.create("/k/a", {"metadata": {"name": "a"}, "color": "red"})
    storage.create("/k/b", {"metadata": {"name": "b"}, "color": "green"})
    hub.start()
    _sub, backlog = hub.subscribe("/k/", start, index=by_color("green"))
    assert names(backlog) == [("ADDED", "b")]


def test_a_failing_index_offers_the_change_rather_than_losing_it(storage: Storage, hub: WatchHub) -> None:
    def broken(change: Change) -> set[str]:
        raise ValueError("no such field")

    hub.start()
    sub, _ = hub.subscribe("/k/", storage.current_revision(), index=Index("color", "red", broken))
    storage.create("/k/a", {"metadata": {"name": "a"}})
    assert names(take_until(sub, 1)) == [("ADDED", "a")]


def test_unsubscribing_the_last_of_a_value_forgets_it(storage: Storage, hub: WatchHub) -> None:
    hub.start()
    start = storage.current_revision()
    first, _ = hub.subscribe("/k/", start, index=by_color("red"))
    second, _ = hub.subscribe("/k/", start, index=by_color("red"))
    hub.unsubscribe(first)
    storage.create("/k/a", {"metadata": {"name": "a"}, "color": "red"})
    assert names(take_until(second, 1)) == [("ADDED", "a")]
    assert first.take(0.1) == []
    hub.unsubscribe(second)
    assert hub.subscriber_count == 0 and not hub._by_prefix  # nothing left behind for this prefix
