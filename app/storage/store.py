"""Storage: keys, revisions and JSON text over SQLAlchemy (SQLite or PostgreSQL).

Every write is one short transaction: take the next revision from the sequence row (which
serialises writers, so commit order equals revision order), compare-and-swap the current-state
row, append to the change log, commit.
"""
from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from app.background import BackgroundThread
from app.storage.models import changes, objects, sequence


class StorageError(Exception):
    pass


class KeyExists(StorageError):
    pass


class KeyNotFound(StorageError):
    pass


class RevisionMismatch(StorageError):
    """The object changed since it was read (compare-and-swap failed)."""


class RevisionCompacted(StorageError):
    def __init__(self, requested: int, compacted: int):
        super().__init__(f"revision {requested} is older than the kept history ({compacted})")
        self.requested = requested
        self.compacted = compacted


@dataclass(frozen=True)
class Stored:
    key: str
    rv: int
    data: str  # JSON text with metadata.resourceVersion already set

    def decode(self) -> dict:
        return orjson.loads(self.data)


@dataclass(frozen=True)
class Change:
    rv: int
    key: str
    type: str  # ADDED, MODIFIED, DELETED
    data: str
    prev: str | None
    #: encodings of this change made by its readers, shared by all of them (watch frames, by framing)
    encoded: dict = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class Page:
    items: list[Stored]
    revision: int
    more: bool
    remaining: int | None


