"""`secrets-encrypt status|reencrypt`: which keys hold the stored values, and rewriting every value (current rows and
the change log) with the first key of its resource, in batches, while servers keep writing.

A rewrite changes no object and takes no revision: the same JSON, sealed anew. Each row is rewritten by a
compare-and-swap on what was read (a writer that got there first has written with the first key already). Then the
old bytes are scrubbed from the files: SQLite rewrites the file (VACUUM, with secure_delete on) and truncates its
write-ahead log; PostgreSQL vacuums the rewritten tables (FULL on request)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .dbapi import driver_cursor
from .encryption import Identity, UnreadableValue
from .store import Storage

#: rows read (and at most rewritten) per transaction
BATCH = 500
#: characters of a value read to tell its prefix (a key name is at most this long, less the rest of the prefix)
PREFIX_CHARS = 300
_OBJECT_PREFIXES = f"SELECT key, substr(data, 1, {PREFIX_CHARS}) FROM objects WHERE key > :after ORDER BY key LIMIT :n"
_CHANGE_PREFIXES = (
    f"SELECT rv, key, substr(data, 1, {PREFIX_CHARS}), substr(prev, 1, {PREFIX_CHARS}) FROM changes "
    "WHERE rv > :after ORDER BY rv LIMIT :n"
)
_OBJECT = "SELECT data, rv FROM objects WHERE key = :key"
_REWRITE_OBJECT = "UPDATE objects SET data = :new WHERE key = :key AND data = :old"
_CHANGE = "SELECT data, prev FROM changes WHERE rv = :rv"
_REWRITE_CHANGE = "UPDATE changes SET data = :data, prev = :prev WHERE rv = :rv"

Progress = Callable[[str, int, int], None]  # (table, rows seen, rows rewritten)


@dataclass
class Census:
    """Values per (table, provider prefix); `unreadable`: (table, key) of values no configured key reads."""

    values: Counter[tuple[str, str]] = field(default_factory=Counter)
    rewritten: Counter[str] = field(default_factory=Counter)
    unreadable: list[tuple[str, str]] = field(default_factory=list)


def _prefix_of(storage: Storage, text: str) -> str:
    return storage.encryption.written_by(text)


def _wanted(storage: Storage, key: str) -> str:
    writer = storage.encryption.transformer(key).writer
    return Identity.kind if isinstance(writer, Identity) else writer.prefix


def _pages(storage: Storage, sql: str, position: Callable[[tuple], object], first: object) -> Iterator[list[tuple]]:
    after = first
    while True:
        with driver_cursor(storage.engine) as cursor:
            cursor.execute(storage._statement(sql), {"after": after, "n": BATCH})
            rows = cursor.fetchall()
        if not rows:
            return
        yield rows
        after = position(rows[-1])


def status(storage: Storage) -> Census:
    """How many current values and change-log values (`data` and `prev`) each provider wrote."""
    census = Census()
    for rows in _pages(storage, _OBJECT_PREFIXES, lambda row: row[0], ""):
        for _key, head in rows:
            census.values["objects", _prefix_of(storage, head)] += 1
    for rows in _pages(storage, _CHANGE_PREFIXES, lambda row: row[0], -1):
        for _rv, _key, data, prev in rows:
            census.values["changes", _prefix_of(storage, data)] += 1
            if prev is not None:
                census.values["changes", _prefix_of(storage, prev)] += 1
    return census


_SEALED_OBJECTS = "SELECT key, substr(data, 1, :n) FROM objects WHERE data LIKE 'k8s:enc:%'"


def unreadable_prefixes(storage: Storage) -> Counter[str]:
    """Current values per provider prefix no configured provider reads (another replica's key, a lost key)."""
    found: Counter[str] = Counter()
    with driver_cursor(storage.engine) as cursor:
        cursor.execute(storage._statement(_SEALED_OBJECTS), {"n": PREFIX_CHARS})
        for key, head in cursor.fetchall():
            if storage.encryption.transformer(key).reader_of(head) is None:
                found[_prefix_of(storage, head)] += 1
    return found


def reencrypt(storage: Storage, progress: Progress | None = None) -> Census:
    """Rewrite every value not written by its resource's first provider; then scrub the old bytes (`scrub`)."""
    census = Census()
    seen = 0
    for rows in _pages(storage, _OBJECT_PREFIXES, lambda row: row[0], ""):
        due = [key for key, head in rows if _prefix_of(storage, head) != _wanted(storage, key)]
        if due:
            _rewrite_objects(storage, due, census)
        seen += len(rows)
        if progress is not None:
            progress("objects", seen, census.rewritten["objects"])
    seen = 0
    for rows in _pages(storage, _CHANGE_PREFIXES, lambda row: row[0], -1):
        due_changes = [
            (rv, key)
            for rv, key, data, prev in rows
            if _prefix_of(storage, data) != _wanted(storage, key)
            or (prev is not None and _prefix_of(storage, prev) != _wanted(storage, key))
        ]
        if due_changes:
            _rewrite_changes(storage, due_changes, census)
        seen += len(rows)
        if progress is not None:
            progress("changes", seen, census.rewritten["changes"])
    return census


def _resealed(storage: Storage, key: str, text: str, rv: int = 0) -> str:
    """The value sealed anew by the first provider, whole (`rv`: its row's revision, for a value sealed marked)."""
    return storage.encryption.seal(key, storage.encryption.open(key, text, rv)[0])


def _rewrite_objects(storage: Storage, keys: list[str], census: Census) -> None:
    sql = storage._statement
    with storage._write_transaction() as cursor:
        for key in keys:
            cursor.execute(sql(_OBJECT), {"key": key})
            row = cursor.fetchone()
            if row is None:  # deleted meanwhile
                continue
            try:
                new = _resealed(storage, key, row[0], row[1])
            except UnreadableValue:
                census.unreadable.append(("objects", key))
                continue
            cursor.execute(sql(_REWRITE_OBJECT), {"key": key, "old": row[0], "new": new})
            census.rewritten["objects"] += cursor.rowcount


def _rewrite_changes(storage: Storage, due: list[tuple[int, str]], census: Census) -> None:
    sql = storage._statement
    with storage._write_transaction() as cursor:
        for rv, key in due:
            cursor.execute(sql(_CHANGE), {"rv": rv})
            row = cursor.fetchone()
            if row is None:  # compacted meanwhile
                continue
            data, prev = row
            try:
                params = {
                    "rv": rv,
                    "data": _resealed(storage, key, data, rv),
                    "prev": None if prev is None else _resealed(storage, key, prev),
                }
            except UnreadableValue:
                census.unreadable.append(("changes", f"{key} at revision {rv}"))
                continue
            cursor.execute(sql(_REWRITE_CHANGE), params)
            census.rewritten["changes"] += cursor.rowcount


def scrub(storage: Storage, full: bool = False, attempts: int = 50) -> str:
    """Leave no rewritten value's old bytes readable from the database files; says what was done.

    SQLite: VACUUM with secure_delete rewrites the file without its free pages, then a TRUNCATE checkpoint empties
    the write-ahead log (retried while a reader holds an old snapshot). PostgreSQL: VACUUM of both tables drops
    their dead rows (FULL rewrites the files, holding the tables locked while it runs)."""
    if storage.is_sqlite:
        with driver_cursor(storage.engine) as cursor:
            cursor.execute("PRAGMA secure_delete = ON")
            with storage._writers:
                cursor.execute("VACUUM")
            for _ in range(attempts):
                cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                busy, _log_frames, _done = cursor.fetchone()
                if not busy:
                    return "SQLite: file rewritten (VACUUM, secure_delete) and write-ahead log truncated"
                time.sleep(0.1)
        return "SQLite: file rewritten (VACUUM); the write-ahead log could not be truncated (readers busy)"
    with driver_cursor(storage.engine) as cursor:
        cursor.execute(f"VACUUM {'(FULL) ' if full else ''}objects, changes")
    what = "rewritten (VACUUM FULL)" if full else "vacuumed (dead rows removed)"
    return f"PostgreSQL: objects and changes {what}"
