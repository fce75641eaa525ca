"""ClusterRole aggregation as the reference's clusterrole-aggregation controller: a loop of the process, started
with it, that sets every aggregated ClusterRole's rules whenever a ClusterRole changes (in any process)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.background import BackgroundThread
from app.logs import RepeatedErrors
from app.registry.keys import resource_prefix
from app.user import current_user

if TYPE_CHECKING:
    from app.auth.rbac.reconcile import Reconciler
    from app.catalog import ResourceType
    from app.registry.store import Registry
    from app.storage.hub import Subscription, WatchHub

log = logging.getLogger(__name__)

RESYNC_SECONDS = 300.0  # a missed change (a lost subscription) is made good within this


class ClusterRoleAggregation(BackgroundThread):
    name = "clusterrole-aggregation"

    def __init__(self, registry: Registry, hub: WatchHub, reconciler: Reconciler, rt: ResourceType) -> None:
        super().__init__()
        self.registry, self.hub, self.reconciler = registry, hub, reconciler
        self.prefix = resource_prefix(rt)
        self._sub: Subscription | None = None
        self._errors = RepeatedErrors(log)

    def run(self) -> None:
        while not self.stopping.is_set():
            sub = self._subscription()
            if sub is None:
                self.stopping.wait(1.0)
                continue
            sub.take(RESYNC_SECONDS)  # changes, or a resync when none came
            if self.stopping.is_set():
                return
            self._aggregate()  # its own writes come back as changes once, and then change nothing
            if sub.overflowed or sub.closed:
                self._drop()

    def _subscription(self) -> Subscription | None:
        if self._sub is None:
            try:
                self._sub, _ = self.hub.subscribe(self.prefix, self.registry.storage.current_revision())
            except Exception as err:  # noqa: BLE001 - the database may be briefly unavailable: try again
                self._errors.log(logging.ERROR, "clusterrole aggregation cannot follow ClusterRoles", error=err)
                return None
            self._aggregate()  # what changed before the subscription began
        return self._sub

    def _aggregate(self) -> None:
        try:
            as_server(self.reconciler.aggregate)
        except Exception as err:  # noqa: BLE001 - the next change or resync tries again
            self._errors.log(logging.ERROR, "clusterrole aggregation failed", error=err)

    def _drop(self) -> None:
        if self._sub is not None:
            self.hub.unsubscribe(self._sub)
            self._sub = None

    def wake(self) -> None:
        if self._sub is not None:
            self._sub.wake()

    def stop(self) -> None:
        super().stop()
        self._drop()


def as_server(work: Callable[[], None]) -> None:
    """Run `work` as the server itself: its writes are not a requester's (no user for admission or audit)."""
    token = current_user.set(None)
    try:
        work()
    finally:
        current_user.reset(token)
