"""Logical backups of the store: one revision's objects, change log, revision counter and marks, in a gzip file of
JSON lines that either store (SQLite or PostgreSQL) restores.

The file: a header (format, schema revision, store, revision), the rows of each table, the kept files of the data
directory, and an end record with the number of records before it and the SHA-256 of their lines. A restore reads
the whole file once to check it before it writes anything, then writes it in one transaction, and moves the
revision counter past everything the database may have handed out (`RESTORE_MARGIN`): clients holding revisions
from before get 410 Gone and relist, as after a failover.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import hashlib
import os
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine, make_url

from . import schema, serving
from .models import changes, compaction_marks, objects, sequence
from .store import REWIND_MARGIN

FORMAT = 1
#: the tables a backup holds, in the order they are written and restored
TABLES = (sequence, compaction_marks, objects, changes)
#: files of the data directory a backup carries: the service-account signing key signs the tokens the store keeps
#: (Secrets), and the encryption configuration, once there is one, decides what the stored text means
KEPT_FILES = ("pki/sa.key", "pki/encryption-config.yaml")
#: how far past the highest revision the database may have handed out (the backup's or the replaced store's) a
#: restore sets the counter: the same margin as a store found gone back in time (a restore is one, done on purpose)
RESTORE_MARGIN = REWIND_MARGIN
#: gzip's fastest level: on 200 MB of random base64 texts level 6 took 25 s for a 152 MB file, level 1 20 s for 156 MB
COMPRESSION = 1
#: rows per insert statement and per progress line check
BATCH = 2000
#: the application_name of the backup and restore sessions (not a server's: app/storage/serving.py)
TOOL_NAME = "orch-apiserver-backup"


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why, and nothing was written."""


@dataclass
class Progress:
    """A line on stderr, rewritten at most every half second, when stderr is a terminal."""

    what: str
    stream: IO[str] = field(default_factory=lambda: sys.stderr)
    records: int = 0
    _shown_at: float = 0.0

    def add(self, n: int, size: int) -> None:
        self.records += n
        if self.stream.isatty() and time.monotonic() - self._shown_at > 0.5:
            self._shown_at = time.monotonic()
            written = f", {size / 1e6:,.1f} MB" if size else ""
            self.stream.write(f"\r{self.what}: {self.records:,} records{written}")
            self.stream.flush()

    def done(self) -> None:
        if self.stream.isatty() and self._shown_at:
            self.stream.write("\n")
            self.stream.flush()


@dataclass(frozen=True)
class Summary:
    revision: int  # the backup's revision; after a restore, the new counter
    records: int
    tables: dict[str, int]
    files: tuple[str, ...]


def _engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        return sa.create_engine(url)
    return sa.create_engine(url, connect_args={"application_name": TOOL_NAME})


@contextlib.contextmanager
def _snapshot(engine: Engine) -> Iterator[Connection]:
    """One read transaction over the whole store: REPEATABLE READ, read only, on PostgreSQL; a deferred
    transaction on SQLite (in WAL mode writers go on; the reader sees the database as at its first read)."""
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn = conn.execution_options(isolation_level="AUTOCOMMIT")
            conn.exec_driver_sql("BEGIN")
            try:
                yield conn
            finally:
                conn.exec_driver_sql("ROLLBACK")
            return
        conn = conn.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
        with conn.begin():
            yield conn


class _Writer:
    """Lines into the gzip file, counted and hashed."""

    def __init__(self, out: gzip.GzipFile, progress: Progress) -> None:
        self.out = out
        self.digest = hashlib.sha256()
        self.records = 0
        self.progress = progress

    def write(self, record: Any) -> None:
        line = orjson.dumps(record) + b"\n"
        self.digest.update(line)
        self.out.write(line)
        self.records += 1
        if self.records % BATCH == 0:
            self.progress.add(BATCH, self.out.tell())


