"""The Retry-After of priority and fairness's 429s, per priority level (the reference's v1.28+ dropped-requests
tracker): 1 s while the level rarely turns requests away; doubled (up to 32 s) while it keeps doing so, and
brought down a second at a time once it stops, as TCP's congestion window moves. Clients such as client-go
wait exactly what it says before they try again, so a constant 1 s had every refused request of a burst
come back together one second later.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

#: the longest Retry-After given, in seconds (the reference's maxRetryAfter)
MAX_RETRY_AFTER = 32


@dataclass
class _LevelDrops:
    retry_after: int = 1
    second: int = 0  # the second `count` counts drops of
    count: int = 0
    #: (second, drops) of earlier seconds, oldest first; only the last min(2 x retry_after, 32) s are kept
    history: deque[tuple[int, int]] = field(default_factory=deque)
    raised_at: int = 0  # when retry_after was last doubled

    def record(self, second: int) -> None:
        if second == self.second:
            self.count += 1
            return
        self.history.append((self.second, self.count))
        kept = min(2 * self.retry_after, MAX_RETRY_AFTER)
        while self.history and second - self.history[0][0] > kept:
            self.history.popleft()
        self.second, self.count = second, 1
        self._adjust(second)

    def _adjust(self, now: int) -> None:
        """From the drops of the `retry_after` seconds before this one: double when there were at least three per
        second of it (at most once per `retry_after` seconds: one spike is one raise), one less when there were
        fewer than one per second."""
        recent = sum(n for at, n in self.history if now - at <= self.retry_after and at < now)
        if now - self.raised_at >= self.retry_after and recent >= 3 * self.retry_after:
            self.retry_after = min(2 * self.retry_after, MAX_RETRY_AFTER)
            self.raised_at = now
        elif recent < self.retry_after and self.retry_after > 1:
            self.retry_after -= 1


class DroppedRequests:
    """The requests each priority level turned away lately, and the Retry-After they make it answer."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._levels: dict[str, _LevelDrops] = {}

    def record(self, level: str) -> int:
        """A request of `level` was turned away: the Retry-After (seconds) its answer carries."""
        second = int(self.clock())
        with self._lock:
            drops = self._levels.get(level)
            if drops is None:
                drops = self._levels[level] = _LevelDrops()
            drops.record(second)
            return drops.retry_after

    def retry_after(self, level: str) -> int:
        with self._lock:
            drops = self._levels.get(level)
            return drops.retry_after if drops is not None else 1
