"""Log lines that come often: errors that repeat, logged once then counted, and lines written in batches.

RepeatedErrors: the first occurrence of an error is logged with its traceback; repeats within `window` seconds are
only counted, and the next occurrence after the window logs one line saying how many were suppressed.

BatchedLines: lines queued by the threads that produce them (one per request: the request log) and turned into log
records by one thread per process, in order, at most `interval` seconds later, as klog (the reference's logger)
buffers its lines. A request thread pays for an append; records made in a row cost a third of records made one
by one between requests. With an interval of 0 each line is logged at once.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any


class RepeatedErrors:
    def __init__(
        self, logger: logging.Logger, window: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.logger, self.window, self.clock = logger, window, clock
        self._lock = threading.Lock()
        self._seen: dict[str, tuple[float, int]] = {}  # key -> (when last logged, repeats since)

    def log(self, level: int, message: str, *args: Any, error: BaseException | None = None, context: str = "") -> None:
        """`message % args` (plus ": <error>"); the message and the error's type and text make the repeat,
        `context` (the request it broke, say) is only shown."""
        key = f"{message % args}: {type(error).__name__}: {error}" if error is not None else message % args
        now = self.clock()
        with self._lock:
            last = self._seen.get(key)
            if last is not None and now - last[0] < self.window:
                self._seen[key] = (last[0], last[1] + 1)
                return
            self._seen[key] = (now, 0)
            if len(self._seen) > 1000:  # many distinct errors: forget the oldest
                oldest = min(self._seen, key=lambda k: self._seen[k][0])
                del self._seen[oldest]
        suffix = f" ({last[1]} more times in the last {self.window:.0f}s)" if last is not None and last[1] else ""
        suffix += f" [{context}]" if context else ""
        if error is None:
            self.logger.log(level, "%s%s", key, suffix)
        elif last is None:  # the first time: the whole story
            self.logger.log(level, "%s%s", key, suffix, exc_info=error)
        else:
            self.logger.log(level, "%s%s", key.splitlines()[0], suffix)


class BatchedLines:
    def __init__(self, logger: logging.Logger, interval: float = 0.1) -> None:
        self.logger, self.interval = logger, interval
        self._lines: deque[tuple[float, str]] = deque()
        self._lock = threading.Lock()
        self._pid = 0  # the process whose thread writes the lines (a forked worker starts its own)

    def info(self, line: str) -> None:
        """Queue `line`, logged at INFO with the time it was queued."""
        if not self.logger.isEnabledFor(logging.INFO):
            return
        self._lines.append((time.time(), line))
        if self.interval <= 0:
            self.flush()
        elif self._pid != os.getpid():
            self._start()

    def _start(self) -> None:
        with self._lock:
            if self._pid == os.getpid():
                return
            self._pid = os.getpid()
            threading.Thread(target=self._run, name=f"{self.logger.name}-writer", daemon=True).start()
            atexit.register(self.flush)  # what is queued when the process exits is written

    def _run(self) -> None:
        while True:
            time.sleep(self.interval)
            self.flush()

    def flush(self) -> None:
        """Log every queued line now."""
        logger = self.logger
        while self._lines:
            try:
                created, line = self._lines.popleft()
            except IndexError:  # another flush took the last one
                return
            record = logger.makeRecord(logger.name, logging.INFO, __file__, 0, line, (), None)
            record.created = created
            record.msecs = int(created * 1000) % 1000
            record.relativeCreated = (created - logging._startTime) * 1000  # type: ignore[attr-defined]
            logger.handle(record)
