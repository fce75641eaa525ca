"""Storage behaviour on SQLite and PostgreSQL: revisions, CAS, history, compaction."""
from __future__ import annotations

import threading

import pytest

from app.storage.store import (
    KeyExists,
    KeyNotFound,
    RevisionCompacted,
    RevisionMismatch,
    Storage,
)


@pytest.fixture
def storage(database_url: str):
    store = Storage(database_url, history_window=60)
    yield store
    store.dispose()


def obj(name: str, value: str = "a") -> dict:
    return {"metadata": {"name": name}, "data": {"v": value}}


def test_create_assigns_increasing_revisions_and_embeds_them(storage: Storage) -> None:
    start = storage.current_revision()
    a = storage.create("/core/configmaps/ns/a", obj("a"))
    b = storage.create("/core/configmaps/ns/b", obj("b"))
    assert a.rv == start + 1 and b.rv == start + 2
    assert storage.get("/core/configmaps/ns/a").decode()["metadata"]["resourceVersion"] == str(a.rv)
    assert storage.current_revision() == b.rv


def test_create_of_existing_key_fails_without_using_a_revision(storage: Storage) -> None:
    storage.create("/core/configmaps/ns/a", obj("a"))
    before = storage.current_revision()
    with pytest.raises(KeyExists):
        storage.create("/core/configmaps/ns/a", obj("a"))
    assert storage.current_revision() == before
    assert len(storage.changes_after(before - 1)) == 1


def test_update_is_compare_and_swap(storage: Storage) -> None:
    first = storage.create("/k/x", obj("x"))
    second = storage.update("/k/x", obj("x", "b"), first)
    with pytest.raises(RevisionMismatch):
        storage.update("/k/x", obj("x", "c"), first)
    assert storage.get("/k/x").decode()["data"] == {"v": "b"}
    storage.delete("/k/x", second)
    with pytest.raises(KeyNotFound):
        storage.update("/k/x", obj("x", "d"), second)


def test_change_log_records_every_write_with_previous_state(storage: Storage) -> None:
    start = storage.current_revision()
    a = storage.create("/k/a", obj("a"))
    a2 = storage.update("/k/a", obj("a", "2"), a)
    gone = storage.delete("/k/a", a2)
    log = storage.changes_after(start)
    assert [(c.type, c.rv) for c in log] == [("ADDED", a.rv), ("MODIFIED", a2.rv), ("DELETED", gone.rv)]
    assert log[1].prev == a.data
    assert f'"resourceVersion":"{gone.rv}"' in log[2].data
    assert storage.get("/k/a") is None


def test_list_is_in_key_order_and_scoped_by_prefix(storage: Storage) -> None:
    for name in ["b", "a", "c"]:
        storage.create(f"/core/configmaps/ns1/{name}", obj(name))
    storage.create("/core/configmaps/ns2/a", obj("a"))
    storage.create("/core/configmaps2/ns1/z", obj("z"))
    page = storage.list("/core/configmaps/ns1/")
    assert [s.key.rsplit("/", 1)[1] for s in page.items] == ["a", "b", "c"]
    assert len(storage.list("/core/configmaps/").items) == 4


def test_paged_list_at_an_old_revision_shows_the_snapshot(storage: Storage) -> None:
    stored = {n: storage.create(f"/k/{n}", obj(n)) for n in "abcde"}
    snapshot = storage.current_revision()
    storage.update("/k/b", obj("b", "changed"), stored["b"])
    storage.delete("/k/c", stored["c"])
    storage.create("/k/bb", obj("bb"))
    first = storage.list("/k/", revision=snapshot, limit=2, count_remaining=True)
    assert [s.key for s in first.items] == ["/k/a", "/k/b"] and first.more and first.remaining == 3
    assert first.items[1].decode()["data"] == {"v": "a"}
    rest = storage.list("/k/", revision=snapshot, start_after="/k/b", limit=10)
    assert [s.key for s in rest.items] == ["/k/c", "/k/d", "/k/e"] and not rest.more
    newest = storage.list("/k/")
    assert [s.key for s in newest.items] == ["/k/a", "/k/b", "/k/bb", "/k/d", "/k/e"]


def test_compaction_drops_old_history_and_old_revisions_are_gone(storage: Storage) -> None:
    a = storage.create("/k/a", obj("a"))
    storage.update("/k/a", obj("a", "2"), a)
    import time

    mark = storage.compact(now=time.time() + 120)
    assert mark == storage.current_revision()
    with pytest.raises(RevisionCompacted):
        storage.list("/k/", revision=a.rv, limit=1)
    with pytest.raises(RevisionCompacted):
        storage.changes_after(a.rv - 1)
    assert storage.list("/k/").items[0].decode()["data"] == {"v": "2"}


def test_concurrent_writers_get_distinct_revisions_in_commit_order(storage: Storage) -> None:
    start = storage.current_revision()
    errors: list[BaseException] = []

    def writer(i: int) -> None:
        try:
            for j in range(10):
                storage.create(f"/k/w{i}-{j}", obj(f"w{i}-{j}"))
        except Exception as exc:  # noqa: BLE001 - surfaced by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    log = storage.changes_after(start, limit=100)
    assert [c.rv for c in log] == list(range(start + 1, start + 41))


def test_delete_many_is_one_transaction_that_skips_what_changed_meanwhile(storage: Storage) -> None:
    a, b, c = (storage.create(f"/k/many-{n}", obj(n)) for n in "abc")
    b2 = storage.update("/k/many-b", obj("b", "2"), b)  # read as b, changed since: left alone
    start = storage.current_revision()
    deleted = storage.delete_many([a, b, c])
    assert [d.key for d in deleted] == ["/k/many-a", "/k/many-c"]
    assert [d.rv for d in deleted] == [start + 1, start + 2]  # a revision each, no gaps
    assert storage.get("/k/many-a") is None and storage.get("/k/many-c") is None
    assert storage.get("/k/many-b").rv == b2.rv
    events = storage.changes_after(start)
    assert [(e.type, e.key) for e in events] == [("DELETED", "/k/many-a"), ("DELETED", "/k/many-c")]
    assert events[0].prev == a.data  # watchers see the last state, as with delete()
