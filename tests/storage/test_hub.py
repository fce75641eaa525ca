"""The watch hub: one poller fanning change-log rows out to subscribers, on both stores."""

from __future__ import annotations

import collections
import time

import pytest
from orch_apiserver.storage.hub import WatchHub
from orch_apiserver.storage.store import Change, RevisionCompacted, Storage


@pytest.fixture
def hub(storage: Storage):
    h = WatchHub(storage, poll_interval=0.05, max_queue=5)
    yield h
    h.stop()


def take_until(sub, count: int, timeout: float = 5.0) -> list:
    got: list = []
    deadline = time.monotonic() + timeout
    while len(got) < count and time.monotonic() < deadline:
        got += sub.take(0.1)
    return got


def test_subscriber_gets_backlog_then_live_events_under_its_prefix(storage: Storage, hub: WatchHub) -> None:
    start = storage.current_revision()
    storage.create("/k/ns1/a", {"metadata": {"name": "a"}})
    hub.start()
    sub, backlog = hub.subscribe("/k/ns1/", start)
    assert [c.key for c in backlog] == ["/k/ns1/a"]
    storage.create("/k/ns2/b", {"metadata": {"name": "b"}})
    storage.create("/k/ns1/c", {"metadata": {"name": "c"}})
    events = take_until(sub, 1)
    assert [(c.type, c.key) for c in events] == [("ADDED", "/k/ns1/c")]
    hub.unsubscribe(sub)


def test_writes_from_another_process_are_seen_by_polling(database_url: str, hub: WatchHub) -> None:
    other = Storage(database_url)  # a second "process": its commits do not wake this hub
    hub.start()
    sub, _ = hub.subscribe("/k/", other.current_revision())
    other.create("/k/x", {"metadata": {"name": "x"}})
    assert [c.key for c in take_until(sub, 1)] == ["/k/x"]
    other.dispose()


def test_slow_subscriber_is_cut_off_instead_of_buffering(storage: Storage, hub: WatchHub) -> None:
    hub.start()
    sub, _ = hub.subscribe("/k/", storage.current_revision())
    for i in range(8):
        storage.create(f"/k/{i}", {"metadata": {"name": str(i)}})
    deadline = time.monotonic() + 5
    while not sub.overflowed and time.monotonic() < deadline:
        time.sleep(0.02)
    assert sub.overflowed and len(sub.queue) <= 5


def test_subscribing_from_a_compacted_revision_fails(storage: Storage, hub: WatchHub) -> None:
    first = storage.create("/k/a", {"metadata": {"name": "a"}})
    storage.create("/k/b", {"metadata": {"name": "b"}})
    storage.compact(now=time.time() + 120)
    with pytest.raises(RevisionCompacted):
        hub.subscribe("/k/", first.rv - 1)
    assert hub.subscriber_count == 0


def test_subscribing_from_a_compacted_revision_fails_while_the_hub_lags(database_url: str, storage: Storage) -> None:
    """A hub that has not yet read another process's writes must still refuse a start revision they compacted."""
    lagging = WatchHub(storage, poll_interval=30)
    other = Storage(database_url, history_window=60)  # its commits neither wake nor reach the lagging hub
    try:
        lagging.start()
        start = storage.current_revision()
        other.create("/k/a", {"metadata": {"name": "a"}})
        other.create("/k/b", {"metadata": {"name": "b"}})
        other.compact(now=time.time() + 120)
        with pytest.raises(RevisionCompacted):
            lagging.subscribe("/k/", start)
        assert lagging.subscriber_count == 0
    finally:
        lagging.stop()
        other.dispose()


def test_another_process_write_wakes_the_hub_before_the_poll(pg_database: str) -> None:
    """With PostgreSQL, LISTEN/NOTIFY delivers a remote write long before the (here 30 s) poll."""
    storage = Storage(pg_database)
    slow_poll = WatchHub(storage, poll_interval=30)
    remote = Storage(pg_database)
    remote_hub = WatchHub(remote, poll_interval=30)  # its notifier announces remote's commits
    try:
        slow_poll.start()
        remote_hub.start()
        sub, _ = slow_poll.subscribe("/k/", storage.current_revision())
        assert slow_poll.wait_listening(5)
        remote.create("/k/far", {"metadata": {"name": "far"}})
        assert [c.key for c in take_until(sub, 1, timeout=5)] == ["/k/far"]
    finally:
        remote_hub.stop()
        slow_poll.stop()
        remote.dispose()
        storage.dispose()


def test_one_subscription_over_several_prefixes_gets_each_change_once(storage: Storage, hub: WatchHub) -> None:
    """A consumer that wants pods and nodes asks for exactly that, not for a common prefix it then filters."""
    start = storage.current_revision()
    storage.create("/core/pods/ns1/early", {"metadata": {"name": "early"}})
    hub.start()
    # a prefix covered by another is dropped, so a pod matching both comes once
    sub, backlog = hub.subscribe(["/core/pods/", "/core/nodes/", "/core/pods/ns1/"], start)
    assert sub.prefixes == ("/core/nodes/", "/core/pods/")
    assert [c.key for c in backlog] == ["/core/pods/ns1/early"]
    storage.create("/core/secrets/ns1/s", {"metadata": {"name": "s"}})
    storage.create("/core/nodes/n1", {"metadata": {"name": "n1"}})
    storage.create("/core/pods/ns1/p", {"metadata": {"name": "p"}})
    storage.create("/core/configmaps/ns1/c", {"metadata": {"name": "c"}})
    events = take_until(sub, 2)
    assert [c.key for c in events + sub.take(0.2)] == ["/core/nodes/n1", "/core/pods/ns1/p"]
    hub.unsubscribe(sub)
    storage.create("/core/nodes/n2", {"metadata": {"name": "n2"}})
    assert sub.take(0.2) == []


