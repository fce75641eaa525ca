"""The hub's memory of its newest changes: a subscription resuming from a recent revision (every watch after a
restart) gets exactly the backlog the change log holds, without reading the log, on both stores."""

from __future__ import annotations

import time

import pytest
from orch_apiserver.storage.hub import WatchHub
from orch_apiserver.storage.store import RevisionCompacted, Storage

from .test_hub_index import by_color, names


def write_history(storage: Storage, count: int, first: int = 0) -> None:
    """Creates, moves between colors and deletes under two collections."""
    for i in range(first, first + count):
        color = ("red", "green", "blue")[i % 3]
        key = f"/k/o{i}"
        made = storage.create(key, {"metadata": {"name": f"o{i}"}, "color": color})
        storage.create(f"/other/o{i}", {"metadata": {"name": f"o{i}"}, "color": "red"})
        if i % 2:
            moved = storage.update(key, {**made.decode(), "color": "red"}, made)
            if i % 4 == 1:
                storage.delete(key, moved)


def backlog(hub: WatchHub, after: int, **kw) -> list[tuple[int, str, str, str]]:
    sub, changes = hub.subscribe("/k/", after, **kw)
    hub.unsubscribe(sub)
    return [(c.rv, c.type, c.key, c.data) for c in changes]


@pytest.fixture
def hubs(storage: Storage):
    started: list[WatchHub] = []

    def make(**kw) -> WatchHub:
        hub = WatchHub(storage, poll_interval=0.05, **kw)
        started.append(hub)
        hub.start()
        return hub

    yield make
    for hub in started:
        hub.stop()


def test_a_restarted_hub_resumes_subscriptions_from_memory_as_the_log_would(storage: Storage, hubs) -> None:
    start = storage.current_revision()
    write_history(storage, 12)
    middle = storage.current_revision()
    remembering, reading = hubs(), hubs(recent_bytes=0)  # started after those writes, as after a restart
    write_history(storage, 6, first=12)  # and live ones, dispatched by both
    deadline = time.monotonic() + 5
    while min(remembering._last, reading._last) < storage.current_revision() and time.monotonic() < deadline:
        time.sleep(0.02)
    for after in (start, middle, storage.current_revision() - 3):
        for kw in ({}, {"index": by_color("red")}, {"index": by_color("blue")}):
            assert backlog(remembering, after, **kw) == backlog(reading, after, **kw), (after, kw)
    red = names(remembering.subscribe("/k/", start, index=by_color("red"))[1])
    assert ("ADDED", "o0") in red and ("ADDED", "o1") not in red and ("MODIFIED", "o1") in red  # o1: green, then red


def test_resuming_from_memory_reads_no_history_from_the_log(storage: Storage, hubs, monkeypatch) -> None:
    start = storage.current_revision()
    write_history(storage, 20)
    hub = hubs()
    rows_read: list[int] = []
    real = storage.changes_after

    def counted(*args, **kw):
        rows = real(*args, **kw)
        rows_read.append(len(rows))
        return rows

    monkeypatch.setattr(storage, "changes_after", counted)
    assert len(backlog(hub, start, index=by_color("green"))) == 11  # 7 green creates, 4 of them moved to red
    assert sum(rows_read) <= 1  # the one row that proves the start revision is not compacted


def test_past_the_memory_budget_the_backlog_comes_from_the_log(storage: Storage, hubs) -> None:
    start = storage.current_revision()
    write_history(storage, 12)
    small = hubs(recent_bytes=2_000)  # a few changes' worth
    assert 0 < len(small._recent) < 10
    assert backlog(small, start) == backlog(hubs(recent_bytes=0), start)


def test_a_compacted_revision_is_refused_though_memory_still_has_it(storage: Storage, hubs) -> None:
    start = storage.current_revision()
    write_history(storage, 3)
    hub = hubs()
    storage.compact(now=time.time() + 120)  # the history window is 60 s
    with pytest.raises(RevisionCompacted):
        hub.subscribe("/k/", start)


def test_the_hub_remembers_each_objects_newest_state_until_it_forgets_the_change(storage: Storage, hubs) -> None:
    hub = hubs(recent_bytes=3_000)  # a few changes' worth
    made = storage.create("/k/a", {"metadata": {"name": "a"}, "n": 1})
    changed = storage.update("/k/a", {"metadata": {"name": "a"}, "n": 2}, made)
    gone = storage.create("/k/b", {"metadata": {"name": "b"}})
    storage.delete("/k/b", gone)
    deadline = time.monotonic() + 5
    while hub._last < storage.current_revision() and time.monotonic() < deadline:
        time.sleep(0.02)
    remembered = hub.remembered("/k/a")
    assert remembered is not None and (remembered.rv, remembered.data) == (changed.rv, storage.get("/k/a").data)
    assert hub.remembered("/k/b") is None  # deleted: the store is asked
    for i in range(8):  # past the budget: /k/a's change is dropped, and its state with it
        storage.create(f"/k/c{i}", {"metadata": {"name": f"c{i}"}, "pad": "x" * 300})
    while hub._last < storage.current_revision() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert hub.remembered("/k/a") is None
    assert hub.remembered("/k/c7") is not None
