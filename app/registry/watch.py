"""Watch as a registry verb: one watcher's typed events, whatever carries them.

`Registry.watch` checks the options, lists the initial events (or replays the history window from a
resourceVersion), subscribes to the change log, filters by selectors (a change that leaves the selection is a
DELETED), converts to the watched version and adds bookmarks. The HTTP layer (app/api/watch.py) only frames
what it yields: JSON lines, Table events or protobuf, from a request thread or the fan-out writer.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import orjson

from ..catalog import ResourceType
from ..errors import ApiError, Gone
from ..storage.store import Change, RevisionCompacted
from .filters import Filter
from .keys import collection_prefix
from .options import ListOptions, parse_revision

if TYPE_CHECKING:
    from ..storage.hub import Subscription, WatchHub
    from .store import Registry

MIN_REQUEST_TIMEOUT = 1800  # the reference's --min-request-timeout; watches last 1-2x this
TICK = 1.0
BOOKMARK_INTERVAL = 60.0  # as the reference: about a minute, and once shortly before the deadline
BOOKMARK_BEFORE_DEADLINE = 2.0
#: changes a watcher may have unread before it is ended (as the reference's watch cache ends watchers that
#: cannot keep up); queued changes are shared with every other watcher, the bound caps the stragglers
WATCH_QUEUE = 1000

#: (event type, object): the object as stored JSON text, or a dict built here (bookmarks, errors).
Event = tuple[str, "str | bytes | dict"]
#: an event and, when it is a stored change sent as it is (no filter, no conversion), that change's cache of
#: encodings: every watcher of the same framing may send the bytes the first one made
Pending = tuple[Event, "dict | None"]


def error_event(error: ApiError) -> Event:
    return "ERROR", error.status()


def bookmark(rt: ResourceType, revision: int, annotations: dict | None = None) -> Event:
    md: dict = {"resourceVersion": str(revision)}
    if annotations:
        md["annotations"] = annotations
    return "BOOKMARK", {"kind": rt.kind, "apiVersion": rt.group_version, "metadata": md}


class Watch:
    """Prepared before the response starts, so bad options are still an HTTP error; `open()` then gives the
    initial events and subscribes, and the live events come from `follow()` (blocking, in the caller's
    thread) or `take_now()` (what is queued, for a writer told by `listen`)."""

    def __init__(
        self,
        registry: Registry,
        hub: WatchHub,
        rt: ResourceType,
        namespace: str | None,
        opts: ListOptions,
        client_gone: Callable[[], bool] = lambda: False,
    ):
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
        self._sub: Subscription | None = None

    @property
    def live(self) -> bool:
        """Subscribed: live events follow the initial ones (false after an ERROR event)."""
        return self._sub is not None

    def open(self) -> list[Event]:
        """The initial events (synthetic ADDED and the initial-events bookmark, or the backlog since the
        requested resourceVersion); a resourceVersion older than the history window gives one ERROR event."""
        opts = self.opts
        send_initial = (
            opts.send_initial_events if opts.send_initial_events is not None else opts.resource_version in ("", "0")
        )
        events: list[Event] = []
        try:
            if send_initial:
                events, start = self._initial()
                if opts.send_initial_events:
                    events.append(
                        bookmark(self.rt, start, {self.registry.naming.initial_events_end_annotation: "true"})
                    )
            else:
                start = parse_revision(opts.resource_version)
            self._sub, backlog = self.hub.subscribe(self.prefix, start, WATCH_QUEUE)
        except (RevisionCompacted, Gone):
            compacted = self.registry.storage.compacted_revision()
            return [error_event(Gone(f"too old resource version: {opts.resource_version} ({compacted})"))]
        return events + list(self._deliver(backlog))

    def _initial(self) -> tuple[list[Event], int]:
        listed = self.registry.list(
            self.rt,
            self.namespace,
            ListOptions(label_selector=self.opts.label_selector, field_selector=self.opts.field_selector),
        )
        return [("ADDED", d) for d in listed.items], listed.revision

    def follow(self) -> Iterator[Event]:
        """Live events until the watch ends (deadline, client gone, too slow a reader, server stopping)."""
        sub = self._subscription()
        while not self.expired():
            remaining = self.deadline - time.monotonic()
            yield from self._deliver(sub.take(min(remaining, TICK)))
            yield from self.bookmarks()

    def listen(self, wake: Callable[[], None]) -> None:
        """Call `wake` (from the hub's thread) whenever events are queued, instead of waiting in `follow`."""
        self._subscription().listener = wake

    def take_now(self, limit: int) -> list[Pending]:
        """Up to `limit` queued changes as events, without waiting, then a bookmark when one is due."""
        changes = self._subscription().take_nowait(limit)
        out: list[Pending]
        if self.filter.empty and self.rt.conversion is None:
            out = [((change.type, change.data), change.encoded) for change in changes]
        else:
            out = [(event, None) for event in self._deliver(changes)]
        return out + [(event, None) for event in self.bookmarks()]

    def expired(self) -> bool:
        sub = self._sub
        return sub is None or sub.closed or sub.overflowed or time.monotonic() >= self.deadline or self.client_gone()

    def close(self) -> None:
        if self._sub is not None:
            self.hub.unsubscribe(self._sub)

    def _subscription(self) -> Subscription:
        if self._sub is None:
            raise RuntimeError("the watch is not open, or ended with an ERROR event")
        return self._sub

    def bookmarks(self) -> list[Event]:
        """A bookmark at the revision every change of which was delivered, about once a minute and once just
        before the deadline, when the client allowed them."""
        if not self.opts.allow_bookmarks or self._sub is None:
            return []
        now = time.monotonic()
        closing = self.deadline - now <= BOOKMARK_BEFORE_DEADLINE and not self.final_bookmark_sent
        if now < self.next_bookmark and not closing:
            return []
        revision = self.hub.caught_up_revision(self._sub)
        if revision is None:
            return []
        self.next_bookmark = now + BOOKMARK_INTERVAL
        self.final_bookmark_sent = self.final_bookmark_sent or closing
        return [bookmark(self.rt, revision)]

    def _deliver(self, changes: list[Change]) -> Iterator[Event]:
        if self.rt.conversion is not None:  # stored in another version: events show the watched one
            changes = [self._served_change(c) for c in changes]
        for change in changes:
            if self.filter.empty:
                yield change.type, change.data
                continue
            new = orjson.loads(change.data)
            now = self.filter.matches(self.rt, new)
            before = (
                change.prev is not None
                and change.type != "ADDED"
                and self.filter.matches(self.rt, orjson.loads(change.prev))
            )
            if change.type == "DELETED":
                if before or now:
                    yield "DELETED", change.data
            elif now and before:
                yield "MODIFIED", change.data
            elif now:
                yield "ADDED", change.data
            elif before and change.prev is not None:
                prev = orjson.loads(change.prev)
                prev.setdefault("metadata", {})["resourceVersion"] = str(change.rv)
                yield "DELETED", prev

    def _served_change(self, change: Change) -> Change:
        served = self.registry.served_text
        prev = None if change.prev is None else served(self.rt, change.prev)
        return dataclasses.replace(change, data=served(self.rt, change.data), prev=prev)
