"""Storage: keys, revisions and JSON text over SQLAlchemy (SQLite or PostgreSQL).

Every write is one short transaction: take the next revision from the sequence row (which
serialises writers, so commit order equals revision order), compare-and-swap the current-state
row, append to the change log, commit.
"""

from __future__ import annotations

import builtins
import contextlib
import fcntl
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NoReturn

import orjson
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import DisconnectionError, IntegrityError

from ..background import BackgroundThread, OutageLog
from .dbapi import driver_cursor, driver_errors, for_driver
from .encryption import Encryption, UnreadableValue
from .history import DEFAULT_RULE, Attribution, RetentionRule, current_attribution, rules_touching
from .models import changes, objects, sequence
from .serving import APPLICATION_NAME, hold_shared

log = logging.getLogger(__name__)


class StorageError(Exception):
    pass


class KeyExists(StorageError):
    pass


class KeyNotFound(StorageError):
    pass


class RevisionMismatch(StorageError):
    """The object changed since it was read (compare-and-swap failed)."""


class StoreWentBack(StorageError):
    """The database holds an older revision than this server handed out or saw (a failover to a standby that lagged,
    a restore of an older copy): the revision counter was moved on (`Storage.mark_went_back`), the write in flight
    was not made and may be retried."""

    def __init__(self, seen: int, moved_to: int, found: int | None = None):
        behind = f"revision {found}, {seen} was seen" if found is not None else f"below revision {seen}, which was seen"
        super().__init__(f"the store went back in time ({behind}): revisions continue from {moved_to}")
        self.found, self.seen, self.moved_to = found, seen, moved_to


class RevisionCompacted(StorageError):
    def __init__(self, requested: int, compacted: int):
        super().__init__(f"revision {requested} is older than the kept history ({compacted})")
        self.requested = requested
        self.compacted = compacted


class _Behind(Exception):
    """Internal: a write found the counter (`found`) below the revision this process had seen (`seen`)."""

    def __init__(self, found: int, seen: int) -> None:
        super().__init__(found, seen)
        self.found, self.seen = found, seen


@dataclass(frozen=True)
class Stored:
    key: str
    rv: int
    data: str  # JSON text with metadata.resourceVersion already set
    #: stored under an encryption provider other than the one that writes now: an update must rewrite it
    stale: bool = field(default=False, compare=False)

    def decode(self) -> dict:
        return orjson.loads(self.data)


class Remembered(Stored):
    """An object's state from the watch hub's memory rather than the store: it may be older than the stored one."""


ADDED, MODIFIED, DELETED = "ADDED", "MODIFIED", "DELETED"  # the kinds of change


@dataclass(frozen=True)
class Change:
    rv: int
    key: str
    type: str  # ADDED, MODIFIED or DELETED
    data: str
    prev: str | None
    #: encodings of this change made by its readers, shared by all of them (watch frames, by framing)
    encoded: dict = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class Revision:
    """One change of the log as history shows it: when, who, how, and the object after (and before) it."""

    rv: int
    key: str
    type: str
    data: str
    prev: str | None
    time: float  # UTC seconds since the epoch
    username: str
    manager: str
    verb: str


@dataclass(frozen=True)
class Page:
    items: list[Stored]
    revision: int
    more: bool
    remaining: int | None


def _attribution_params() -> dict[str, str | None]:
    """The current write's username, manager and verb as statement parameters (NULL when unknown)."""
    who = current_attribution.get() or Attribution()
    return {"username": who.username or None, "manager": who.manager or None, "verb": who.verb or None}


def prefix_end(prefix: str) -> str:
    """The smallest string greater than every string starting with prefix."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


#: the one character a key may never hold: PostgreSQL text cannot store it (names refuse it: app/registry/meta.py)
NUL = "\x00"
#: stands for the revision in an object's text until the write knows it; secret, so no client can place it
REVISION_MARK = f"orch-revision-{secrets.token_hex(16)}"


def encode_marked(obj: dict) -> str:
    """The object's text with REVISION_MARK (once) as its resourceVersion."""
    obj.setdefault("metadata", {})["resourceVersion"] = REVISION_MARK
    return orjson.dumps(obj).decode()


def with_revision(marked: str, rv: int) -> str:
    return marked.replace(REVISION_MARK, str(rv), 1)