def test_prefixes_of_a_name_and_of_a_collection_mix(storage: Storage, hub: WatchHub) -> None:
    """A prefix that is not a whole path segment (a name's) is matched by scanning, with the other one."""
    hub.start()
    sub, _ = hub.subscribe(["/k/ns1/web", "/j/"], storage.current_revision())
    for key in ("/k/ns1/web-1", "/k/ns1/db", "/j/x", "/k/ns1/web-2"):
        storage.create(key, {"metadata": {"name": key.rsplit("/", 1)[1]}})
    events = take_until(sub, 3)
    assert [c.key for c in events + sub.take(0.2)] == ["/k/ns1/web-1", "/j/x", "/k/ns1/web-2"]
    hub.unsubscribe(sub)


def test_interleaved_writers_of_two_processes_give_the_exact_history(database_url: str, storage: Storage) -> None:
    """Local writes are handed to the hub as committed; another process's writes come only from the change
    log. Interleaved from threads, a subscriber still gets every change once, in revision order, exactly as
    the log holds it (texts included)."""
    import threading

    other = Storage(database_url)  # a second "process": its commits do not wake this hub
    hub = WatchHub(storage, poll_interval=0.05, max_queue=10_000)
    hub.start()
    start = storage.current_revision()
    sub, _ = hub.subscribe("/mix/", start)

    def write(store: Storage, who: str) -> None:
        for i in range(25):
            made = store.create(f"/mix/{who}-{i}", {"metadata": {"name": f"{who}-{i}"}, "data": {"i": str(i)}})
            store.update(made.key, {"metadata": {"name": f"{who}-{i}"}, "data": {"i": "again"}}, made)

    writers = [threading.Thread(target=write, args=(s, w)) for s, w in ((storage, "here"), (other, "there"))]
    writers.append(threading.Thread(target=write, args=(storage, "here2")))
    for t in writers:
        t.start()
    for t in writers:
        t.join()
    delivered = take_until(sub, 150)
    logged = [c for c in storage.changes_after(start, limit=1000) if c.key.startswith("/mix/")]
    assert len(logged) == 150
    as_seen = [(c.rv, c.key, c.type, c.data, c.prev) for c in delivered]
    assert as_seen == [(c.rv, c.key, c.type, c.data, c.prev) for c in logged]
    hub.stop()
    other.dispose()


def test_a_filtered_subscription_gets_only_what_it_accepts_and_a_failing_filter_delivers(
    storage: Storage, hub: WatchHub
) -> None:
    def accepts(change) -> bool:
        if change.key.endswith("boom"):
            raise ValueError("a filter's bug")
        return change.key.endswith("-wanted") or change.key.endswith("boom")

    start = storage.current_revision()
    storage.create("/f/a-wanted", {"metadata": {"name": "a"}})
    storage.create("/f/b", {"metadata": {"name": "b"}})
    hub.start()
    sub, backlog = hub.subscribe("/f/", start, accepts=accepts)
    assert [c.key for c in backlog] == ["/f/a-wanted"]
    for name in ("c", "d-wanted", "boom", "e-wanted"):
        storage.create(f"/f/{name}", {"metadata": {"name": name}})
    assert [c.key for c in take_until(sub, 3)] == ["/f/d-wanted", "/f/boom", "/f/e-wanted"]
    assert sub.take(0.2) == []


class OfferedWhileChecked(collections.deque):
    """A queue that, just after it is first found empty, has the hub offer it a change (as the hub's thread may
    between a bookmark's two reads)."""

    def __init__(self, on_first_check) -> None:
        super().__init__()
        self.on_first_check = on_first_check

    def __len__(self) -> int:
        length = super().__len__()
        check, self.on_first_check = self.on_first_check, None
        if check is not None:  # just after the check saw it empty
            check()
        return length


def test_a_bookmark_never_passes_a_change_still_queued(storage: Storage, hub: WatchHub) -> None:
    # a bookmark's revision the client resumes from after a restart: past a queued change, that change is lost
    hub.start()
    sub, _ = hub.subscribe("/k/ns1/", storage.current_revision())
    sub.queue = OfferedWhileChecked(lambda: (storage.create("/k/ns1/a", {"metadata": {"name": "a"}}), hub._drain()))
    revision = hub.caught_up_revision(sub)
    queued = sub.take_nowait()
    assert [c.key for c in queued] == ["/k/ns1/a"]
    assert revision is None or revision < queued[0].rv
    assert hub.caught_up_revision(sub) == queued[0].rv
    hub.unsubscribe(sub)


def test_a_bookmark_is_not_below_a_change_taken_while_the_hub_is_part_way_through_a_batch(
    storage: Storage, hub: WatchHub
) -> None:
    # the hub advances its position after offering a whole batch: a reader may take a change of it before that
    hub.start()
    sub, _ = hub.subscribe("/k/ns1/", storage.current_revision())
    mid_batch = Change(hub._last + 2, "/k/ns1/a", "ADDED", '{"metadata":{"name":"a"}}', None)
    sub.offer(mid_batch)  # as the hub's thread does, before it moves its position to the batch's end
    assert sub.take_nowait() == [mid_batch]
    assert hub.caught_up_revision(sub) >= mid_batch.rv
    hub.unsubscribe(sub)
