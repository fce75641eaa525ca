"""One writer thread per process that owns the sockets of open watches and writes their events.

A watch's request thread sends the headers and the initial events, then hands the connection over
(the worker's detach, app/worker.py) and goes back to the pool: an open watch holds no thread. This loop
frames each watcher's pending events when its subscription has news (or once a second, for bookmarks and
deadlines), writes them with non-blocking sends, watches each socket for the client going away, and at the
end writes the body's end and gives the connection back to the worker (kept alive) or has it closed.

Memory per watcher is bounded: events wait as shared Change objects in the subscription's bounded queue;
only up to WRITE_AHEAD framed bytes are taken out while the client is not reading. A watcher whose queue
overflows is ended (its client re-lists or resumes), as the reference ends watchers that cannot keep up.
"""

from __future__ import annotations

import collections
import contextlib
import selectors
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..background import BackgroundThread

WRITE_AHEAD = 64 * 1024  # framed bytes held per watcher beyond what its socket took
END_GRACE = 5.0  # seconds a finished stream may take to accept its last bytes before it is cut
TICK = 1.0
FULL_BATCH = 32  # the most frames a stream's pump returns at once; fewer means its queue is empty
LAST_CHUNK = b"0\r\n\r\n"


def chunk(data: bytes) -> bytes:
    """HTTP/1.1 chunked framing (the response was started chunked by the server)."""
    return b"%x\r\n" % len(data) + data + b"\r\n"


@dataclass(eq=False)
class Connection:
    sock: Any
    pump: Callable[[], list[bytes]]  # the stream's pending frames (events, bookmarks) ready for the wire, a batch
    expired: Callable[[], bool]  # deadline reached or the subscription closed or overflowed
    #: the worker takes the connection back: True = the body was ended cleanly and it may be reused
    release: Callable[[bool], None]
    chunked: bool = True
    ended: Callable[[], None] = lambda: None  # the stream's own clean-up (unsubscribe), called once
    buffer: bytearray = field(default_factory=bytearray)
    ending_by: float | None = None  # set when the last bytes are queued: the time they must be sent by
    waiting_to_write: bool = False  # registered for writability: the socket took less than we had


