"""The tables: current state, the append-only change log, the revision counter and the per-kind compaction marks."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

# Byte-order keys on PostgreSQL too, so ORDER BY key is the same on both stores.
KeyType = sa.Text().with_variant(sa.Text(collation="C"), "postgresql")

objects = sa.Table(
    "objects",
    metadata,
    sa.Column("key", KeyType, primary_key=True),
    sa.Column("rv", sa.BigInteger, nullable=False),
    sa.Column("data", sa.Text, nullable=False),
)

_DELETED = sa.text("type = 'DELETED'")

changes = sa.Table(
    "changes",
    metadata,
    sa.Column("rv", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("key", KeyType, nullable=False),
    sa.Column("type", sa.String(8), nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("prev", sa.Text, nullable=True),
    sa.Column("created_at", sa.Float, nullable=False),  # commit time: UTC seconds since the epoch (microseconds)
    # who and how (migration 0002; NULL on older rows and on writes nobody attributed)
    sa.Column("username", sa.Text, nullable=True),
    sa.Column("manager", sa.Text, nullable=True),
    sa.Column("verb", sa.Text, nullable=True),
    sa.Index("changes_key_rv", "key", "rv"),
    sa.Index("changes_created_at", "created_at"),
    # the keys deleted after a revision, for reads of that revision (migration 0002)
    sa.Index("changes_deleted", "rv", postgresql_where=_DELETED, sqlite_where=_DELETED),
)

sequence = sa.Table(
    "sequence",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("rv", sa.BigInteger, nullable=False),
    sa.Column("compacted", sa.BigInteger, nullable=False),
)

# Per retention rule (`--history-retention`, "*" for the rest): reads of its kinds below `compacted` answer 410.
compaction_marks = sa.Table(
    "compaction_marks",
    metadata,
    sa.Column("rule", sa.Text, primary_key=True),
    sa.Column("compacted", sa.BigInteger, nullable=False),
)
