"""Alembic environment: the URL comes from the caller (ensure_schema) or ORCH_DATABASE_URL."""
from __future__ import annotations

import os

from alembic import context
from sqlalchemy import create_engine

from orch_apiserver.storage.models import metadata

config = context.config


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url") or os.environ.get("ORCH_DATABASE_URL")
    if not url:
        data_dir = os.path.abspath(os.environ.get("ORCH_DATA_DIR", "var"))
        os.makedirs(data_dir, exist_ok=True)
        url = f"sqlite:///{data_dir}/orch.db"
    return url


def run_offline() -> None:
    context.configure(url=_url(), target_metadata=metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=metadata)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(_url())
    with engine.connect() as conn:
        context.configure(connection=conn, target_metadata=metadata)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
