"""The watch writer on real sockets: a client that does not read is cut off with bounded memory; a finished
stream ends its chunked body and gives the connection back."""

from __future__ import annotations

import itertools
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from orch_apiserver.api import fanout as fanout_module
from orch_apiserver.api.fanout import LAST_CHUNK, WRITE_AHEAD, Connection, SocketFanout, chunk

from tests.e2e import poll


@pytest.fixture
def writer() -> Iterator[SocketFanout]:
    running = SocketFanout()
    yield running
    running.stop()


def test_a_client_that_does_not_read_holds_bounded_memory_and_is_cut_off(
    writer: SocketFanout, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fanout_module, "END_GRACE", 0.5)
    server_end, client_end = socket.socketpair()
    server_end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16384)
    client_end.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
    frame = b"x" * 2048
    pumped = itertools.count()
    overflowed_at = time.monotonic() + 1.0  # the subscription's bounded queue fills while nobody reads
    results: list[bool] = []

    def pump() -> list[bytes]:
        next(pumped)
        return [frame] * 10  # there is always more to send

    conn = Connection(server_end, pump, lambda: time.monotonic() > overflowed_at, results.append)
    writer.attach(conn)
    poll(lambda: results, timeout=10)
    assert results == [False]  # never fully written: closed, not offered for reuse
    # frames are taken from the subscription only while less than WRITE_AHEAD waits for the socket
    assert len(conn.buffer) <= WRITE_AHEAD + 10 * len(chunk(frame)) + len(LAST_CHUNK)
    assert next(pumped) * 10 * 2048 < WRITE_AHEAD + 1024 * 1024  # socket buffers included
    client_end.close()
    server_end.close()


def test_a_finished_stream_ends_its_body_and_is_given_back_for_reuse(writer: SocketFanout) -> None:
    server_end, client_end = socket.socketpair()
    events = [[chunk(b'{"type":"ADDED"}\n')], []]  # pumps hand the writer wire-ready bytes
    results: list[bool] = []

    def pump() -> list[bytes]:
        return events.pop(0) if events else []

    writer.attach(Connection(server_end, pump, lambda: not events, results.append))
    poll(lambda: results, timeout=10)
    assert results == [True]
    client_end.settimeout(5)
    received = b""
    while not received.endswith(LAST_CHUNK):
        received += client_end.recv(4096)
    assert received == chunk(b'{"type":"ADDED"}\n') + LAST_CHUNK
    client_end.close()
    server_end.close()


def test_a_client_going_away_ends_its_stream_at_once(writer: SocketFanout) -> None:
    server_end, client_end = socket.socketpair()
    results: list[bool] = []
    ended = threading.Event()
    writer.attach(Connection(server_end, list, lambda: False, results.append, ended=ended.set))
    client_end.close()
    poll(lambda: results, timeout=10)
    assert results == [False] and ended.is_set()
    server_end.close()
