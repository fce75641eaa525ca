"""Watch responses: a registry watch's events (app/registry/watch.py) framed as JSON lines, Table events or
protobuf, written by this request's thread or, once the initial events are out, by the fan-out writer."""

from __future__ import annotations

import select
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

import orjson

from ..registry.watch import Event, Watch
from .fanout import FULL_BATCH, Connection, SocketFanout, chunk
from .handoff import Handoff

PUMP_BATCH = FULL_BATCH  # changes framed per turn of the writer, so a slow reader's framed backlog stays small


def event_line(kind: str, data: str | bytes | dict) -> bytes:
    """The JSON framing: one compact event per line; stored JSON text is spliced, not re-encoded."""
    if isinstance(data, dict):
        data = orjson.dumps(data)
    raw = data.encode() if isinstance(data, str) else data
    return b'{"type":"' + kind.encode() + b'","object":' + raw + b"}\n"


@dataclass
class Framing:
    """How a stream's events go on the wire, and how they are counted."""

    frame: Callable[[Event], bytes]
    #: (size, times): events sent, for the metrics; called with many at once by the fan-out writer
    count: Callable[[int, int], None] | None = None
    #: frames of stored objects sent as they are (no filter, no conversion) are the same for every stream with
    #: this key, so each change is framed once per process; None: this framing has per-stream state (Tables)
    shared: str | None = None

    def counted(self, event: Event) -> bytes:
        data = self.frame(event)
        if data and self.count is not None:
            self.count(len(data), 1)
        return data


def framed(
    watch: Watch,
    opened: list[Event],
    framing: Framing,
    fanout: SocketFanout | None = None,
    detach: Callable[[], Handoff | None] | None = None,
    take_stream_end: Callable[[], Callable[[], None]] = lambda: lambda: None,
) -> Iterator[bytes]:
    """The response body of a watch already open (`opened`: its initial events, made before the status line so
    that a store failure is a 503). Where the server lets the response take its connection (`detach`), live
    events are written by the fan-out writer and this (request) thread is free once the initial events are out;
    otherwise this thread follows the watch until it ends."""
    yield b""  # the server sends the headers now: clients see the watch established before any event
    for event in opened:
        yield framing.counted(event)
    if not watch.live:
        return
    handoff = detach() if detach is not None and fanout is not None else None
    if handoff is None or fanout is None:
        try:
            for event in watch.follow():
                yield framing.counted(event)
        finally:
            watch.close()
        return
    watch.client_gone = lambda: False  # the writer watches the socket itself
    stream_end = take_stream_end()

    def ended() -> None:
        watch.close()
        stream_end()

    wire = chunk if handoff.chunked else bytes
    conn = Connection(
        handoff.sock,
        partial(_pump, watch, framing, wire, fanout.tally),
        watch.expired,
        handoff.release,
        handoff.chunked,
        ended,
    )
    watch.detached = True
    watch.listen(partial(fanout.mark, conn))
    fanout.attach(conn)


def _pump(
    watch: Watch,
    framing: Framing,
    wire: Callable[[bytes], bytes],
    tally: Callable[[Callable[[int, int], None] | None, int], None],
) -> list[bytes]:
    """What the fan-out writer sends now, ready for the wire: queued events and a due bookmark."""
    out: list[bytes] = []
    for event, encodings in watch.take_now(PUMP_BATCH):
        if encodings is not None and framing.shared:
            # a change gives each of its watchers one event type (its selectors decide which), one object per type
            key = (framing.shared, wire, event[0])
            encoded = encodings.get(key)
            if encoded is None:  # the first stream of this framing to send it: framed once for all
                data = framing.frame(event)
                encoded = encodings[key] = (wire(data), len(data))
            out.append(encoded[0])
            tally(framing.count, encoded[1])
            continue
        data = framing.frame(event)
        out.append(wire(data))
        tally(framing.count, len(data))
    return out


def socket_closed_check(sock: socket.socket | None) -> Callable[[], bool]:
    """A check that a watch's client went away, so its thread is freed at once, not at the deadline.

    A watch client sends nothing after its request, so a readable socket means EOF (or a TLS close).
    """
    if sock is None:
        return lambda: False

    def gone() -> bool:
        poller = select.poll()  # poll, not select: descriptors past 1024 are common with many watches
        try:
            poller.register(sock, select.POLLIN | select.POLLHUP | select.POLLERR)
            return bool(poller.poll(0))
        except (OSError, ValueError):
            return True

    return gone
