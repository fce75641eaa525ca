"""Namespace lifecycle inside the server: system namespaces at start, and finishing deletions.

A terminating namespace has its content deleted (pods first), progress reported in the
reference's NamespaceDeletion* conditions, then its finalizer removed through `finalize`.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import orjson

from ..background import BackgroundThread, OutageLog
from ..catalog import Catalog, ResourceType
from ..errors import AlreadyExists, ApiError, Conflict, NotFound
from ..naming import Naming
from . import meta
from .options import DeleteOptions, ListOptions
from .store import Registry

log = logging.getLogger(__name__)


def _condition(kind: str, status: bool, reason: str, message: str) -> dict:
    return {
        "type": kind,
        "status": "True" if status else "False",
        "lastTransitionTime": meta.now_rfc3339(),
        "reason": reason,
        "message": message,
    }


class NamespaceLifecycle(BackgroundThread):
    name = "namespace-lifecycle"

    def __init__(self, registry: Registry, catalog: Catalog, naming: Naming, interval: float = 0.5):
        super().__init__()
        self.outage = OutageLog(log, "namespace lifecycle", logging.ERROR)
        self.registry, self.catalog, self.naming = registry, catalog, naming
        self.interval = interval
        self.namespaces: ResourceType = catalog.lookup("", "v1", "namespaces")  # type: ignore[assignment]
        self._wake = threading.Event()

    def bootstrap(self) -> None:
        for name in self.naming.system_namespaces:
            try:
                self.registry.create(self.namespaces, None, {"metadata": {"name": name}})
            except AlreadyExists:
                pass

    def wake(self) -> None:
        self._wake.set()

    def run(self) -> None:
        while not self.stopping.is_set():
            self._wake.wait(self.interval)
            self._wake.clear()
            try:
                self.sync()
            except Exception as err:  # noqa: BLE001 - retried on the next round
                self.outage.failed(err)
            else:
                self.outage.succeeded()

    def sync(self) -> None:
        listed = self.registry.list(self.namespaces, None, ListOptions())
        for data in listed.items:
            ns = orjson.loads(data)
            if (ns.get("metadata") or {}).get("deletionTimestamp"):
                self.finish(ns)

    def _content_types(self) -> list[ResourceType]:
        # each stored kind once, even when served in several versions (or its storage version is off)
        kinds = [rt for rt in self.catalog.storage_types() if rt.namespaced]
        # pods go first, as the reference's namespace controller does
        return sorted(kinds, key=lambda rt: (rt.plural != "pods", rt.group, rt.plural))

    def finish(self, ns: dict) -> None:
        name = ns["metadata"]["name"]
        remaining: dict[str, int] = {}
        finalizers: dict[str, int] = {}
        for rt in self._content_types():
            for data in self.registry.list(rt, name, ListOptions()).items:
                obj = orjson.loads(data)
                md = obj.get("metadata") or {}
                if not md.get("deletionTimestamp"):
                    try:
                        obj, _ = self.registry.delete(
                            rt, name, md["name"], DeleteOptions(propagation_policy="Background")
                        )
                    except NotFound:
                        continue
                    if obj.get("kind") == "Status":
                        continue
                    md = obj.get("metadata") or {}
                remaining[rt.group_resource] = remaining.get(rt.group_resource, 0) + 1
                for f in md.get("finalizers") or []:
                    finalizers[f] = finalizers.get(f, 0) + 1
        if remaining:
            self._report(ns, remaining, finalizers)
            return
        self._remove_finalizer(ns)

    def _report(self, ns: dict, remaining: dict[str, int], finalizers: dict[str, int]) -> None:
        content = ", ".join(f"{gr} has {n} resource instances" for gr, n in sorted(remaining.items()))
        conditions = [
            _condition(
                "NamespaceDeletionDiscoveryFailure",
                False,
                "ResourcesDiscovered",
                "All resources successfully discovered",
            ),
            _condition(
                "NamespaceDeletionGroupVersionParsingFailure",
                False,
                "ParsedGroupVersions",
                "All legacy kube types successfully parsed",
            ),
            _condition(
                "NamespaceDeletionContentFailure",
                False,
                "ContentDeleted",
                "All content successfully deleted, may be waiting on finalization",
            ),
            _condition(
                "NamespaceContentRemaining", True, "SomeResourcesRemain", f"Some resources are remaining: {content}"
            ),
        ]
        if finalizers:
            text = ", ".join(f"{f} in {n} resource instances" for f, n in sorted(finalizers.items()))
            conditions.append(
                _condition(
                    "NamespaceFinalizersRemaining",
                    True,
                    "SomeFinalizersRemain",
                    f"Some content in the namespace has finalizers remaining: {text}",
                )
            )
        else:
            conditions.append(
                _condition(
                    "NamespaceFinalizersRemaining",
                    False,
                    "ContentHasNoFinalizers",
                    "All content-preserving finalizers finished",
                )
            )
        self._set_conditions(ns, conditions)

    def _set_conditions(self, ns: dict, conditions: list[dict]) -> None:
        old = {c["type"]: c for c in (ns.get("status") or {}).get("conditions") or []}
        merged = []
        for c in conditions:
            prev = old.get(c["type"])
            if prev and prev.get("status") == c["status"] and prev.get("message") == c["message"]:
                merged.append(prev)
            else:
                merged.append(c)
        status: dict[str, Any] = dict(ns.get("status") or {})
        status["conditions"] = merged
        self._write(ns, {**ns, "status": status}, "status")

    def _remove_finalizer(self, ns: dict) -> None:
        finalizer = self.naming.namespace_finalizer
        spec = dict(ns.get("spec") or {})
        spec["finalizers"] = [f for f in spec.get("finalizers") or [] if f != finalizer]
        self._write(ns, {**ns, "spec": spec}, "finalize")

    def _write(self, ns: dict, new: dict, subresource: str) -> None:
        new = dict(new)
        new["metadata"] = {k: v for k, v in (ns.get("metadata") or {}).items() if k != "resourceVersion"}
        try:
            self.registry.update(self.namespaces, None, ns["metadata"]["name"], new, subresource)
        except (NotFound, Conflict):
            pass  # changed or gone meanwhile: the next round sees the new state
        except ApiError:
            log.exception("namespace %s: %s update failed", ns["metadata"]["name"], subresource)
