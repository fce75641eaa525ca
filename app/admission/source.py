"""Cluster objects admission reads on every write (webhook configurations, priority and storage classes),
compiled once per change: every process follows them through the change log (one written through another
worker or replica applies as soon as its change is seen), and a write made by this process applies to its
next request."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

import orjson

from ..registry.informer import Follower
from ..registry.keys import resource_prefix
from ..registry.options import ListOptions

if TYPE_CHECKING:
    from ..catalog import ResourceType
    from ..registry.informer import Change
    from ..registry.store import Registry
    from ..storage.hub import WatchHub

T = TypeVar("T")


class ConfigurationSource(Generic[T]):
    """The objects of one kind, compiled by `compile` (a configuration object -> its items), in name order."""

    def __init__(
        self, registry: Registry, rt: ResourceType, compile_one: Callable[[dict], list[T]], hub: WatchHub | None = None
    ) -> None:
        self.registry, self.rt, self.compile_one = registry, rt, compile_one
        self.prefix = resource_prefix(rt)
        self._items: tuple[T, ...] = ()
        self._changes = 1  # changes seen (a count: a lost increment between threads still moves it)
        self._loaded = 0  # the count when the current items began loading
        self._lock = threading.Lock()
        self._follower = Follower(registry, [self.prefix], self._changed) if hub is not None else None
        registry.storage.on_commit(self._written_here)

    def current(self) -> tuple[T, ...]:
        if self._follower is not None and self._follower.lost:
            self._follow(self._follower)
        if self._loaded != self._changes:
            self._load()
        return self._items

    def _load(self) -> None:
        with self._lock:  # a reader that finds a load under way waits for it
            changes = self._changes
            if self._loaded == changes:
                return
            items: list[T] = []
            for text in self.registry.list(self.rt, None, ListOptions()).items:
                items += self.compile_one(orjson.loads(text))
            self._items, self._loaded = tuple(items), changes

    def _follow(self, follower: Follower) -> None:
        with self._lock:
            if not follower.lost:
                return
            follower.open()
        self._changed(None)  # whatever was loaded before following may have missed changes

    def _changed(self, _change: Change | None) -> None:
        self._changes += 1

    def _written_here(self, written: list[Change]) -> None:
        if any(stored.key.startswith(self.prefix) for stored in written):
            self._changed(None)

    def stop(self) -> None:
        if self._follower is not None:
            self._follower.close()
