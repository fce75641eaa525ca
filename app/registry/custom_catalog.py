"""The live catalog: every worker serves the kinds of the established CustomResourceDefinitions.

It follows the CRDs through the change log (the same hub that feeds watches, so a CRD written through another
worker or replica is picked up as fast as a watch event) and swaps the catalog's custom kinds whole."""

from __future__ import annotations

import logging
from collections.abc import Callable

import orjson

from ..background import BackgroundThread
from ..catalog import ResourceType
from ..logs import RepeatedErrors
from ..storage.hub import Subscription, WatchHub
from .keys import resource_prefix
from .options import ListOptions
from .store import Registry

log = logging.getLogger(__name__)
repeated = RepeatedErrors(log)

#: CRD object -> the ResourceTypes it defines (app.resources.custom.types_from_crd with a Naming)
TypesOf = Callable[[dict], list[ResourceType]]


def established(crd: dict) -> bool:
    return any(
        c.get("type") == "Established" and c.get("status") == "True"
        for c in (crd.get("status") or {}).get("conditions") or []
        if isinstance(c, dict)
    )


class CustomCatalog(BackgroundThread):
    name = "custom-catalog"

    def __init__(
        self, registry: Registry, hub: WatchHub, crds: ResourceType, types_of: TypesOf, retry: float = 1.0
    ) -> None:
        super().__init__()
        self.registry, self.hub, self.crds, self.types_of, self.retry = registry, hub, crds, types_of, retry
        self._subscription: Subscription | None = None

    def wake(self) -> None:
        subscription = self._subscription
        if subscription is not None:
            subscription.wake()

    def refresh(self) -> None:
        """Serve exactly the kinds of the established CRDs (a CRD that does not convert is left out, logged)."""
        types: list[ResourceType] = []
        for raw in self.registry.list(self.crds, None, ListOptions()).items:
            crd = orjson.loads(raw)
            if not established(crd):
                continue
            try:
                types += self.types_of(crd)
            except (KeyError, TypeError, ValueError) as err:  # validated on write; an older server's leftovers
                repeated.log(
                    logging.WARNING,
                    "custom resource definition %s is not served",
                    (crd.get("metadata") or {}).get("name"),
                    error=err,
                )
        self.registry.catalog.set_custom(types)

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                self._follow()
            except Exception as err:  # noqa: BLE001 - the database may be briefly unavailable; start over
                repeated.log(logging.ERROR, "custom catalog round failed", error=err)
            self.stopping.wait(self.retry)

    def _follow(self) -> None:
        start = self.registry.storage.current_revision()
        subscription, _backlog = self.hub.subscribe(resource_prefix(self.crds), start)
        self._subscription = subscription
        try:
            self.refresh()
            while not self.stopping.is_set() and not subscription.overflowed and not subscription.closed:
                if subscription.take(self.retry):
                    self.refresh()
        finally:
            self._subscription = None
            self.hub.unsubscribe(subscription)
