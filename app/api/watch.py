"""Watch streams: events produced once per watcher, framed as JSON lines, Table events or protobuf."""
from __future__ import annotations

import dataclasses
import random
import select
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

import orjson

from app.api.fanout import FULL_BATCH, Connection, SocketFanout, chunk
from app.api.handoff import Handoff
from app.catalog import ResourceType
from app.errors import ApiError, Gone
from app.registry.filters import Filter
from app.registry.keys import collection_prefix
from app.registry.options import ListOptions, parse_revision
from app.registry.store import Registry
from app.storage.hub import Subscription, WatchHub
from app.storage.store import Change, RevisionCompacted

MIN_REQUEST_TIMEOUT = 1800  # the reference's --min-request-timeout; watches last 1-2x this
TICK = 1.0
BOOKMARK_INTERVAL = 60.0  # as the reference: about a minute, and once shortly before the deadline
BOOKMARK_BEFORE_DEADLINE = 2.0
#: changes a watcher may have unread before it is ended (as the reference's watch cache ends watchers that
#: cannot keep up); queued changes are shared with every other watcher, the bound caps the stragglers
WATCH_QUEUE = 1000
PUMP_BATCH = FULL_BATCH  # changes framed per turn of the writer, so a slow reader's framed backlog stays small


#: (event type, object): the object as stored JSON text, or a dict built here (bookmarks, errors).
Event = tuple[str, "str | bytes | dict"]


def event_line(kind: str, data: str | bytes | dict) -> bytes:
    """The JSON framing: one compact event per line; stored JSON text is spliced, not re-encoded."""
    if isinstance(data, dict):
        data = orjson.dumps(data)
    raw = data.encode() if isinstance(data, str) else data
    return b'{"type":"' + kind.encode() + b'","object":' + raw + b"}\n"


def error_event(error: ApiError) -> Event:
    return "ERROR", error.status()


def bookmark(rt: ResourceType, revision: int, annotations: dict | None = None) -> Event:
    md: dict = {"resourceVersion": str(revision)}
    if annotations:
        md["annotations"] = annotations
    return "BOOKMARK", {"kind": rt.kind, "apiVersion": rt.group_version, "metadata": md}


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


