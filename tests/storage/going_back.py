"""Sending a store back in time under a running server, as a failover to a lagging standby or a restore of an older
copy does: `kept = keep(url)` copies the whole store (objects, change log, revision counter, marks), `go_back(kept)`
puts that copy back in place of the newer state, while servers keep their connections."""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import make_url

TABLES = ("objects", "changes", "sequence", "compaction_marks")


@dataclass(frozen=True)
class Kept:
    url: str
    where: str  # SQLite: the copy's file; PostgreSQL: the suffix of the copied tables


def keep(url: str, directory: Path) -> Kept:
    """A consistent copy of the store now: SQLite's online backup API, or PostgreSQL tables copied in one snapshot."""
    if url.startswith("sqlite"):
        copy = directory / f"kept-{uuid.uuid4().hex[:8]}.db"
        with sqlite3.connect(make_url(url).database) as live, sqlite3.connect(copy) as kept:
            live.backup(kept)
        return Kept(url, str(copy))
    suffix = uuid.uuid4().hex[:8]
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"))
        for table in TABLES:
            conn.execute(sa.text(f"CREATE TABLE kept_{table}_{suffix} AS TABLE {table}"))
    engine.dispose()
    return Kept(url, suffix)


def go_back(kept: Kept) -> None:
    """Replace the store's state by the kept copy, in one transaction (what a promoted standby or a restore shows)."""
    if kept.url.startswith("sqlite"):
        with sqlite3.connect(kept.where) as copy, sqlite3.connect(make_url(kept.url).database) as live:
            copy.backup(live)
        return
    engine = sa.create_engine(kept.url)
    with engine.begin() as conn:
        conn.execute(sa.text("LOCK TABLE sequence IN ACCESS EXCLUSIVE MODE"))
        conn.execute(sa.text("TRUNCATE objects, changes, compaction_marks"))
        for table in ("objects", "changes", "compaction_marks"):
            conn.execute(sa.text(f"INSERT INTO {table} SELECT * FROM kept_{table}_{kept.where}"))
        conn.execute(
            sa.text(
                f"UPDATE sequence s SET rv = k.rv, compacted = k.compacted FROM kept_sequence_{kept.where} k "
                "WHERE s.id = k.id"
            )
        )
        for table in TABLES:
            conn.execute(sa.text(f"DROP TABLE kept_{table}_{kept.where}"))
    engine.dispose()
