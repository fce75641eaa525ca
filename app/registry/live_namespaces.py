"""Which namespaces are live (exist, not terminating), as the change log shows them: the reference's
namespace lifecycle admission reads an informer's cache the same way, not the store."""

from __future__ import annotations

import threading

import orjson

from ..storage.hub import Subscription, WatchHub
from ..storage.store import Change, Storage


class LiveNamespaces:
    """A create in a namespace seen live here needs no read; any other answer (not seen yet: made an
    instant ago by another server; terminating; not following) sends the caller to the store."""

    def __init__(self, storage: Storage, hub: WatchHub, prefix: str) -> None:
        self.storage, self.hub, self.prefix = storage, hub, prefix
        self._live: set[str] = set()
        self._written: dict[str, int] = {}  # names this process wrote, by revision, not yet seen in the log
        self._lock = threading.RLock()  # following applies the backlog under it
        self._subscription: Subscription | None = None
        storage.on_commit(self._written_here)

    def is_live(self, name: str) -> bool:
        subscription = self._subscription
        if subscription is None or subscription.gone is not None:  # gone: the store went back, read it again
            subscription = self._follow()
        return not subscription.closed and name in self._live

    def _follow(self) -> Subscription:
        with self._lock:
            if self._subscription is None or self._subscription.gone is not None:
                self._live.clear()
                page = self.storage.list(self.prefix)
                for stored in page.items:
                    self._apply(stored.key, stored.data, stored.rv)
                self._subscription = self.hub.follow(self.prefix, page.revision, self._changed)
            return self._subscription

    def _written_here(self, written: list[Change]) -> None:
        """A namespace this process just changed is read from the store until the change log reaches it."""
        for stored in written:
            if stored.key.startswith(self.prefix):
                with self._lock:
                    name = stored.key[len(self.prefix) :]
                    self._live.discard(name)
                    self._written[name] = max(stored.rv, self._written.get(name, 0))

    def _changed(self, change: Change) -> None:
        with self._lock:
            self._apply(change.key, None if change.type == "DELETED" else change.data, change.rv)

    def _apply(self, key: str, data: str | None, revision: int) -> None:
        name = key[len(self.prefix) :]
        written = self._written.get(name)
        if written is not None:
            if revision < written:
                return  # older than this process's own write: the store is asked until that arrives
            del self._written[name]
        if data is not None and not (orjson.loads(data).get("metadata") or {}).get("deletionTimestamp"):
            self._live.add(name)
        else:
            self._live.discard(name)
