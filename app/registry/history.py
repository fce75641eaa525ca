"""History: who made each write (recorded with the change), each kind's retention, and reads of the change log.

The registry names the writer of each change (`records`), resolves `--history-retention` to storage key
prefixes (`retention_rules`), and serves an object's or a collection's past (`Registry`'s history reads go
through `object_history` and `collection_history`)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar, cast

from ..catalog import Catalog, ResourceType
from ..errors import BadRequest
from ..storage.history import Attribution, RetentionRule, attributed
from ..storage.store import Revision
from ..user import current_user
from .keys import resource_prefix

F = TypeVar("F", bound=Callable[..., Any])


def records(verb: str) -> Callable[[F], F]:
    """Registry write methods: their writes are recorded as made by the current user with this verb (plus the
    subresource) and the method's `manager` argument. An enclosing write's record wins (apply -> create)."""

    def wrap(method: F) -> F:
        signature = inspect.signature(method)

        @functools.wraps(method)
        def recorded(*args: Any, **kwargs: Any) -> Any:
            named = signature.bind_partial(*args, **kwargs).arguments
            sub = named.get("subresource")
            user = current_user.get()
            who = Attribution(
                user.username if user is not None else "",
                str(named.get("manager") or ""),
                f"{verb}/{sub}" if sub else verb,
            )
            with attributed(who):
                return method(*args, **kwargs)

        return cast(F, recorded)

    return wrap


def retention_rules(spec: tuple[tuple[str, float], ...], catalog: Catalog) -> tuple[RetentionRule, ...]:
    """`--history-retention`'s (kind, seconds) pairs as storage prefixes: `resource.group` names one kind (custom
    kinds too, before their CRD exists); a bare `resource` every built-in group's kind of that name."""
    rules = []
    for name, seconds in spec:
        resource, _, group = name.partition(".")
        if group:
            prefixes: tuple[str, ...] = (f"/{group}/{resource}/",)
        else:
            prefixes = tuple(sorted({resource_prefix(rt) for rt in catalog.known() if rt.plural == resource}))
            if not prefixes:
                raise ValueError(f"--history-retention: no built-in resource {resource!r} (write resource.group)")
        rules.append(RetentionRule(name, prefixes, seconds))
    return tuple(rules)


def parse_time(text: str) -> float:
    """An RFC 3339 time (`2026-11-27T08:00:00Z`, fractions and offsets allowed) as UTC epoch seconds."""
    try:
        at = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise BadRequest(f'unable to parse time "{text}": expected RFC 3339, e.g. 2026-11-27T08:00:00Z') from None
    if at.tzinfo is None:
        raise BadRequest(f'time "{text}" has no time zone: add Z or an offset')
    return at.timestamp()


def rfc3339(seconds: float) -> str:
    """Commit times as the API shows them: UTC with microseconds."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def revision_entry(rt: ResourceType, revision: Revision, served: Callable[[str], Any]) -> dict:
    """One change as the history list shows it; `served` converts the stored text to the version asked."""
    entry: dict[str, Any] = {
        "revision": str(revision.rv),
        "time": rfc3339(revision.time),
        "type": revision.type,
        "user": revision.username,
        "manager": revision.manager,
        "verb": revision.verb,
        "object": served(revision.data),
    }
    return entry
