"""objects, changes and the revision sequence

Revision ID: 0001
Revises:
"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

key_type = sa.Text().with_variant(sa.Text(collation="C"), "postgresql")


def upgrade() -> None:
    op.create_table(
        "objects",
        sa.Column("key", key_type, primary_key=True),
        sa.Column("rv", sa.BigInteger, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
    )
    op.create_table(
        "changes",
        sa.Column("rv", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("key", key_type, nullable=False),
        sa.Column("type", sa.String(8), nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("prev", sa.Text, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("changes_key_rv", "changes", ["key", "rv"])
    op.create_index("changes_created_at", "changes", ["created_at"])
    seq = op.create_table(
        "sequence",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("rv", sa.BigInteger, nullable=False),
        sa.Column("compacted", sa.BigInteger, nullable=False),
    )
    # Revision 1 is the empty store; "0" means "any" to clients, so it is never a real revision.
    op.bulk_insert(seq, [{"id": 1, "rv": 1, "compacted": 1}])


def downgrade() -> None:
    op.drop_table("sequence")
    op.drop_index("changes_created_at", "changes")
    op.drop_index("changes_key_rv", "changes")
    op.drop_table("changes")
    op.drop_table("objects")
