"""Multiprocess metrics across gunicorn workers: a fresh value directory per server, set before workers fork."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from typing import Any

from . import MULTIPROC_ENV


def prepare_multiprocess_dir() -> str:
    """A new empty directory for the workers' metric files (stale files would add old counts); removed at exit
    of the process that made it (the gunicorn arbiter)."""
    path = tempfile.mkdtemp(prefix="orch-metrics-")
    os.environ[MULTIPROC_ENV] = path
    owner = os.getpid()

    def _remove() -> None:
        if os.getpid() == owner:  # forked workers inherit atexit handlers
            shutil.rmtree(path, ignore_errors=True)

    atexit.register(_remove)
    return path


def child_exit(_server: Any, worker: Any) -> None:
    """gunicorn hook: a dead worker's live gauges (open watches) stop counting."""
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
