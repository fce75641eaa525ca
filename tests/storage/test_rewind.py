"""The store going back in time (a failover to a standby that lagged, a restore of an older copy): revisions never
repeat and never go backwards, reads from before answer 410, every subscription ends as gone (issue 55)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from orch_apiserver.storage.hub import WatchHub
from orch_apiserver.storage.store import REWIND_MARGIN, RevisionCompacted, Storage, StoreWentBack

from tests.storage.going_back import go_back, keep


def _write(storage: Storage, name: str) -> int:
    return storage.create(f"/things/{name}", {"metadata": {"name": name}}).rv


def _handed_out_then_lost(storage: Storage, tmp_path: Path, seen_by: Storage | None = None) -> int:
    """Writes, a copy, more writes (acknowledged; once `seen_by` has read them), then the store back at the copy:
    the highest revision handed out."""
    for i in range(3):
        _write(storage, f"kept-{i}")
    kept = keep(storage.url, tmp_path)
    handed_out = max(_write(storage, f"lost-{i}") for i in range(5))
    if seen_by is not None:
        _until(lambda: seen_by.seen >= handed_out)  # its hub read them
    go_back(kept)
    return handed_out


def test_a_write_after_the_store_went_back_is_refused_and_revisions_continue_past_everything(
    storage: Storage, tmp_path: Path
) -> None:
    handed_out = _handed_out_then_lost(storage, tmp_path)
    with pytest.raises(StoreWentBack):  # the write in flight: its revision may have been handed out already
        _write(storage, "first-after")
    after = _write(storage, "second-after")
    assert after > handed_out + REWIND_MARGIN
    assert storage.current_revision() >= after
    assert storage.list("/things/").revision >= after
    assert {s.key for s in storage.list("/things/").items} == {
        "/things/kept-0",
        "/things/kept-1",
        "/things/kept-2",
        "/things/second-after",
    }


def test_reads_from_before_the_jump_answer_410(storage: Storage, tmp_path: Path) -> None:
    before = _write(storage, "early")
    handed_out = _handed_out_then_lost(storage, tmp_path)
    with pytest.raises(StoreWentBack):
        storage.current_revision()  # a reader finds it too
    assert storage.current_revision() > handed_out
    for old in (before, handed_out):
        with pytest.raises(RevisionCompacted):
            storage.list("/things/", revision=old)
        with pytest.raises(RevisionCompacted):
            storage.changes_after(old)
    assert storage.changes_after(storage.current_revision()) == []


def test_a_store_behind_an_update_is_found_too(storage: Storage, tmp_path: Path) -> None:
    made = storage.create("/things/a", {"metadata": {"name": "a"}})
    kept = keep(storage.url, tmp_path)
    updated = storage.update(made.key, {"metadata": {"name": "a"}, "spec": 1}, made)
    go_back(kept)
    with pytest.raises(StoreWentBack):  # not a conflict: the counter is behind
        storage.update(made.key, {"metadata": {"name": "a"}, "spec": 2}, made)
    again = storage.update(made.key, {"metadata": {"name": "a"}, "spec": 2}, made)
    assert again.rv > updated.rv + REWIND_MARGIN


def test_every_subscription_ends_gone_and_the_hub_follows_the_new_revisions(storage: Storage, tmp_path: Path) -> None:
    hub = WatchHub(storage, poll_interval=0.05)
    hub.start()
    try:
        sub, _ = hub.subscribe("/things/", storage.current_revision())
        handed_out = _handed_out_then_lost(storage, tmp_path)
        assert [c.rv for c in _take(sub, 5)][-1] == handed_out
        with contextlib.suppress(StoreWentBack):  # unless the hub's own poll found it first
            _write(storage, "found-it")
        _until(lambda: sub.gone is not None)
        assert sub.closed and sub.gone > handed_out
        with pytest.raises(RevisionCompacted):  # a watch resuming from before the jump re-lists
            hub.subscribe("/things/", handed_out)
        fresh, backlog = hub.subscribe("/things/", storage.current_revision())
        assert backlog == []
        written = _write(storage, "after")
        assert [c.rv for c in _take(fresh, 1)] == [written]
        assert hub.remembered("/things/lost-0") is None  # the hub forgot the lost changes
    finally:
        hub.stop()


def test_another_server_on_the_database_follows_the_first_one_s_jump(
    database_url: str, storage: Storage, tmp_path: Path
) -> None:
    other = Storage(database_url, history_window=60)
    other_hub = WatchHub(other, poll_interval=0.05)
    other_hub.start()
    try:
        sub, _ = other_hub.subscribe("/things/", other.current_revision())
        handed_out = _handed_out_then_lost(storage, tmp_path, seen_by=other)
        with contextlib.suppress(StoreWentBack):  # whichever finds it first moves the counter on, the other follows
            _write(storage, "first-after")
        _until(lambda: sub.gone is not None)  # the other's hub ends its watches
        revisions = [_write(other, "from-the-other"), _write(storage, "from-the-first")]
        assert all(handed_out + REWIND_MARGIN < rv < handed_out + 2 * REWIND_MARGIN for rv in revisions), (
            handed_out,
            revisions,
        )
    finally:
        other_hub.stop()
        other.dispose()


def test_a_create_refused_while_another_server_moves_the_counter_on_is_a_store_gone_back(
    database_url: str, storage: Storage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race the async-failover test met once: a create's statement finds the counter behind, and before it looks
    at why, another server moves the counter on. That create is a StoreWentBack (503, retried), not KeyNotFound."""
    if storage.is_sqlite:
        pytest.skip("PostgreSQL only: SQLite takes a create's revision in a statement of its own, with no such window")
    handed_out = _handed_out_then_lost(storage, tmp_path)
    other = Storage(database_url, history_window=60)
    why_not = storage._why_not

    def the_other_moves_first(*args):  # between the refused statement and the look at why
        other.mark_went_back(handed_out)
        return why_not(*args)

    monkeypatch.setattr(storage, "_why_not", the_other_moves_first)
    try:
        with pytest.raises(StoreWentBack):
            _write(storage, "in-flight")
    finally:
        other.dispose()
    monkeypatch.undo()
    assert _write(storage, "after") > handed_out + REWIND_MARGIN


def test_mark_went_back_moves_past_what_was_handed_out(storage: Storage) -> None:
    """What a restore calls: no running server may have seen the newer revisions."""
    early = _write(storage, "a")
    moved_to = storage.mark_went_back(handed_out=early + 50)
    assert moved_to == early + 50 + REWIND_MARGIN
    assert _write(storage, "b") == moved_to + 1
    with pytest.raises(RevisionCompacted):
        storage.list("/things/", revision=early)
    assert storage.changes_after(moved_to) != []


def _take(sub, count: int) -> list:
    got: list = []
    _until(lambda: (got.extend(sub.take(0.05)), len(got) >= count)[1])
    return got


def _until(check, timeout: float = 10.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.02)
