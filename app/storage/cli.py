"""`flask db upgrade`: migrate the configured database to the newest schema."""
from __future__ import annotations

import click
from flask import current_app
from flask.cli import with_appcontext

from app.storage import schema


@click.group("db", help="Database schema commands.")
def db_cli() -> None:
    pass


@db_cli.command("upgrade", help="Apply every pending migration (alembic) to the configured database.")
@with_appcontext
def upgrade() -> None:
    url = current_app.config["DATABASE_URL"]
    schema.upgrade(url)
    click.echo(f"database schema is up to date ({url.split('@')[-1]})")
