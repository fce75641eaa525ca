"""The change log as history, on SQLite and PostgreSQL: who wrote, reads at past revisions and times, and
compaction per kind."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from orch_apiserver.storage import store as store_module
from orch_apiserver.storage.history import Attribution, RetentionRule, attributed
from orch_apiserver.storage.models import metadata
from orch_apiserver.storage.store import RevisionCompacted, Storage

LEASES = "/coordination.orch.io/leases/"
DEPLOYMENTS = "/apps/deployments/"


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def storage(database_url: str, clock: Clock):
    store = Storage(database_url, history_window=3600, clock=clock, retention=(RetentionRule("leases", (LEASES,), 60),))
    yield store
    store.dispose()


def doc(name: str, value: str) -> dict:
    return {"metadata": {"name": name, "namespace": "shop"}, "spec": {"v": value}}


def test_the_models_are_what_the_migrations_make(database_url: str) -> None:
    engine = sa.create_engine(database_url)
    try:
        with engine.connect() as conn:
            differences = compare_metadata(MigrationContext.configure(conn), metadata)
    finally:
        engine.dispose()
    assert differences == []


def test_each_change_records_who_made_it_when(storage: Storage, clock: Clock) -> None:
    key = DEPLOYMENTS + "shop/web"
    with attributed(Attribution("alice", "kubectl-client-side-apply", "create")):
        first = storage.create(key, doc("web", "1"))
    clock.now += 10
    with attributed(Attribution("bob", "orchctl-patch", "patch")):
        second = storage.update(key, doc("web", "2"), first)
    clock.now += 10
    storage.delete(key, second)  # nobody said who: recorded as unknown
    revisions, _ = storage.history(key, exact=True)
    assert [(r.type, r.username, r.manager, r.verb) for r in revisions] == [
        ("ADDED", "alice", "kubectl-client-side-apply", "create"),
        ("MODIFIED", "bob", "orchctl-patch", "patch"),
        ("DELETED", "", "", ""),
    ]
    assert [r.time for r in revisions] == [1_000_000.0, 1_000_010.0, 1_000_020.0]


def test_an_enclosing_write_names_the_writer(storage: Storage) -> None:
    with attributed(Attribution("alice", "m", "apply")), attributed(Attribution("system", "x", "create")):
        storage.create(DEPLOYMENTS + "shop/api", doc("api", "1"))
    revisions, _ = storage.history(DEPLOYMENTS + "shop/api", exact=True)
    assert (revisions[0].username, revisions[0].verb) == ("alice", "apply")


def test_an_object_read_at_each_past_revision(storage: Storage) -> None:
    key = DEPLOYMENTS + "shop/web"
    before = storage.current_revision()
    stored = storage.create(key, doc("web", "0"))
    versions = {stored.rv: "0"}
    for i in range(1, 6):
        storage.create(DEPLOYMENTS + f"shop/other-{i}", doc(f"other-{i}", "x"))  # revisions between
        stored = storage.update(key, doc("web", str(i)), stored)
        versions[stored.rv] = str(i)
    gone = storage.delete(key, stored)
    assert storage.get_at(key, before) is None
    for rv, value in versions.items():
        at = storage.get_at(key, rv)
        assert at is not None and at.rv == rv and at.decode()["spec"]["v"] == value
        if rv + 1 < gone.rv:  # the next revision changed another object
            between = storage.get_at(key, rv + 1)
            assert between is not None and between.decode()["spec"]["v"] == value
    assert storage.get_at(key, gone.rv) is None


def test_a_time_names_the_revision_the_store_had_then(storage: Storage, clock: Clock) -> None:
    start = storage.current_revision()
    written = []
    for i in range(3):
        clock.now += 100
        written.append(storage.create(DEPLOYMENTS + f"shop/d{i}", doc(f"d{i}", "x")).rv)
    assert storage.revision_at(clock.now - 250) == start  # before the first of them
    assert storage.revision_at(clock.now - 150) == written[0]
    assert storage.revision_at(clock.now - 50) == written[1]
    assert storage.revision_at(clock.now) == written[2]
    assert storage.revision_at(clock.now + 1000) == storage.current_revision()


def test_leases_are_compacted_sooner_than_deployments(storage: Storage, clock: Clock) -> None:
    deployment = storage.create(DEPLOYMENTS + "shop/web", doc("web", "1"))
    lease = storage.create(LEASES + "shop/holder", doc("holder", "1"))
    old = deployment.rv  # both written; the lease's creation is the newest change past its window below
    clock.now += 70  # past the leases' 60 s, well within the rest's hour
    storage.update(LEASES + "shop/holder", doc("holder", "2"), lease)
    storage.update(DEPLOYMENTS + "shop/web", doc("web", "2"), deployment)
    storage.compact()
    with pytest.raises(RevisionCompacted):
        storage.list(LEASES, revision=old)
    with pytest.raises(RevisionCompacted):
        storage.get_at(LEASES + "shop/holder", old)
    with pytest.raises(RevisionCompacted):
        storage.check_retained((LEASES,), old)
    at_old = storage.list(DEPLOYMENTS, revision=old)
    assert [s.decode()["spec"]["v"] for s in at_old.items] == ["1"]
    storage.check_retained((DEPLOYMENTS,), old - 1)  # a deployments watch from there still works
    assert [c.type for c in storage.changes_after(old - 1) if c.key.startswith(DEPLOYMENTS)] == ["ADDED", "MODIFIED"]
    leases, mark = storage.history(LEASES + "shop/holder", exact=True)
    assert [r.type for r in leases] == ["MODIFIED"] and mark == lease.rv
    clock.now += 3601  # now the rest's window passes too
    floor = storage.compact()
    with pytest.raises(RevisionCompacted):
        storage.list(DEPLOYMENTS, revision=old)
    assert floor >= lease.rv


def test_a_time_before_the_kept_history_is_refused_not_answered_with_a_later_state(
    storage: Storage, clock: Clock
) -> None:
    before = clock.now
    clock.now += 5
    lease = storage.create(LEASES + "shop/holder", doc("holder", "1"))
    assert storage.revision_at(before, LEASES) == lease.rv - 1  # nothing compacted yet: every time is answered
    clock.now += 20
    deployment = storage.create(DEPLOYMENTS + "shop/web", doc("web", "1"))
    clock.now += 50
    storage.update(LEASES + "shop/holder", doc("holder", "2"), lease)
    storage.compact()  # the lease's creation is past the leases' 60 s: gone
    clock.now += 30
    # before it the lease did not exist, but the log no longer shows that: 410, not "holder 1"
    with pytest.raises(RevisionCompacted):
        storage.revision_at(before, LEASES + "shop/holder")
    with pytest.raises(RevisionCompacted):
        storage.revision_at(before, LEASES)
    # a kept change above the mark and older than the time (the deployment) proves nothing after it is gone
    after_deployment = clock.now - 75
    assert storage.revision_at(after_deployment, LEASES) == deployment.rv
    assert storage.get_at(LEASES + "shop/holder", deployment.rv).decode()["spec"]["v"] == "1"
    assert storage.revision_at(clock.now - 30, LEASES) == storage.current_revision()  # within the 60 s
    assert storage.revision_at(before, DEPLOYMENTS) == deployment.rv - 1  # the rest keeps an hour


def test_compaction_runs_in_bounded_batches(storage: Storage, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "COMPACT_BATCH", 3)
    for i in range(20):
        storage.create(DEPLOYMENTS + f"shop/d{i:02}", doc(f"d{i}", "x"))
        storage.create(LEASES + f"shop/l{i:02}", doc(f"l{i}", "x"))
    newest = storage.current_revision()
    clock.now += 7200
    storage.create(DEPLOYMENTS + "shop/late", doc("late", "x"))
    assert storage.compact() == newest
    assert [c.key for c in storage.changes_after(newest)] == [DEPLOYMENTS + "shop/late"]
    engine = sa.create_engine(storage.url)
    try:
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT count(*) FROM changes")).scalar_one() == 1
    finally:
        engine.dispose()


def test_without_rules_compaction_is_as_before(database_url: str) -> None:
    store = Storage(database_url, history_window=60)
    try:
        store.create(DEPLOYMENTS + "shop/a", doc("a", "1"))
        newest = store.current_revision()
        assert store.compact(now=time.time() + 120) == newest
        assert store.compacted_revision() == newest
        assert store.compacted_revision(LEASES) == newest
    finally:
        store.dispose()


@pytest.mark.parametrize("scan_below", [0, 1_000_000])  # the skip scan of changes(key, rv), and the log scan
def test_a_past_list_pages_the_same_either_way(
    storage: Storage, monkeypatch: pytest.MonkeyPatch, scan_below: int
) -> None:
    monkeypatch.setattr(store_module, "SCAN_BELOW", scan_below)
    written = {}
    for i in range(6):
        written[i] = storage.create(DEPLOYMENTS + f"shop/d{i}", doc(f"d{i}", "old"))
    storage.create(DEPLOYMENTS + "other/x", doc("x", "old"))  # another namespace: outside the range
    then = storage.current_revision()
    for i in (0, 2, 3):
        storage.update(DEPLOYMENTS + f"shop/d{i}", doc(f"d{i}", "new"), written[i])
    storage.delete(DEPLOYMENTS + "shop/d4", written[4])
    storage.create(DEPLOYMENTS + "shop/d9", doc("d9", "new"))
    seen, start, remaining = [], None, []
    while True:
        page = storage.list(DEPLOYMENTS + "shop/", revision=then, start_after=start, limit=2, count_remaining=True)
        seen += [(s.key.rsplit("/", 1)[1], s.decode()["spec"]["v"]) for s in page.items]
        remaining.append(page.remaining)
        if not page.more:
            break
        start = page.items[-1].key
    assert seen == [(f"d{i}", "old") for i in range(6)]
    assert remaining == ([4, 2, None] if scan_below else [None, None, None])  # far back: not counted