class WatchStream:
    """Prepared before the response starts (so setup errors can still be real HTTP errors)."""

    def __init__(self, registry: Registry, hub: WatchHub, rt: ResourceType, namespace: str | None,
                 opts: ListOptions, client_gone: Callable[[], bool] = lambda: False):
        opts.validate(registry.naming.meta_group)
        self.registry, self.hub, self.rt, self.opts = registry, hub, rt, opts
        self.client_gone = client_gone
        self.filter: Filter = registry.make_filter(rt, opts)
        self.namespace = namespace
        self.prefix = collection_prefix(rt, namespace)
        timeout = opts.timeout_seconds
        if not timeout or timeout <= 0:
            timeout = int(MIN_REQUEST_TIMEOUT * (1 + random.random()))
        self.deadline = time.monotonic() + timeout
        self.next_bookmark = time.monotonic() + BOOKMARK_INTERVAL
        self.final_bookmark_sent = False

    def _initial(self) -> tuple[list[Event], int]:
        listed = self.registry.list(self.rt, self.namespace, ListOptions(
            label_selector=self.opts.label_selector, field_selector=self.opts.field_selector))
        return [("ADDED", d) for d in listed.items], listed.revision

    def framed(self, framing: Framing, fanout: SocketFanout | None = None,
               detach: Callable[[], Handoff | None] | None = None,
               take_stream_end: Callable[[], Callable[[], None]] = lambda: lambda: None) -> Iterator[bytes]:
        """The response body. Where the server lets the response take its connection (`detach`), live
        events are written by the fan-out writer and this (request) thread is free once the initial events
        are out; otherwise this thread follows the subscription until the end."""
        yield b""  # the server sends the headers now: clients see the watch established before any event
        initial, sub = self._open()
        for event in initial:
            yield framing.counted(event)
        if sub is None:
            return
        handoff = detach() if detach is not None and fanout is not None else None
        if handoff is None or fanout is None:
            try:
                for event in self._follow(sub):
                    yield framing.counted(event)
            finally:
                self.hub.unsubscribe(sub)
            return
        self.client_gone = lambda: False  # the writer watches the socket itself
        stream_end = take_stream_end()

        def ended() -> None:
            self.hub.unsubscribe(sub)
            stream_end()

        wire = chunk if handoff.chunked else bytes
        conn = Connection(handoff.sock, partial(self._pump, sub, framing, wire, fanout.tally),
                          lambda: self._expired(sub), handoff.release, handoff.chunked, ended)
        sub.listener = partial(fanout.mark, conn)
        fanout.attach(conn)

    def events(self) -> Iterator[Event]:
        initial, sub = self._open()
        yield from initial
        if sub is None:
            return
        try:
            yield from self._follow(sub)
        finally:
            self.hub.unsubscribe(sub)

    def _open(self) -> tuple[list[Event], Subscription | None]:
        """The initial events (synthetic ADDED, backlog) and the live subscription (None after an ERROR)."""
        opts = self.opts
        send_initial = opts.send_initial_events if opts.send_initial_events is not None else \
            opts.resource_version in ("", "0")
        events: list[Event] = []
        try:
            if send_initial:
                events, start = self._initial()
                if opts.send_initial_events:
                    events.append(bookmark(self.rt, start,
                                           {self.registry.naming.initial_events_end_annotation: "true"}))
            else:
                start = parse_revision(opts.resource_version)
            sub, backlog = self.hub.subscribe(self.prefix, start, WATCH_QUEUE)
        except (RevisionCompacted, Gone):
            compacted = self.registry.storage.compacted_revision()
            return [error_event(Gone(f"too old resource version: {opts.resource_version} ({compacted})"))], None
        return events + list(self._deliver(backlog)), sub

    def _follow(self, sub: Subscription) -> Iterator[Event]:
        """Live events, in this thread (used where no fan-out writer can take the socket)."""
        while not self._expired(sub):
            remaining = self.deadline - time.monotonic()
            yield from self._deliver(sub.take(min(remaining, TICK)))
            yield from self._bookmarks(sub)

    def _pump(self, sub: Subscription, framing: Framing, wire: Callable[[bytes], bytes],
              tally: Callable[[Callable[[int, int], None] | None, int], None]) -> list[bytes]:
        """What the fan-out writer sends now, ready for the wire: queued events and a due bookmark."""
        changes = sub.take_nowait(PUMP_BATCH)
        out: list[bytes] = []
        if changes and framing.shared and self.filter.empty and self.rt.conversion is None:
            key = (framing.shared, wire)
            for change in changes:
                encoded = change.encoded.get(key)
                if encoded is None:  # the first stream of this framing to send it: framed once for all
                    data = framing.frame((change.type, change.data))
                    encoded = change.encoded[key] = (wire(data), len(data))
                out.append(encoded[0])
                tally(framing.count, encoded[1])
            events: list[Event] = []
        else:
            events = list(self._deliver(changes))
        for event in events + self._bookmarks(sub):
            data = framing.frame(event)
            out.append(wire(data))
            tally(framing.count, len(data))
        return out

    def _expired(self, sub: Subscription) -> bool:
        return sub.closed or sub.overflowed or time.monotonic() >= self.deadline or self.client_gone()

    def _bookmarks(self, sub: Subscription) -> list[Event]:
        if not self.opts.allow_bookmarks:
            return []
        now = time.monotonic()
        closing = self.deadline - now <= BOOKMARK_BEFORE_DEADLINE and not self.final_bookmark_sent
        if now < self.next_bookmark and not closing:
            return []
        revision = self.hub.caught_up_revision(sub)
        if revision is None:
            return []
        self.next_bookmark = now + BOOKMARK_INTERVAL
        self.final_bookmark_sent = self.final_bookmark_sent or closing
        return [bookmark(self.rt, revision)]

    def _deliver(self, changes: list) -> Iterator[Event]:
        if self.rt.conversion is not None:  # stored in another version: events show the watched one
            changes = [_served_change(self.rt, c) for c in changes]
        for change in changes:
            if self.filter.empty:
                yield change.type, change.data
                continue
            new = orjson.loads(change.data)
            now = self.filter.matches(self.rt, new)
            before = change.prev is not None and change.type != "ADDED" and \
                self.filter.matches(self.rt, orjson.loads(change.prev))
            if change.type == "DELETED":
                if before or now:
                    yield "DELETED", change.data
            elif now and before:
                yield "MODIFIED", change.data
            elif now:
                yield "ADDED", change.data
            elif before:
                prev = orjson.loads(change.prev)
                prev.setdefault("metadata", {})["resourceVersion"] = str(change.rv)
                yield "DELETED", prev


def _served_change(rt: ResourceType, change: Change) -> Change:
    prev = None if change.prev is None else Registry.served_text(rt, change.prev)
    return dataclasses.replace(change, data=Registry.served_text(rt, change.data), prev=prev)


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
