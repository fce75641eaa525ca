"""The audit log file, shared by every gunicorn worker, rotated by size as the reference's lumberjack logger.

Each event is one `os.write` on an O_APPEND descriptor, so lines of different workers never interleave.
Rotation takes an fcntl lock on `<path>.lock`, so two workers never rotate at once; a worker whose
descriptor still points at the renamed file notices by inode and reopens.
"""

from __future__ import annotations

import fcntl
import os
import sys
import threading
import time
from datetime import UTC, datetime

MEGABYTE = 1024 * 1024
DEFAULT_MAX_SIZE_MB = 100  # lumberjack's default when --audit-log-maxsize is 0
BACKUP_TIME_FORMAT = "%Y-%m-%dT%H-%M-%S"  # lumberjack's 2006-01-02T15-04-05.000, UTC


class AuditWriter:
    """Writes whole lines to stdout (`-`) or to a size-rotated file."""

    def __init__(self, path: str, max_size_mb: int = 0, max_backups: int = 0, max_age_days: int = 0) -> None:
        self.path = path
        self.max_bytes = (max_size_mb or DEFAULT_MAX_SIZE_MB) * MEGABYTE
        self.max_backups = max_backups
        self.max_age_days = max_age_days
        self._lock = threading.Lock()
        self._fd: int | None = None
        if path != "-":
            directory = os.path.dirname(os.path.abspath(path))
            os.makedirs(directory, exist_ok=True)
            self._open()

    def _open(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def write(self, line: bytes) -> None:
        if self.path == "-":
            self._write_stdout(line)
            return
        with self._lock:
            self._follow_rotation()
            if self._size() + len(line) > self.max_bytes:
                self._rotate(len(line))
            assert self._fd is not None
            os.write(self._fd, line)

    @staticmethod
    def _write_stdout(line: bytes) -> None:
        try:
            fd = sys.stdout.fileno()
        except (AttributeError, OSError, ValueError):  # a replaced stdout (tests): no descriptor
            sys.stdout.write(line.decode())
            sys.stdout.flush()
            return
        sys.stdout.flush()
        os.write(fd, line)  # one write per event: workers sharing stdout never split a line

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    # -- rotation ------------------------------------------------------------------------------

    def _size(self) -> int:
        assert self._fd is not None
        return os.fstat(self._fd).st_size

    def _follow_rotation(self) -> None:
        """Reopen when another worker renamed the file away (or it was removed)."""
        assert self._fd is not None
        try:
            current = os.stat(self.path)
        except FileNotFoundError:
            self._open()
            return
        if current.st_ino != os.fstat(self._fd).st_ino:
            self._open()

    def _rotate(self, incoming: int) -> None:
        with open(self.path + ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                self._follow_rotation()  # someone may have rotated while we waited
                if self._size() + incoming <= self.max_bytes or self._size() == 0:
                    return
                os.rename(self.path, self._backup_name())
                self._open()
                self._prune()
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _backup_name(self) -> str:
        directory, base = os.path.split(self.path)
        stem, ext = os.path.splitext(base)
        now = datetime.now(UTC)
        stamp = now.strftime(BACKUP_TIME_FORMAT) + f".{now.microsecond // 1000:03d}"
        name = os.path.join(directory, f"{stem}-{stamp}{ext}")
        suffix = 1
        while os.path.exists(name):  # two rotations in one millisecond
            name = os.path.join(directory, f"{stem}-{stamp}{suffix}{ext}")
            suffix += 1
        return name

    def backups(self) -> list[str]:
        """Backup files of this log, oldest first."""
        directory, base = os.path.split(os.path.abspath(self.path))
        stem, ext = os.path.splitext(base)
        found = [
            os.path.join(directory, n)
            for n in os.listdir(directory)
            if n.startswith(stem + "-") and n.endswith(ext) and n != base and not n.endswith(".lock")
        ]
        return sorted(found)

    def _prune(self) -> None:
        backups = self.backups()
        doomed: set[str] = set()
        if self.max_backups > 0 and len(backups) > self.max_backups:
            doomed.update(backups[: len(backups) - self.max_backups])
        if self.max_age_days > 0:
            cutoff = time.time() - self.max_age_days * 86400
            doomed.update(b for b in backups if os.path.getmtime(b) < cutoff)
        for name in doomed:
            try:
                os.remove(name)
            except FileNotFoundError:
                pass
