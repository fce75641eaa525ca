"""How a consumer inside the process follows some kinds: subscribe, list, then take the changes as they come;
when they cannot be followed any more (too slow a reader, the hub stopping: an informer's 410 Gone) the feed
says `lost`, and the consumer opens it again and re-lists.

Controllers, the token controller and ClusterRole aggregation follow the store through this, never through
storage: `Change` is re-exported here for their `relevant()` checks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..storage.store import Change

if TYPE_CHECKING:
    from ..storage.hub import Subscription
    from .store import Registry

__all__ = ["Change", "ChangeFeed", "Follower"]


class _Following:
    """One hub subscription over `prefixes` (key prefixes of kinds or collections: app/registry/keys.py), opened
    by the subclass; a change under several of them reaches it once."""

    def __init__(self, registry: Registry, prefixes: Sequence[str]) -> None:
        if registry.hub is None:
            raise RuntimeError("this registry has no watch hub")
        self.registry, self.hub, self.prefixes = registry, registry.hub, tuple(prefixes)
        self._sub: Subscription | None = None

    @property
    def lost(self) -> bool:
        """Not open, or no longer complete: open again and re-list."""
        sub = self._sub
        return sub is None or sub.overflowed or sub.closed

    def close(self) -> None:
        sub, self._sub = self._sub, None
        if sub is not None:
            self.hub.unsubscribe(sub)


class ChangeFeed(_Following):
    """The changes of the objects under the prefixes that `accepts` (all without it), for a consumer's own
    thread; `accepts` runs in the hub's thread, so the consumer is not woken for the others."""

    def __init__(
        self, registry: Registry, prefixes: Sequence[str], accepts: Callable[[Change], bool] | None = None
    ) -> None:
        super().__init__(registry, prefixes)
        self.accepts = accepts

    def open(self) -> int:
        """Follow from now on; returns the revision it starts after. List after opening: a change made while
        listing then comes twice at worst, never not at all."""
        self.close()
        start = self.registry.storage.current_revision()
        self._sub, _backlog = self.hub.subscribe(self.prefixes, start, accepts=self.accepts)
        return start

    def take(self, timeout: float) -> list[Change]:
        """The changes since the last take, waiting up to `timeout` for one; [] when none came (or lost)."""
        sub = self._sub
        return [] if sub is None else sub.take(timeout)

    def wake(self) -> None:
        """Leave a waiting `take` at once (a consumer that stops)."""
        if self._sub is not None:
            self._sub.wake()


class Follower(_Following):
    """`on_change` called, in order, for each change under `prefixes` after `open()`, from the hub's thread: an
    in-process view of a few objects kept without a thread of its own. Re-open and re-read when `lost`."""

    def __init__(self, registry: Registry, prefixes: Sequence[str], on_change: Callable[[Change], None]) -> None:
        super().__init__(registry, prefixes)
        self.on_change = on_change

    def open(self) -> int:
        """Follow from now on; returns the revision it starts after."""
        self.close()
        start = self.registry.storage.current_revision()
        self._sub = self.hub.follow(self.prefixes, start, self.on_change)
        return start
