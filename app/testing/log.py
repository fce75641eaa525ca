"""The test server's log, kept in memory so a failing test can show what the server said."""

from __future__ import annotations

import logging
import threading

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class ServerLog(logging.Handler):
    """Records of our package's loggers while the server runs; `mark()` and `text(since=...)` cut out one test."""

    LOGGERS = (__package__.rpartition(".")[0], "werkzeug")

    def __init__(self, level: int = logging.INFO) -> None:
        super().__init__(level)
        self.setFormatter(logging.Formatter(FORMAT))
        self._lines: list[str] = []
        self._guard = threading.Lock()
        self._levels: dict[str, int] = {}

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record)
        except Exception:  # noqa: BLE001 - a broken record must not break the server
            line = f"{record.levelname} {record.name}: {record.msg!r}"
        with self._guard:
            self._lines.append(line)

    def attach(self) -> None:
        for name in self.LOGGERS:
            logger = logging.getLogger(name)
            self._levels[name] = logger.level
            if logger.getEffectiveLevel() > self.level:
                logger.setLevel(self.level)
            logger.addHandler(self)

    def detach(self) -> None:
        for name, level in self._levels.items():
            logger = logging.getLogger(name)
            logger.removeHandler(self)
            logger.setLevel(level)
        self._levels.clear()

    def mark(self) -> int:
        with self._guard:
            return len(self._lines)

    def text(self, since: int = 0) -> str:
        with self._guard:
            return "\n".join(self._lines[since:])