def prefix_end(prefix: str) -> str:
    """The smallest string greater than every string starting with prefix."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


def encode_with_revision(obj: dict, rv: int) -> str:
    obj.setdefault("metadata", {})["resourceVersion"] = str(rv)
    return orjson.dumps(obj).decode()


class Storage:
    def __init__(self, url: str, history_window: float = 300.0, clock: Callable[[], float] = time.time):
        self.url = url
        self.history_window = history_window
        self.clock = clock
        self.is_sqlite = url.startswith("sqlite")
        self.engine = self._make_engine(url)
        self._listeners: list[Callable[[int], None]] = []

    # -- engine and transactions -------------------------------------------------------------

    def _make_engine(self, url: str) -> Engine:
        if not self.is_sqlite:
            return sa.create_engine(url, pool_size=10, max_overflow=40, pool_pre_ping=True)
        engine = sa.create_engine(url, connect_args={"check_same_thread": False, "timeout": 30},
                                  pool_size=10, max_overflow=40)

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # we issue BEGIN ourselves (IMMEDIATE for writes)
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        return engine

    @contextlib.contextmanager
    def _tx(self, write: bool) -> Iterator[Connection]:
        """A transaction: a consistent snapshot for reads, serialised for writes on SQLite."""
        if self.is_sqlite:
            with self.engine.connect() as conn:
                conn = conn.execution_options(isolation_level="AUTOCOMMIT")
                conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
                try:
                    yield conn
                except BaseException:
                    conn.exec_driver_sql("ROLLBACK")
                    raise
                conn.exec_driver_sql("COMMIT")
            return
        level = "READ COMMITTED" if write else "REPEATABLE READ"
        with self.engine.connect() as conn:
            conn = conn.execution_options(isolation_level=level)
            with conn.begin():
                yield conn

    def on_commit(self, listener: Callable[[int], None]) -> None:
        """Call listener(revision) after each local write commits (wakes the watch hub)."""
        self._listeners.append(listener)

    def _committed(self, rv: int) -> None:
        for listener in self._listeners:
            listener(rv)

    def dispose(self) -> None:
        self.engine.dispose()

    # -- reads ---------------------------------------------------------------------------------

    def ping(self) -> None:
        with self.engine.connect() as conn:
            conn.execute(sa.select(sequence.c.rv)).scalar_one()

    def current_revision(self) -> int:
        with self.engine.connect() as conn:
            return conn.execute(sa.select(sequence.c.rv)).scalar_one()

    def compacted_revision(self) -> int:
        with self.engine.connect() as conn:
            return conn.execute(sa.select(sequence.c.compacted)).scalar_one()

    def get(self, key: str) -> Stored | None:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(objects.c.rv, objects.c.data).where(objects.c.key == key)).first()
        return Stored(key, row.rv, row.data) if row else None

    def get_at(self, key: str, revision: int) -> Stored | None:
        """The object as it was at `revision`."""
        with self._tx(write=False) as conn:
            self._check_available(conn, revision)
            row = conn.execute(sa.select(objects.c.rv, objects.c.data).where(objects.c.key == key)).first()
            if row and row.rv <= revision:
                return Stored(key, row.rv, row.data)
            first = conn.execute(
                sa.select(changes.c.type, changes.c.prev)
                .where(changes.c.key == key, changes.c.rv > revision)
                .order_by(changes.c.rv).limit(1)
            ).first()
        if first is None or first.type == "ADDED" or first.prev is None:
            return None
        prev = orjson.loads(first.prev)
        return Stored(key, int(prev["metadata"]["resourceVersion"]), first.prev)

    def list(self, prefix: str, *, revision: int | None = None, start_after: str | None = None,
             limit: int | None = None, count_remaining: bool = False) -> Page:
        """Objects whose key starts with prefix, in key order, at `revision` (None = newest)."""
        lo_inclusive = start_after is None
        lo = start_after if start_after is not None else prefix
        hi = prefix_end(prefix)
        with self._tx(write=False) as conn:
            current = conn.execute(sa.select(sequence.c.rv)).scalar_one()
            if revision is None or revision >= current:
                rows = self._current_rows(conn, lo, lo_inclusive, hi, None, limit)
                at = current if revision is None else revision
            else:
                self._check_available(conn, revision)
                rows = self._rows_at(conn, lo, lo_inclusive, hi, revision, limit)
                at = revision
            more = limit is not None and len(rows) > limit
            rows = rows[:limit] if limit is not None else rows
            remaining = None
            if more and count_remaining:
                remaining = self._count_after(conn, rows[-1].key, hi, None if at >= current else at)
        return Page(rows, at, more, remaining)

    def _range(self, column: Any, lo: str, lo_inclusive: bool, hi: str) -> Any:
        return sa.and_(column >= lo if lo_inclusive else column > lo, column < hi)

    def _current_rows(self, conn: Connection, lo: str, lo_inclusive: bool, hi: str,
                      max_rv: int | None, limit: int | None) -> list[Stored]:
        query = sa.select(objects.c.key, objects.c.rv, objects.c.data).where(
            self._range(objects.c.key, lo, lo_inclusive, hi))
        if max_rv is not None:
            query = query.where(objects.c.rv <= max_rv)
        query = query.order_by(objects.c.key)
        if limit is not None:
            query = query.limit(limit + 1)
        return [Stored(r.key, r.rv, r.data) for r in conn.execute(query)]

    def _first_changes_after(self, revision: int, lo: str, lo_inclusive: bool, hi: str) -> Any:
        """Per key in range: its first change after `revision` (its state then is that change's prev)."""
        first = (
            sa.select(changes.c.key, sa.func.min(changes.c.rv).label("rv"))
            .where(changes.c.rv > revision, self._range(changes.c.key, lo, lo_inclusive, hi))
            .group_by(changes.c.key)
            .subquery()
        )
        return (
            sa.select(changes.c.key, changes.c.prev)
            .join(first, changes.c.rv == first.c.rv)
            .where(changes.c.type != "ADDED")
        )

    def _rows_at(self, conn: Connection, lo: str, lo_inclusive: bool, hi: str, revision: int,
                 limit: int | None) -> list[Stored]:
        unchanged = self._current_rows(conn, lo, lo_inclusive, hi, revision, limit)
        query = self._first_changes_after(revision, lo, lo_inclusive, hi).order_by(changes.c.key)
        if limit is not None:
            query = query.limit(limit + 1)
        changed = []
        for r in conn.execute(query):
            prev_rv = int(orjson.loads(r.prev)["metadata"]["resourceVersion"])
            changed.append(Stored(r.key, prev_rv, r.prev))
        merged = sorted(unchanged + changed, key=lambda s: s.key)
        return merged[: limit + 1] if limit is not None else merged

    def _count_after(self, conn: Connection, last_key: str, hi: str, revision: int | None) -> int:
        query = sa.select(sa.func.count()).select_from(objects).where(
            objects.c.key > last_key, objects.c.key < hi)
        if revision is None:
            return conn.execute(query).scalar_one()
        unchanged = conn.execute(query.where(objects.c.rv <= revision)).scalar_one()
        changed = conn.execute(
            sa.select(sa.func.count()).select_from(
                self._first_changes_after(revision, last_key, False, hi).subquery())
        ).scalar_one()
        return unchanged + changed

    def _check_available(self, conn: Connection, revision: int) -> None:
        compacted = conn.execute(sa.select(sequence.c.compacted)).scalar_one()
        if revision < compacted:
            raise RevisionCompacted(revision, compacted)

    def changes_after(self, revision: int, upto: int | None = None, limit: int = 500) -> list[Change]:
        """Change-log rows after `revision` (and at most `upto`), oldest first."""
        with self._tx(write=False) as conn:
            self._check_available(conn, revision)
            query = sa.select(changes).where(changes.c.rv > revision)
            if upto is not None:
                query = query.where(changes.c.rv <= upto)
            rows = conn.execute(query.order_by(changes.c.rv).limit(limit)).all()
        return [Change(r.rv, r.key, r.type, r.data, r.prev) for r in rows]

    # -- writes --------------------------------------------------------------------------------

    def _next_revision(self, conn: Connection) -> int:
        return conn.execute(
            sa.update(sequence).where(sequence.c.id == 1).values(rv=sequence.c.rv + 1).returning(sequence.c.rv)
        ).scalar_one()

    def _log(self, conn: Connection, rv: int, key: str, kind: str, data: str, prev: str | None) -> None:
        conn.execute(sa.insert(changes).values(rv=rv, key=key, type=kind, data=data, prev=prev,
                                               created_at=self.clock()))

    def create(self, key: str, obj: dict) -> Stored:
        try:
            with self._tx(write=True) as conn:
                rv = self._next_revision(conn)
                data = encode_with_revision(obj, rv)
                conn.execute(sa.insert(objects).values(key=key, rv=rv, data=data))
                self._log(conn, rv, key, "ADDED", data, None)
        except IntegrityError as exc:
            raise KeyExists(key) from exc
        self._committed(rv)
        return Stored(key, rv, data)

    def update(self, key: str, obj: dict, expected: Stored) -> Stored:
        """Replace the object read as `expected`; RevisionMismatch if it changed since."""
        with self._tx(write=True) as conn:
            rv = self._next_revision(conn)
            data = encode_with_revision(obj, rv)
            done = conn.execute(sa.update(objects).where(objects.c.key == key, objects.c.rv == expected.rv)
                                .values(rv=rv, data=data)).rowcount
            if not done:
                raise self._why_not(conn, key)
            self._log(conn, rv, key, "MODIFIED", data, expected.data)
        self._committed(rv)
        return Stored(key, rv, data)

    def delete(self, key: str, expected: Stored) -> Stored:
        """Remove the object read as `expected`; the DELETED event carries its last state."""
        with self._tx(write=True) as conn:
            rv = self._next_revision(conn)
            done = conn.execute(sa.delete(objects).where(objects.c.key == key, objects.c.rv == expected.rv)).rowcount
            if not done:
                raise self._why_not(conn, key)
            deleted = self._log_deletion(conn, rv, key, expected.data)
        self._committed(rv)
        return deleted

    def delete_many(self, expected: list[Stored]) -> list[Stored]:
        """delete() of each object in one transaction (a revision and a DELETED event each); objects gone or
        changed since they were read are skipped. Returns what was deleted."""
        deleted: list[Stored] = []
        with self._tx(write=True) as conn:
            # the revision row first, as every writer takes it, so a concurrent write cannot wait on us crosswise
            conn.execute(sa.select(sequence.c.rv).with_for_update()).scalar_one()
            for stored in expected:
                if conn.execute(sa.delete(objects).where(objects.c.key == stored.key,
                                                         objects.c.rv == stored.rv)).rowcount:
                    deleted.append(self._log_deletion(conn, self._next_revision(conn), stored.key, stored.data))
        if deleted:
            self._committed(deleted[-1].rv)
        return deleted

    def _log_deletion(self, conn: Connection, rv: int, key: str, last: str) -> Stored:
        """The DELETED event of `key`, whose last state was `last`: the object at revision rv."""
        data = encode_with_revision(orjson.loads(last), rv)
        self._log(conn, rv, key, "DELETED", data, last)
        return Stored(key, rv, data)

    def _why_not(self, conn: Connection, key: str) -> StorageError:
        exists = conn.execute(sa.select(objects.c.rv).where(objects.c.key == key)).first()
        return RevisionMismatch(key) if exists else KeyNotFound(key)

    # -- compaction ----------------------------------------------------------------------------

    def compact(self, now: float | None = None) -> int:
        """Drop change-log rows older than the history window; return the new compaction mark."""
        horizon = (now if now is not None else self.clock()) - self.history_window
        with self._tx(write=True) as conn:
            newest_old = conn.execute(
                sa.select(sa.func.max(changes.c.rv)).where(changes.c.created_at < horizon)).scalar()
            compacted = conn.execute(sa.select(sequence.c.compacted)).scalar_one()
            if newest_old is None or newest_old <= compacted:
                return compacted
            conn.execute(sa.delete(changes).where(changes.c.rv <= newest_old))
            conn.execute(sa.update(sequence).where(sequence.c.id == 1).values(compacted=newest_old))
        return newest_old


class Compactor(BackgroundThread):
    """Runs Storage.compact every so often."""

    name = "compactor"

    def __init__(self, storage: Storage, interval: float | None = None):
        super().__init__()
        self.storage = storage
        self.interval = interval or max(1.0, min(30.0, storage.history_window / 10))

    def run(self) -> None:
        while not self.stopping.wait(self.interval):
            with contextlib.suppress(Exception):  # a failed round is retried next interval
                self.storage.compact()
