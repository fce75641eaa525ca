"""Storage behaviour on SQLite and PostgreSQL: revisions, CAS, history, compaction."""

from __future__ import annotations

import logging
import multiprocessing
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import orjson
import pytest
import sqlalchemy as sa
from orch_apiserver.storage.store import KeyExists, KeyNotFound, RevisionCompacted, RevisionMismatch, Storage


def obj(name: str, value: str = "a") -> dict:
    return {"metadata": {"name": name}, "data": {"v": value}}


def in_threads(count: int, work: Callable[[int], object]) -> None:
    """work(0), ..., work(count - 1) on as many threads at once; the first failure is raised here."""
    failures: list[BaseException] = []

    def run(i: int) -> None:
        try:
            work(i)
        except BaseException as exc:  # noqa: BLE001 - raised in the caller below
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        raise failures[0]


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
    mark = storage.compact(now=time.time() + 120)
    assert mark == storage.current_revision()
    with pytest.raises(RevisionCompacted):
        storage.list("/k/", revision=a.rv, limit=1)
    with pytest.raises(RevisionCompacted):
        storage.changes_after(a.rv - 1)
    assert storage.list("/k/").items[0].decode()["data"] == {"v": "2"}


def test_tables_autovacuum_leaves_alone_are_vacuumed_and_analyzed(storage: Storage) -> None:
    if storage.is_sqlite:
        assert storage.vacuum_unattended() == []  # SQLite reuses freed pages itself
        return
    a = storage.create("/k/a", obj("a"))
    storage.update("/k/a", obj("a", "2"), a)
    storage.compact(now=time.time() + 120)  # the change log's old rows deleted: dead until vacuumed
    counts = "SELECT relname, vacuum_count, analyze_count FROM pg_stat_user_tables WHERE relname = 'changes'"
    with storage.engine.connect() as conn:
        conn.execute(sa.text("ALTER TABLE changes SET (autovacuum_enabled = false)"))
        try:
            before = conn.execute(sa.text(counts)).one()
            vacuumed = storage.vacuum_unattended()
            conn.execute(sa.text("SELECT pg_stat_clear_snapshot()"))
            after = conn.execute(sa.text(counts)).one()
            autovacuum = conn.execute(sa.text("SHOW autovacuum")).scalar_one()
        finally:
            conn.execute(sa.text("ALTER TABLE changes RESET (autovacuum_enabled)"))
    # autovacuum off for the whole server (this machine's CI configuration): every table of the store
    assert vacuumed == (["changes"] if autovacuum == "on" else ["changes", "objects", "sequence"])
    assert after.vacuum_count == before.vacuum_count + 1  # the deleted rows' space can be reused
    assert after.analyze_count == before.analyze_count + 1  # and the planner has statistics


def test_the_store_s_postgresql_sessions_never_jit_compile(storage: Storage) -> None:
    # its statements are all short; on tables without statistics the planner's guesses passed jit_above_cost and
    # a watch catch-up spent ~0.5 s compiling for 5 ms of work
    if storage.is_sqlite:
        pytest.skip("PostgreSQL only: SQLite has no JIT")
    with storage.engine.connect() as conn:
        assert conn.execute(sa.text("SHOW jit")).scalar_one() == "off"


def test_concurrent_writers_get_distinct_revisions_in_commit_order(storage: Storage) -> None:
    start = storage.current_revision()

    def writer(i: int) -> None:
        for j in range(10):
            storage.create(f"/k/w{i}-{j}", obj(f"w{i}-{j}"))

    in_threads(4, writer)
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


def test_racing_updates_of_one_object_lose_nothing(storage: Storage) -> None:
    """Compare-and-swap under contention: each update applies to the state it read, or fails; the change
    log holds exactly the successful ones, each with the state it replaced."""
    storage.create("/k/counter", {"metadata": {"name": "counter"}, "data": {"n": "0"}})
    start = storage.current_revision()
    wins: list[int] = []

    def incrementer() -> None:
        done = 0
        while done < 10:
            current = storage.get("/k/counter")
            value = int(current.decode()["data"]["n"])
            try:
                storage.update("/k/counter", {"metadata": {"name": "counter"}, "data": {"n": str(value + 1)}}, current)
            except RevisionMismatch:
                continue
            wins.append(value + 1)
            done += 1

    in_threads(4, lambda _i: incrementer())
    assert sorted(wins) == list(range(1, 41))  # no two updates read the same state
    assert storage.get("/k/counter").decode()["data"]["n"] == "40"
    log = storage.changes_after(start, limit=100)
    assert [c.type for c in log] == ["MODIFIED"] * 40
    assert [int(orjson.loads(c.prev or "{}")["data"]["n"]) for c in log] == list(range(40))
    assert [c.rv for c in log] == sorted(c.rv for c in log)


def test_a_failed_compare_and_swap_writes_nothing(storage: Storage) -> None:
    first = storage.create("/k/cas", obj("cas"))
    second = storage.update("/k/cas", obj("cas", "b"), first)
    before = storage.current_revision()
    with pytest.raises(RevisionMismatch):
        storage.delete("/k/cas", first)
    with pytest.raises(RevisionMismatch):
        storage.update("/k/cas", obj("cas", "c"), first)
    assert storage.current_revision() == before
    assert storage.changes_after(before) == []
    assert storage.get("/k/cas") == second


