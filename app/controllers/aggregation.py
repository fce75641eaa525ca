"""The aggregation layer's state in each server process: which group versions are proxied to which extension
server, whether each is available, and the Local APIServices kept in step with what this server serves.

`Aggregation` follows APIServices (and CRDs) through the change log, as the live catalog does. Every process
probes the extension servers itself (on change and every PROBE_INTERVAL, as each reference server runs its
own availability controller) and writes an APIService's `Available` condition only when it differs from the
stored one, so replicas that see the same thing write nothing. Local APIServices (no `service`) are created
for every served built-in and CRD group version and deleted when the group version goes, as the reference's
autoregister and crdregistration controllers do."""

from __future__ import annotations

import contextlib
import copy
import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
import urllib3

from ..background import BackgroundThread, OutageLog
from ..catalog import ResourceType, version_priority
from ..errors import AlreadyExists, ApiError, Conflict, NotFound
from ..logs import RepeatedErrors
from ..naming import Naming
from ..outbound import pool_for
from ..registry.custom_catalog import established
from ..registry.informer import ChangeFeed
from ..registry.keys import resource_prefix
from ..registry.meta import now_rfc3339
from ..registry.options import DeleteOptions, ListOptions
from ..registry.service_resolver import EndpointsMissing
from ..registry.store import Registry
from ..resources.apiregistration import (
    CRD_PRIORITY,
    LOCAL_CONDITION,
    apiservice_name,
    automanaged_label,
    builtin_priorities,
    condition,
)

log = logging.getLogger(__name__)
repeated = RepeatedErrors(log)

AUTHENTICATION_INFO = "extension-apiserver-authentication"
FRONT_PROXY_CLIENT_NAME = "front-proxy-client"
PROBE_INTERVAL = 30.0
PROBE_TIMEOUT = 5.0
#: (namespace, name, port) -> (address, port) of a ready endpoint; LookupError with the reference's reason
Resolve = Callable[[str, str, int], tuple[str, int]]


@dataclass(frozen=True)
class Remote:
    """An APIService served by an extension server."""

    name: str
    group: str
    version: str
    namespace: str
    service: str
    port: int
    ca_bundle: str
    insecure: bool
    group_priority: int
    version_priority: int

    @property
    def server_name(self) -> str:
        return f"{self.service}.{self.namespace}.svc"


@dataclass(frozen=True)
class Availability:
    available: bool
    reason: str
    message: str


UNCHECKED = Availability(False, "Unknown", "not checked yet")


def remote_of(obj: dict) -> Remote | None:
    spec = obj.get("spec") or {}
    service = spec.get("service")
    if not isinstance(service, dict):
        return None
    return Remote(
        str((obj.get("metadata") or {}).get("name", "")),
        str(spec.get("group") or ""),
        str(spec.get("version") or ""),
        str(service.get("namespace", "")),
        str(service.get("name", "")),
        int(service.get("port") or 443),
        str(spec.get("caBundle") or ""),
        bool(spec.get("insecureSkipTLSVerify")),
        int(spec.get("groupPriorityMinimum") or 0),
        int(spec.get("versionPriority") or 0),
    )


