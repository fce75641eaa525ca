"""PostgreSQL wake-ups across processes: a coalesced NOTIFY after local commits, a LISTEN per process.

NOTIFY is sent from its own connection after commit, never inside the write transaction
(a NOTIFY in the transaction serialises every commit on one lock). The payload names the sending
process only, so a process does not wake for its own commits (its hub already was); listeners read the change
log themselves.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import psycopg
from psycopg.conninfo import make_conninfo
from sqlalchemy.engine import make_url

from ..background import BackgroundThread, OutageLog
from .serving import APPLICATION_NAME

log = logging.getLogger(__name__)
CHANNEL = "orch_changes"
RECONNECT_DELAY = 1.0


def conninfo(url: str) -> str:
    """libpq's connection string for a SQLAlchemy URL, as the store's own connections make it: the multi-host forms
    (`?host=a:p&host=b:q`, `?host=a,b&port=p,q`) become `host=a,b port=p,q`, which libpq tries in turn."""
    parsed = make_url(url)
    _, params = parsed.get_dialect()().create_connect_args(parsed)
    params.setdefault("application_name", APPLICATION_NAME)
    return make_conninfo("", **params)


class ChangeNotifier(BackgroundThread):
    """Sends one NOTIFY for any number of local commits that happened since the last one."""

    name = "change-notifier"

    def __init__(self, url: str, sender: str):
        super().__init__()
        self.outage = OutageLog(log, "change notifier (NOTIFY)")
        self.url = conninfo(url)
        self.sender = sender
        self._pending = threading.Event()

    def committed(self, _written: object) -> None:
        self._pending.set()

    def wake(self) -> None:
        self._pending.set()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True) as conn:
                    self.outage.succeeded()
                    while not self.stopping.is_set():
                        self._pending.wait()
                        self._pending.clear()
                        if not self.stopping.is_set():
                            conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, self.sender))
            except psycopg.Error as err:
                self.outage.failed(err)
                self.stopping.wait(RECONNECT_DELAY)


class ChangeListener(BackgroundThread):
    """Calls `on_change()` whenever another process (any whose notifier is not `own_sender`) committed."""

    name = "change-listener"

    def __init__(self, url: str, on_change: Callable[[], None], own_sender: str):
        super().__init__()
        self.outage = OutageLog(log, "change listener (LISTEN; polling meanwhile)")
        self.url = conninfo(url)
        self.on_change = on_change
        self.own_sender = own_sender
        self.listening = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    self.outage.succeeded()
                    while not self.stopping.is_set():
                        for note in conn.notifies(timeout=0.5, stop_after=1):
                            if note.payload != self.own_sender:
                                self.on_change()
            except psycopg.Error as err:
                self.listening.clear()
                self.outage.failed(err)
                self.stopping.wait(RECONNECT_DELAY)
