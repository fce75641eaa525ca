"""Schema management: alembic migrations from the repo's migrations/ directory."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import create_engine, text

if TYPE_CHECKING:  # alembic (~0.15 s to import) is imported where a migration or revision check runs
    from alembic.config import Config


class SchemaOutdated(Exception):
    pass


def migrations_dir() -> Path:
    """The alembic scripts: `orch_apiserver/migrations` of an installed wheel, `migrations/` beside `app/` in a
    source tree (never a `migrations` package of the user's own)."""
    override = os.environ.get("ORCH_MIGRATIONS_DIR")  # a developer's scratch copy; never needed to run
    if override:
        return Path(override)
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "migrations", package.parent / "migrations"):
        if (candidate / "env.py").exists() and (candidate / "versions").is_dir():
            return candidate
    raise SchemaOutdated("cannot find the migrations/ directory: the orch-apiserver package is incomplete")


def alembic_config(database_url: str) -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    cfg.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return cfg


def current_revision(database_url: str) -> str | None:
    from alembic.runtime.migration import MigrationContext

    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


#: the PostgreSQL advisory lock held while migrating ("orch" in ASCII): one migrator at a time
MIGRATION_LOCK_KEY = 0x6F726368


def upgrade(database_url: str) -> tuple[str | None, str | None]:
    """Migrate to head; (revision before, revision after), None for a database without our schema.

    On PostgreSQL the whole step holds an advisory lock: replicas whose entry points migrate at the same time
    wait for the first one, then find nothing to do."""
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
            before = MigrationContext.configure(conn).get_current_revision()
            cfg = alembic_config(database_url)
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
            conn.commit()
            after = MigrationContext.configure(conn).get_current_revision()
            conn.rollback()  # end the read's transaction; closing the connection releases the lock
    finally:
        engine.dispose()
    return before, after


def ensure_schema(database_url: str, upgrade: bool) -> None:
    """Bring the schema to head when allowed (SQLite), else refuse an old schema (PostgreSQL)."""
    from alembic import command
    from alembic.script import ScriptDirectory

    cfg = alembic_config(database_url)
    head = ScriptDirectory.from_config(cfg).get_current_head()
    current = current_revision(database_url)
    if current == head:
        return
    if upgrade:
        command.upgrade(cfg, "head")
        return
    raise SchemaOutdated(
        f"the database schema is at revision {current or 'none'}, this server needs {head}: "
        "run `FLASK_APP=orch_apiserver flask db upgrade` (with ORCH_DATABASE_URL set) before starting the server"
    )
