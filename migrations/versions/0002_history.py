"""who made each change, per-kind compaction marks, and an index of deletions (reads of past revisions)

Revision ID: 0002
Revises: 0001
"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # nullable columns without defaults: a catalog-only change on PostgreSQL, no table rewrite
    op.add_column("changes", sa.Column("username", sa.Text, nullable=True))
    op.add_column("changes", sa.Column("manager", sa.Text, nullable=True))
    op.add_column("changes", sa.Column("verb", sa.Text, nullable=True))
    deleted = sa.text("type = 'DELETED'")
    op.create_index("changes_deleted", "changes", ["rv"], postgresql_where=deleted, sqlite_where=deleted)
    op.create_table(
        "compaction_marks",
        sa.Column("rule", sa.Text, primary_key=True),
        sa.Column("compacted", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("compaction_marks")
    op.drop_index("changes_deleted", "changes")
    with op.batch_alter_table("changes") as batch:
        batch.drop_column("verb")
        batch.drop_column("manager")
        batch.drop_column("username")