class SocketFanout(BackgroundThread):
    name = "watch-fanout"

    def __init__(self) -> None:
        super().__init__()
        self._selector: selectors.BaseSelector | None = None  # made on start: most apps never stream
        self._lock = threading.Lock()
        self._new: list[Connection] = []
        self._dirty: set[Connection] = set()
        self._conns: set[Connection] = set()
        self._woken = False
        self._finished = False  # the loop has ended: late streams are ended by whoever attaches them
        #: events sent this turn, by (counter, size): counted once per turn, not once per watcher
        self._sent: collections.Counter = collections.Counter()

    @property
    def open_streams(self) -> int:
        return len(self._conns)

    def start(self) -> None:
        with self._lock:
            if self._selector is None:
                self._selector = selectors.DefaultSelector()
                self._wake_r, self._wake_w = socket.socketpair()
                self._wake_r.setblocking(False)
                self._wake_w.setblocking(False)
                self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        super().start()

    def wake(self) -> None:
        with self._lock:
            self._wake_locked()

    def _wake_locked(self) -> None:
        if self._woken or self._selector is None:
            return
        self._woken = True
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")

    def tally(self, count: Callable[[int, int], None] | None, size: int) -> None:
        """An event of `size` bytes is sent (called on this thread, from the streams' pumps)."""
        if count is not None:
            self._sent[(count, size)] += 1

    def _count_sent(self) -> None:
        sent, self._sent = self._sent, collections.Counter()
        for (count, size), times in sent.items():
            count(size, times)

    def mark(self, conn: Connection) -> None:
        """The stream has news (called from the hub's thread): pump it on the next turn."""
        with self._lock:
            self._dirty.add(conn)
            self._wake_locked()

    def attach(self, conn: Connection) -> None:
        self.start()
        with self._lock:
            if not self._finished:
                self._new.append(conn)
                self._wake_locked()
                return
        self._conns.add(conn)  # the writer has stopped (shutdown): the stream ends here and now
        self._last_words(conn)

    def run(self) -> None:
        assert self._selector is not None
        next_sweep = time.monotonic() + TICK
        while not self.stopping.is_set():
            for key, mask in self._selector.select(max(0.0, next_sweep - time.monotonic())):
                if key.data is None:
                    self._drain_wake()
                elif mask & selectors.EVENT_READ:
                    self._close(key.data)  # a watch client sends nothing: readable means gone
                elif mask & selectors.EVENT_WRITE:
                    self._flush(key.data)
            with self._lock:
                new, self._new = self._new, []
                dirty, self._dirty = self._dirty, set()
            for conn in new:
                conn.sock.setblocking(False)
                self._conns.add(conn)
                self._selector.register(conn.sock, selectors.EVENT_READ, conn)
                self._pump(conn)
            if time.monotonic() >= next_sweep:  # bookmarks, deadlines, streams stuck at their end
                next_sweep = time.monotonic() + TICK
                dirty = self._conns
            for conn in list(dirty):
                if conn in self._conns:
                    self._pump(conn)
            if self._sent:
                self._count_sent()
        with self._lock:
            self._finished = True
            self._conns.update(self._new)
            self._new = []
        for conn in list(self._conns):
            self._last_words(conn)
        self._selector.close()
        self._wake_r.close()
        self._wake_w.close()

    def _drain_wake(self) -> None:
        # drain first, then re-arm: a wake-up between the two is covered by the pump that follows
        with contextlib.suppress(OSError):
            while self._wake_r.recv(4096):
                pass
        with self._lock:
            self._woken = False

    def _pump(self, conn: Connection) -> None:
        if conn.ending_by is not None:
            if time.monotonic() > conn.ending_by:
                self._close(conn)
            return
        try:
            while len(conn.buffer) < WRITE_AHEAD:
                frames = conn.pump()
                for frame in frames:
                    conn.buffer += frame
                if len(frames) < FULL_BATCH:  # the stream's queue is drained
                    break
        except Exception:  # noqa: BLE001 - a broken stream ends that watch only
            self._close(conn)
            return
        if conn.expired():
            self._end(conn)
        elif conn.buffer:
            self._flush(conn)

    def _end(self, conn: Connection) -> None:
        """The stream is over: its last events and the body's end go out, then the worker takes it back."""
        if conn.chunked:
            conn.buffer += LAST_CHUNK
        conn.ending_by = time.monotonic() + END_GRACE
        self._flush(conn)

    def _flush(self, conn: Connection) -> None:
        while conn.buffer:
            try:
                sent = conn.sock.send(conn.buffer)
            except (ssl.SSLWantWriteError, ssl.SSLWantReadError, BlockingIOError):
                if not conn.waiting_to_write:
                    conn.waiting_to_write = True
                    self._selecting().modify(conn.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, conn)
                return
            except OSError:
                self._close(conn)
                return
            del conn.buffer[:sent]
        if conn.ending_by is not None:
            self._give_back(conn, reusable=conn.chunked)
        elif conn.waiting_to_write:
            conn.waiting_to_write = False
            self._selecting().modify(conn.sock, selectors.EVENT_READ, conn)

    def _selecting(self) -> selectors.BaseSelector:
        assert self._selector is not None  # connections are only written while the writer runs
        return self._selector

    def _close(self, conn: Connection) -> None:
        self._give_back(conn, reusable=False)

    def _give_back(self, conn: Connection, reusable: bool) -> None:
        if conn not in self._conns:
            return
        self._conns.discard(conn)
        with contextlib.suppress(KeyError, ValueError, OSError):
            self._selecting().unregister(conn.sock)
        conn.ended()
        conn.release(reusable)

    def _last_words(self, conn: Connection) -> None:
        """Shutdown: what fits into the socket now, with the body's end, then the connection closes."""
        if conn.ending_by is None and conn.chunked:
            conn.buffer += LAST_CHUNK
        with contextlib.suppress(OSError, ssl.SSLError):
            conn.sock.setblocking(False)
            while conn.buffer:
                del conn.buffer[: conn.sock.send(conn.buffer)]
        self._close(conn)
