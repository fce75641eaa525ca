"""Which Fault a request takes, and what that does to it.

A Fault is taken in the store: its status.matched is raised by a compare-and-swap write of the Fault itself
(the registry's guaranteed update), which refuses once spec.times is reached. So a Fault with `times: 1` fires
once in all, across every worker and replica sharing the store. With spec.probability the n-th request the Fault
selects (status.considered counts them, in the same write) is taken when a hash of (seed, n) falls below it:
the same requests fail on every run; without a seed a random draw decides.
"""

from __future__ import annotations

import functools
import hashlib
import random
import time
from dataclasses import dataclass

import orjson

from ..catalog import ResourceType
from ..errors import ApiError, Conflict, NotFound
from ..registry.options import ListOptions
from ..registry.store import Registry
from .errors import fault_error
from .matching import RequestFacts, matches
from .spec import FaultSpec, WatchCut, read_fault

#: who status.matched writes are recorded as made by (history, managedFields)
MANAGER = "fault-injection"


class _NotTaken(Exception):
    """The Fault has taken its spec.times requests, or its probability passed this one by."""


@dataclass(frozen=True)
class Injection:
    """What the Fault a request took does to it."""

    fault: str
    #: answered instead of serving the request (nothing is stored)
    error: ApiError | None = None
    #: seconds waited before serving the request
    delay: float = 0.0
    #: answered after the request was served (its write is stored)
    after_write: ApiError | None = None
    #: where its watch ends
    watch: WatchCut | None = None

    def before(self) -> None:
        """What happens before the handler: the delay, then the error (if any)."""
        if self.delay > 0:
            time.sleep(self.delay)
        if self.error is not None:
            raise self.error


def chosen(seed: int | None, probability: float | None, considered: int) -> bool:
    """Whether the `considered`-th request a Fault selects is taken."""
    if probability is None or probability >= 1:
        return True
    if seed is None:
        return random.random() < probability
    digest = hashlib.sha256(f"{seed}:{considered}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < probability


class Injector:
    """The Faults of one store, applied to the requests of one process."""

    def __init__(self, registry: Registry, fault_type: ResourceType):
        self.registry = registry
        self.rt = fault_type

    def evaluate(self, facts: RequestFacts) -> Injection | None:
        """The injection of the first Fault (by name) that selects the request and takes it, else None."""
        if facts.group == self.rt.group and facts.resource == self.rt.plural:
            return None  # a Fault never matches requests on Faults: they stay the way to remove one
        listed = self.registry.list(self.rt, None, ListOptions())
        for text in listed.items:
            fault = _parsed(text)
            if matches(fault, facts) and self._take(fault):
                return _injection(fault, facts)
        return None

    def _take(self, fault: FaultSpec) -> bool:
        """Count the request in the Fault's status, atomically; False when the Fault does not take it."""
        taken = False

        def count(obj: dict) -> None:
            nonlocal taken
            status = obj.get("status") if isinstance(obj.get("status"), dict) else None
            status = obj["status"] = dict(status or {})
            matched = int(status.get("matched") or 0)
            limit = fault.limit
            if limit is not None and matched >= limit:
                raise _NotTaken()
            taken = True
            if fault.probability is not None:
                considered = status["considered"] = int(status.get("considered") or 0) + 1
                taken = chosen(fault.seed, fault.probability, considered)
            if taken:
                status["matched"] = matched + 1

        try:
            self.registry.guaranteed_update(self.rt, None, fault.name, count, manager=MANAGER)
        except (_NotTaken, NotFound):  # used up, or deleted since the list
            return False
        return taken


@functools.lru_cache(maxsize=256)
def _parsed(text: str) -> FaultSpec:
    """A listed Fault, read once per stored version (every request of the process lists them all)."""
    return read_fault(orjson.loads(text))


def _injection(fault: FaultSpec, facts: RequestFacts) -> Injection:
    if fault.conflict_once:
        return Injection(fault.name, error=Conflict(facts.resource, facts.group, facts.name))
    return Injection(
        fault.name,
        error=fault_error(fault.error, facts) if fault.error is not None else None,
        delay=fault.delay,
        after_write=fault_error(fault.after_write, facts) if fault.after_write is not None else None,
        watch=fault.watch,
    )
