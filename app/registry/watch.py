"""Watch as a registry verb: one watcher's typed events, whatever carries them.

`Registry.watch` checks the options, lists the initial events (or replays the history window from a
resourceVersion), subscribes to the change log, filters by selectors (a change that leaves the selection is a
DELETED), converts to the watched version and adds bookmarks. A watch selecting one value of an index field
(the kind's strategy's `index_fields`, such as a pod's spec.nodeName, or metadata.name) subscribes with that
index, so the hub offers it only the changes whose old or new object has that value. A change's decoded
objects, selector verdicts and frames are kept on the change and shared by every watcher that takes it. The HTTP
layer (app/api/watch.py) only frames what it yields: JSON lines, Table events or protobuf, from a request thread
or the fan-out writer.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import time
from collections.abc import Callable, Collection, Iterator
from functools import cache
from typing import TYPE_CHECKING

import orjson

from ..catalog import ResourceType
from ..errors import ApiError, Gone, InternalError, ServiceUnavailable
from ..storage import failures
from ..storage.hub import Index
from ..storage.store import Change, RevisionCompacted
from .filters import Filter
from .keys import collection_prefix
from .options import ListOptions, parse_revision

if TYPE_CHECKING:
    from ..storage.hub import Subscription, WatchHub
    from .store import Registry

log = logging.getLogger(__name__)

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


def decoded(change: Change, previous: bool = False) -> dict:
    """The change's new (or previous) object, decoded once for every reader of the change: never mutate it."""
    key = ("decoded", previous)
    obj = change.encoded.get(key)
    if obj is None:
        text = change.prev if previous else change.data
        obj = change.encoded[key] = orjson.loads(text) if text is not None else {}
    return obj


def field_values(rt: ResourceType, label: str) -> Callable[[Change], Collection[str]]:
    """A change's old and new values of one of the kind's field selectors (missing counts as "", as the selector
    reads it): what the hub indexes watchers by. One function per strategy and field, so subscriptions share it."""
    return _field_values(rt.strategy.field_selectors[label])


@cache
def _field_values(getter: Callable[[dict], str]) -> Callable[[Change], Collection[str]]:

    def values(change: Change) -> Collection[str]:
        new = getter(decoded(change)) or ""
        if change.prev is None or change.type == "ADDED":
            return (new,)
        return {new, getter(decoded(change, previous=True)) or ""}

    return values


def name_in_key(change: Change) -> Collection[str]:
    """metadata.name is the key's last segment, old and new alike: no decoding."""
    return (change.key.rpartition("/")[2],)


def namespace_in_key(change: Change) -> Collection[str]:
    """A namespaced object's metadata.namespace is the key's segment before its name."""
    return (change.key.rsplit("/", 2)[-2],)


def error_event(error: ApiError) -> Event:
    return "ERROR", error.status()


def as_api_error(error: Exception) -> ApiError:
    """A failure once the stream has started, as the ERROR event's Status (no internals of the database)."""
    if isinstance(error, ApiError):
        return error
    if failures.is_unavailable(error):
        return ServiceUnavailable(
            "the server is currently unable to handle the request: the storage backend is unavailable"
        )
    if failures.is_database_error(error):
        return InternalError("a storage request failed")
    return InternalError(f"{type(error).__name__}: {error}")


def bookmark(rt: ResourceType, revision: int, annotations: dict | None = None) -> Event:
    md: dict = {"resourceVersion": str(revision)}
    if annotations:
        md["annotations"] = annotations
    return "BOOKMARK", {"kind": rt.kind, "apiVersion": rt.group_version, "metadata": md}


