"""One watch hub per process: a single thread reads the change log and fans events out.

Local writes wake it at once; writes from other processes are seen on the next poll.
A subscriber that falls too far behind is closed (its client re-lists) instead of buffering
without bound. A subscription that selects on one value of a field (an `Index`: a pod watch's spec.nodeName,
any watch's metadata.name) is offered only the changes whose old or new value is that one, as the reference's
watch cache does with its trigger functions: a change then costs its few matching watchers, not all of them.
"""

from __future__ import annotations

import collections
import logging
import os
import secrets
import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from ..background import OutageLog
from .recent import RecentChanges, bare, index_values
from .store import DELETED, Change, Remembered, RevisionCompacted, Storage, StoreWentBack

log = logging.getLogger(__name__)

#: bytes of the newest changes each process keeps for watches resuming (about two minutes of a 1,000-node cluster)
RECENT_CHANGES_BYTES = 64 * 1024 * 1024
#: how many of the log's newest changes a starting hub reads into that memory (a restarted server's resuming watches)
RECENT_CHANGES_AT_START = 50_000


def distinct_prefixes(prefixes: str | Sequence[str]) -> tuple[str, ...]:
    """The prefixes without those another one covers: a key then matches at most one of them."""
    given = (prefixes,) if isinstance(prefixes, str) else tuple(prefixes)
    return tuple(sorted({p for p in given if not any(o != p and p.startswith(o) for o in given)}))


@dataclass(frozen=True)
class Index:
    """The one value of a field a subscription selects on. `values_of` gives a change's values of that field,
    old and new (a pod leaving a node still reaches that node's watcher, as its DELETED); it is asked once per
    change for every subscription indexed by the same name under the same prefix, so they must share it."""

    name: str
    value: str
    values_of: Callable[[Change], Collection[str]]


@dataclass
class _Bucket:
    """The subscriptions of one "/"-terminated prefix: those offered every change, and the indexed ones by
    index name and value (with the first subscriber's `values_of` for that name)."""

    everyone: set[Subscription] = field(default_factory=set)
    indexed: dict[str, tuple[Callable[[Change], Collection[str]], dict[str, set[Subscription]]]] = field(
        default_factory=dict
    )

    def add(self, sub: Subscription) -> None:
        index = sub.index
        if index is None:
            self.everyone.add(sub)
            return
        _values_of, by_value = self.indexed.setdefault(index.name, (index.values_of, {}))
        by_value.setdefault(index.value, set()).add(sub)

    def discard(self, sub: Subscription) -> None:
        index = sub.index
        if index is None:
            self.everyone.discard(sub)
            return
        named = self.indexed.get(index.name)
        if named is None:
            return
        same = named[1].get(index.value)
        if same is not None:
            same.discard(sub)
            if not same:
                del named[1][index.value]
            if not named[1]:
                del self.indexed[index.name]

    @property
    def empty(self) -> bool:
        return not self.everyone and not self.indexed

    def collect(self, change: Change, found: list[Subscription]) -> None:
        found.extend(self.everyone)
        for name, (values_of, by_value) in self.indexed.items():
            try:
                values = values_of(change)
            except Exception:  # an index's fault must not lose events: offer the change to all of them
                log.exception(
                    "the %s index failed on %s; offering the change to all its subscriptions", name, change.key
                )
                for everyone_of_value in by_value.values():
                    found.extend(everyone_of_value)
                continue
            for value in values:
                matching = by_value.get(value)
                if matching:
                    found.extend(matching)


