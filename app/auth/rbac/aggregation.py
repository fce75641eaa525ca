"""ClusterRole aggregation as the reference's clusterrole-aggregation controller: a loop of the process, started
with it, that sets every aggregated ClusterRole's rules whenever a ClusterRole changes (in any process)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from ...background import BackgroundThread, OutageLog
from ...registry.informer import ChangeFeed
from ...registry.keys import resource_prefix
from ...user import current_user

if TYPE_CHECKING:
    from ...catalog import ResourceType
    from ...registry.store import Registry
    from .reconcile import Reconciler

log = logging.getLogger(__name__)

RESYNC_SECONDS = 300.0  # a missed change is made good within this
RETRY_SECONDS = 1.0


class ClusterRoleAggregation(BackgroundThread):
    name = "clusterrole-aggregation"

    def __init__(self, registry: Registry, reconciler: Reconciler, rt: ResourceType) -> None:
        super().__init__()
        self.reconciler = reconciler
        self.feed = ChangeFeed(registry, [resource_prefix(rt)])
        self.outage = OutageLog(log, "clusterrole aggregation", logging.ERROR)

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                if self.feed.lost:
                    self.feed.open()
                    as_server(self.reconciler.aggregate)  # what changed before the feed opened
                self.feed.take(RESYNC_SECONDS)  # changes, or a resync when none came
                if not self.stopping.is_set():
                    as_server(self.reconciler.aggregate)  # its own writes come back once, then change nothing
                self.outage.succeeded()
            except Exception as err:  # noqa: BLE001 - the database may be briefly unavailable: try again
                self.outage.failed(err)
                self.feed.close()
                self.stopping.wait(RETRY_SECONDS)
        self.feed.close()

    def wake(self) -> None:
        self.feed.wake()


def as_server(work: Callable[[], None]) -> None:
    """Run `work` as the server itself: its writes are not a requester's (no user for admission or audit)."""
    token = current_user.set(None)
    try:
        work()
    finally:
        current_user.reset(token)