# The hot statements, run on the driver's cursor (app/storage/dbapi.py), `:name` parameters.
_GET = "SELECT rv, data FROM objects WHERE key = :key"
_REVISION = "SELECT rv FROM sequence WHERE id = 1"
_COMPACTED = "SELECT compacted FROM sequence WHERE id = 1"
# a revision is taken only while the counter is not below the highest one this process saw (`:seen`): else the
# store went back in time and the revision may have been handed out already (`Storage._move_on`)
_NEXT_REVISION = "UPDATE sequence SET rv = rv + 1 WHERE id = 1 AND rv >= :seen RETURNING rv"
_TAKE_REVISION_ROW = "SELECT rv FROM sequence WHERE id = 1 FOR UPDATE"
_INSERT_OBJECT = "INSERT INTO objects (key, rv, data) VALUES (:key, :rv, :data)"
_UPDATE_OBJECT = "UPDATE objects SET rv = :new_rv, data = :new_data WHERE key = :key AND rv = :expected"
_DELETE_OBJECT = "DELETE FROM objects WHERE key = :key AND rv = :expected"
_INSERT_CHANGE = (
    "INSERT INTO changes (rv, key, type, data, prev, created_at, username, manager, verb) "
    "VALUES (:rv, :key, :type, :data, :prev, :now, :username, :manager, :verb)"
)
# PostgreSQL: a whole write in one statement. The revision row is taken first (as by every writer); a
# compare-and-swap that fails writes nothing (rarely, in a race, it leaves a gap in the revisions: harmless).
_PG_REVISION_IF_CURRENT = (
    "next AS (UPDATE sequence SET rv = rv + 1 WHERE id = 1 AND rv >= :seen AND EXISTS "
    "(SELECT 1 FROM objects WHERE key = :key AND rv = :expected) RETURNING rv)"
)
_PG_LOG = "INSERT INTO changes (rv, key, type, data, prev, created_at, username, manager, verb) "
_PG_WRITES = {
    ADDED: (
        "WITH next AS (UPDATE sequence SET rv = rv + 1 WHERE id = 1 AND rv >= :seen RETURNING rv), "
        "doc AS (SELECT rv, replace(:data, :mark, CAST(rv AS TEXT)) AS data FROM next), "
        "made AS (INSERT INTO objects (key, rv, data) SELECT :key, rv, data FROM doc) "
        + _PG_LOG
        + "SELECT rv, :key, 'ADDED', data, :prev, :now, :username, :manager, :verb FROM doc RETURNING rv"
    ),
    MODIFIED: (
        "WITH " + _PG_REVISION_IF_CURRENT + ", "
        "doc AS (SELECT rv, replace(:data, :mark, CAST(rv AS TEXT)) AS data FROM next), "
        "changed AS (UPDATE objects o SET rv = doc.rv, data = doc.data FROM doc "
        "WHERE o.key = :key AND o.rv = :expected RETURNING o.rv, o.data) "
        + _PG_LOG
        + "SELECT rv, :key, 'MODIFIED', data, :prev, :now, :username, :manager, :verb FROM changed RETURNING rv"
    ),
    DELETED: (
        "WITH " + _PG_REVISION_IF_CURRENT + ", "
        "gone AS (DELETE FROM objects o USING next WHERE o.key = :key AND o.rv = :expected RETURNING next.rv) "
        + _PG_LOG
        + "SELECT rv, :key, 'DELETED', replace(:data, :mark, CAST(rv AS TEXT)), :prev, :now, :username, :manager, "
        ":verb FROM gone "
        "RETURNING rv"
    ),
}
# changes after a revision, and the compaction mark, from one snapshot (one statement; a row of NULLs if none)
_NEWEST = 2**62  # above every revision
_CHANGES_AFTER = (
    "SELECT c.rv, c.key, c.type, c.data, c.prev, s.compacted, s.rv FROM sequence s "
    "LEFT JOIN changes c ON c.rv > :after AND c.rv <= :upto WHERE s.id = 1 ORDER BY c.rv LIMIT :lim"
)
# the store's tables that PostgreSQL's autovacuum does not look after (turned off for the server or the table)
_UNATTENDED_TABLES = (
    "SELECT c.relname FROM pg_class c WHERE c.relname IN ('sequence', 'objects', 'changes') "
    "AND c.relnamespace = current_schema()::regnamespace AND (current_setting('autovacuum') = 'off' "
    "OR 'autovacuum_enabled=false' = ANY(coalesce(c.reloptions, '{}')))"
)
# compaction: the newest change older than a rule's horizon, then that rule's rows up to it go, a revision
# window at a time (each window its own short transaction: writers never wait for a whole round)
_NEWEST_OLD = "SELECT max(rv) FROM changes WHERE created_at < :horizon"
_FLOOR_UP = "UPDATE sequence SET compacted = :upto WHERE id = 1 AND compacted < :upto"
_MARKS_AND_FLOOR = (
    "SELECT s.compacted, m.rule, m.compacted FROM sequence s LEFT JOIN compaction_marks m ON 1 = 1 WHERE s.id = 1"
)
_UPSERT_MARK = (
    "INSERT INTO compaction_marks (rule, compacted) VALUES (:rule, :upto) "
    "ON CONFLICT (rule) DO UPDATE SET compacted = excluded.compacted WHERE compaction_marks.compacted < :upto"
)
# rows at or below the floor are there only after a restore (app/storage/backup.py): they go, a batch a round, once
# older than the longest retention (a round's deletes above the floor never reach them)
_RESTORED_OLD = (
    "DELETE FROM changes WHERE rv IN "
    "(SELECT rv FROM changes WHERE rv <= :floor AND created_at < :before ORDER BY rv LIMIT :lim)"
)
#: revisions per compaction batch
COMPACT_BATCH = 5000
#: how far past everything seen the revision counter jumps when the store is found to have gone back in time: more
#: revisions than any server on the database can have handed out unseen by the one that finds it (docs/operations.md)
REWIND_MARGIN = 1_000_000
# the jump: the counter and the compaction mark move together, so every read below the new revision answers 410
_JUMP = "UPDATE sequence SET rv = :to, compacted = :to WHERE id = 1"
_SEQUENCE = "SELECT rv, compacted FROM sequence WHERE id = 1"
# the change log below the jump, dropped a few thousand rows per statement (it describes states no reader may ask for)
_DROP_BELOW = (
    f"DELETE FROM changes WHERE rv IN (SELECT rv FROM changes WHERE rv < :to ORDER BY rv LIMIT {COMPACT_BATCH})"
)
# The keys of a range changed after a revision are those of live objects written since and those deleted since
# (the partial index changes_deleted); each costs one probe of changes(key, rv) for its first change after the
# revision, whose prev is its state then (NULL: created since). Keys come in order, so a LIMIT stops the probes;
# `:once` (an OFFSET 0) keeps the planner from inlining the subquery, which would run each probe twice.
_CHANGED_KEYS = (
    "SELECT key, prev FROM (SELECT ks.key, (SELECT f.prev FROM changes f WHERE f.key = ks.key AND f.rv > :after "
    "ORDER BY f.rv LIMIT 1) AS prev FROM ("
    "SELECT key FROM objects WHERE key :lo_op :lo AND key < :hi AND rv > :after UNION "
    "SELECT key FROM changes WHERE type = 'DELETED' AND rv > :after AND key :lo_op :lo AND key < :hi"
    ") ks ORDER BY ks.key :once) firsts WHERE prev IS NOT NULL"
)
#: how many revisions back a past state is read by scanning the log after it (further: `_CHANGED_KEYS`)
SCAN_BELOW = 20000
# history: one key's first change after a revision (its state then), the revision at a time, the log of a range
_FIRST_CHANGE_AFTER = "SELECT type, prev FROM changes WHERE key = :key AND rv > :after ORDER BY rv LIMIT 1"
#: the mark of a new store (0001's sequence row): no change is at or below it, so none was ever compacted
FIRST_MARK = 1
_FIRST_AFTER_TIME = "SELECT rv FROM changes WHERE created_at > :at ORDER BY created_at LIMIT 1"
_LAST_AT_TIME = "SELECT rv FROM changes WHERE created_at <= :at ORDER BY created_at DESC LIMIT 1"
_HISTORY = (
    "SELECT rv, key, type, data, prev, created_at, username, manager, verb FROM changes "
    "WHERE key >= :lo AND key < :hi AND rv > :after AND created_at >= :since ORDER BY rv LIMIT :lim"
)


