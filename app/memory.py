"""Memory that comes back: a budget for list responses in flight, and giving freed memory back to the system.

A full LIST holds its rows' text, then the encoded body, until the last byte is sent: 20 concurrent lists of
26 MB each took a worker past 1.7 GB. ListMemory caps what the lists in flight of one process may hold
(`--max-list-memory`, split across the workers): a list reserves its estimated cost before it reads the database
and waits, for at most `wait` seconds (then 429), while the others hold the budget.

Python's cyclic collector stops the whole worker while it runs (the GIL is held), for ~1 us per object it
tracks: at 1,000 simulated nodes a worker tracked ~300k objects (its modules, schemas and ~2,000 connections) and
collected the oldest generation every 5-7 s, 200-300 ms each, while every request waited and APF queues
overflowed. `tune_collector` (once the worker booted) moves what start-up made into the permanent generation,
which is never scanned, and collects the youngest generation per 10,000 allocations instead of 700, so objects of
requests in flight are rarely promoted and the oldest generation is collected far less often.

glibc keeps memory that Python freed in its arenas (one per busy thread, up to 8 per core), so a burst's peak
stays resident long after it ended. `tune_allocator` makes big buffers mmapped (returned at once when freed)
and limits the arenas; `Trimmer` calls malloc_trim(0) shortly after a large list was sent, and every
TRIM_INTERVAL seconds, which gives the arenas' free pages back.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable

from .errors import TooManyRequests

log = logging.getLogger(__name__)

#: raw JSON lists hold their rows' text and the body made of it (plus the driver's copy while reading)
RAW_COST_FACTOR = 3
#: Table, YAML, protobuf and ?pretty lists decode every item into Python objects: about ten times the text
DECODED_COST_FACTOR = 10
UNKNOWN_COST = 1 << 20  # a collection never listed by this process: reserve 1 MiB, then the measured cost
TRIM_AFTER_BYTES = 8 << 20  # a list that reserved this much asks for a trim once it is sent
TRIM_DELAY = 1.0  # seconds after such a list before trimming (a burst's lists end together)
TRIM_INTERVAL = 30.0  # seconds between trims anyway: watches, bad input and caches also leave free pages
ESTIMATES_KEPT = 4096  # collections whose last list size is remembered (least recently listed forgotten)
ARENA_MAX = 2  # glibc malloc arenas per process; Python allocates under the GIL, so more buy little

_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8
MMAP_THRESHOLD = 256 << 10  # buffers this large are mmapped: a freed body goes back to the system at once

_UNITS = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_UNITS.update({"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40})
_SIZE = re.compile(r"^\s*(\d+)\s*([kMGT]i?)?\s*$")


def parse_byte_size(text: str) -> int:
    """`512Mi`, `1Gi`, `500M` or plain bytes, as Kubernetes quantities spell them."""
    match = _SIZE.match(text)
    if match is None or (match.group(2) or "") not in _UNITS:
        raise ValueError(f"{text!r} is not a size (e.g. 512Mi, 1Gi, 500M or bytes)")
    return int(match.group(1)) * _UNITS[match.group(2) or ""]


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim.argtypes, libc.mallopt.argtypes = [ctypes.c_size_t], [ctypes.c_int, ctypes.c_int]
        return libc
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to tune or trim
        return None


_LIBC = _libc()


def tune_allocator() -> bool:
    """Mmap big buffers and cap the arenas (before the threads start); False where malloc is not glibc's.
    MALLOC_ARENA_MAX or MALLOC_MMAP_THRESHOLD_ in the environment win."""
    if _LIBC is None:
        return False
    if "MALLOC_MMAP_THRESHOLD_" not in os.environ:
        _LIBC.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    if "MALLOC_ARENA_MAX" not in os.environ:
        _LIBC.mallopt(_M_ARENA_MAX, ARENA_MAX)
    return True


#: the collector's thresholds once a worker booted: (youngest generation, middle, oldest); Python's are (700, 10, 10)
COLLECTOR_THRESHOLDS = (10_000, 10, 10)


def tune_collector() -> None:
    """Start-up's objects out of the collector's way, then fewer young collections (module docstring)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


def release_free_memory() -> bool:
    """Give the free pages of every malloc arena back to the system (glibc's malloc_trim); True if any was."""
    return bool(_LIBC.malloc_trim(0)) if _LIBC is not None else False


class Trimmer:
    """One thread per process that trims soon after a large response and every `interval` seconds."""

    def __init__(self, interval: float = TRIM_INTERVAL, delay: float = TRIM_DELAY) -> None:
        self.interval, self.delay = interval, delay
        self.trims = 0
        self._asked = threading.Event()
        self._lock = threading.Lock()
        self._pid = 0  # the process whose thread trims (a forked worker starts its own)

    def ask(self) -> None:
        """Trim in `delay` seconds (asks in a row make one trim)."""
        self.start()
        self._asked.set()

    def start(self) -> None:
        if _LIBC is None or self._pid == os.getpid():
            return
        with self._lock:
            if self._pid != os.getpid():
                self._pid = os.getpid()
                threading.Thread(target=self._run, name="memory-trimmer", daemon=True).start()

    def _run(self) -> None:
        while True:
            if self._asked.wait(self.interval):
                time.sleep(self.delay)
                self._asked.clear()
            release_free_memory()
            self.trims += 1