def backup(url: str, out: Path, data_dir: Path | None = None, progress: Progress | None = None) -> Summary:
    """Write the store at `url` (and the kept files of `data_dir`) to `out`, as of one revision. The file appears
    complete or not at all (written beside it, then renamed)."""
    progress = progress or Progress("backup")
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and not (parsed.database and Path(parsed.database).is_file()):
        raise BackupError(f"no SQLite store at {parsed.database or 'memory'}: nothing to back up")
    engine = _engine(url)
    partial = out.with_name(out.name + ".partial")
    tables: dict[str, int] = {}
    try:
        with _snapshot(engine) as conn, gzip.open(partial, "wb", compresslevel=COMPRESSION) as raw:
            present = sa.inspect(conn).has_table("alembic_version") and sa.inspect(conn).has_table("sequence")
            schema_revision = present and conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
            revision = present and conn.execute(sa.select(sequence.c.rv)).scalar_one_or_none()
            if not schema_revision or revision is None or revision is False:
                raise BackupError(f"{_shown(url)} holds no orch-apiserver store (no schema or no revision counter)")
            writer = _Writer(raw, progress)
            writer.write(
                {
                    "kind": "header",
                    "format": FORMAT,
                    "schema": schema_revision,
                    "store": engine.dialect.name,
                    "revision": revision,
                    "created": datetime.now(UTC).isoformat(timespec="seconds"),
                    "tables": {str(t.name): [str(c.name) for c in t.columns] for t in TABLES},
                }
            )
            for table in TABLES:
                tables[table.name] = _write_rows(conn, table, writer)
            files = _write_files(data_dir, writer)
            writer.write({"kind": "end", "records": writer.records, "sha256": writer.digest.hexdigest()})
        os.replace(partial, out)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        engine.dispose()
        progress.done()
    return Summary(revision, writer.records, tables, files)


def _write_rows(conn: Connection, table: sa.Table, writer: _Writer) -> int:
    key = list(table.primary_key.columns)
    rows = conn.execution_options(yield_per=BATCH).execute(sa.select(table).order_by(*key))
    n = 0
    for row in rows:
        writer.write({"kind": "row", "table": str(table.name), "values": list(row)})
        n += 1
    return n


def _write_files(data_dir: Path | None, writer: _Writer) -> tuple[str, ...]:
    if data_dir is None:
        return ()
    kept = []
    for name in KEPT_FILES:
        path = data_dir / name
        if path.is_file():
            writer.write({"kind": "file", "path": name, "data": base64.b64encode(path.read_bytes()).decode()})
            kept.append(name)
    return tuple(kept)


# -- restore ---------------------------------------------------------------------------------------------------


@dataclass
class _Checked:
    header: dict
    records: int
    files: dict[str, bytes]


def _records(path: Path) -> Iterator[tuple[bytes, dict]]:
    """(line, record) of the file, a clear BackupError when it is not a whole backup file."""
    try:
        with gzip.open(path, "rb") as raw:
            for line in raw:
                if not line.endswith(b"\n"):
                    raise BackupError(f"{path} is truncated (its last record is cut short): not restored")
                yield line, orjson.loads(line)
    except (EOFError, gzip.BadGzipFile, zlib.error, orjson.JSONDecodeError) as err:
        raise BackupError(f"{path} is not a whole orch-apiserver backup ({err}): not restored") from None
    except OSError as err:
        raise BackupError(f"cannot read {path}: {err.strerror or err}") from None


def check_file(path: Path, known_schema: Callable[[str], bool]) -> _Checked:
    """Read the whole backup once: header, checksum, count and end record; nothing is written."""
    digest = hashlib.sha256()
    header: dict | None = None
    files: dict[str, bytes] = {}
    for count, (line, record) in enumerate(_records(path)):
        kind = record.get("kind") if isinstance(record, dict) else None
        if header is None:
            if kind != "header" or record.get("format") != FORMAT:
                raise BackupError(f"{path} is not an orch-apiserver backup of format {FORMAT}: not restored")
            if not known_schema(record["schema"]):
                raise BackupError(
                    f"{path} was written by a newer orch-apiserver (schema revision {record['schema']}, unknown to "
                    "this one): restore it with that version or a later one; not restored"
                )
            header = record
        elif kind == "end":
            if record.get("records") != count or record.get("sha256") != digest.hexdigest():
                raise BackupError(f"{path} is damaged (its checksum or record count does not match): not restored")
            return _Checked(header, count, files)
        elif kind == "file":
            files[record["path"]] = base64.b64decode(record["data"])
        digest.update(line)
    raise BackupError(f"{path} is truncated (no end record): not restored")


def _known_schema(url: str) -> Callable[[str], bool]:
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(schema.alembic_config(url))

    def known(revision: str) -> bool:
        try:
            return scripts.get_revision(revision) is not None
        except Exception:  # noqa: BLE001 - alembic raises several kinds for a revision it does not know
            return False

    return known


