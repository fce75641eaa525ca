"""The controller framework: an identity-scoped registry client, a clock, and the reconcile loop.

A controller is level-triggered: `sync()` reconciles everything it owns from what the store holds now.
The loop runs it when a watched collection changed (watch hub events) and on a periodic resync (the
time-driven rules: expiry, garbage collection), and only while this process holds the controller's Lease.
"""

from __future__ import annotations

import builtins
import copy
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson

from ..auth.authz import Attributes
from ..background import BackgroundThread, OutageLog
from ..catalog import ResourceType
from ..errors import ApiError, NotFound
from ..registry.informer import ChangeFeed
from ..registry.keys import collection_prefix
from ..registry.options import DeleteOptions, ListOptions
from ..user import UserInfo, service_account_groups, service_account_username

if TYPE_CHECKING:
    from ..auth.authz import Authorizer
    from ..auth.context import Authentication
    from ..naming import Naming
    from ..registry.informer import Change
    from ..registry.store import Registry
    from ..storage.hub import WatchHub
    from .audit import AuditHook
    from .lease import LeaseElector

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]
WRITE_VERBS = ("create", "update", "patch", "delete")


def system_clock() -> datetime:
    return datetime.now(UTC)


def controller_user(naming: Naming, account: str) -> UserInfo:
    """The service-account identity a controller acts as (the reference's --use-service-account-credentials)."""
    namespace = naming.system_namespace
    return UserInfo(
        service_account_username(namespace, account),
        groups=(*service_account_groups(namespace), "system:authenticated"),
    )


@dataclass
class Context:
    """What every controller of a process shares."""

    registry: Registry
    naming: Naming
    hub: WatchHub | None = None
    #: the app's authentication (its authorizer decides controllers' writes; None: not checked, tests)
    auth: Authentication | None = None
    clock: Clock = system_clock
    settings: dict[str, Any] = field(default_factory=dict)
    #: records controllers' writes in the audit log (None: auditing off)
    audit: AuditHook | None = None

    def kind(self, group_prefix: str, plural: str, version: str = "v1") -> ResourceType:
        group = self.naming.group(group_prefix) if group_prefix else ""
        rt = self.registry.catalog.lookup(group, version, plural)
        assert rt is not None, f"{plural}.{group} is not in the catalog"
        return rt


class Client:
    """Registry calls made as a controller's identity: authorized by the app's authorizer like a request
    (403 when its role lacks the verb), with `current_user` set so strategies see the controller."""

    def __init__(self, ctx: Context, user: UserInfo | None) -> None:
        self.ctx, self.user = ctx, user

    @contextmanager
    def acting(self) -> Iterator[None]:
        from ..auth.context import current_authentication
        from ..user import current_user

        user_token = current_user.set(self.user)
        auth_token = current_authentication.set(self.ctx.auth)
        try:
            yield
        finally:
            current_authentication.reset(auth_token)
            current_user.reset(user_token)

    @property
    def authorizer(self) -> Authorizer | None:
        return self.ctx.auth.authorizer if self.ctx.auth is not None else None

    def _authorize(
        self, verb: str, rt: ResourceType, namespace: str | None, name: str = "", subresource: str = ""
    ) -> Attributes | None:
        """The write's attributes (None for the server's own calls), after the authorizer allowed them."""
        if self.user is None:
            return None
        attrs = Attributes(
            self.user,
            verb,
            group=rt.group,
            version=rt.version,
            resource=rt.plural,
            subresource=subresource,
            namespace=namespace or "",
            name=name,
        )
        if self.authorizer is not None and not self.authorizer.authorize(attrs).allowed:
            from ..auth.authz import forbidden

            error = forbidden(attrs)
            self._audit(attrs, error.code, None)
            raise error
        return attrs

    def _audit(self, attrs: Attributes | None, code: int, obj: Any) -> None:
        if attrs is not None and attrs.verb in WRITE_VERBS and self.ctx.audit is not None:
            self.ctx.audit(attrs, code, obj)

    def _write(self, attrs: Attributes | None, code: int, work: Callable[[], Any]) -> Any:
        """Run a registry write as the controller and audit its outcome."""
        try:
            with self.acting():
                result = work()
        except ApiError as err:
            self._audit(attrs, err.code, None)
            raise
        self._audit(attrs, code, result)
        return result

    def get(self, rt: ResourceType, namespace: str | None, name: str) -> dict:
        self._authorize("get", rt, namespace, name)
        with self.acting():
            return self.ctx.registry.get(rt, namespace, name)

    def find(self, rt: ResourceType, namespace: str | None, name: str) -> dict | None:
        try:
            return self.get(rt, namespace, name)
        except NotFound:
            return None

    def list(self, rt: ResourceType, namespace: str | None = None, field_selector: str = "") -> list[dict]:
        return self.list_at(rt, namespace, field_selector)[0]

    def list_at(
        self, rt: ResourceType, namespace: str | None = None, field_selector: str = ""
    ) -> tuple[builtins.list[dict], int]:
        """The objects and the revision they were read at (changes at or below it are in them)."""
        self._authorize("list", rt, namespace)
        with self.acting():
            result = self.ctx.registry.list(rt, namespace, ListOptions(field_selector=field_selector))
        return [orjson.loads(text) for text in result.items], result.revision

    def create(self, rt: ResourceType, namespace: str | None, obj: dict) -> dict:
        attrs = self._authorize("create", rt, namespace)  # as a POST: the name is in the body
        return self._write(
            attrs, 201, lambda: self.ctx.registry.create(rt, namespace, copy.deepcopy(obj), manager=self.manager)
        )

    def update(self, rt: ResourceType, namespace: str | None, obj: dict, subresource: str | None = None) -> dict:
        name = str((obj.get("metadata") or {}).get("name", ""))
        attrs = self._authorize("update", rt, namespace, name, subresource or "")
        return self._write(
            attrs,
            200,
            lambda: self.ctx.registry.update(
                rt, namespace, name, copy.deepcopy(obj), subresource, manager=self.manager
            )[0],
        )

    def delete(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str,
        uid: str = "",
        propagation: str | None = None,
        grace_seconds: int | None = None,
    ) -> None:
        """Delete; with `uid`, only that incarnation (a recreated object of the same name is left alone)."""
        attrs = self._authorize("delete", rt, namespace, name)
        body: dict = {"preconditions": {"uid": uid}} if uid else {}
        if propagation:
            body["propagationPolicy"] = propagation
        if grace_seconds is not None:
            body["gracePeriodSeconds"] = grace_seconds
        options = DeleteOptions.parse(body or None, {}, False, self.ctx.naming.meta_group)
        self._write(attrs, 200, lambda: self.ctx.registry.delete(rt, namespace, name, options)[0])

    @property
    def manager(self) -> str:
        return self.user.username.rsplit(":", 1)[-1] if self.user is not None else self.ctx.naming.apiserver_name


