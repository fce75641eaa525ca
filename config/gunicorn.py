"""`gunicorn -c config/gunicorn.py wsgi:app` (the container): ORCH_* settings; prepares PKI like orch-apiserver."""

from __future__ import annotations

import os

from orch_apiserver.config import ConfigError, settings_from_env
from orch_apiserver.server import gunicorn_options, prepare

try:
    _settings = settings_from_env(os.environ)
except ConfigError as _err:
    raise SystemExit(f"orch-apiserver: {_err}") from None
prepare(_settings)
globals().update(gunicorn_options(_settings))

# gunicorn hook child_exit: a dead worker's open-watch gauge stops counting
from orch_apiserver.metrics.multiprocess import child_exit, prepare_multiprocess_dir  # noqa: E402, F401

prepare_multiprocess_dir()  # before workers fork: their metrics are merged from one fresh directory