def restore(
    path: Path,
    url: str,
    data_dir: Path | None = None,
    replace: bool = False,
    progress: Progress | None = None,
) -> Summary:
    """Replace the store at `url` with the backup at `path`, in one transaction; the revision counter and the
    compaction floor go to max(backup's revision, the store's previous one) + RESTORE_MARGIN."""
    progress = progress or Progress("restore")
    checked = check_file(path, _known_schema(url))
    files = _files_to_write(checked.files, data_dir, replace)
    lock = _exclusive(url)
    try:
        schema.upgrade(url)  # an empty database gets the schema; an older one is brought to head first
        engine = _engine(url)
        try:
            with _write_transaction(engine) as conn:
                revision, tables = _restore_rows(conn, path, checked.header, replace, progress)
        finally:
            engine.dispose()
    finally:
        if lock >= 0:
            os.close(lock)
        progress.done()
    for target, content in files.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        with os.fdopen(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as out:
            out.write(content)
    return Summary(revision, checked.records, tables, tuple(str(t) for t in files))


def _files_to_write(files: dict[str, bytes], data_dir: Path | None, replace: bool) -> dict[Path, bytes]:
    """The backup's kept files to write into `data_dir`: where absent, or all with `replace`; one that differs
    from the data directory's refuses the restore before anything is written (without `replace`)."""
    if data_dir is None:
        return {}
    wanted: dict[Path, bytes] = {}
    for name, content in files.items():
        target = data_dir / name
        if target.exists() and not replace:
            if target.read_bytes() != content:
                raise BackupError(
                    f"{target} differs from the backup's {name}: give --replace to take the backup's; not restored"
                )
            continue
        wanted[target] = content
    return wanted


def _exclusive(url: str) -> int:
    """Refuse a store a server is using (SQLite: hold its serving lock for the restore's length)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return -1
    if not parsed.database or parsed.database == ":memory:":
        raise BackupError("restore needs a SQLite file, not an in-memory database")
    Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    try:
        return serving.take_exclusive(parsed.database)
    except serving.StoreInUse as err:
        raise BackupError(f"{err}; not restored") from None


@contextlib.contextmanager
def _write_transaction(engine: Engine) -> Iterator[Connection]:
    """One transaction for the whole restore: PostgreSQL refuses servers' sessions in it and lets one restore
    run at a time; SQLite takes the write lock at BEGIN (its servers hold the serving lock: `_exclusive`)."""
    with engine.connect() as conn:
        conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        conn.exec_driver_sql("BEGIN IMMEDIATE" if engine.dialect.name == "sqlite" else "BEGIN")
        try:
            if engine.dialect.name == "postgresql":
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": schema.MIGRATION_LOCK_KEY})
                others = _server_sessions(conn)
                if others:
                    raise BackupError(
                        f"{others} server session(s) are connected to this database: stop every orch-apiserver "
                        "replica before restoring; not restored"
                    )
            yield conn
        except BaseException:
            conn.exec_driver_sql("ROLLBACK")
            raise
        conn.exec_driver_sql("COMMIT")


#: how long a restore waits for the sessions of servers just stopped to end (a backend exits after its client)
SESSIONS_END_WAIT = 3.0


def _server_sessions(conn: Connection) -> int:
    """Servers' sessions on this PostgreSQL database, once those of servers just stopped had time to end."""
    deadline = time.monotonic() + SESSIONS_END_WAIT
    while True:
        count = conn.execute(sa.text(serving.PG_SERVER_SESSIONS), {"name": serving.APPLICATION_NAME}).scalar_one()
        if not count or time.monotonic() > deadline:
            return count
        time.sleep(0.1)
        conn.execute(sa.text("SELECT pg_stat_clear_snapshot()"))  # pg_stat_activity is read once per transaction


def _restore_rows(
    conn: Connection, path: Path, header: dict, replace: bool, progress: Progress
) -> tuple[int, dict[str, int]]:
    previous = conn.execute(sa.select(sequence.c.rv)).scalar_one_or_none() or 0
    holds = conn.execute(sa.select(sa.func.count()).select_from(objects)).scalar_one()
    if holds and not replace:
        raise BackupError(
            f"the target store holds {holds} objects at revision {previous}: give --replace to replace them with "
            "the backup; not restored"
        )
    for table in reversed(TABLES):
        conn.execute(table.delete())
    known = {t.name: t for t in TABLES}
    counts = {t.name: 0 for t in TABLES}
    batch: dict[str, list[dict]] = {t.name: [] for t in TABLES}
    for _line, record in _records(path):
        if record.get("kind") != "row":
            continue
        table = known[record["table"]]
        values = zip(header["tables"][table.name], record["values"])
        # columns this schema no longer has are left out; columns it added since are NULL (as a migration leaves them)
        batch[table.name].append({k: v for k, v in values if k in table.columns})
        counts[table.name] += 1
        if len(batch[table.name]) >= BATCH:
            conn.execute(table.insert(), batch[table.name])
            progress.add(BATCH, 0)
            batch[table.name] = []
    for name, rows in batch.items():
        if rows:
            conn.execute(known[name].insert(), rows)
    revision = max(header["revision"], previous) + RESTORE_MARGIN
    conn.execute(sequence.delete())
    conn.execute(sequence.insert().values(id=1, rv=revision, compacted=revision))
    return revision, counts


def _shown(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)
