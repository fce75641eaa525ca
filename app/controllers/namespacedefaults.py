"""What every active namespace holds, as the reference's controllers keep it:

- serviceaccount: the `default` ServiceAccount (re-created when deleted);
- rootcacertpublisher: the ConfigMap `<prefix>-root-ca.crt` (`kube-root-ca.crt` in the k8s.io domain) whose
  `ca.crt` is the cluster CA, so workloads can verify the API server; repaired when changed.
Both read namespaces as the controller manager's informers do and write as their own service account.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from ..catalog import ResourceType
from ..errors import AlreadyExists, ApiError, Conflict, NotFound
from ..registry.informer import Change
from ..registry.keys import collection_prefix
from ..registry.options import ListOptions
from .base import Context, Controller

DEFAULT_ACCOUNT = "default"
CA_KEY = "ca.crt"


class NamespaceDefaults(Controller):
    """Shared shape: for each active namespace, make sure one object exists and is right."""

    resync_seconds = 60.0
    min_sync_interval = 0.2

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.namespaces = ctx.kind("", "namespaces")

    def watches(self) -> list[ResourceType]:
        return [self.namespaces, self.target]

    @property
    def target(self) -> ResourceType:
        raise NotImplementedError

    @property
    def target_name(self) -> str:
        raise NotImplementedError

    def relevant(self, change: Change) -> bool:
        """A namespace came or went, or the one object it keeps changed (not every ConfigMap write)."""
        return change.key.startswith(collection_prefix(self.namespaces, None)) or change.key.endswith(
            "/" + self.target_name
        )

    def active_namespaces(self) -> list[str]:
        listed = self.ctx.registry.list(self.namespaces, None, ListOptions())
        out = []
        for text in listed.items:
            md = orjson.loads(text).get("metadata") or {}
            if not md.get("deletionTimestamp"):
                out.append(str(md.get("name", "")))
        return out

    def existing(self, namespace: str, name: str) -> dict | None:
        try:
            return self.ctx.registry.get(self.target, namespace, name)
        except NotFound:
            return None

    def create(self, namespace: str, obj: dict) -> None:
        try:
            self.client.create(self.target, namespace, obj)
        except (AlreadyExists, NotFound, Conflict):
            pass  # made meanwhile, or the namespace is going: the next sync looks again
        except ApiError as err:  # a namespace being terminated refuses new objects (403)
            if err.code != 403:
                raise


class ServiceAccountController(NamespaceDefaults):
    name = "serviceaccount"
    account = "service-account-controller"

    @property
    def target(self) -> ResourceType:
        return self.ctx.kind("", "serviceaccounts")

    @property
    def target_name(self) -> str:
        return DEFAULT_ACCOUNT

    def sync(self) -> None:
        for namespace in self.active_namespaces():
            if self.existing(namespace, DEFAULT_ACCOUNT) is None:
                self.create(
                    namespace,
                    {
                        "apiVersion": "v1",
                        "kind": "ServiceAccount",
                        "metadata": {"name": DEFAULT_ACCOUNT, "namespace": namespace},
                    },
                )


class RootCaPublisher(NamespaceDefaults):
    name = "rootcacertpublisher"
    account = "root-ca-cert-publisher"

    @property
    def target(self) -> ResourceType:
        return self.ctx.kind("", "configmaps")

    @property
    def config_map(self) -> str:
        return self.naming.root_ca_config_map

    @property
    def target_name(self) -> str:
        return self.config_map

    def ca_pem(self) -> str | None:
        path = self.ctx.settings.get("CLUSTER_CA_CERT_FILE")
        try:
            return Path(path).read_text() if path else None
        except OSError:
            return None

    def sync(self) -> None:
        ca = self.ca_pem()
        if ca is None:
            return
        for namespace in self.active_namespaces():
            current = self.existing(namespace, self.config_map)
            if current is None:
                self.create(
                    namespace,
                    {
                        "apiVersion": "v1",
                        "kind": "ConfigMap",
                        "metadata": {"name": self.config_map, "namespace": namespace},
                        "data": {CA_KEY: ca},
                    },
                )
            elif (current.get("data") or {}) != {CA_KEY: ca}:
                current["data"] = {CA_KEY: ca}
                current.pop("binaryData", None)
                try:
                    self.client.update(self.target, namespace, current)
                except (Conflict, NotFound):
                    pass