@dataclass(eq=False)
class Subscription:
    #: key prefixes (distinct: none covers another); a change under any of them is delivered
    prefixes: tuple[str, ...]
    floor: int  # events at or below this revision are not delivered
    max_queue: int
    queue: collections.deque = field(default_factory=collections.deque)
    cond: threading.Condition = field(default_factory=threading.Condition)
    overflowed: bool = False
    closed: bool = False
    #: called after each offer instead of notifying the condition (a fan-out writer's wake-up)
    listener: Callable[[], None] | None = None
    #: the changes wanted among those under the prefixes (None: all); asked in the hub's thread, so a reader
    #: is not woken for the rest
    accepts: Callable[[Change], bool] | None = None
    #: the one field value selected on: only changes whose old or new value it is are offered (None: all)
    index: Index | None = None
    #: the newest change queued (bookmarks: a reader that took it has every change up to it)
    newest: int = 0
    #: ended because the log no longer holds what was followed (the store went back in time): the revision the
    #: hub starts over from; the reader must re-list (a watch's 410 Expired)
    gone: int | None = None

    def offer(self, change: Change) -> None:
        if change.rv <= self.floor or not change.key.startswith(self.prefixes):
            return
        if not self.accepted(change):  # the index was asked by the hub already
            return
        listener = self.listener
        if listener is not None:  # served by a writer that is told, not by a thread waiting on the condition
            self._enqueue(change)  # deque appends and pops are atomic: no lock needed
            listener()
            return
        with self.cond:
            self._enqueue(change)
            self.cond.notify()

    def wants(self, change: Change) -> bool:
        """What the index and `accepts` say of a change under the prefixes (yes without them)."""
        return self.in_index(change) and self.accepted(change)

    def accepted(self, change: Change) -> bool:
        """What `accepts` says of a change (yes without it; yes when it fails: the reader sees the change)."""
        if self.accepts is None:
            return True
        try:
            return self.accepts(change)
        except Exception:  # a filter's fault must not stop the hub: the reader sees the change
            log.exception("a subscription's filter failed on %s; delivering the change", change.key)
            return True

    def in_index(self, change: Change, remembered: bool = False) -> bool:
        """The change's old or new value of the index's field is the one selected (yes without an index); of a
        change the hub remembers, its values are worked out once for every subscription asking."""
        index = self.index
        if index is None:
            return True
        try:
            if remembered:
                return index.value in index_values(change, index.name, index.values_of)
            return index.value in index.values_of(change)
        except Exception:  # as in the hub: a failing index lets the change through, the filter decides
            log.exception("the %s index failed on %s; delivering the change", index.name, change.key)
            return True

    def _enqueue(self, change: Change) -> None:
        if len(self.queue) >= self.max_queue:
            self.overflowed = True
        else:
            self.queue.append(change)
            self.newest = change.rv

    def take(self, timeout: float) -> list[Change]:
        """Wait up to timeout for events; returns what is queued (possibly nothing)."""
        with self.cond:
            if not self.queue and not self.overflowed and not self.closed:
                self.cond.wait(timeout)
            items = list(self.queue)
            self.queue.clear()
            return items

    def take_nowait(self, limit: int | None = None) -> list[Change]:
        with self.cond:
            if limit is None or len(self.queue) <= limit:
                items = list(self.queue)
                self.queue.clear()
            else:
                items = [self.queue.popleft() for _ in range(limit)]
            return items

    def wake(self) -> None:
        with self.cond:
            self.cond.notify_all()
        if self.listener is not None:
            self.listener()


