"""Errors that repeat (a database outage fails every request and every poll) logged once, then counted.

The first occurrence of an error is logged with its traceback; repeats within `window` seconds are only counted,
and the next occurrence after the window logs one line saying how many were suppressed.
"""

from __future__ import annotations

import logging
import threading
import time
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
