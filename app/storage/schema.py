"""Schema management: alembic migrations from the repo's migrations/ directory."""
from __future__ import annotations

import os
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine


class SchemaOutdated(Exception):
    pass


def migrations_dir() -> Path:
    override = os.environ.get("ORCH_MIGRATIONS_DIR")
    if override:
        return Path(override)
    for candidate in (Path(__file__).resolve().parents[2] / "migrations", Path.cwd() / "migrations"):
        if (candidate / "env.py").exists():
            return candidate
    raise SchemaOutdated("cannot find the migrations/ directory; set ORCH_MIGRATIONS_DIR")


def alembic_config(database_url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    cfg.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return cfg


def upgrade(database_url: str) -> None:
    command.upgrade(alembic_config(database_url), "head")


def ensure_schema(database_url: str, upgrade: bool) -> None:
    """Bring the schema to head when allowed (SQLite), else refuse an old schema (PostgreSQL)."""
    cfg = alembic_config(database_url)
    head = ScriptDirectory.from_config(cfg).get_current_head()
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            current = MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()
    if current == head:
        return
    if upgrade:
        command.upgrade(cfg, "head")
        return
    raise SchemaOutdated(
        f"the database schema is at revision {current or 'none'}, this server needs {head}: "
        "run `flask db upgrade` (with ORCH_DATABASE_URL set) before starting the server"
    )
