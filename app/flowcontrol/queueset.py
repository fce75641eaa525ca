"""One priority level's seats and queues: shuffle sharding picks a flow's queue, fair queuing picks which queue's
head gets the next free seat (the reference's fairqueuing/queueset, with every request one seat wide).

Levels lend each other seats (the reference's borrowing, v1.26+): a level's `lendable` seats are in its worker's
SeatPool while it does not use them, and any level whose own seats are taken may run a request on one. A freed
lendable seat goes to the waiting level that uses the smallest part of its nominal seats, so a lender gets its
seats back as soon as borrowed ones are released (the reference re-divides every 10 s).

A waiting request holds its thread (this server's requests run on a worker's thread pool), so the caller says
how long it may wait; the level only keeps the order.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import deque
from dataclasses import dataclass, field

#: the reasons of apiserver_flowcontrol_rejected_requests_total, as the reference spells them
QUEUE_FULL = "queue-full"
CONCURRENCY_LIMIT = "concurrency-limit"
TIME_OUT = "time-out"


@dataclass(frozen=True)
class QueuingConfig:
    """A level's shape: `queues` 0 means no queuing (a request finding every seat taken is rejected)."""

    concurrency_limit: int
    queues: int = 0
    hand_size: int = 0
    queue_length_limit: int = 0
    #: seats of `concurrency_limit` other levels may run on while this one does not use them
    lendable: int = 0


