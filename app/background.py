"""A stoppable daemon thread: the shape shared by every background loop of a process, and OutageLog: how
such a loop reports rounds that fail while the database (or another peer) is away."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from sqlalchemy.exc import DBAPIError, DisconnectionError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

REMIND_INTERVAL = 300.0  # seconds: a long outage is recalled this often, with its count so far


def is_outage(error: BaseException) -> bool:
    """The peer cannot be reached (refused, reset, restarting, out of connections): no traceback needed."""
    if isinstance(error, (OperationalError, DisconnectionError, PoolTimeoutError, ConnectionError, TimeoutError)):
        return True
    if isinstance(error, DBAPIError) and error.connection_invalidated:
        return True
    # psycopg's own errors (AdminShutdown and the like), raised by the loops that hold a raw connection
    return any(c.__module__.startswith("psycopg") and c.__name__ == "OperationalError" for c in type(error).__mro__)


def one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}".rstrip(": ")


class OutageLog:
    """One loop's failed rounds, logged once per outage: the first failure in one line (with its traceback only
    when it is not an outage, i.e. probably a bug), then nothing but a reminder every REMIND_INTERVAL, and one
    line when a round succeeds again with the count of failed rounds. Each loop owns one (not thread-safe)."""

    def __init__(
        self,
        logger: logging.Logger,
        what: str,
        level: int = logging.WARNING,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger, self.what, self.level, self.clock = logger, what, level, clock
        self.failed_rounds = 0
        self._since = 0.0
        self._reminded = 0.0

    def failed(self, error: BaseException) -> None:
        now = self.clock()
        self.failed_rounds += 1
        if self.failed_rounds == 1:
            self._since = self._reminded = now
            trace = None if is_outage(error) else error
            self.logger.log(self.level, "%s failing: %s", self.what, one_line(error), exc_info=trace)
        elif now - self._reminded >= REMIND_INTERVAL:
            self._reminded = now
            self.logger.log(
                self.level,
                "%s still failing after %d rounds in %.0fs: %s",
                self.what,
                self.failed_rounds,
                now - self._since,
                one_line(error),
            )

    def succeeded(self) -> None:
        if self.failed_rounds:
            self.logger.log(
                self.level,
                "%s recovered after %d failed rounds in %.1fs",
                self.what,
                self.failed_rounds,
                self.clock() - self._since,
            )
            self.failed_rounds = 0


class BackgroundThread:
    """Subclasses implement `run()` and leave it when `self.stopping` is set."""

    name = "background"

    def __init__(self) -> None:
        self.stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self.run, name=self.name, daemon=True)
                self._thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.wake()
        thread = self._thread
        if thread is not None and thread.is_alive() and thread is not threading.current_thread():
            thread.join(timeout=5)

    @property
    def running(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def wake(self) -> None:
        """Interrupt a wait in run() (subclasses with their own wake-up event override this)."""

    def run(self) -> None:
        raise NotImplementedError