class Controller:
    """One controller: `sync()` reconciles; `watches` are the kinds whose changes trigger a sync."""

    name = "controller"
    #: the service account it acts as, in the system namespace
    account = "controller"
    #: seconds between syncs without any event (time-driven rules)
    resync_seconds = 30.0
    #: the least time between two syncs: changes that arrive meanwhile are taken together by the next one
    min_sync_interval = 0.0

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.client = Client(ctx, controller_user(ctx.naming, self.account) if ctx.auth is not None else None)

    @property
    def naming(self) -> Naming:
        return self.ctx.naming

    def now(self) -> datetime:
        return self.ctx.clock()

    def watches(self) -> list[ResourceType]:
        return []

    def watched_keys(self) -> list[str]:
        """Storage-key prefixes whose changes trigger a sync (default: every object of `watches()`)."""
        return [collection_prefix(rt, None) for rt in self.watches()]

    def sync(self) -> None:
        raise NotImplementedError

    def relevant(self, change: Change) -> bool:
        """Whether a change under the watched keys calls for a sync (all of them, unless a controller says)."""
        return True

    def feed_opened(self, opened: bool) -> None:
        """The loop opened (True) or closed its feed of relevant changes: a controller that keeps state from
        `observe` lists again after an opening (changes may have been missed), and drops it at a closing."""

    def observe(self, changes: list[Change]) -> None:
        """The relevant changes the loop took, in commit order, before the sync they trigger."""


class ControllerLoop(BackgroundThread):
    """Runs one controller while its lease is held: sync at leadership, on watched changes, on resync."""

    def __init__(self, controller: Controller, elector: LeaseElector, retry_seconds: float = 2.0) -> None:
        super().__init__()
        self.controller, self.elector, self.retry = controller, elector, retry_seconds
        self.name = f"controller-{controller.name}"
        self._feed: ChangeFeed | None = None
        self.outage = OutageLog(log, f"controller {controller.name}", logging.ERROR)

    def wake(self) -> None:
        feed = self._feed
        if feed is not None:
            feed.wake()

    def run(self) -> None:
        last_sync = 0.0
        dirty = True
        try:
            while not self.stopping.is_set():
                try:
                    if not self.elector.try_acquire_or_renew():
                        self.outage.succeeded()  # the lease is read: the database answers
                        self._unsubscribe()
                        dirty = True  # a new term starts with a full sync
                        self.stopping.wait(self.retry)
                        continue
                    if self._feed is None or self._feed.lost:
                        self._unsubscribe()
                        self._subscribe()
                        dirty = True
                    now = _monotonic()
                    if dirty or now - last_sync >= self.controller.resync_seconds:
                        self.controller.sync()
                        last_sync, dirty = now, False
                        if self.controller.min_sync_interval:
                            self.stopping.wait(self.controller.min_sync_interval)
                    self.outage.succeeded()
                    dirty = self._wait_for_events() or dirty
                except Exception as err:  # noqa: BLE001 - the database may be briefly unavailable; try again
                    self.outage.failed(err)
                    self._unsubscribe()
                    dirty = True
                    self.stopping.wait(self.retry)
        finally:
            self._unsubscribe()
            self.elector.release()

    def _subscribe(self) -> None:
        prefixes = self.controller.watched_keys()
        if self.controller.ctx.hub is None or not prefixes:
            return
        self._feed = ChangeFeed(self.controller.ctx.registry, prefixes, accepts=self.controller.relevant)
        self._feed.open()
        self.controller.feed_opened(True)

    def _unsubscribe(self) -> None:
        feed, self._feed = self._feed, None
        if feed is not None:
            feed.close()
            self.controller.feed_opened(False)

    def _wait_for_events(self) -> bool:
        """Wait until a watched change, the lease renewal or stop; True when something changed."""
        timeout = min(self.elector.renew_seconds, self.controller.resync_seconds)
        feed = self._feed
        if feed is None:
            self.stopping.wait(timeout)
            return False
        changes = feed.take(timeout)  # only relevant changes reach the feed
        if changes:
            self.controller.observe(changes)
        return bool(changes)


def _monotonic() -> float:
    return time.monotonic()
