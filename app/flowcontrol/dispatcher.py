"""API Priority and Fairness for one worker: the FlowSchemas and PriorityLevelConfigurations the store holds
(followed as admission follows its configuration), each request classified to a flow and a level, then
executed, queued or rejected.

Seats: the server's --max-requests-inflight + --max-mutating-requests-inflight, split across workers as the
in-flight limits are, and capped by the threads a worker has (a seat is only worth something with a thread to
run on): at most half of --threads. Each Limited level gets ceil(seats x shares / sum of shares), of which
its lendablePercent (the reference's v1.26+ bootstrap values for the suggested levels) may run other levels'
requests while it does not use them (queueset.SeatPool). A queued request holds its thread, so a worker has
waiting threads besides --threads (`waiting_threads`: --apf-waiting-threads, default 8 x --threads) and keeps
at most those and a quarter of --threads waiting in queues (beyond: 429 queue-full), which leaves threads for
exempt requests and for turning the noisy ones away.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

from .. import defaults
from ..controllers.apfbootstrap import CATCH_ALL, EXEMPT, LENDABLE_PERCENT, flow_schemas, priority_levels
from .matching import distinguisher, matches_schema
from .queueset import TIME_OUT, QueueSet, QueuingConfig, Rejected, SeatPool, Waiter, flow_hash
from .retry_after import DroppedRequests

if TYPE_CHECKING:
    from ..auth.authz import Attributes
    from ..metrics.flowcontrol import FlowcontrolMetrics
    from ..naming import Naming

#: seconds a request may wait in a queue: the reference's (v1.24+) quarter of the 60 s request timeout
QUEUE_WAIT_LIMIT = 15.0


def waiting_threads(threads: int, configured: int | None = None) -> int:
    """Threads a worker has besides --threads for requests waiting in APF queues (--apf-waiting-threads)."""
    return configured if configured is not None else threads * defaults.APF_WAITING_THREADS_PER_THREAD


@dataclass(frozen=True)
class WorkerShare:
    """What one worker may run and hold waiting."""

    seats: int
    waiting: int

    @classmethod
    def of(
        cls, max_readonly: int, max_mutating: int, workers: int, threads: int, waiting: int | None = None
    ) -> WorkerShare:
        total = max_readonly + max_mutating
        per_worker = -(-total // max(1, workers)) if total > 0 else threads
        return cls(max(1, min(per_worker, threads // 2)), max(1, threads // 4) + waiting_threads(threads, waiting))


@dataclass(frozen=True)
class Schema:
    name: str
    uid: str
    precedence: int
    level: str
    spec: dict[str, Any]


@dataclass
class Level:
    name: str
    uid: str
    exempt: bool
    shares: int
    queuing: dict[str, Any] | None  # None: Reject when full
    lendable_percent: int = 0
    queues: QueueSet | None = None


@dataclass
class Config:
    """One digest of the configuration objects: schemas in matching order, levels by name."""

    schemas: list[Schema] = field(default_factory=list)
    levels: dict[str, Level] = field(default_factory=dict)


@dataclass
class Seat:
    """A request's classification and, once it executes, the seat it holds (release exactly once)."""

    schema: Schema
    level: Level
    queue: int | None = None
    released: bool = False
    holds: bool = False