class Watch:
    """Prepared before the response starts, so bad options are still an HTTP error; `open()`, also before the
    response starts (a store failure is then a 503), gives the initial events and subscribes, and the live events
    come from `follow()` (blocking, in the caller's thread) or `take_now()` (what is queued, for a writer told by
    `listen`). A failure after that is one ERROR event, and the stream ends; so does the store going back in time
    (410 Expired). No bookmark is ever below an event already sent."""

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
        #: the newest revision this stream has passed (events sent or filtered out, bookmarks)
        self.sent_upto = 0
        self._ended = False  # after an ERROR event once streaming
        #: handed to a writer that ends it (the response's close must not)
        self.detached = False

    @property
    def live(self) -> bool:
        """Subscribed: live events follow the initial ones (false after an ERROR event)."""
        return self._sub is not None

    def open(self) -> list[Event]:
        """The initial events (synthetic ADDED and the initial-events bookmark, or the backlog since the
        requested resourceVersion); a resourceVersion older than the history window gives one ERROR event. Called
        before the response starts: a failure of the store raises (a 503 Status, not a broken stream)."""
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
            self._sub, backlog = self.hub.subscribe(self.prefix, start, WATCH_QUEUE, index=self.index())
        except (RevisionCompacted, Gone):
            compacted = self.registry.storage.compacted_revision()
            return [error_event(Gone(f"too old resource version: {opts.resource_version} ({compacted})"))]
        self.sent_upto = start
        try:
            return events + list(self._deliver(backlog))
        except BaseException:
            self.close()
            raise

    def index(self) -> Index | None:
        """The one field value the hub can index this watch by, if it selects one with `=`: the kind's index
        fields first (stored objects only: a converted kind's stored fields may differ), then the name, then the
        namespace of a cluster-wide watch (both read from the key)."""
        fields = self.filter.fields
        if self.rt.conversion is None:
            for label in self.rt.strategy.index_fields:
                value = fields.exact_value(label)
                if value is not None:
                    return Index(label, value, field_values(self.rt, label))
        name = fields.exact_value("metadata.name")
        if name is not None:
            return Index("metadata.name", name, name_in_key)
        namespace = fields.exact_value("metadata.namespace")
        if namespace is not None and self.rt.namespaced and not self.namespace:
            return Index("metadata.namespace", namespace, namespace_in_key)
        return None

    def _initial(self) -> tuple[list[Event], int]:
        listed = self.registry.list(
            self.rt,
            self.namespace,
            ListOptions(label_selector=self.opts.label_selector, field_selector=self.opts.field_selector),
        )
        return [("ADDED", d) for d in listed.items], listed.revision

    def follow(self) -> Iterator[Event]:
        """Live events until the watch ends (deadline, client gone, too slow a reader, server stopping; a failure
        or the store going back in time end it with an ERROR event)."""
        sub = self._subscription()
        try:
            while not self.expired():
                remaining = self.deadline - time.monotonic()
                yield from self._deliver(sub.take(min(remaining, TICK)))
                yield from self.bookmarks()
        except Exception as err:  # noqa: BLE001 - the client learns it from the ERROR event; the log has the rest
            yield self._failed(err)
            return
        yield from self._gone()

    def listen(self, wake: Callable[[], None]) -> None:
        """Call `wake` (from the hub's thread) whenever events are queued, instead of waiting in `follow`."""
        self._subscription().listener = wake

    def take_now(self, limit: int) -> list[Pending]:
        """Up to `limit` queued changes as events, without waiting, then a bookmark when one is due (or the ERROR
        event that ends the stream)."""
        if self._ended:
            return []
        gone: list[Pending] = [(event, None) for event in self._gone()]
        if gone:
            return gone
        try:
            out: list[Pending] = list(self._shared_events(self._subscription().take_nowait(limit)))
        except Exception as err:  # noqa: BLE001 - as in follow()
            return [(self._failed(err), None)]
        return out + [(event, None) for event in self.bookmarks()]

    def _gone(self) -> list[Event]:
        """The 410 ERROR event once the hub ended the subscription because the log lost what it followed (queued
        changes are dropped: the client re-lists anyway)."""
        sub = self._sub
        if sub is None or sub.gone is None or self._ended:
            return []
        self._ended = True
        return [error_event(Gone(f"too old resource version: {self.sent_upto} ({sub.gone})"))]

    def _failed(self, error: Exception) -> Event:
        self._ended = True
        failure = as_api_error(error)
        if failure.code >= 500:
            log.warning("a watch of %s ended with %s: %s", self.rt.plural, failure.code, error)
        return error_event(failure)

    def expired(self) -> bool:
        sub = self._sub
        return (
            sub is None
            or self._ended
            or sub.closed
            or sub.overflowed
            or time.monotonic() >= self.deadline
            or self.client_gone()
        )

    def close(self) -> None:
        if self._sub is not None:
            self.hub.unsubscribe(self._sub)

    def close_unless_detached(self) -> None:
        """The response is over: end the subscription, unless a writer took the stream over (it ends it)."""
        if not self.detached:
            self.close()

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
        self.sent_upto = max(self.sent_upto, revision)  # never below an event this stream has sent
        return [bookmark(self.rt, self.sent_upto)]

    def _deliver(self, changes: list[Change]) -> Iterator[Event]:
        for event, _encodings in self._shared_events(changes):
            yield event

    def _shared_events(self, changes: list[Change]) -> Iterator[Pending]:
        """The events of these changes for this watcher, each with its change's cache of encodings when every
        watcher taking that event from that change gets the same object (not when converted: per watcher)."""
        if changes:  # in revision order: a bookmark is never below the newest taken
            self.sent_upto = max(self.sent_upto, changes[-1].rv)
        converted = self.rt.conversion is not None
        if converted:  # stored in another version: events show the watched one
            changes = [self._served_change(c) for c in changes]
        for change in changes:
            event: Event | None = (change.type, change.data)
            if not self.filter.empty:
                event = self._filtered(change)
            if event is not None:
                yield event, None if converted else change.encoded

    def _filtered(self, change: Change) -> Event | None:
        """The change as this watcher's selectors see it: entering is ADDED, leaving is DELETED, else nothing."""
        now = self._matches(change, previous=False)
        before = change.prev is not None and change.type != "ADDED" and self._matches(change, previous=True)
        if change.type == "DELETED":
            return ("DELETED", change.data) if before or now else None
        if now:
            return ("MODIFIED" if before else "ADDED"), change.data
        if before:
            return "DELETED", self._left(change)
        return None

    def _matches(self, change: Change, previous: bool) -> bool:
        """The filter's verdict on the change's new or previous object, shared by the watchers of equal filters."""
        key = ("matches", self.filter, previous)
        verdict = change.encoded.get(key)
        if verdict is None:
            verdict = change.encoded[key] = self.filter.matches(self.rt, decoded(change, previous))
        return verdict

    @staticmethod
    def _left(change: Change) -> bytes:
        """The object as it was, at the change's revision: the DELETED of a watcher it left (made once)."""
        left = change.encoded.get("left")
        if left is None:
            prev = orjson.loads(change.prev or "{}")
            prev.setdefault("metadata", {})["resourceVersion"] = str(change.rv)
            left = change.encoded["left"] = orjson.dumps(prev)
        return left

    def _served_change(self, change: Change) -> Change:
        served = self.registry.served_text
        prev = None if change.prev is None else served(self.rt, change.prev)
        # its own encodings: the stored change's decodings and frames are of the stored version
        return dataclasses.replace(change, data=served(self.rt, change.data), prev=prev, encoded={})
