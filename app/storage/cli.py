"""`flask db upgrade`: migrate the configured database to the newest schema."""

from __future__ import annotations

import click
from flask import current_app
from flask.cli import with_appcontext

from . import schema


@click.group("db", help="Database schema commands.")
def db_cli() -> None:
    pass


@db_cli.command("upgrade", help="Apply every pending migration (alembic) to the configured database.")
@with_appcontext
def upgrade() -> None:
    url = current_app.config["DATABASE_URL"]
    before, after = schema.upgrade(url)
    where = url.split("@")[-1]
    if before is None:
        click.echo(f"created the database schema at revision {after} ({where})")
    elif before == after:
        click.echo(f"the database schema is already at revision {after}, nothing to do ({where})")
    else:
        click.echo(f"upgraded the database schema from revision {before} to {after} ({where})")