class PriorityAndFairness:
    """Classify, queue and dispatch the requests of this worker."""

    def __init__(
        self,
        naming: Naming,
        schema_objects: Callable[[], tuple[dict, ...]],
        level_objects: Callable[[], tuple[dict, ...]],
        share: WorkerShare,
        metrics: FlowcontrolMetrics | None = None,
        queue_wait_limit: float = QUEUE_WAIT_LIMIT,
    ) -> None:
        self.naming = naming
        self.schema_objects, self.level_objects = schema_objects, level_objects
        self.share, self.metrics, self.queue_wait_limit = share, metrics, queue_wait_limit
        self._lock = threading.Lock()
        self._seen: tuple[tuple[dict, ...], tuple[dict, ...]] | None = None
        self._config = Config()
        self._seat_pool = SeatPool()
        self._waiting = 0  # requests of this worker waiting in any queue (each holds a thread)
        self.dropped = DroppedRequests()  # the Retry-After of each level's 429s
        self.closers: list[Callable[[], None]] = []  # what stops following the configuration objects

    def stop(self) -> None:
        for close in self.closers:
            close()

    # -- configuration ------------------------------------------------------------------------------------

    def config(self) -> Config:
        """The digest of the current objects, rebuilt when they changed; a missing mandatory object is imagined
        from the bootstrap (as the reference does) so every request finds a schema and a level."""
        current = (self.schema_objects(), self.level_objects())
        if self._seen is not None and current[0] is self._seen[0] and current[1] is self._seen[1]:
            return self._config
        with self._lock:
            if self._seen is None or current[0] is not self._seen[0] or current[1] is not self._seen[1]:
                self._config = self._digest(*current)
                self._seen = current
        return self._config

    def _digest(self, schema_objects: tuple[dict, ...], level_objects: tuple[dict, ...]) -> Config:
        mandatory_levels, _ = priority_levels(self.naming)
        mandatory_schemas, _ = flow_schemas(self.naming)
        levels = {lv.name: lv for lv in (_level(obj) for obj in level_objects) if lv is not None}
        for obj in mandatory_levels:
            imagined = _level(obj)
            if imagined is not None and imagined.name not in levels:
                levels[imagined.name] = imagined
        schemas = [s for s in (_schema(obj) for obj in schema_objects) if s is not None and s.level in levels]
        names = {s.name for s in schemas}
        schemas += [s for s in (_schema(o) for o in mandatory_schemas) if s is not None and s.name not in names]
        schemas.sort(key=lambda s: (s.precedence, s.name))
        total_shares = sum(lv.shares for lv in levels.values() if not lv.exempt) or 1
        old = self._config.levels
        for level in levels.values():
            if level.exempt:
                continue
            seats = max(1, math.ceil(self.share.seats * level.shares / total_shares))
            queuing = level.queuing or {}
            shape = QueuingConfig(
                seats,
                int(queuing.get("queues", 0)),
                int(queuing.get("handSize", 0)),
                int(queuing.get("queueLengthLimit", 0)),
                round(seats * level.lendable_percent / 100),
            )
            previous = old.get(level.name)
            if previous is not None and previous.queues is not None:
                previous.queues.reconfigure(shape)
                level.queues = previous.queues
            else:
                level.queues = QueueSet(shape, self._seat_pool)
        self._seat_pool.attach([lv.queues for lv in levels.values() if lv.queues is not None])
        return Config(schemas, levels)

    # -- requests -----------------------------------------------------------------------------------------

    def classify(self, attrs: Attributes) -> tuple[Schema, Level, str]:
        config = self.config()
        for schema in config.schemas:
            if matches_schema(schema.spec, attrs):
                return schema, config.levels[schema.level], distinguisher(schema.spec, attrs)
        catch_all = next(s for s in config.schemas if s.name == CATCH_ALL)  # imagined when missing
        return catch_all, config.levels[catch_all.level], attrs.user.username

    def admit(self, attrs: Attributes) -> Seat:
        """The request's seat, after waiting in its queue if it must; raises Rejected (with the Seat's
        classification on `seat`) when it may not run."""
        schema, level, flow = self.classify(attrs)
        seat = Seat(schema, level)
        queues = level.queues
        if level.exempt or queues is None:
            self._dispatched(seat)
            return seat
        waiter = self._enqueue(seat, queues, flow_hash(schema.name, flow))
        seat.queue = waiter.queue
        if not waiter.queued:
            self._dispatched(seat)
            return seat
        self._note_queued(seat, +1)
        try:
            got = queues.wait(waiter, self.queue_wait_limit)
        finally:
            self._note_queued(seat, -1)
        if not got:
            self._rejected(seat, Rejected(TIME_OUT))
        seat.queue = waiter.queue  # its queue may have been renumbered by a reconfiguration meanwhile
        self._dispatched(seat)
        return seat

    def _enqueue(self, seat: Seat, queues: QueueSet, hash_value: int) -> Waiter:
        """A seat now, or a place in a queue while this worker has threads to spare for waiting (a slot taken
        here is given back by `_note_queued` when the wait ends)."""
        with self._lock:
            may_queue = self._waiting < self.share.waiting
            if may_queue:
                self._waiting += 1
        waiter: Waiter | None = None
        try:
            waiter = queues.enqueue_or_start(hash_value, may_queue)
        except Rejected as rejected:
            self._rejected(seat, rejected)
        finally:
            if may_queue and (waiter is None or not waiter.queued):
                with self._lock:
                    self._waiting -= 1
        return waiter

    def _note_queued(self, seat: Seat, delta: int) -> None:
        if delta < 0:  # the waiting slot taken in _enqueue
            with self._lock:
                self._waiting -= 1
        if self.metrics is not None:
            self.metrics.inqueue_delta(seat.level.name, seat.schema.name, delta)

    def _dispatched(self, seat: Seat) -> None:
        seat.holds = True
        if self.metrics is not None:
            self.metrics.dispatched_one(seat.level.name, seat.schema.name)
            self.metrics.executing_delta(seat.level.name, seat.schema.name, 1)

    def _rejected(self, seat: Seat, rejected: Rejected) -> NoReturn:
        if self.metrics is not None:
            self.metrics.rejected_one(seat.level.name, seat.schema.name, rejected.reason)
        raise RequestRejected(seat, rejected.reason, self.dropped.record(seat.level.name))

    def release(self, seat: Seat) -> None:
        """The request is done (or, for a watch, initialised): its seat goes to the next waiting one."""
        if seat.released or not seat.holds:
            return
        seat.released = True
        if self.metrics is not None:
            self.metrics.executing_delta(seat.level.name, seat.schema.name, -1)
        if seat.level.queues is not None and not seat.level.exempt:
            seat.level.queues.finish(seat.queue)


