"""PostgreSQL wake-ups across processes: a coalesced NOTIFY after local commits, a LISTEN per process.

NOTIFY is sent from its own connection after commit, never inside the write transaction
(a NOTIFY in the transaction serialises every commit on one lock). The payload carries nothing:
listeners read the change log themselves.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import psycopg
from sqlalchemy.engine import make_url

log = logging.getLogger(__name__)
CHANNEL = "orch_changes"
RECONNECT_DELAY = 1.0


def conninfo(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class ChangeNotifier:
    """Sends one NOTIFY for any number of local commits that happened since the last one."""

    def __init__(self, url: str):
        self.url = conninfo(url)
        self._pending = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="change-notifier", daemon=True)

    def committed(self, _rv: int) -> None:
        self._pending.set()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._pending.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True) as conn:
                    while not self._stop.is_set():
                        self._pending.wait()
                        self._pending.clear()
                        if not self._stop.is_set():
                            conn.execute(f"NOTIFY {CHANNEL}")
            except psycopg.Error:
                log.warning("change notifier lost its connection; retrying", exc_info=True)
                self._stop.wait(RECONNECT_DELAY)


class ChangeListener:
    """Calls `wake()` whenever any process (this one included) has committed a change."""

    def __init__(self, url: str, wake: Callable[[], None]):
        self.url = conninfo(url)
        self.wake = wake
        self.listening = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="change-listener", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    while not self._stop.is_set():
                        for _ in conn.notifies(timeout=0.5, stop_after=1):
                            self.wake()
            except psycopg.Error:
                self.listening.clear()
                log.warning("change listener lost its connection; polling until it is back", exc_info=True)
                self._stop.wait(RECONNECT_DELAY)