def test_stored_text_carries_its_revision_whatever_the_data(storage: Storage) -> None:
    tricky = {
        "metadata": {"name": "t", "annotations": {"resourceVersion": "1"}},
        "data": {"text": 'é ü 漢字 \u2028 "resourceVersion":"x" ' + "long " * 200},
    }
    made = storage.create("/k/t", tricky)
    changed = storage.update("/k/t", made.decode(), made)
    gone = storage.delete("/k/t", changed)
    for stored, change in zip((made, changed, gone), storage.changes_after(made.rv - 1), strict=True):
        decoded = orjson.loads(change.data)
        assert decoded["metadata"]["resourceVersion"] == str(stored.rv) == str(change.rv)
        assert decoded["data"] == tricky["data"] and decoded["metadata"]["annotations"] == {"resourceVersion": "1"}
        assert change.data == stored.data  # what the caller got is what was stored


def _write_from_another_process(url: str, tag: str, errors: Any) -> None:
    store = _impatient(url)
    try:
        _write_concurrently(store, tag)
    except Exception as exc:  # noqa: BLE001 - reported to the parent
        errors.put(repr(exc))
    finally:
        store.dispose()


def _impatient(url: str) -> Storage:
    """A store whose SQLite connections never wait for a lock: contention would fail at once. (Checkpoints
    are off: a checkpoint running in the other process may briefly make a new transaction wait, which is
    SQLite's own business and not the writers' queue.)"""
    store = Storage(url)

    @sa.event.listens_for(store.engine, "connect")
    def _no_busy_wait(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.execute("PRAGMA busy_timeout=0")
        dbapi_conn.execute("PRAGMA wal_autocheckpoint=0")

    return store


def _write_concurrently(store: Storage, tag: str) -> None:
    def writer(i: int) -> None:
        for j in range(25):
            made = store.create(f"/k/{tag}-{i}-{j}", obj(f"{tag}-{i}-{j}"))
            store.update(made.key, obj(made.key, "2"), made)

    in_threads(4, writer)


def test_sqlite_writers_queue_instead_of_failing_or_sleeping(sqlite_url: str) -> None:
    """Writers of one SQLite file, threads of two processes, queue for the write lock: with SQLite's busy
    wait turned off, none of them meets a locked database."""
    ctx = multiprocessing.get_context("spawn")  # SQLite state must not cross a fork
    errors = ctx.Queue()
    other = ctx.Process(target=_write_from_another_process, args=(sqlite_url, "p2", errors))
    here = _impatient(sqlite_url)
    start = here.current_revision()
    other.start()
    _write_concurrently(here, "p1")
    other.join(60)
    assert other.exitcode == 0 and errors.empty(), errors.get() if not errors.empty() else other.exitcode
    log = here.changes_after(start, limit=1000)
    assert len(log) == 2 * 4 * 25 * 2 and [c.rv for c in log] == sorted(c.rv for c in log)
    here.dispose()


def test_connections_the_database_dropped_are_replaced_before_use(
    pg_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pooled connection unused for a while is checked before use: after the database ended every
    connection (a restart, an idle timeout in a proxy) the next read still answers."""
    import psycopg
    from orch_apiserver.storage import store as store_module
    from orch_apiserver.storage.notify import conninfo

    monkeypatch.setattr(store_module, "PING_AFTER_IDLE", 0.0)  # every pooled connection counts as idle
    storage = Storage(f"{pg_database}?application_name=orch-ping-test")
    made = storage.create(f"/k/kept-{uuid.uuid4().hex}", obj("kept"))
    with psycopg.connect(conninfo(pg_database), autocommit=True) as admin:
        ended = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'orch-ping-test'"
        ).fetchone()
    assert ended is not None and ended[0] >= 1
    assert storage.get(made.key) == made
    storage.dispose()


def test_a_failing_compaction_is_logged_once_and_counted(storage, monkeypatch, caplog) -> None:
    from orch_apiserver.storage.store import Compactor

    from tests.conftest import wait_for

    outage = True

    def compact() -> int:
        if outage:
            raise sa.exc.OperationalError("DELETE FROM changes", {}, Exception("the database is gone"))
        return 0

    monkeypatch.setattr(storage, "compact", compact)
    compactor = Compactor(storage, interval=0.01)
    caplog.set_level(logging.WARNING, logger="orch_apiserver.storage.store")
    compactor.start()
    try:
        wait_for(lambda: compactor.failures >= 3)
        outage = False
        wait_for(lambda: any("recovered" in r.getMessage() for r in caplog.records))
    finally:
        compactor.stop()
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("compaction")]
    assert len(logged) == 2, logged  # the first failure, then the recovery with the count
    assert "failing" in logged[0] and "the database is gone" in logged[0]
    assert f"recovered after {compactor.failures} failed rounds" in logged[1]
    assert all(r.exc_info is None for r in caplog.records)  # an outage needs no traceback