#: a pooled connection unused for longer is checked with a round trip before use (a busy one is not:
#: a database restart then fails the requests in flight with 503, which clients retry)
PING_AFTER_IDLE = 2.0


def _without_jit(dbapi_conn: Any, _record: Any) -> None:
    """No JIT in the store's sessions: its statements are all short, and on tables without statistics (autovacuum
    off, so never analyzed) the planner's guesses passed jit_above_cost as the tables grew, so that each watch
    catch-up spent ~0.5 s compiling for 5 ms of work. A SET, not a startup option: poolers such as PgBouncer refuse
    unknown startup parameters."""
    with dbapi_conn.cursor() as cursor:
        cursor.execute("SET jit = off")
    dbapi_conn.commit()


def _ping_when_idle(engine: Engine) -> None:
    @event.listens_for(engine, "checkin")
    def _returned(_dbapi_conn: Any, record: Any) -> None:
        record.info["returned_at"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checked_out(dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        returned_at = record.info.get("returned_at")
        if returned_at is None or time.monotonic() - returned_at < PING_AFTER_IDLE:
            return
        try:
            dbapi_conn.cursor().execute("SELECT 1")
        except Exception as exc:  # the pool replaces the connection and tries again
            raise DisconnectionError() from exc


class WriterQueue:
    """The writers of one SQLite file wait here, in turn, rather than in SQLite's busy handler (which sleeps
    up to 100 ms between tries): a lock for this process's threads, an flock for other processes."""

    def __init__(self, database: str | None) -> None:
        self._path = f"{database}-writers.lock" if database and database != ":memory:" else None
        self._pid = -1
        self._threads = threading.Lock()
        self._fd = -1

    def __enter__(self) -> None:
        if self._pid != os.getpid():  # a forked worker gets its own lock and file (an flock is per open file)
            self._pid, self._threads = os.getpid(), threading.Lock()
            self._fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o600) if self._path else -1
        self._threads.acquire()
        if self._fd >= 0:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX)
            except BaseException:
                self._threads.release()
                raise

    def __exit__(self, *_: object) -> None:
        if self._fd >= 0:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        self._threads.release()