class Aggregation(BackgroundThread):
    name = "aggregation"

    def __init__(
        self,
        registry: Registry,
        naming: Naming,
        resolve: Resolve,
        client_cert: tuple[str, str] | None = None,
        probe_interval: float = PROBE_INTERVAL,
        retry: float = 1.0,
    ) -> None:
        super().__init__()
        self.outage = OutageLog(log, "aggregation controller", logging.ERROR)
        self.registry, self.naming, self.resolve = registry, naming, resolve
        self.client_cert, self.probe_interval, self.retry = client_cert, probe_interval, retry
        catalog = registry.catalog
        self.apiservices = catalog.known_type(naming.group("apiregistration"), "v1", "apiservices")
        self.crds = catalog.known_type(naming.group("apiextensions"), "v1", "customresourcedefinitions")
        self._remotes: dict[tuple[str, str], Remote] = {}
        self._availability: dict[str, Availability] = {}
        self._stored: dict[str, dict] = {}
        self._feed = ChangeFeed(registry, [resource_prefix(self.apiservices), resource_prefix(self.crds)])
        self._dirty = threading.Event()
        self._openapi_v2: dict[str, dict] = {}  # APIService name -> its extension's /openapi/v2 document
        self._resources: dict[str, list[dict]] = {}  # APIService name -> the APIResources its last check listed
        self.loaded = threading.Event()

    # -- what the HTTP layer asks ------------------------------------------------------------------------

    def remote(self, group: str, version: str) -> Remote | None:
        return self._remotes.get((group, version))

    def availability(self, remote: Remote) -> Availability:
        return self._availability.get(remote.name, UNCHECKED)

    def remotes(self) -> list[Remote]:
        return list(self._remotes.values())

    def openapi_v2(self) -> dict[str, dict]:
        """The /openapi/v2 documents of the available extension servers (fetched when they are probed)."""
        return {
            r.name: self._openapi_v2[r.name]
            for r in self._remotes.values()
            if r.name in self._openapi_v2 and self.availability(r).available
        }

    def resources(self, remote: Remote) -> list[dict]:
        """The APIResources of the remote's group version its extension listed at the last good check."""
        return self._resources.get(remote.name, [])

    def states(self) -> dict[str, bool]:
        """APIService name -> whether it is Available (the reference's aggregator_unavailable_apiservice)."""
        return {name: (condition(obj) or {}).get("status") == "True" for name, obj in self._stored.items()}

    def group_priority(self, group: str) -> int | None:
        """The highest groupPriorityMinimum among the group's APIServices (None: no APIService names it)."""
        found = [
            int((obj.get("spec") or {}).get("groupPriorityMinimum") or 0)
            for obj in self._stored.values()
            if (obj.get("spec") or {}).get("group") == group
        ]
        return max(found) if found else None

    # -- the loop ------------------------------------------------------------------------------------------

    def wake(self) -> None:
        self._dirty.set()
        self._feed.wake()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                self._follow()
            except Exception as err:  # noqa: BLE001 - the database may be briefly unavailable; start over
                self.outage.failed(err)
            self.stopping.wait(self.retry)

    def _follow(self) -> None:
        feed, apiservices = self._feed, resource_prefix(self.apiservices)
        feed.open()
        try:
            self._round(probe=True)
            self.outage.succeeded()
            next_probe = time.monotonic() + self.probe_interval
            while not self.stopping.is_set() and not feed.lost:
                changes = feed.take(min(self.retry, max(0.0, next_probe - time.monotonic())))
                due = time.monotonic() >= next_probe
                if changes or due or self._dirty.is_set():
                    self._dirty.clear()  # a CRD's change asks for a round, an APIService's also for probes
                    self._round(probe=due or any(c.key.startswith(apiservices) for c in changes))
                if due:
                    next_probe = time.monotonic() + self.probe_interval
        finally:
            feed.close()

    def _round(self, probe: bool) -> None:
        stored = {str(obj["metadata"]["name"]): obj for obj in self._list(self.apiservices)}
        self._reconcile_local(stored)  # brings `stored` up to date with what it wrote
        remotes = {}
        for obj in stored.values():
            remote = remote_of(obj)
            if remote is not None:
                remotes[(remote.group, remote.version)] = remote
        changed = [r for key, r in remotes.items() if self._remotes.get(key) != r]
        self._stored, self._remotes = stored, remotes
        for remote in remotes.values() if probe else changed:
            self._availability[remote.name] = self._probe(remote)
            stored[remote.name] = self._write_condition(stored[remote.name], self._availability[remote.name])
            if self._availability[remote.name].available:
                self._fetch_openapi_v2(remote)
        for name in set(self._openapi_v2) - set(stored):
            del self._openapi_v2[name]
        self.loaded.set()

    def _list(self, rt: ResourceType) -> list[dict]:
        return [orjson.loads(raw) for raw in self.registry.list(rt, None, ListOptions()).items]

    # -- Local APIServices (autoregister) ------------------------------------------------------------------

    def wanted_local(self) -> dict[str, dict]:
        """name -> the Local APIService of every group version served here: built-in kinds (the reference's
        priorities) and established CRDs (priority 1000/100)."""
        priorities = builtin_priorities(self.naming)
        wanted: dict[str, tuple[str, str, tuple[int, int]]] = {}
        for rt in self.registry.catalog.known():
            if rt.custom is None and (rt.group, rt.version) in priorities and self._served(rt):
                wanted[apiservice_name(rt.group, rt.version)] = (
                    rt.group,
                    rt.version,
                    priorities[(rt.group, rt.version)],
                )
        for crd in self._list(self.crds):
            if not established(crd) or (crd.get("metadata") or {}).get("deletionTimestamp"):
                continue
            spec = crd.get("spec") or {}
            for version in spec.get("versions") or []:
                if isinstance(version, dict) and version.get("served"):
                    name = apiservice_name(str(spec.get("group")), str(version.get("name")))
                    wanted.setdefault(name, (str(spec.get("group")), str(version.get("name")), CRD_PRIORITY))
        return {name: self._local(name, group, version, prio) for name, (group, version, prio) in wanted.items()}

    def _served(self, rt: ResourceType) -> bool:
        return self.registry.catalog.lookup(rt.group, rt.version, rt.plural) is not None

    def _local(self, name: str, group: str, version: str, priority: tuple[int, int]) -> dict:
        return {
            "apiVersion": self.apiservices.group_version,
            "kind": "APIService",
            "metadata": {"name": name, "labels": {automanaged_label(self.naming): "true"}},
            "spec": {
                "group": group,
                "version": version,
                "groupPriorityMinimum": priority[0],
                "versionPriority": priority[1],
            },
        }

    def _reconcile_local(self, stored: dict[str, dict]) -> None:
        wanted = self.wanted_local()
        label = automanaged_label(self.naming)
        for name, obj in wanted.items():
            have = stored.get(name)
            try:
                if have is None:
                    have = self.registry.create(self.apiservices, None, obj, manager=self.naming.apiserver_name)
                elif (have.get("metadata") or {}).get("labels", {}).get(label) and have.get("spec") != obj["spec"]:
                    updated = {**copy.deepcopy(have), "spec": obj["spec"]}  # the server's own: put back
                    have, _ = self.registry.update(
                        self.apiservices, None, name, updated, manager=self.naming.apiserver_name
                    )
                stored[name] = self._write_condition(have, None) if remote_of(have) is None else have
            except (AlreadyExists, Conflict, NotFound):
                self.wake()  # another process wrote first: look again
        for name, obj in list(stored.items()):
            if (
                name not in wanted
                and remote_of(obj) is None
                and (obj.get("metadata") or {}).get("labels", {}).get(label)
            ):
                stored.pop(name)
                with contextlib.suppress(NotFound):
                    self.registry.delete(self.apiservices, None, name, DeleteOptions())

    # -- availability --------------------------------------------------------------------------------------

    def _write_condition(self, obj: dict, found: Availability | None) -> dict:
        """Set `Available` (Local when `found` is None) unless the stored condition already says it; the object
        as stored now."""
        want = (
            dict(LOCAL_CONDITION)
            if found is None
            else {
                "type": "Available",
                "status": "True" if found.available else "False",
                "reason": found.reason,
                "message": found.message,
            }
        )
        have = condition(obj) or {}
        if all(have.get(k) == v for k, v in want.items()):
            return obj
        kept = have.get("status") == want["status"] and have.get("lastTransitionTime")
        want["lastTransitionTime"] = str(kept) if kept else now_rfc3339()
        updated = copy.deepcopy(obj)
        others = [c for c in (updated.get("status") or {}).get("conditions") or [] if c.get("type") != "Available"]
        updated["status"] = {
            "conditions": [*others, {k: want[k] for k in ("type", "status", "lastTransitionTime", "reason", "message")}]
        }
        try:
            written, _ = self.registry.update(
                self.apiservices,
                None,
                obj["metadata"]["name"],
                updated,
                subresource="status",
                manager=self.naming.apiserver_name,
            )
            return written
        except (Conflict, NotFound):
            self.wake()
        except ApiError as err:
            repeated.log(logging.WARNING, "APIService %s status not written", obj["metadata"]["name"], error=err)
        return obj

    def _probe(self, remote: Remote) -> Availability:
        """The reference's availability checks: the Service, its endpoints, then discovery of the group version."""
        where = f'service/{remote.service} in "{remote.namespace}"'
        try:
            services = self.registry.catalog.known_type("", "v1", "services")
            service = self.registry.get(services, remote.namespace, remote.service)
        except NotFound:
            return Availability(False, "ServiceNotFound", f"{where} is not present")
        ports = [p for p in (service.get("spec") or {}).get("ports") or [] if p.get("port") == remote.port]
        if not ports:
            return Availability(False, "ServicePortError", f"{where} is not listening on port {remote.port}")
        try:
            address, port = self.resolve(remote.namespace, remote.service, remote.port)
        except LookupError as err:
            if isinstance(err, EndpointsMissing):
                return Availability(False, "EndpointsNotFound", f"cannot find endpoints for {where}")
            return Availability(
                False,
                "MissingEndpoints",
                f'endpoints for {where} have no addresses with port name "{ports[0].get("name", "")}"',
            )
        host = f"[{address}]" if ":" in address else address
        path = f"/apis/{remote.group}/{remote.version}" if remote.group else f"/api/{remote.version}"
        url = f"https://{host}:{port}{path}"
        try:
            reply = self._pool().request(
                "GET",
                url,
                timeout=urllib3.Timeout(total=PROBE_TIMEOUT),
                redirect=False,
                headers={"Accept": "application/json"},
            )
        except (urllib3.exceptions.HTTPError, OSError) as err:
            reason = getattr(err, "reason", None) or err
            return Availability(False, "FailedDiscoveryCheck", f"failing or missing response from {url}: {reason}")
        if not 200 <= reply.status < 300:
            return Availability(
                False,
                "FailedDiscoveryCheck",
                f"failing or missing response from {url}: bad status from {url}: {reply.status}",
            )
        self._keep_resources(remote, reply.data)
        return Availability(True, "Passed", "all checks passed")

    def _keep_resources(self, remote: Remote, body: bytes) -> None:
        """The check's APIResourceList, for aggregated discovery (which lists the group version without asking)."""
        try:
            doc = orjson.loads(body)
        except orjson.JSONDecodeError:
            return
        listed = doc.get("resources") if isinstance(doc, dict) else None
        if isinstance(listed, list):
            self._resources[remote.name] = [r for r in listed if isinstance(r, dict)]

    def _fetch_openapi_v2(self, remote: Remote) -> None:
        """Keep the extension's OpenAPI v2 paths and definitions (the last good ones when it fails now)."""
        try:
            address, port = self.resolve(remote.namespace, remote.service, remote.port)
            host = f"[{address}]" if ":" in address else address
            reply = self._pool().request(
                "GET",
                f"https://{host}:{port}/openapi/v2",
                redirect=False,
                timeout=urllib3.Timeout(total=PROBE_TIMEOUT),
                headers={"Accept": "application/json"},
            )
            doc = orjson.loads(reply.data) if reply.status == 200 else None
        except (LookupError, urllib3.exceptions.HTTPError, OSError, orjson.JSONDecodeError):
            return
        if isinstance(doc, dict) and isinstance(doc.get("paths"), dict):
            self._openapi_v2[remote.name] = {
                "paths": doc["paths"],
                "definitions": doc.get("definitions") or {},
                "hash": hashlib.sha256(reply.data).hexdigest(),
            }

    def _pool(self) -> urllib3.PoolManager:
        """The discovery check trusts any serving certificate (as the reference's) and shows the proxy's
        client certificate."""
        return pool_for("", "", insecure=True, client_cert=self.client_cert)