class WatchHub:
    def __init__(
        self,
        storage: Storage,
        poll_interval: float = 0.25,
        max_queue: int = 10000,
        recent_bytes: int = RECENT_CHANGES_BYTES,
    ):
        self.storage = storage
        self._recent = RecentChanges(recent_bytes)
        self._cross_process: list = []
        self.poll_interval = poll_interval
        self.max_queue = max_queue
        self._subs: set[Subscription] = set()
        # subscriptions by "/"-terminated prefix: a change reaches its few candidate prefixes by lookup, so
        # thousands of watches on other collections cost nothing per change (and, indexed, those on the same
        # collection selecting other field values); other prefixes are scanned
        self._by_prefix: dict[str, _Bucket] = {}
        self._scanned: set[Subscription] = set()
        self._lock = threading.Lock()
        self._wakeup = threading.Event()
        self._stop = threading.Event()
        self._outage = OutageLog(log, "watch hub poll", logging.ERROR)
        self._last = 0
        self._thread: threading.Thread | None = None
        #: this process's committed changes not yet dispatched (deque appends and pops are atomic)
        self._written_here: collections.deque[Change] = collections.deque()
        storage.on_commit(self._committed_here)
        storage.on_went_back(self.poke)  # the log no longer holds what was dispatched: `_start_over` at once

    def start(self) -> None:
        with self._lock:
            if self._thread is not None:
                return
            self._last = self.storage.current_revision()
            self._remember_newest()
            if not self.storage.is_sqlite:
                # other processes' writes wake us through LISTEN/NOTIFY instead of the next poll
                from .notify import ChangeListener, ChangeNotifier

                sender = f"{os.getpid()}-{secrets.token_hex(4)}"  # this hub's own commits wake it already
                notifier = ChangeNotifier(self.storage.url, sender)
                self.storage.on_commit(notifier.committed)
                self._cross_process = [notifier, ChangeListener(self.storage.url, self.poke, sender)]
                for part in self._cross_process:
                    part.start()
            self._thread = threading.Thread(target=self._run, name="watch-hub", daemon=True)
            self._thread.start()

    def _remember_newest(self) -> None:
        """Read the log's newest changes into memory: the watches a restart cut resume from revisions just before."""
        recent = self._recent
        if recent.budget <= 0:
            return
        start = max(self.storage.compacted_revision(), self._last - RECENT_CHANGES_AT_START, 0)
        recent.reset(start)
        cursor = start
        try:
            while cursor < self._last:
                batch = self.storage.changes_after(cursor, upto=self._last, limit=1000)
                if not batch:
                    break
                recent.extend(batch)
                cursor = batch[-1].rv
        except RevisionCompacted:  # compacted meanwhile: remember from now on
            recent.reset(self._last)

    def stop(self) -> None:
        self._stop.set()
        self._wakeup.set()
        for part in self._cross_process:
            part.stop()
        with self._lock:
            subs = list(self._subs)
        for sub in subs:
            sub.closed = True
            sub.wake()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def wait_listening(self, timeout: float) -> bool:
        """True once cross-process wake-ups are being received (always true on SQLite, which polls)."""
        listeners = [p for p in self._cross_process if hasattr(p, "listening")]
        return all(p.listening.wait(timeout) for p in listeners)

    @property
    def subscriber_count(self) -> int:
        return len(self._subs)

    def subscribe(
        self,
        prefixes: str | Sequence[str],
        after: int,
        max_queue: int | None = None,
        accepts: Callable[[Change], bool] | None = None,
        index: Index | None = None,
    ) -> tuple[Subscription, list[Change]]:
        """Subscribe to changes under one or several key prefixes after revision `after`.

        Returns the subscription and the backlog (changes after `after` the hub had already
        dispatched); live events follow in the subscription, at most `max_queue` of them unread (then it
        is marked overflowed); with `accepts`, only the changes it accepts; with `index`, only the changes whose
        old or new value of the index's field is its value (all of them when a prefix does not end in "/").
        Raises RevisionCompacted.
        """
        self.start()
        with self._lock:
            floor = max(self._last, after)
            sub = Subscription(
                distinct_prefixes(prefixes), floor, max_queue or self.max_queue, accepts=accepts, index=index
            )
            self._subs.add(sub)
            if all(prefix.endswith("/") for prefix in sub.prefixes):  # found by lookup, once per change
                for prefix in sub.prefixes:
                    self._by_prefix.setdefault(prefix, _Bucket()).add(sub)
            else:
                self._scanned.add(sub)
        try:
            backlog = self._backlog(sub, after, floor)
        except BaseException:
            self.unsubscribe(sub)
            raise
        return sub, backlog

    def follow(self, prefixes: str | Sequence[str], after: int, on_change: Callable[[Change], None]) -> Subscription:
        """Call on_change, in order, for each change under prefix after `after` (the backlog at once, the rest
        from the hub's thread as they come): an in-process view of a few objects, kept without a thread."""
        lock = threading.Lock()
        sub, backlog = self.subscribe(prefixes, after)

        def drain() -> None:
            with lock:
                for change in sub.take_nowait():
                    on_change(change)

        with lock:
            for change in backlog:
                on_change(change)
            sub.listener = drain
        drain()
        return sub

    def _backlog(self, sub: Subscription, after: int, upto: int) -> list[Change]:
        """The changes `sub` wants after `after` up to `upto`: from memory when it still has them all, else from the
        log. Raises RevisionCompacted below the log's (or the kinds' own) compaction mark, either way."""
        # checked even when the hub has nothing after `after` yet: another process may have compacted past it
        prefixes = sub.prefixes
        if self.storage.retention:  # kinds kept for less than the rest have marks of their own
            self.storage.check_retained(prefixes, after)
        with self._lock:
            kept = self._recent.between(after, upto)
        if kept is not None:
            self.storage.changes_after(after, upto=after + 1, limit=1)  # raises if compacted
            wanted = [c for c in kept if c.key.startswith(prefixes) and sub.in_index(c, remembered=True)]
            return [c for c in map(bare, wanted) if sub.accepted(c)]  # a filter's caches go with the copies
        out: list[Change] = []
        cursor = after
        while cursor < upto:
            batch = self.storage.changes_after(cursor, upto=upto, limit=1000)
            if not batch:
                # nothing more to read, but make sure the start revision is still available
                break
            out.extend(c for c in batch if c.key.startswith(prefixes) and sub.wants(c))
            cursor = batch[-1].rv
        if not out:
            self.storage.changes_after(after, upto=after + 1, limit=1)  # raises if compacted
        return out

    def remembered(self, key: str) -> Remembered | None:
        """The object under `key` as the hub last saw it change, if it still remembers that change and it was not
        a deletion: possibly older than the store's (a write the hub has not read yet), so only a first try of a
        compare-and-swap write may start from it (the reference's cacher hands GuaranteedUpdate the same)."""
        change = self._recent.latest(key)
        if change is None or change.type == DELETED:
            return None
        return Remembered(change.key, change.rv, change.data)

    def caught_up_revision(self, sub: Subscription) -> int | None:
        """A revision every change of which `sub` has been given, when its queue is empty (bookmarks)."""
        # _last is read before the queue: the hub advances it only after offering a whole batch, so every change
        # up to it is queued or taken; read after, it could pass a change offered between the two reads. Part-way
        # through a batch _last is behind the changes already offered (and perhaps taken): `newest` covers those
        last, newest = self._last, sub.newest  # newest too is read before the queue, for the same reason
        with sub.cond:
            return None if sub.queue else max(last, sub.floor, newest)

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.discard(sub)
            self._scanned.discard(sub)
            for prefix in sub.prefixes:
                bucket = self._by_prefix.get(prefix)
                if bucket is not None:
                    bucket.discard(sub)
                    if bucket.empty:
                        del self._by_prefix[prefix]
        sub.closed = True

    def poke(self) -> None:
        self._wakeup.set()

    def _committed_here(self, written: list[Change]) -> None:
        if self._thread is not None and not self._stop.is_set():  # kept only while a thread takes them
            self._written_here.extend(written)
        self._wakeup.set()

    def _next_from_here(self) -> list[Change]:
        """The changes this process wrote that directly follow the last dispatched one: as the change log holds
        them (commit order is revision order), so they need no read. Anything else is read from the log."""
        written = self._written_here
        found: dict[int, Change] = {}
        while written:
            change = written.popleft()
            if change.rv > self._last:
                found[change.rv] = change
        batch: list[Change] = []
        rv = self._last + 1
        while rv in found:
            batch.append(found[rv])
            rv += 1
        return batch

    def _candidates(self, change: Change) -> list[Subscription]:
        """The subscriptions whose prefix may hold the change's key and whose index (if any) its old or new
        object matches (each checks the prefix and revision itself)."""
        key = change.key
        found = [sub for sub in self._scanned if sub.in_index(change)]
        by_prefix = self._by_prefix
        end = key.find("/")
        while end >= 0:
            bucket = by_prefix.get(key[: end + 1])
            if bucket is not None:
                bucket.collect(change, found)
            end = key.find("/", end + 1)
        return found

    def _start_over(self, lost: StoreWentBack | RevisionCompacted) -> None:
        """The log no longer holds the changes after the last one dispatched (a server moved the revision counter
        on after the store went back in time, or compaction passed a hub that fell behind): every subscription ends
        as `gone` (watches answer 410 Expired, in-process feeds re-list) and the hub follows from the newest
        revision, forgetting the changes it remembered (some may be lost ones)."""
        last = self.storage.current_revision()
        with self._lock:
            subs = list(self._subs)
            self._last = last
            self._recent.reset(last)
            self._written_here.clear()
        log.warning("watch hub: %s; ending %d subscriptions with 410, following from %d", lost, len(subs), last)
        for sub in subs:
            sub.gone = last
            self.unsubscribe(sub)
            sub.wake()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wakeup.wait(self.poll_interval)
            self._wakeup.clear()
            try:
                self._drain()
            except Exception as err:  # noqa: BLE001 - the database may be briefly unavailable; try next tick
                self._outage.failed(err)
            else:
                self._outage.succeeded()

    def _drain(self) -> None:
        while True:
            try:
                batch = self._next_from_here() or self.storage.changes_after(self._last, limit=500)
            except (StoreWentBack, RevisionCompacted) as lost:
                self._start_over(lost)
                return
            if not batch:
                return
            with self._lock:
                for change in batch:
                    for sub in self._candidates(change):
                        sub.offer(change)
                self._recent.extend(batch)
                self._last = batch[-1].rv
            if len(batch) < 500:
                return