class WriterSlots:
    """PostgreSQL writers of one process wait here for one of a few slots, not in PostgreSQL: every write takes
    the revision row until its commit is flushed, so more writers at once add no throughput, and dozens queued on
    that row cost the lock manager more than the writes (a 1,000-node simulation fell from ~200 writes/s to 2 with
    50 backends waiting on it) and keep connections open beyond the pool's kept ones."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self._pid = -1
        self._free = threading.BoundedSemaphore(slots)

    def __enter__(self) -> None:
        if self._pid != os.getpid():  # a forked worker starts with all its slots free
            self._pid, self._free = os.getpid(), threading.BoundedSemaphore(self.slots)
        self._free.acquire()

    def __exit__(self, *_: object) -> None:
        self._free.release()


#: PostgreSQL writes one process runs at once: a few more than the one PostgreSQL flushes, as a finished write
#: holds its slot until its thread gets the GIL back (6 instead of 2: 1,000 nodes went from 2,235 429s to 1,022)
WRITER_SLOTS = 6


@dataclass(frozen=True)
class PoolSize:
    """Database connections of one process: `kept` stay open while idle, at most `most` are open at once."""

    kept: int = 4
    most: int = 40

    def __post_init__(self) -> None:
        if not 1 <= self.kept <= self.most:
            raise ValueError(f"pool: 1 <= kept ({self.kept}) <= most ({self.most}) does not hold")


class Storage:
    def __init__(
        self,
        url: str,
        history_window: float = 300.0,
        clock: Callable[[], float] = time.time,
        retention: tuple[RetentionRule, ...] = (),
        pool: PoolSize | None = None,
        encryption: Encryption | None = None,
    ):
        self.url = url
        self.pool = pool or PoolSize()
        self.history_window = history_window
        #: kinds kept longer or shorter than history_window (`--history-retention`); the rest: history_window
        self.retention = retention
        self.clock = clock
        #: what values are sealed with on their way in and opened with on their way out (app/storage/encryption.py)
        self.encryption = encryption or Encryption()  # its own: the metrics observe each store's
        self.is_sqlite = url.startswith("sqlite")
        self.engine = self._make_engine(url)
        self._sql: dict[str, str] = {}  # statement with `:name` parameters -> as the driver takes it
        self._writers = WriterQueue(make_url(url).database) if self.is_sqlite else WriterSlots(WRITER_SLOTS)
        #: a restore refuses the SQLite file while this is held (app/storage/serving.py)
        self._serving_lock = hold_shared(make_url(url).database) if self.is_sqlite else -1
        self._listeners: list[Callable[[list[Change]], None]] = []
        #: the highest revision this process handed out or read; the counter below it means the store went back
        self._seen = 0
        self._seen_lock = threading.Lock()
        self._went_back_listeners: list[Callable[[], None]] = []

    # -- engine and transactions -------------------------------------------------------------

    def _make_engine(self, url: str) -> Engine:
        # `kept` connections stay open between uses (LIFO: the busy few are reused, the rest age out of use);
        # beyond them, up to `most` open for a burst and close when returned
        sizes = {"pool_size": self.pool.kept, "max_overflow": self.pool.most - self.pool.kept, "pool_use_lifo": True}
        if not self.is_sqlite:
            # single statements run in autocommit (one round trip, no BEGIN/ROLLBACK); a list's snapshot sets its level
            named = {} if "application_name" in make_url(url).query else {"application_name": APPLICATION_NAME}
            engine = sa.create_engine(url, isolation_level="AUTOCOMMIT", connect_args=named, **sizes)
            _ping_when_idle(engine)
            event.listen(engine, "connect", _without_jit)
            return engine
        engine = sa.create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, **sizes)

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
    def _snapshot(self) -> Iterator[Connection]:
        """A read transaction over a consistent snapshot (REPEATABLE READ; SQLite: a deferred transaction)."""
        if self.is_sqlite:
            with self.engine.connect() as conn:
                conn = conn.execution_options(isolation_level="AUTOCOMMIT")
                conn.exec_driver_sql("BEGIN")
                try:
                    yield conn
                finally:
                    conn.exec_driver_sql("ROLLBACK")  # nothing was written
            return
        with self.engine.connect() as conn:
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
            with conn.begin():
                yield conn

    def on_commit(self, listener: Callable[[list[Change]], None]) -> None:
        """Call listener(the changes written, as the change log holds them) after each local write commits, in the
        writing thread, before the writer answers (the watch hub delivers them; views kept from the change log
        see this process's writes at once)."""
        self._listeners.append(listener)

    def _committed(self, written: list[Change]) -> None:
        for listener in self._listeners:
            listener(written)

    def dispose(self) -> None:
        self.engine.dispose()
        if self._serving_lock >= 0:
            os.close(self._serving_lock)
            self._serving_lock = -1

    # -- reads ---------------------------------------------------------------------------------

    def ping(self) -> None:
        self.current_revision()

    def _statement(self, sql: str) -> str:
        """`sql` as the driver takes it (translated once per statement)."""
        found = self._sql.get(sql)
        if found is None:
            found = self._sql.setdefault(sql, for_driver(sql, self.engine.dialect.name))
        return found

    def _one(self, sql: str, params: dict[str, Any] | None = None) -> Any:
        """The first row of one statement run alone (PostgreSQL: autocommit; SQLite: its own snapshot)."""
        with driver_cursor(self.engine) as cursor:
            cursor.execute(self._statement(sql), params or {})
            return cursor.fetchone()

    def current_revision(self) -> int:
        seen = self._seen
        current = self._one(_REVISION)[0]
        self._check_not_behind(current, seen)
        return current

    def compacted_revision(self, prefix: str | None = None) -> int:
        """The compaction mark: of the kinds under `prefix` (reads of them below it answer 410), or without one
        the floor below which no kind's history is kept."""
        if prefix is None:
            return self._one(_COMPACTED)[0]
        with driver_cursor(self.engine) as cursor:
            cursor.execute(self._statement(_MARKS_AND_FLOOR))
            return self._mark_for(prefix, cursor.fetchall())

    def _mark_for(self, prefix: str, rows: builtins.list[Any]) -> int:
        """The mark of the rules touching `prefix`, from `_MARKS_AND_FLOOR`'s rows. A named rule without a mark
        yet has the rest's; the rest's counts marks of rules no longer configured (their rows are gone)."""
        floor = rows[0][0]
        marks = {rule: mark for _, rule, mark in rows if rule is not None}
        named = {rule.name for rule in self.retention}
        rest = max([floor, *(mark for rule, mark in marks.items() if rule not in named)])
        effective = {name: max(marks.get(name, rest), floor) for name in named}
        effective[DEFAULT_RULE] = rest
        return max(effective[name] for name in rules_touching(self.retention, prefix))

    def check_retained(self, prefixes: tuple[str, ...] | str, after: int) -> None:
        """RevisionCompacted unless every change under `prefixes` after revision `after` is still in the log (a
        watch's backlog: a kind compacted sooner than the rest must not miss events silently)."""
        with driver_cursor(self.engine) as cursor:
            cursor.execute(self._statement(_MARKS_AND_FLOOR))
            rows = cursor.fetchall()
        for prefix in (prefixes,) if isinstance(prefixes, str) else prefixes:
            mark = self._mark_for(prefix, rows)
            if after < mark:
                raise RevisionCompacted(after, mark)

    def get_at(self, key: str, revision: int) -> Stored | None:
        """The object under `key` as it was at `revision` (None: absent then); RevisionCompacted when its kind's
        history there is gone. Its first change after `revision` holds that state as `prev`."""
        if NUL in key:
            return None
        seen = self._seen
        with self._snapshot() as conn:
            current = conn.execute(sa.select(sequence.c.rv)).scalar_one()
            self._check_not_behind(current, seen)
            if revision < current:
                self._check_available(conn, revision, key)
                first = conn.execute(sa.text(_FIRST_CHANGE_AFTER), {"key": key, "after": revision}).first()
                if first is not None:
                    kind, prev = first
                    if kind == ADDED or prev is None:
                        return None
                    prev = self.encryption.open(key, prev)[0]
                    return Stored(key, int(orjson.loads(prev)["metadata"]["resourceVersion"]), prev)
            row = conn.execute(sa.text(_GET), {"key": key}).first()
        return self._opened(key, row[0], row[1]) if row is not None else None  # prev: sealed whole, no mark

    def revision_at(self, at: float, prefix: str | None = None) -> int:
        """The newest revision committed at or before time `at` (UTC epoch seconds): the one before the first
        change after it (the change log is in commit order), or the newest when nothing changed since. With
        `prefix`: RevisionCompacted unless the log still shows the keys under it as they were then."""
        row = self._one(_FIRST_AFTER_TIME, {"at": at})
        revision = row[0] - 1 if row is not None else self.current_revision()
        if prefix is not None and not self._kept_since(prefix, at):
            raise RevisionCompacted(revision, self.compacted_revision(prefix))
        return revision

    def _kept_since(self, prefix: str, at: float) -> bool:
        """Whether every change under `prefix` after time `at` is still in the log. Compaction deletes only rows
        older than a rule's retention (so none after `now - retention`), and only up to the mark (so none after a
        kept row above it); the gap between the mark's time and the next kept row counts as lost (not recorded)."""
        mark = self.compacted_revision(prefix)
        if mark <= FIRST_MARK:
            return True
        windows = {rule.name: rule.seconds for rule in self.retention}
        shortest = min(windows.get(name, self.history_window) for name in rules_touching(self.retention, prefix))
        if at >= self.clock() - shortest:
            return True
        before = self._one(_LAST_AT_TIME, {"at": at})
        return before is not None and before[0] > mark

    def history(
        self,
        key: str,
        *,
        exact: bool,
        after: int = 0,
        since: float = 0.0,
        limit: int = 500,
    ) -> tuple[builtins.list[Revision], int]:
        """The retained changes of one key (`exact`) or of every key under the prefix `key`, oldest first, after
        revision `after` and not before time `since`; with the mark below which they are gone."""
        if NUL in key:
            return [], self.compacted_revision()
        hi = prefix_end(key) if not exact else key
        sql = _HISTORY if not exact else _HISTORY.replace("key >= :lo AND key < :hi", "key = :lo")
        params = {"lo": key, "hi": hi, "after": after, "since": since, "lim": limit}
        with driver_cursor(self.engine) as cursor:
            cursor.execute(self._statement(sql), params)
            rows = cursor.fetchall()
            cursor.execute(self._statement(_MARKS_AND_FLOOR))
            mark = self._mark_for(key, cursor.fetchall())
        opened = self.encryption.open
        revisions = [
            Revision(
                rv,
                k,
                kind,
                opened(k, data, rv)[0],
                None if prev is None else opened(k, prev)[0],
                at,
                user or "",
                manager or "",
                verb or "",
            )
            for rv, k, kind, data, prev, at, user, manager, verb in rows
        ]
        return revisions, mark

    def get(self, key: str) -> Stored | None:
        if NUL in key:
            return None  # no stored key holds one (PostgreSQL text cannot), and PostgreSQL refuses the query
        row = self._one(_GET, {"key": key})
        return self._opened(key, row[0], row[1]) if row else None

    def _opened(self, key: str, rv: int, text: str) -> Stored:
        plain, stale = self.encryption.open(key, text, rv)
        return Stored(key, rv, plain, stale)

    def list(
        self,
        prefix: str,
        *,
        revision: int | None = None,
        start_after: str | None = None,
        limit: int | None = None,
        count_remaining: bool = False,
    ) -> Page:
        """Objects whose key starts with prefix, in key order, at `revision` (None = newest)."""
        lo_inclusive = start_after is None
        lo = start_after if start_after is not None else prefix
        hi = prefix_end(prefix)
        seen = self._seen
        with self._snapshot() as conn:
            current = conn.execute(sa.select(sequence.c.rv)).scalar_one()
            self._check_not_behind(current, seen)
            if NUL in lo or NUL in hi:  # no stored key holds one: nothing to list (PostgreSQL refuses the query)
                return Page([], current if revision is None else revision, False, None)
            if revision is None or revision >= current:
                rows = self._current_rows(conn, lo, lo_inclusive, hi, None, limit)
                at = current if revision is None else revision
            else:
                self._check_available(conn, revision, prefix)
                rows = self._rows_at(conn, lo, lo_inclusive, hi, revision, limit)
                at = revision
            more = limit is not None and len(rows) > limit
            rows = rows[:limit] if limit is not None else rows
            remaining = None  # far back a count would cost a probe per changed key: unknown (the field is optional)
            if more and count_remaining and current - at <= SCAN_BELOW:
                remaining = self._count_after(conn, rows[-1].key, hi, None if at >= current else at)
        return Page(rows, at, more, remaining)

    def _range(self, column: Any, lo: str, lo_inclusive: bool, hi: str) -> Any:
        return sa.and_(column >= lo if lo_inclusive else column > lo, column < hi)

    def _current_rows(
        self, conn: Connection, lo: str, lo_inclusive: bool, hi: str, max_rv: int | None, limit: int | None
    ) -> builtins.list[Stored]:
        """Read on the driver's cursor, in `conn`'s transaction: for thousands of rows SQLAlchemy's row objects
        cost twice the query."""
        sql = f"SELECT key, rv, data FROM objects WHERE key {'>=' if lo_inclusive else '>'} :lo AND key < :hi"
        params: dict[str, Any] = {"lo": lo, "hi": hi}
        if max_rv is not None:
            sql += " AND rv <= :max_rv"
            params["max_rv"] = max_rv
        sql += " ORDER BY key"
        if limit is not None:
            sql += " LIMIT :n"
            params["n"] = limit + 1
        dbapi_connection = conn.connection.dbapi_connection
        with driver_errors(self.engine, dbapi_connection):
            cursor = dbapi_connection.cursor()  # type: ignore[union-attr]
            try:
                cursor.execute(self._statement(sql), params)
                opened = self._opened
                return [opened(key, rv, data) for key, rv, data in cursor.fetchall()]
            finally:
                cursor.close()

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
            .where(changes.c.type != ADDED)
        )

    def _rows_at(
        self, conn: Connection, lo: str, lo_inclusive: bool, hi: str, revision: int, limit: int | None
    ) -> builtins.list[Stored]:
        unchanged = self._current_rows(conn, lo, lo_inclusive, hi, revision, limit)
        changed = []
        for key, sealed in self._changed_after(conn, revision, lo, lo_inclusive, hi, limit):
            prev = self.encryption.open(key, sealed)[0]
            prev_rv = int(orjson.loads(prev)["metadata"]["resourceVersion"])
            changed.append(Stored(key, prev_rv, prev))
        merged = sorted(unchanged + changed, key=lambda s: s.key)
        return merged[: limit + 1] if limit is not None else merged

    def _changed_after(
        self, conn: Connection, revision: int, lo: str, lo_inclusive: bool, hi: str, limit: int | None
    ) -> builtins.list[tuple[str, str]]:
        """(key, state at `revision`) of each key in range changed after it, in key order. A few revisions back:
        one scan of the log after `revision`; further back: one index probe per key changed since (`_CHANGED_KEYS`),
        never a scan of the log."""
        current = conn.execute(sa.select(sequence.c.rv)).scalar_one()
        if current - revision <= SCAN_BELOW:
            query = self._first_changes_after(revision, lo, lo_inclusive, hi).order_by(changes.c.key)
            if limit is not None:
                query = query.limit(limit + 1)
            return [(r.key, r.prev) for r in conn.execute(query)]
        sql = _CHANGED_KEYS.replace(":lo_op", ">=" if lo_inclusive else ">")
        sql = sql.replace(":once", "LIMIT -1 OFFSET 0" if self.is_sqlite else "OFFSET 0")
        params: dict[str, Any] = {"lo": lo, "hi": hi, "after": revision}
        if limit is not None:
            sql += " LIMIT :n"
            params["n"] = limit + 1
        dbapi_connection = conn.connection.dbapi_connection  # the driver's cursor: 10,000 rows cost no row objects
        with driver_errors(self.engine, dbapi_connection):
            cursor = dbapi_connection.cursor()  # type: ignore[union-attr]
            try:
                cursor.execute(self._statement(sql), params)
                return sorted(cursor.fetchall())
            finally:
                cursor.close()

    def _count_after(self, conn: Connection, last_key: str, hi: str, revision: int | None) -> int:
        query = sa.select(sa.func.count()).select_from(objects).where(objects.c.key > last_key, objects.c.key < hi)
        if revision is None:
            return conn.execute(query).scalar_one()
        unchanged = conn.execute(query.where(objects.c.rv <= revision)).scalar_one()
        return unchanged + len(self._changed_after(conn, revision, last_key, False, hi, None))

    def _check_available(self, conn: Connection, revision: int, prefix: str) -> None:
        compacted = self._mark_for(prefix, builtins.list(conn.execute(sa.text(_MARKS_AND_FLOOR))))
        if revision < compacted:
            raise RevisionCompacted(revision, compacted)

    def changes_after(self, revision: int, upto: int | None = None, limit: int = 500) -> builtins.list[Change]:
        """Change-log rows after `revision` (and at most `upto`), oldest first."""
        params = {"after": revision, "upto": upto if upto is not None else _NEWEST, "lim": limit}
        seen = self._seen
        with driver_cursor(self.engine) as cursor:
            cursor.execute(self._statement(_CHANGES_AFTER), params)
            rows = cursor.fetchall()
        self._check_not_behind(rows[0][6], seen)
        compacted = rows[0][5]
        if revision < compacted:
            raise RevisionCompacted(revision, compacted)
        found = []
        for rv, key, kind, data, prev, _, _ in rows:
            if rv is None:
                continue
            try:
                found.append(self._opened_change(rv, key, kind, data, prev))
            except UnreadableValue as err:  # left out of watches, not allowed to stop them; reads answer the 500
                logging.getLogger(__name__).error("change at revision %s left out of watches: %s", rv, err)
        return found

    def _opened_change(self, rv: int, key: str, kind: str, data: str, prev: str | None) -> Change:
        opened = self.encryption.open
        return Change(rv, key, kind, opened(key, data, rv)[0], None if prev is None else opened(key, prev)[0])

    # -- writes --------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _write_transaction(self) -> Iterator[Any]:
        """A driver cursor in a write transaction: on SQLite one writer at a time (the queue, then
        BEGIN IMMEDIATE); on PostgreSQL at READ COMMITTED, serialised by the revision row."""
        with self._writers, driver_cursor(self.engine) as cursor:
            cursor.execute("BEGIN IMMEDIATE" if self.is_sqlite else "BEGIN ISOLATION LEVEL READ COMMITTED")
            try:
                yield cursor
            except BaseException:
                with contextlib.suppress(Exception):  # the error that ended the transaction is the one to raise
                    cursor.execute("ROLLBACK")
                raise
            cursor.execute("COMMIT")

    def _log(self, cursor: Any, rv: int, key: str, kind: str, data: str, prev: str | None) -> None:
        seal = self.encryption.seal
        sealed_prev = None if prev is None else seal(key, prev)
        params = {"rv": rv, "key": key, "type": kind, "data": seal(key, data), "prev": sealed_prev, "now": self.clock()}
        params.update(_attribution_params())
        cursor.execute(self._statement(_INSERT_CHANGE), params)

    def create(self, key: str, obj: dict) -> Stored:
        return self._write(ADDED, key, encode_marked(obj), None)

    def update(self, key: str, obj: dict, expected: Stored) -> Stored:
        """Replace the object read as `expected`; RevisionMismatch if it changed since."""
        return self._write(MODIFIED, key, encode_marked(obj), expected)

    def delete(self, key: str, expected: Stored) -> Stored:
        """Remove the object read as `expected`; the DELETED event carries its last state."""
        return self._write(DELETED, key, encode_marked(orjson.loads(expected.data)), expected)

    def _write(self, kind: str, key: str, marked: str, expected: Stored | None) -> Stored:
        """One change of `key` (its text: `marked`) at the next revision, compared against `expected`.
        On PostgreSQL one statement (one round trip, the revision row held for no round trip); on SQLite one
        local transaction."""
        try:
            if self.is_sqlite:
                rv = self._write_in_transaction(kind, key, marked, expected)
            else:
                rv = self._write_in_one_statement(kind, key, marked, expected)
        except IntegrityError as exc:
            raise KeyExists(key) from exc
        except _Behind as behind:  # moved on outside the write's transaction, which held the writers' turn
            self._move_on(behind.found, behind.seen)
        self._saw(rv)
        data = with_revision(marked, rv)
        self._committed([Change(rv, key, kind, data, expected.data if expected is not None else None)])
        return Stored(key, rv, data)

    def _write_in_one_statement(self, kind: str, key: str, marked: str, expected: Stored | None) -> int:
        seen = self._seen  # read before the statement: any revision seen is committed, the counter is at least it
        data, prev = marked, expected.data if expected is not None else None
        if self.encryption.encrypts(key):  # sealed with a mark of its own for the revision (SQL's replace: no-op)
            mark = secrets.token_hex(12)
            data = self.encryption.seal(key, marked.replace(REVISION_MARK, mark, 1), mark)
            prev = None if prev is None else self.encryption.seal(key, prev)
        params = {
            "key": key,
            "data": data,
            "mark": REVISION_MARK,
            "prev": prev,
            "now": self.clock(),
            "expected": expected.rv if expected is not None else None,
            "seen": seen,
            **_attribution_params(),
        }
        with self._writers, driver_cursor(self.engine) as cursor:
            cursor.execute(self._statement(_PG_WRITES[kind]), params)
            row = cursor.fetchone()
            if row is None:
                raise self._why_not(cursor, kind, key, seen)
            return row[0]

    def _write_in_transaction(self, kind: str, key: str, marked: str, expected: Stored | None) -> int:
        sql = self._statement
        with self._write_transaction() as cursor:
            rv = self._next_revision(cursor)
            data = self.encryption.seal(key, with_revision(marked, rv))
            if kind == ADDED:
                cursor.execute(sql(_INSERT_OBJECT), {"key": key, "rv": rv, "data": data})
            else:
                assert expected is not None
                if kind == MODIFIED:
                    params = {"key": key, "expected": expected.rv, "new_rv": rv, "new_data": data}
                    cursor.execute(sql(_UPDATE_OBJECT), params)
                else:
                    cursor.execute(sql(_DELETE_OBJECT), {"key": key, "expected": expected.rv})
                if not cursor.rowcount:
                    raise self._why_not(cursor, kind, key, 0)  # SQLite's counter was checked when taken
            self._log(cursor, rv, key, kind, with_revision(marked, rv), expected.data if expected is not None else None)
        return rv

    def delete_many(self, expected: builtins.list[Stored]) -> builtins.list[Stored]:
        """delete() of each object in one transaction (a revision and a DELETED event each); objects gone or
        changed since they were read are skipped. Returns what was deleted."""
        try:
            logged = self._delete_in_transaction(expected)
        except _Behind as behind:
            self._move_on(behind.found, behind.seen)
        if logged:
            self._saw(logged[-1].rv)
            self._committed(logged)
        return [Stored(change.key, change.rv, change.data) for change in logged]

    def _delete_in_transaction(self, expected: builtins.list[Stored]) -> builtins.list[Change]:
        logged: builtins.list[Change] = []
        sql = self._statement
        with self._write_transaction() as cursor:
            if not self.is_sqlite:
                # the revision row first, as every writer takes it, so a concurrent write cannot wait on us crosswise
                cursor.execute(sql(_TAKE_REVISION_ROW))
            for stored in expected:
                cursor.execute(sql(_DELETE_OBJECT), {"key": stored.key, "expected": stored.rv})
                if cursor.rowcount:
                    rv = self._next_revision(cursor)
                    data = with_revision(encode_marked(orjson.loads(stored.data)), rv)
                    self._log(cursor, rv, stored.key, DELETED, data, stored.data)
                    logged.append(Change(rv, stored.key, DELETED, data, stored.data))
        return logged

    def _next_revision(self, cursor: Any) -> int:
        """The next revision, in a write transaction; `_Behind` when the counter is below what this process saw."""
        seen = self._seen
        cursor.execute(self._statement(_NEXT_REVISION), {"seen": seen})
        row = cursor.fetchone()
        if row is None:
            cursor.execute(self._statement(_REVISION))
            raise _Behind(cursor.fetchone()[0], seen)
        return row[0]

    def _why_not(self, cursor: Any, kind: str, key: str, seen: int) -> StorageError:
        """Why a write that took no revision wrote nothing (`seen`: what its statement compared the counter with)."""
        cursor.execute(self._statement(_REVISION))
        current = cursor.fetchone()[0]
        if current < seen:  # no revision was taken: the counter is behind
            raise _Behind(current, seen)
        if kind == ADDED:  # an insert takes no revision only behind the counter: another thread moved it on since
            return StoreWentBack(seen, current)
        cursor.execute(self._statement(_GET), {"key": key})
        return RevisionMismatch(key) if cursor.fetchone() else KeyNotFound(key)

    # -- the store going back in time ----------------------------------------------------------

    def on_went_back(self, listener: Callable[[], None]) -> None:
        """Call listener() after this process moved the revision counter on (the watch hub starts over)."""
        self._went_back_listeners.append(listener)

    @property
    def seen(self) -> int:
        """The highest revision this process handed out or read from the store."""
        return self._seen

    def _saw(self, revision: int) -> None:
        if revision > self._seen:
            with self._seen_lock:
                self._seen = max(self._seen, revision)

    def _check_not_behind(self, current: int, seen: int) -> None:
        """Note the store's counter, read after `seen` was (a revision seen later may be newer than the read); below
        it, the store went back: move on (StoreWentBack)."""
        if current < seen:
            self._move_on(current, seen)
        self._saw(current)

    def _move_on(self, found: int, seen: int) -> NoReturn:
        """The counter is at `found`, below the `seen` revision: move it past everything that may have been handed
        out (unless another server on the database did first) and refuse the request in flight."""
        moved_to = self._jump(seen, unless_moved=True)
        raise StoreWentBack(seen, moved_to, found)

    def mark_went_back(self, handed_out: int = 0) -> int:
        """The store went back in time and no running server may notice (a restore of an older copy, a failover
        while the servers were down): revisions continue REWIND_MARGIN above the highest of the store's counter,
        `handed_out` (the most any server may have handed out) and what this process saw. Reads, lists and watches
        from below there answer 410 Expired (the compaction mark moves there too) and the change log below it is
        dropped; running servers on the database end their watches with 410. Returns the new revision."""
        return self._jump(max(handed_out, self._seen), unless_moved=False)

    def _jump(self, seen: int, unless_moved: bool) -> int:
        """Counter and compaction mark to REWIND_MARGIN above `seen` and the counter; with `unless_moved` not when
        another server already moved them past `seen` (its mark is there too). Returns the counter."""
        with self._write_transaction() as cursor:
            cursor.execute(self._statement(_SEQUENCE + ("" if self.is_sqlite else " FOR UPDATE")))
            current, compacted = cursor.fetchone()
            moved = unless_moved and current >= seen and compacted >= seen
            target = current if moved else max(current, seen) + REWIND_MARGIN
            if not moved:
                cursor.execute(self._statement(_JUMP), {"to": target})
        self._saw(target)
        if not moved:
            log.error(
                "the store went back in time: its revision was %d, this server had seen %d; revisions continue from "
                "%d, every watch ends with 410 and clients re-list (docs/operations.md)",
                current,
                seen,
                target,
            )
        try:
            while self._deleted(_DROP_BELOW, {"to": target}):
                pass
        except Exception:  # rows below the mark are never read: only space is lost
            log.exception("dropping the change log below revision %d failed; it is never read again", target)
        for listener in self._went_back_listeners:
            listener()
        return target

    def _deleted(self, sql: str, params: dict[str, Any]) -> int:
        """Rows deleted by one short statement (as `_in_own_transaction`)."""
        if self.is_sqlite:
            with self._write_transaction() as cursor:
                cursor.execute(self._statement(sql), params)
                return cursor.rowcount
        with driver_cursor(self.engine) as cursor:
            cursor.execute(self._statement(sql), params)
            return cursor.rowcount

    # -- compaction ----------------------------------------------------------------------------

    def compact(self, now: float | None = None) -> int:
        """Drop change-log rows older than their kind's retention (`retention`; the rest: the history window)
        and advance the marks; return the floor mark (`sequence.compacted`: no kind's history below it)."""
        now = now if now is not None else self.clock()
        floor = self._compact_rules(now)
        longest = max([self.history_window, *(rule.seconds for rule in self.retention)])
        self._in_own_transaction(_RESTORED_OLD, {"floor": floor, "before": now - longest, "lim": COMPACT_BATCH})
        return floor

    def _compact_rules(self, now: float) -> int:
        if not self.retention:
            return self._compact_rule(DEFAULT_RULE, None, self._horizon(now - self.history_window))
        named = tuple(p for rule in self.retention for p in rule.prefixes)
        # every horizon before any rule deletes: one rule's deletions must not move another's horizon back
        horizons = [self._horizon(now - rule.seconds) for rule in self.retention]
        rest = self._horizon(now - self.history_window)
        marks = [self._compact_rule(r.name, r.prefixes, upto) for r, upto in zip(self.retention, horizons)]
        marks.append(self._compact_rule(DEFAULT_RULE, named, rest, excluded=True))
        floor = min(marks)
        with self._write_transaction() as cursor:
            cursor.execute(self._statement(_FLOOR_UP), {"upto": floor})
        return max(floor, self.compacted_revision())

    def _horizon(self, before: float) -> int | None:
        """The newest change committed before time `before` (None: none is kept)."""
        return self._one(_NEWEST_OLD, {"horizon": before})[0]

    def _compact_rule(
        self, rule: str, prefixes: tuple[str, ...] | None, upto: int | None, excluded: bool = False
    ) -> int:
        """One rule's round: its mark moves to `upto`, then its rows (keys under `prefixes`, or not under them when
        `excluded`, or all of them when None) up to there go, COMPACT_BATCH revisions per statement. Without
        prefixes (no rules) the mark is `sequence.compacted`."""
        with driver_cursor(self.engine) as cursor:
            cursor.execute(self._statement(_MARKS_AND_FLOOR))
            rows = cursor.fetchall()
        floor = rows[0][0]
        mark = floor if prefixes is None else max(floor, {r: m for _, r, m in rows if r is not None}.get(rule, 0))
        if upto is None or upto <= mark:
            return mark
        # the mark moves first: a reader that still sees the old mark reads from a snapshot that has the rows
        if prefixes is None:
            self._in_own_transaction(_FLOOR_UP, {"upto": upto})
        else:
            self._in_own_transaction(_UPSERT_MARK, {"rule": rule, "upto": upto})
        where, params = _rule_rows(prefixes, excluded)
        drop = f"DELETE FROM changes WHERE rv > :lo AND rv <= :hi{where}"
        for lo in range(mark, upto, COMPACT_BATCH):
            self._in_own_transaction(drop, {**params, "lo": lo, "hi": min(lo + COMPACT_BATCH, upto)})
        return upto

    def vacuum_unattended(self) -> builtins.list[str]:
        """Vacuum and analyze the store's PostgreSQL tables that autovacuum does not look after (some CI setups turn
        it off): else compaction's deleted rows are never reused (the change log reached 500 MB in 30 minutes at
        1,000 nodes) and the planner never has statistics. Returns the tables vacuumed (none on SQLite, which
        reuses freed pages itself)."""
        if self.is_sqlite:
            return []
        with driver_cursor(self.engine) as cursor:
            cursor.execute(_UNATTENDED_TABLES)
            tables = sorted(row[0] for row in cursor.fetchall())
            if tables:  # SKIP_LOCKED: another worker's vacuum of a table is enough
                cursor.execute(f"VACUUM (ANALYZE, SKIP_LOCKED) {', '.join(tables)}")
        return tables

    def _in_own_transaction(self, sql: str, params: dict[str, Any]) -> None:
        """One short write: on SQLite in the writers' queue (so a round never holds it long), on PostgreSQL one
        autocommitted statement (deleting old rows never waits for nor blocks a writer)."""
        if self.is_sqlite:
            with self._write_transaction() as cursor:
                cursor.execute(self._statement(sql), params)
            return
        with driver_cursor(self.engine) as cursor:
            cursor.execute(self._statement(sql), params)