class Reservation:
    """Bytes of a ListMemory held by one response until `release()` (idempotent)."""

    def __init__(
        self, budget: ListMemory, amount: int, collection: Hashable = None, factor: int = 1, learning: bool = False
    ) -> None:
        self.budget, self.amount, self.collection, self.factor = budget, amount, collection, factor
        self.learning = learning  # the first list of its collection: others of it wait for its size

    def measured(self, text_bytes: int) -> None:
        """The rows are read: their size is the collection's estimate, and this list's cost is taken at once
        (without waiting: it is already in memory)."""
        self.budget._learned(self.collection, text_bytes, self.learning)
        self.learning = False
        if self.budget.capacity > 0:
            amount = min(max(text_bytes * self.factor, 1), self.budget.capacity)
            self.budget._adjust(amount - self.amount)
            self.amount = amount

    def release(self) -> None:
        amount, self.amount = self.amount, 0
        if self.learning:
            self.learning = False
            self.budget._learned(self.collection, None, True)
        if amount:
            self.budget._adjust(-amount)
            if amount >= TRIM_AFTER_BYTES:
                self.budget.trimmer.ask()


TRIMMER = Trimmer()  # one per process


class ListMemory:
    """What the lists in flight of one process may hold: `capacity` bytes (0: no limit). A list costs at most the
    whole capacity, so a list bigger than the budget still runs, alone. A list's cost is estimated from the last
    list of the same collection (same namespace, selectors and page size) in this process; while a collection has
    none, its lists go one at a time until the first one has read its rows."""

    def __init__(self, capacity: int, wait: float = 30.0, trimmer: Trimmer | None = None) -> None:
        self.capacity, self.wait = capacity, wait
        self.trimmer = trimmer or TRIMMER
        self.in_flight = 0  # bytes reserved now
        self.peak = 0
        self._cond = threading.Condition()
        self._estimates: OrderedDict[Hashable, int] = OrderedDict()  # collection -> text bytes of its last list
        self._learning: set[Hashable] = set()  # collections whose first list is reading its rows

    def begin(self, collection: Hashable, decoded: bool, clock: Callable[[], float] = time.monotonic) -> Reservation:
        """Wait until a list of `collection` fits (TooManyRequests after `wait` s); `decoded`: its encoding turns
        every row into Python objects (Table, YAML, protobuf, ?pretty)."""
        self.trimmer.start()
        factor = DECODED_COST_FACTOR if decoded else RAW_COST_FACTOR
        if self.capacity <= 0:
            return Reservation(self, 0, collection, factor)
        deadline = clock() + self.wait
        with self._cond:
            while collection not in self._estimates and collection in self._learning:
                self._wait_until(deadline, clock)
            known = self._estimates.get(collection)
            amount = UNKNOWN_COST if known is None else known * factor
            if known is None:
                self._learning.add(collection)
            try:
                amount = self._take(amount, deadline, clock)
            except TooManyRequests:
                self._learning.discard(collection)
                self._cond.notify_all()
                raise
        return Reservation(self, amount, collection, factor, learning=known is None)

    def reserve(self, amount: int, clock: Callable[[], float] = time.monotonic) -> Reservation:
        """Wait until `amount` bytes fit (TooManyRequests after `wait` seconds)."""
        if self.capacity <= 0:
            return Reservation(self, 0)
        deadline = clock() + self.wait
        with self._cond:
            return Reservation(self, self._take(amount, deadline, clock))

    def _take(self, amount: int, deadline: float, clock: Callable[[], float]) -> int:
        amount = min(max(amount, 1), self.capacity)
        while self.in_flight and self.in_flight + amount > self.capacity:
            self._wait_until(deadline, clock)
        self.in_flight += amount
        self.peak = max(self.peak, self.in_flight)
        return amount

    def _wait_until(self, deadline: float, clock: Callable[[], float]) -> None:
        left = deadline - clock()
        if left <= 0:
            raise TooManyRequests(
                "too many large lists are being sent at once (--max-list-memory); retry later", retry_after=1
            )
        self._cond.wait(left)

    def _learned(self, collection: Hashable, text_bytes: int | None, learning: bool) -> None:
        with self._cond:
            if text_bytes is not None:
                self._estimates[collection] = max(text_bytes, 1)
                self._estimates.move_to_end(collection)
                if len(self._estimates) > ESTIMATES_KEPT:
                    self._estimates.popitem(last=False)
            if learning:
                self._learning.discard(collection)
                self._cond.notify_all()

    def _adjust(self, delta: int) -> None:
        if self.capacity <= 0:
            return
        with self._cond:
            self.in_flight = max(0, self.in_flight + delta)
            self.peak = max(self.peak, self.in_flight)
            if delta < 0:
                self._cond.notify_all()