class RequestRejected(Exception):  # APF's answer, rendered as 429 with Retry-After: `retry_after` seconds
    def __init__(self, seat: Seat, reason: str, retry_after: int = 1) -> None:
        super().__init__(reason)
        self.seat, self.reason, self.retry_after = seat, reason, retry_after


def _meta(obj: dict) -> tuple[str, str]:
    md = obj.get("metadata") or {}
    return str(md.get("name", "")), str(md.get("uid", ""))


def _level(obj: dict) -> Level | None:
    name, uid = _meta(obj)
    spec = obj.get("spec") or {}
    if spec.get("type") == "Exempt":
        return Level(name, uid, True, 0, None)
    limited = spec.get("limited") or {}
    shares = limited.get("nominalConcurrencyShares", limited.get("assuredConcurrencyShares"))
    response = limited.get("limitResponse") or {}
    queuing = (response.get("queuing") or {}) if response.get("type") == "Queue" else None
    lendable = limited.get("lendablePercent")  # v1beta3 and later; the bootstrap's value by name before
    if not isinstance(lendable, int) or not 0 <= lendable <= 100:
        lendable = LENDABLE_PERCENT.get(name, 0)
    return Level(name, uid, False, int(shares) if isinstance(shares, int) and shares > 0 else 30, queuing, lendable)


def _schema(obj: dict) -> Schema | None:
    name, uid = _meta(obj)
    spec = obj.get("spec") or {}
    level = (spec.get("priorityLevelConfiguration") or {}).get("name")
    if not name or not level:
        return None
    precedence = spec.get("matchingPrecedence")
    return Schema(name, uid, int(precedence) if isinstance(precedence, int) else 1000, str(level), spec)


__all__ = ["EXEMPT", "PriorityAndFairness", "RequestRejected", "Seat", "WorkerShare"]