class Rejected(Exception):  # a refusal, not a failure of the server
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def flow_hash(flow_schema: str, distinguisher: str) -> int:
    """A 64-bit hash of a flow (its FlowSchema and distinguisher): the same flow always gets the same hand."""
    digest = hashlib.blake2b(f"{flow_schema}\0{distinguisher}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def deal_hand(hash_value: int, deck: int, hand_size: int) -> list[int]:
    """`hand_size` distinct queue indices out of `deck`, taken from the hash as mixed-radix digits (each draw
    from the cards not dealt yet): flows with different hashes rarely share their whole hand."""
    hand: list[int] = []
    for i in range(min(hand_size, deck)):
        remaining = deck - i
        pick, hash_value = hash_value % remaining, hash_value // remaining
        for taken in sorted(hand):  # the pick-th card among those still in the deck
            if taken <= pick:
                pick += 1
        hand.append(pick)
    return hand


@dataclass(eq=False)
class Waiter:
    """A queued request: dispatched (a seat is its) or given up on."""

    queue: int | None
    dispatched: bool = False
    #: it went through a queue (set once, under the level's lock): its caller waits on `event`
    queued: bool = False
    event: threading.Event = field(default_factory=threading.Event)
    abandoned: bool = False


@dataclass
class _Queue:
    waiting: deque[Waiter] = field(default_factory=deque)
    #: virtual time at which the head of this queue starts (fair queuing's start tag, one unit per request)
    next_start: float = 0.0
    executing: int = 0


class SeatPool:
    """The levels of one worker, under one lock: their lendable seats are shared."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.levels: list[QueueSet] = []  # those of the current configuration
        #: levels no longer configured that still run requests on shared seats or have requests waiting
        self._retired: list[QueueSet] = []

    def attach(self, levels: list[QueueSet]) -> None:
        """The current configuration's levels (a level left out lends nothing more; its running requests keep
        the shared seats they took until they finish, its waiting ones get its own seats as they free)."""
        with self.lock:
            current = {id(level) for level in levels}
            gone = [level for level in self.levels if id(level) not in current]
            self._retired = [
                level for level in [*self._retired, *gone] if level.executing > level.guaranteed or level.waiting
            ]
            self.levels = list(levels)
            self.dispatch_locked()

    def free_locked(self) -> int:
        """Lendable seats nobody runs on now."""
        lendable = sum(level.config.lendable for level in self.levels)
        taken = sum(max(0, level.executing - level.guaranteed) for level in [*self.levels, *self._retired])
        return lendable - taken

    def dispatch_locked(self) -> None:
        """Every level's own seats to its waiting requests, then the free lendable seats, each to the waiting
        level that uses the smallest part of its nominal seats."""
        for level in [*self.levels, *self._retired]:
            while level.waiting and level.executing < level.guaranteed:
                level.dispatch_one_locked()
        free = self.free_locked()
        while free > 0:
            waiting = [level for level in self.levels if level.waiting]
            if not waiting:
                return
            min(waiting, key=lambda lv: lv.executing / max(1, lv.config.concurrency_limit)).dispatch_one_locked()
            free -= 1


class QueueSet:
    """Seats (`concurrency_limit`) and queues of one priority level in this worker."""

    def __init__(self, config: QueuingConfig, pool: SeatPool | None = None) -> None:
        self.pool = pool or SeatPool()
        self.lock = self.pool.lock
        self.config = config
        self.queues = [_Queue() for _ in range(config.queues)]
        self.executing = 0
        self.waiting = 0
        self.virtual_time = 0.0
        if pool is None:  # a level on its own: lends to nobody, borrows from nobody
            self.pool.attach([self])

    @property
    def guaranteed(self) -> int:
        """Seats this level never lends."""
        return self.config.concurrency_limit - self.config.lendable

    def reconfigure(self, config: QueuingConfig) -> None:
        """A changed PriorityLevelConfiguration: new shape; queued requests keep their place when their queue
        still exists, else they are dispatched as seats allow (the reference lets the old queues drain)."""
        with self.lock:
            if config.queues != len(self.queues):
                orphans = [w for q in self.queues for w in q.waiting]
                self.queues = [_Queue(next_start=self.virtual_time) for _ in range(config.queues)]
                for index, waiter in enumerate(orphans):
                    target = index % config.queues if config.queues else None
                    if target is None:
                        continue
                    waiter.queue = target
                    self.queues[target].waiting.append(waiter)
                self.waiting = sum(len(q.waiting) for q in self.queues)
            self.config = config
            self.pool.dispatch_locked()

    def enqueue_or_start(self, hash_value: int, may_queue: bool = True) -> Waiter:
        """A seat at once (the Waiter is `dispatched`) or a place in the flow's queue (wait on it); raises
        Rejected when the queue is full, or the level has no queues (or may not queue now) and no free seat."""
        with self.lock:
            config = self.config
            index = self._choose_queue(hash_value) if self.queues else None
            if self.waiting == 0 and (self.executing < self.guaranteed or self.pool.free_locked() > 0):
                self.executing += 1
                if index is not None:
                    self.queues[index].executing += 1
                started = Waiter(index, dispatched=True)
                started.event.set()
                return started
            if index is None:
                raise Rejected(CONCURRENCY_LIMIT)
            queue = self.queues[index]
            if not may_queue or len(queue.waiting) >= config.queue_length_limit:
                raise Rejected(QUEUE_FULL)
            if not queue.waiting:  # an idle queue starts now, not with the credit it built while idle
                queue.next_start = max(queue.next_start, self.virtual_time)
            waiter = Waiter(index, queued=True)
            queue.waiting.append(waiter)
            self.waiting += 1
            self.pool.dispatch_locked()
            return waiter

    def wait(self, waiter: Waiter, timeout: float) -> bool:
        """Wait up to `timeout` seconds for a seat; False: the time is up and the request left its queue."""
        deadline = time.monotonic() + timeout
        while not waiter.event.wait(max(0.0, deadline - time.monotonic())):
            with self.lock:
                if waiter.dispatched:
                    return True
                if time.monotonic() >= deadline:
                    waiter.abandoned = True
                    index = waiter.queue
                    queue = self.queues[index] if index is not None and index < len(self.queues) else None
                    if queue is not None and waiter in queue.waiting:
                        queue.waiting.remove(waiter)
                        self.waiting -= 1
                    return False
        return True

    def finish(self, queue: int | None) -> None:
        """A request that held a seat is done: the seat goes to the fairest waiting queue."""
        with self.lock:
            self.executing -= 1
            if queue is not None and queue < len(self.queues):
                self.queues[queue].executing = max(0, self.queues[queue].executing - 1)
            self.pool.dispatch_locked()

    def _choose_queue(self, hash_value: int) -> int:
        """The shortest queue of the flow's hand (the first of equals)."""
        hand = deal_hand(hash_value, len(self.queues), self.config.hand_size or 1)
        return min(hand, key=lambda i: len(self.queues[i].waiting) + self.queues[i].executing)

    def dispatch_one_locked(self) -> None:
        """A seat to the head of the queue whose turn it is (the caller found one free and a request waiting)."""
        queue = min((q for q in self.queues if q.waiting), key=lambda q: q.next_start)
        waiter = queue.waiting.popleft()
        self.waiting -= 1
        self.virtual_time = max(self.virtual_time, queue.next_start)
        queue.next_start += 1.0  # one request served: this queue's turn comes after the others' heads
        waiter.dispatched = True
        self.executing += 1
        queue.executing += 1
        waiter.event.set()