def _rule_rows(prefixes: tuple[str, ...] | None, excluded: bool) -> tuple[str, dict[str, str]]:
    """A WHERE fragment (and its parameters) for the keys under `prefixes`, or not under them when `excluded`."""
    if not prefixes:
        return "", {}
    ranges, params = [], {}
    for i, prefix in enumerate(prefixes):
        ranges.append(f"(key >= :p{i} AND key < :q{i})")
        params[f"p{i}"], params[f"q{i}"] = prefix, prefix_end(prefix)
    either = " OR ".join(ranges)
    return (f" AND NOT ({either})" if excluded else f" AND ({either})"), params


class Compactor(BackgroundThread):
    """Runs Storage.compact every so often, and Storage.vacuum_unattended every `vacuum_interval` seconds."""

    name = "compactor"
    vacuum_interval = 300.0

    def __init__(self, storage: Storage, interval: float | None = None):
        super().__init__()
        self.storage = storage
        shortest = min([storage.history_window, *(rule.seconds for rule in storage.retention)])
        self.interval = interval or max(1.0, min(30.0, shortest / 10))
        self.failures = 0  # rounds that failed (the database's errors are also in apiserver_storage_errors_total)
        self.outage = OutageLog(logging.getLogger(__name__), f"compaction (retried every {self.interval:.0f}s)")

    def run(self) -> None:
        vacuum_at = time.monotonic() + self.vacuum_interval
        while not self.stopping.wait(self.interval):
            try:
                self.storage.compact()
                if time.monotonic() >= vacuum_at:
                    vacuum_at = time.monotonic() + self.vacuum_interval
                    self.storage.vacuum_unattended()
            except Exception as err:  # noqa: BLE001 - a failed round is retried next interval, never silently
                self.failures += 1
                self.outage.failed(err)
            else:
                self.outage.succeeded()
