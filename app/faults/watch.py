"""A watch cut after N events, as production cuts them: an ERROR event with 410 Expired (the watch cache no
longer has the revision: the client must list again), or the stream's end with no word (a proxy or load
balancer dropping it: the client watches again from its last revision). Bookmarks are not counted."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..errors import Gone
from ..registry.watch import Event, Pending, Watch, error_event
from .spec import WatchCut

#: environ key: the WatchCut of the Fault the request took, for the watch handler (app/api/resources.py)
WATCH_CUT_KEY = "orch.fault.watch"


def cut_watch(watch: Watch, cut: WatchCut | None) -> Watch:
    """`watch`, or a view of it that ends where `cut` says."""
    return watch if cut is None else CutWatch(watch, cut)


class CutWatch(Watch):
    """The events of `inner` up to the cut (a view: the inner watch does the work)."""

    def __init__(self, inner: Watch, cut: WatchCut):
        self.inner, self.cut = inner, cut
        self.left = cut.events
        self.ended = False
        self.detached = False  # set by the fan-out writer that takes the stream over (app/api/watch.py)

    @property  # type: ignore[override]
    def client_gone(self) -> Callable[[], bool]:
        return self.inner.client_gone

    @client_gone.setter
    def client_gone(self, check: Callable[[], bool]) -> None:
        self.inner.client_gone = check

    @property
    def live(self) -> bool:
        return self.inner.live and not self.ended

    def open(self) -> list[Event]:
        events = self._cut([(event, None) for event in self.inner.open()])
        if self.ended:
            self.inner.close()  # the handler ends the stream without closing a watch that is not live
        return [event for event, _ in events]

    def follow(self) -> Iterator[Event]:
        if self.ended:
            return
        for event in self.inner.follow():
            for kept, _ in self._cut([(event, None)]):
                yield kept
            if self.ended:
                return

    def listen(self, wake: Callable[[], None]) -> None:
        self.inner.listen(wake)

    def take_now(self, limit: int) -> list[Pending]:
        return [] if self.ended else self._cut(self.inner.take_now(limit))

    def expired(self) -> bool:
        return self.ended or self.inner.expired()

    def close(self) -> None:
        self.inner.close()

    def _cut(self, events: list[Pending]) -> list[Pending]:
        """The events before the cut, then (at the cut) the ERROR event of an expiring watch."""
        out: list[Pending] = []
        for pending in events:
            if self.left <= 0:
                break
            out.append(pending)
            if pending[0][0] not in ("BOOKMARK", "ERROR"):
                self.left -= 1
        if self.left <= 0 and not self.ended:
            self.ended = True
            if self.cut.expire:
                out.append((self._expired(), None))
        return out

    def _expired(self) -> Event:
        inner: Any = self.inner
        revision = inner.registry.storage.current_revision()
        asked = inner.opts.resource_version or "0"
        return error_event(Gone(f"too old resource version: {asked} ({revision})"))
