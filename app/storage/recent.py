"""The watch hub's memory of its newest changes: a watch resuming from a recent revision (every node agent's
watches after a server restart) takes its backlog from here, each change's index values worked out once for all
of them, instead of reading the whole change log since its revision from the database, once per watch."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Collection

from .store import Change

#: what a kept change costs beyond its text (the Change object, its dict, the list slot)
OVERHEAD_BYTES = 240


def _size(change: Change) -> int:
    return len(change.data) + len(change.prev or "") + len(change.key) + OVERHEAD_BYTES


def bare(change: Change) -> Change:
    """A copy without its readers' caches (decoded objects, encoded frames): what is kept and handed out."""
    return Change(change.rv, change.key, change.type, change.data, change.prev)


class RecentChanges:
    """The newest changes up to a budget of bytes, oldest dropped first. Not locked: the hub calls it under its
    own lock (its thread appends, subscribers take slices)."""

    def __init__(self, budget_bytes: int) -> None:
        self.budget = budget_bytes
        self._changes: list[Change] = []
        self._head = 0  # the oldest kept change's place in _changes (dropped ones are removed in bulk)
        self._bytes = 0
        #: every change after this revision, up to the newest appended, is kept (None: none known yet)
        self.complete_after: int | None = None
        self._latest: dict[str, Change] = {}  # each key's newest kept change

    def reset(self, revision: int) -> None:
        """Forget everything: what follows `revision` will be appended."""
        self._changes, self._head, self._bytes, self._latest = [], 0, 0, {}
        self.complete_after = revision

    def latest(self, key: str) -> Change | None:
        """The newest kept change of `key` (None: none kept). Safe without the hub's lock: one dict lookup."""
        return self._latest.get(key)

    def extend(self, changes: list[Change]) -> None:
        if self.complete_after is None:  # never reset: remembering is off (a budget of 0)
            return
        latest = self._latest
        for change in changes:
            kept = bare(change)
            self._changes.append(kept)
            latest[kept.key] = kept
            self._bytes += _size(change)
        while self._bytes > self.budget and self._head < len(self._changes):
            oldest = self._changes[self._head]
            if latest.get(oldest.key) is oldest:
                del latest[oldest.key]
            self._bytes -= _size(oldest)
            self.complete_after = oldest.rv
            self._head += 1
        if self._head > 1024 and self._head * 2 > len(self._changes):
            del self._changes[: self._head]
            self._head = 0

    def between(self, after: int, upto: int) -> list[Change] | None:
        """The kept changes after `after` up to `upto`, oldest first; None when some of them are no longer kept."""
        if self.complete_after is None or after < self.complete_after:
            return None
        changes = self._changes
        lo = bisect.bisect_right(changes, after, lo=self._head, key=lambda c: c.rv)
        hi = bisect.bisect_right(changes, upto, lo=lo, key=lambda c: c.rv)
        return changes[lo:hi]

    def __len__(self) -> int:
        return len(self._changes) - self._head


def index_values(change: Change, name: str, values_of: Callable[[Change], Collection[str]]) -> Collection[str]:
    """A kept change's values of an index field, worked out once (on a throwaway copy, so the decoded object it
    needs is not kept with the change) and then asked by every subscription resuming over it."""
    key = ("index", name, values_of)
    values = change.encoded.get(key)
    if values is None:
        values = change.encoded[key] = tuple(values_of(bare(change)))
    return values
