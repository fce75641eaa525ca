"""What the change log keeps besides the objects: who made each change, and how long each kind's changes last.

Storage knows neither requests nor kinds: the layer above sets `attribution` around a write (a context variable,
so no write signature changes) and hands in retention rules already resolved to key prefixes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

#: the rule of every kind no named rule covers (its mark is also `sequence.compacted`'s floor)
DEFAULT_RULE = "*"


@dataclass(frozen=True)
class Attribution:
    """Who made a change and how: recorded with the change (empty strings when nobody said)."""

    username: str = ""
    manager: str = ""
    verb: str = ""


#: the attribution of the writes made in this context (set by the registry around a request's write)
current_attribution: ContextVar[Attribution | None] = ContextVar("orch_attribution", default=None)


@contextmanager
def attributed(attribution: Attribution) -> Iterator[None]:
    """Writes inside are recorded as `attribution`, unless an enclosing call already named who writes (an
    apply that creates stays an apply)."""
    if current_attribution.get() is not None:
        yield
        return
    token = current_attribution.set(attribution)
    try:
        yield
    finally:
        current_attribution.reset(token)


@dataclass(frozen=True)
class RetentionRule:
    """Changes under `prefixes` (storage keys) are kept `seconds`; `name` is how the user wrote the kind."""

    name: str
    prefixes: tuple[str, ...]
    seconds: float

    def covers(self, key: str) -> bool:
        return key.startswith(self.prefixes)


def rules_touching(rules: tuple[RetentionRule, ...], prefix: str) -> list[str]:
    """Names of the rules whose keys may start with `prefix` (the default rule's when a part is not covered)."""
    named = [r.name for r in rules if any(p.startswith(prefix) or prefix.startswith(p) for p in r.prefixes)]
    covered = any(prefix.startswith(p) for r in rules for p in r.prefixes)
    return named if covered else [*named, DEFAULT_RULE]
