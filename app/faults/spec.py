"""A stored Fault (validated by its strategy, app/resources/testing.py) read into what the server acts on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..durations import parse_duration

#: verbs that write: the only ones afterWrite faults match
WRITE_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})
#: the only verbs conflictOnce faults match
CONFLICT_VERBS = frozenset({"update", "patch"})


@dataclass(frozen=True)
class ErrorSpec:
    code: int
    reason: str = ""
    message: str = ""
    retry_after: int = 0

    @classmethod
    def read(cls, raw: Any) -> ErrorSpec:
        raw = raw if isinstance(raw, dict) else {}
        return cls(
            int(raw.get("code") or 500),
            str(raw.get("reason") or ""),
            str(raw.get("message") or ""),
            int(raw.get("retryAfterSeconds") or 0),
        )


@dataclass(frozen=True)
class WatchCut:
    """Where a watch ends: after `events` events, with an ERROR 410 Expired (expire) or quietly."""

    events: int
    expire: bool


@dataclass(frozen=True)
class FaultSpec:
    name: str
    match: dict[str, tuple[str, ...]] = field(default_factory=dict)
    error: ErrorSpec | None = None
    delay: float = 0.0
    after_write: ErrorSpec | None = None
    watch: WatchCut | None = None
    conflict_once: bool = False
    #: None: until deleted
    times: int | None = None
    probability: float | None = None
    seed: int | None = None

    @property
    def verbs_allowed(self) -> frozenset[str] | None:
        """The verbs the action applies to at all (None: any): a watch cut only watches, and so on."""
        if self.watch is not None:
            return frozenset({"watch"})
        if self.conflict_once:
            return CONFLICT_VERBS
        if self.after_write is not None:
            return WRITE_VERBS
        return None

    @property
    def limit(self) -> int | None:
        """How many requests the fault takes: spec.times, else once for conflictOnce, else no limit."""
        if self.times is not None:
            return self.times
        return 1 if self.conflict_once else None


def read_fault(obj: dict) -> FaultSpec:
    spec = obj.get("spec") or {}
    action = spec.get("action") or {}
    match = {key: tuple(values) for key, values in (spec.get("match") or {}).items() if isinstance(values, list)}
    watch = action.get("watch")
    cut = None
    if isinstance(watch, dict):
        expire = watch.get("expireAfterEvents")
        cut = WatchCut(int(expire), True) if expire is not None else WatchCut(int(watch["closeAfterEvents"]), False)
    after = action.get("afterWrite")
    probability = spec.get("probability")
    return FaultSpec(
        name=obj["metadata"]["name"],
        match=match,
        error=ErrorSpec.read(action["error"]) if action.get("error") else None,
        delay=parse_duration(action["delay"]) if action.get("delay") else 0.0,
        after_write=ErrorSpec.read(after.get("error")) if isinstance(after, dict) else None,
        watch=cut,
        conflict_once=action.get("conflictOnce") is True,
        times=spec.get("times"),
        probability=None if probability is None else float(probability),
        seed=spec.get("seed"),
    )
