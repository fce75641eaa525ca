"""Graceful shutdown of the gunicorn server (`--shutdown-delay-duration`), and the worker's boot and exit steps.

On SIGTERM the master sets the shared shutdown flag (every worker's /readyz then fails with
`[-]shutdown failed`), keeps serving for the delay, then stops as gunicorn does: it closes the listeners and
sends SIGTERM to the workers. A worker then ends its open watches cleanly (the chunked body is terminated,
clients see EOF), finishes in-flight requests within the graceful timeout and exits; the master exits 0.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from flask import Flask
from gunicorn.arbiter import Arbiter

from .lifecycle import ShutdownSignal, begin_drain, post_start_hooks


class DelayedShutdownArbiter(Arbiter):
    """gunicorn's master, with the reference's shutdown delay between SIGTERM and the drain."""

    def __init__(self, app: Any, delay: float, shutdown_signal: ShutdownSignal) -> None:
        super().__init__(app)
        self.shutdown_delay = delay
        self.shutdown_signal = shutdown_signal
        self.shutdown_deadline: float | None = None

    def handle_term(self) -> None:
        if self.shutdown_deadline is None:
            self.shutdown_signal.set()
            self.shutdown_deadline = time.monotonic() + self.shutdown_delay
            if self.shutdown_delay > 0:
                self.log.info("Shutdown requested: /readyz fails; serving %.1fs before draining", self.shutdown_delay)
        self._stop_when_delay_passed()

    def handle_int(self) -> None:
        """Ctrl-C stops as SIGTERM does (gunicorn's quick stop would leave watch threads to be SIGKILLed)."""
        self.handle_term()

    def murder_workers(self) -> None:
        super().murder_workers()  # runs once per turn of the master loop (at least every second)
        self._stop_when_delay_passed()

    def _stop_when_delay_passed(self) -> None:
        if self.shutdown_deadline is not None and time.monotonic() >= self.shutdown_deadline:
            raise StopIteration  # the loop's own way out: graceful stop of the workers, exit status 0


def worker_booted(wsgi: Any) -> None:
    """Start-up work begins at once: a fresh server becomes ready without any client request."""
    if isinstance(wsgi, Flask):
        post_start_hooks(wsgi).start()


def worker_exiting(wsgi: Any) -> None:
    """Called from the worker's SIGTERM handler: drain in a thread (joins must not run in a handler)."""
    if isinstance(wsgi, Flask):
        threading.Thread(target=begin_drain, args=(wsgi,), name="drain", daemon=True).start()
