"""WSGI entry point (`flask db upgrade`, `gunicorn -c config/gunicorn.py wsgi:app`): defaults + ORCH_* vars."""
from __future__ import annotations

import os

from app import create_app
from config import ConfigError, flask_config, settings_from_env

try:
    settings = settings_from_env(os.environ)
except ConfigError as err:
    raise SystemExit(f"orch-apiserver: {err}") from None
if settings.database_url is None:
    os.makedirs(settings.data_path, exist_ok=True)  # the default SQLite file lives there
app = create_app(flask_config(settings))
