"""The three tables: current state, the append-only change log, and the revision counter."""

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

changes = sa.Table(
    "changes",
    metadata,
    sa.Column("rv", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("key", KeyType, nullable=False),
    sa.Column("type", sa.String(8), nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("prev", sa.Text, nullable=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Index("changes_key_rv", "key", "rv"),
    sa.Index("changes_created_at", "created_at"),
)

sequence = sa.Table(
    "sequence",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("rv", sa.BigInteger, nullable=False),
    sa.Column("compacted", sa.BigInteger, nullable=False),
)
