"""The live catalog: every worker serves the kinds of the established CustomResourceDefinitions.

It follows the CRDs through the change log (the same hub that feeds watches, so a CRD written through another
worker or replica is picked up as fast as a watch event) and swaps the catalog's custom kinds whole. A request the
catalog cannot serve first catches up with the store (`catch_up`): a client that saw a CRD Established on one worker
is served by every other one at once, as the reference sets Established only once its handler serves the CRD."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable

import orjson

from ..background import BackgroundThread, OutageLog
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
#: how long a request waits for its catch-up before it answers 404 all the same (a slow or absent database)
CATCH_UP_TIMEOUT = 5.0


def _digest(text: str | bytes) -> bytes:
    return hashlib.blake2b(text.encode() if isinstance(text, str) else text, digest_size=16).digest()


def established(crd: dict) -> bool:
    return any(
        c.get("type") == "Established" and c.get("status") == "True"
        for c in (crd.get("status") or {}).get("conditions") or []
        if isinstance(c, dict)
    )


class CustomCatalog(BackgroundThread):
    name = "custom-catalog"

    def __init__(
        self,
        registry: Registry,
        hub: WatchHub,
        crds: ResourceType,
        types_of: TypesOf,
        retry: float = 1.0,
        catch_up_timeout: float = CATCH_UP_TIMEOUT,
    ) -> None:
        super().__init__()
        self.outage = OutageLog(log, "custom catalog", logging.ERROR)
        self.registry, self.hub, self.crds, self.types_of, self.retry = registry, hub, crds, types_of, retry
        self.catch_up_timeout = catch_up_timeout
        self._subscription: Subscription | None = None
        #: every CRD change at or below this store revision is in the catalog
        self._applied = 0
        self._swap = threading.Lock()  # one list-and-swap at a time: an older listing never replaces a newer one
        #: digest of a CRD's stored text -> digest of what defines its kinds, last listing's (None: not served);
        #: digests, not the texts: a listing's texts (managedFields and all) are not kept between refreshes
        self._definition_of: dict[bytes, bytes | None] = {}
        #: definition digest -> the kinds it defines, last listing's: a write that changes only the CRD's status
        #: conditions or metadata keeps the same ResourceTypes (and every cache keyed by them), one generation
        self._types_by_definition: dict[bytes, list[ResourceType]] = {}
        # catch-up rounds: one at a time per process, every request that missed meanwhile shares the next one
        self._rounds = threading.Condition()
        self._started = self._finished = 0
        self._in_round = False
        self.waiting = 0  # requests waiting for a round another one runs
        registry.catalog.install_catch_up(self.catch_up)  # also without the thread: then misses alone catch up

    def stop(self) -> None:
        self.registry.catalog.install_catch_up(None)
        super().stop()

    def wake(self) -> None:
        subscription = self._subscription
        if subscription is not None:
            subscription.wake()

    def refresh(self) -> None:
        """Serve exactly the kinds of the established CRDs (a CRD that does not convert is left out, logged)."""
        with self._swap:
            listed = self.registry.list(self.crds, None, ListOptions())
            if listed.revision < self._applied:
                return  # another thread swapped in a newer listing meanwhile
            known, types = self._definition_of, []
            fresh: dict[bytes, bytes | None] = {}
            built: dict[bytes, list[ResourceType]] = {}
            for raw in listed.items:
                text_key = _digest(raw)
                definition = known[text_key] if text_key in known else self._definition_of_text(raw, built)
                fresh[text_key] = definition
                if definition is not None:
                    if definition not in built:
                        built[definition] = self._types_by_definition[definition]
                    types += built[definition]
            self.registry.catalog.set_custom(types)
            self._definition_of, self._types_by_definition, self._applied = fresh, built, listed.revision

    def _definition_of_text(self, raw: str, built: dict[bytes, list[ResourceType]]) -> bytes | None:
        """The definition digest of a CRD text not seen in the last listing, its kinds built (into `built`) unless
        the last listing had them: what types_of reads (spec, accepted names), not the status conditions."""
        crd = orjson.loads(raw)
        if not established(crd):
            return None
        try:  # in stored order: a reordered schema is a new definition (fields follow the order)
            definition = _digest(orjson.dumps([crd.get("spec"), (crd.get("status") or {}).get("acceptedNames")]))
        except TypeError:  # what orjson cannot write (an integer beyond 64 bits): this text alone is the key
            definition = _digest(raw)
        if definition in built or definition in self._types_by_definition:
            return definition
        defined = self._types_of(crd)
        if defined is None:
            return None
        built[definition] = defined
        return definition

    def _types_of(self, crd: dict) -> list[ResourceType] | None:
        try:
            return self.types_of(crd)
        except (KeyError, TypeError, ValueError) as err:  # validated on write; an older server's leftovers
            repeated.log(
                logging.WARNING,
                "custom resource definition %s is not served",
                (crd.get("metadata") or {}).get("name"),
                error=err,
            )
            return None

    def catch_up(self) -> None:
        """Bring the catalog up to the store's current revision, read after the caller arrived (bounded by
        catch_up_timeout). Concurrent callers share one round: a 404 storm costs one query at a time."""
        deadline = time.monotonic() + self.catch_up_timeout
        with self._rounds:
            wanted = self._started + 1  # a round started before this call may have read the store too early
            while self._finished < wanted:
                if not self._in_round:
                    self._in_round, self._started = True, self._started + 1
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self.waiting += 1
                try:
                    self._rounds.wait(left)
                finally:
                    self.waiting -= 1
            else:
                return
            mine = self._started
        try:
            if self.registry.storage.current_revision() > self._applied:
                self.refresh()
        except Exception as err:  # noqa: BLE001 - the request answers as it would have; the database may be down
            repeated.log(logging.ERROR, "custom catalog catch-up failed", error=err)
        finally:
            with self._rounds:
                self._in_round, self._finished = False, mine
                self._rounds.notify_all()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                self._follow()
            except Exception as err:  # noqa: BLE001 - the database may be briefly unavailable; start over
                self.outage.failed(err)
            self.stopping.wait(self.retry)

    def _follow(self) -> None:
        start = self.registry.storage.current_revision()
        subscription, _backlog = self.hub.subscribe(resource_prefix(self.crds), start)
        self._subscription = subscription
        try:
            self.refresh()
            self.outage.succeeded()
            while not self.stopping.is_set() and not subscription.overflowed and not subscription.closed:
                if subscription.take(self.retry):
                    self.refresh()
                self._heard_up_to(self.hub.caught_up_revision(subscription))
        finally:
            self._subscription = None
            self.hub.unsubscribe(subscription)

    def _heard_up_to(self, revision: int | None) -> None:
        """The hub gave us every CRD change up to `revision` and we refreshed after each: a catch-up at or below it
        needs no listing."""
        if revision is not None:
            with self._swap:
                self._applied = max(self._applied, revision)
