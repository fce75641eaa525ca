"""WSGI entry point (`flask db upgrade`, `gunicorn -c config/gunicorn.py wsgi:app`): defaults + ORCH_* vars."""

from __future__ import annotations

from orch_apiserver import create_app

app = create_app()