def sorted_versions(versions: list[tuple[str, int]]) -> list[str]:
    """Versions of a group as discovery lists them: by versionPriority, then the reference's version order."""
    return [v for v, _ in sorted(versions, key=lambda item: (-item[1], version_priority(item[0])))]


def authentication_info(config: dict[str, Any]) -> dict[str, str]:
    """The `extension-apiserver-authentication` ConfigMap's data: the CAs and request headers an extension
    server needs to trust this server's clients and its front proxy (as the reference publishes them)."""
    data: dict[str, str] = {}
    bundle = config.get("CLIENT_CA_BUNDLE_FILE")
    if bundle and os.path.exists(bundle):
        data["client-ca-file"] = _read(bundle)
    front_proxy_ca = config.get("REQUESTHEADER_CLIENT_CA_FILE") or config.get("FRONT_PROXY_CA_FILE")
    if front_proxy_ca and os.path.exists(front_proxy_ca):
        data["requestheader-client-ca-file"] = _read(front_proxy_ca)
        generated = not config.get("REQUESTHEADER_CLIENT_CA_FILE")
        names = list(config.get("REQUESTHEADER_ALLOWED_NAMES") or ()) or (
            [FRONT_PROXY_CLIENT_NAME] if generated else []
        )
        data["requestheader-allowed-names"] = orjson.dumps(names).decode()
        data["requestheader-username-headers"] = orjson.dumps(
            list(config.get("REQUESTHEADER_USERNAME_HEADERS") or ("X-Remote-User",))
        ).decode()
        data["requestheader-group-headers"] = orjson.dumps(
            list(config.get("REQUESTHEADER_GROUP_HEADERS") or ("X-Remote-Group",))
        ).decode()
        data["requestheader-extra-headers-prefix"] = orjson.dumps(
            list(config.get("REQUESTHEADER_EXTRA_HEADERS_PREFIX") or ("X-Remote-Extra-",))
        ).decode()
    return data


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def publish_authentication_info(registry: Registry, naming: Naming, data: dict[str, str]) -> None:
    """Write the ConfigMap in the system namespace (created, or updated when its data differ)."""
    configmaps = registry.catalog.known_type("", "v1", "configmaps")
    name, namespace = AUTHENTICATION_INFO, naming.system_namespace
    try:
        have = registry.get(configmaps, namespace, name)
    except NotFound:
        obj = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace},
            "data": data,
        }
        with contextlib.suppress(AlreadyExists):
            registry.create(configmaps, namespace, obj, manager=naming.apiserver_name)
        return
    if have.get("data") != data:
        with contextlib.suppress(Conflict):
            registry.update(configmaps, namespace, name, {**have, "data": data}, manager=naming.apiserver_name)
