"""The server's token controller: secrets of type `<domain>/service-account-token` get `token`,
`ca.crt` and `namespace` filled in; secrets whose service account is gone (or was replaced) are deleted.

It follows the change log through the watch hub, and lists everything again at start and whenever
it fell behind. Several processes may run it: optimistic concurrency lets one write win.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from dataclasses import dataclass

import orjson

from ..background import BackgroundThread, OutageLog
from ..catalog import ResourceType
from ..errors import ApiError, Conflict, NotFound
from ..registry.informer import Change, ChangeFeed
from ..registry.keys import collection_prefix
from ..registry.options import DeleteOptions, ListOptions
from ..registry.store import Registry
from .lookup import metadata, secret_value
from .serviceaccount import SaNames, TokenIssuer

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TokenSecrets:
    """One reconciliation of one secret (no threads: unit-testable)."""

    registry: Registry
    issuer: TokenIssuer
    names: SaNames
    ca_pem: Callable[[], bytes]

    @property
    def secrets(self) -> ResourceType:
        return self.registry.catalog.lookup("", "v1", "secrets")  # type: ignore[return-value]

    @property
    def accounts(self) -> ResourceType:
        return self.registry.catalog.lookup("", "v1", "serviceaccounts")  # type: ignore[return-value]

    def wants(self, secret: dict) -> bool:
        return secret.get("type") == self.names.token_secret_type and not metadata(secret).get("deletionTimestamp")

    def sync(self, secret: dict) -> None:
        if not self.wants(secret):
            return
        md = metadata(secret)
        namespace, name = md.get("namespace"), md.get("name", "")
        annotations = md["annotations"] if isinstance(md.get("annotations"), dict) else {}
        account_name = annotations.get(self.names.name_annotation)
        if not account_name:
            return  # not bound to an account: nothing to fill in
        try:
            account = self.registry.get(self.accounts, namespace, account_name)
        except NotFound:
            account = None
        wanted_uid = annotations.get(self.names.uid_annotation)
        if account is None or (wanted_uid and metadata(account).get("uid") != wanted_uid):
            self._delete(namespace, name, md.get("uid"))
            return
        if (
            secret_value(secret, "token")
            and secret_value(secret, "namespace")
            and "ca.crt" in (secret.get("data") or {})
        ):
            return
        self._fill(secret, account)

    def _fill(self, secret: dict, account: dict) -> None:
        md = metadata(secret)
        data = dict(secret.get("data") or {})

        def b64(raw: bytes) -> str:
            return base64.b64encode(raw).decode()

        if not secret_value(secret, "token"):
            data["token"] = b64(self.issuer.legacy_token(account, md.get("name", "")).encode())
        data.setdefault("ca.crt", b64(self.ca_pem()))
        data["namespace"] = b64(str(md.get("namespace", "")).encode())
        annotations = dict(md.get("annotations") or {})
        annotations[self.names.uid_annotation] = metadata(account).get("uid", "")
        updated = {**secret, "data": data, "metadata": {**md, "annotations": annotations}}
        try:
            self.registry.update(self.secrets, md.get("namespace"), md.get("name", ""), updated)
        except (Conflict, NotFound):
            pass  # changed or gone meanwhile: the next event brings it back

    def _delete(self, namespace: str | None, name: str, uid: str | None) -> None:
        options = DeleteOptions.parse(
            {"preconditions": {"uid": uid}} if uid else None, {}, False, self.registry.naming.meta_group
        )
        try:
            self.registry.delete(self.secrets, namespace, name, options)
        except (Conflict, NotFound):
            pass

    def sync_all(self, namespace: str | None = None) -> None:
        for raw in self.registry.list(self.secrets, namespace, ListOptions()).items:
            self.sync(orjson.loads(raw))


class TokenController(BackgroundThread):
    name = "token-controller"

    def __init__(self, work: TokenSecrets, wait: float = 1.0) -> None:
        super().__init__()
        self.work, self.wait = work, wait
        self._feed: ChangeFeed | None = None
        self.outage = OutageLog(log, "token controller", logging.ERROR)

    def wake(self) -> None:
        feed = self._feed
        if feed is not None:
            feed.wake()  # leave take() at once when stopping

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                self._follow()
            except Exception as err:  # noqa: BLE001 - the database may be briefly unavailable; start over
                self.outage.failed(err)
            self.stopping.wait(self.wait)

    def _follow(self) -> None:
        secrets = collection_prefix(self.work.secrets, None)
        accounts = collection_prefix(self.work.accounts, None)
        feed = self._feed = ChangeFeed(self.work.registry, [secrets, accounts])
        try:
            feed.open()
            self.work.sync_all()
            self.outage.succeeded()
            while not self.stopping.is_set() and not feed.lost:
                for change in feed.take(self.wait):
                    self._changed(change, secrets, accounts)
        finally:
            self._feed = None
            feed.close()

    def _changed(self, change: Change, secrets: str, accounts: str) -> None:
        try:
            if change.key.startswith(secrets) and change.type != "DELETED":
                self.work.sync(orjson.loads(change.data))
            elif change.key.startswith(accounts) and change.type == "DELETED" and change.prev:
                # the account's token secrets go with it
                self.work.sync_all(metadata(orjson.loads(change.prev)).get("namespace"))
        except ApiError:
            log.exception("token controller could not reconcile %s", change.key)
