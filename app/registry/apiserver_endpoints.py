"""The `default/kubernetes` Service and its Endpoints and EndpointSlice, kept by every replica (the
reference's bootstrap controller with its lease endpoint reconciler). The name is the product's:
`kubernetes` in the reference's domain, `orch` in ours.

Each replica renews a Lease in the system namespace naming its address; the endpoints list the address of
every replica whose Lease is fresh, so a stopped replica drops out once its Lease expires (at once when
it shuts down cleanly).
"""

from __future__ import annotations

import copy
import hashlib
import ipaddress
import logging
import threading
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import orjson

from ..background import BackgroundThread, OutageLog
from ..errors import AlreadyExists, Conflict, NotFound
from . import meta
from .options import DeleteOptions, ListOptions

if TYPE_CHECKING:
    from ..catalog import Catalog, ResourceType
    from ..naming import Naming
    from .store import Registry

log = logging.getLogger(__name__)

SERVICE_NAMESPACE = "default"
#: the first address of the service range (app/resources/core_service.py never hands it out)
SERVICE_IP = "10.96.0.1"
SERVICE_PORT = 443
PORT_NAME = "https"


class ApiserverEndpoints(BackgroundThread):
    name = "apiserver-endpoints"

    def __init__(
        self, registry: Registry, catalog: Catalog, naming: Naming, address: str, port: int, lease_seconds: float = 15.0
    ) -> None:
        super().__init__()
        self.outage = OutageLog(log, "apiserver endpoints reconciler", logging.ERROR)
        self.registry, self.naming = registry, naming
        self.address, self.port = str(ipaddress.ip_address(address)), port
        self.lease_seconds = max(1.0, float(lease_seconds))
        self.services = _rt(catalog, "", "services")
        self.endpoints = _rt(catalog, "", "endpoints")
        self.leases = _rt(catalog, naming.group("coordination"), "leases")
        self.slices = _rt(catalog, naming.group("discovery"), "endpointslices")
        self.service_name = naming.product
        self._wake = threading.Event()

    @property
    def identity_label(self) -> str:
        return f"{self.naming.key_group('apiserver')}/identity"

    @property
    def lease_name(self) -> str:
        digest = hashlib.sha256(f"{self.address}:{self.port}".encode()).hexdigest()[:16]
        return f"{self.naming.apiserver_name}-{digest}"

    def wake(self) -> None:
        self._wake.set()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                self.sync()
            except Exception as err:  # noqa: BLE001 - retried on the next round
                self.outage.failed(err)
            else:
                self.outage.succeeded()
            self._wake.wait(self.lease_seconds / 3)  # the reference renews every 10 s of a 15 s TTL
            self._wake.clear()

    def stop(self) -> None:
        super().stop()
        try:  # a clean shutdown leaves the endpoints at once, not when the Lease expires
            self.registry.delete(
                self.leases,
                self.naming.system_namespace,
                self.lease_name,
                DeleteOptions.parse(None, {}, False, self.naming.meta_group),
            )
            self.reconcile_endpoints()
        except NotFound:
            pass
        except Exception:  # the store may already be gone at exit
            log.warning("could not remove this replica from the %s endpoints", self.service_name, exc_info=True)

    def sync(self) -> None:
        self.ensure_service()
        self.renew_lease()
        self.reconcile_endpoints()

    # ------------------------------------------------------------------------------------ service

    def wanted_service(self) -> dict:
        return {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {
                "name": self.service_name,
                "namespace": SERVICE_NAMESPACE,
                "labels": {"component": "apiserver", "provider": self.naming.product},
            },
            "spec": {
                "type": "ClusterIP",
                "clusterIP": SERVICE_IP,
                "clusterIPs": [SERVICE_IP],
                "sessionAffinity": "None",
                "ports": [{"name": PORT_NAME, "port": SERVICE_PORT, "protocol": "TCP", "targetPort": self.port}],
            },
        }

    def ensure_service(self) -> None:
        wanted = self.wanted_service()
        try:
            current = self.registry.get(self.services, SERVICE_NAMESPACE, self.service_name)
        except NotFound:
            self._create(self.services, SERVICE_NAMESPACE, wanted)
            return
        spec = current.get("spec") or {}
        if spec.get("type") == "ClusterIP" and spec.get("ports") == wanted["spec"]["ports"]:
            return
        repaired = copy.deepcopy(current)  # the reference repairs the ports and the type, nothing else
        repaired["spec"] = {**spec, "type": "ClusterIP", "ports": wanted["spec"]["ports"]}
        self._update(self.services, SERVICE_NAMESPACE, repaired)

    # ------------------------------------------------------------------------------------ leases

    def renew_lease(self) -> None:
        now = meta.now_micro_rfc3339()
        spec = {
            "holderIdentity": f"{self.address}:{self.port}",
            "leaseDurationSeconds": int(self.lease_seconds),
            "renewTime": now,
        }
        namespace = self.naming.system_namespace
        try:
            current = self.registry.get(self.leases, namespace, self.lease_name)
        except NotFound:
            lease = {
                "apiVersion": f"{self.naming.group('coordination')}/v1",
                "kind": "Lease",
                "metadata": {
                    "name": self.lease_name,
                    "namespace": namespace,
                    "labels": {self.identity_label: self.naming.apiserver_name},
                },
                "spec": {**spec, "acquireTime": now},
            }
            self._create(self.leases, namespace, lease)
            return
        current["spec"] = {**(current.get("spec") or {}), **spec}
        self._update(self.leases, namespace, current)

    def live_addresses(self) -> list[tuple[str, int]]:
        """(address, port) of every replica whose Lease is fresh, sorted."""
        listed = self.registry.list(
            self.leases,
            self.naming.system_namespace,
            ListOptions(label_selector=f"{self.identity_label}={self.naming.apiserver_name}"),
        )
        now = datetime.now(UTC)
        live = set()
        for data in listed.items:
            spec = orjson.loads(data).get("spec") or {}
            holder, renewed = str(spec.get("holderIdentity") or ""), _parse_time(spec.get("renewTime"))
            duration = spec.get("leaseDurationSeconds") or 0
            address, _, port = holder.rpartition(":")
            if renewed is None or not port.isdigit() or renewed + timedelta(seconds=duration) < now:
                continue
            live.add((address, int(port)))
        return sorted(live, key=lambda item: (ipaddress.ip_address(item[0]), item[1]))

    # ------------------------------------------------------------------------------------ endpoints

    def reconcile_endpoints(self) -> None:
        live = self.live_addresses()
        ports = sorted({port for _, port in live})
        subsets = [
            {
                "addresses": [{"ip": ip} for ip, p in live if p == port],
                "ports": [{"name": PORT_NAME, "port": port, "protocol": "TCP"}],
            }
            for port in ports
        ]
        self._converge(
            self.endpoints,
            {
                "apiVersion": "v1",
                "kind": "Endpoints",
                "metadata": {"name": self.service_name, "namespace": SERVICE_NAMESPACE},
                "subsets": subsets,
            },
            ("subsets",),
        )
        endpoints = [{"addresses": [ip], "conditions": {"ready": True}} for ip, _ in live]
        self._converge(
            self.slices,
            {
                "apiVersion": f"{self.naming.group('discovery')}/v1",
                "kind": "EndpointSlice",
                "metadata": {
                    "name": self.service_name,
                    "namespace": SERVICE_NAMESPACE,
                    "labels": {self.naming.key("service-name"): self.service_name},
                },
                "addressType": "IPv6" if any(":" in ip for ip, _ in live) else "IPv4",
                "endpoints": endpoints,
                "ports": [{"name": PORT_NAME, "port": ports[0] if ports else self.port, "protocol": "TCP"}],
            },
            ("addressType", "endpoints", "ports"),
        )

    def _converge(self, rt: ResourceType, wanted: dict, fields: tuple[str, ...]) -> None:
        name = wanted["metadata"]["name"]
        for _ in range(5):  # replicas write the same object: retry a lost compare-and-swap
            try:
                current = self.registry.get(rt, SERVICE_NAMESPACE, name)
            except NotFound:
                try:
                    self._create(rt, SERVICE_NAMESPACE, wanted)
                    return
                except AlreadyExists:
                    continue
            labels = (current.get("metadata") or {}).get("labels") or {}
            wanted_labels = wanted["metadata"].get("labels") or {}
            if all(_normal(current.get(f)) == _normal(wanted.get(f)) for f in fields) and all(
                labels.get(k) == v for k, v in wanted_labels.items()
            ):
                return
            updated = {**current, **{f: wanted[f] for f in fields}}
            updated["metadata"] = {**current["metadata"], "labels": {**labels, **wanted_labels}}
            try:
                self.registry.update(rt, SERVICE_NAMESPACE, name, updated, manager=self.naming.apiserver_name)
                return
            except (Conflict, NotFound):
                continue

    def _create(self, rt: ResourceType, namespace: str, obj: dict) -> None:
        try:
            self.registry.create(rt, namespace, obj, manager=self.naming.apiserver_name)
        except AlreadyExists:
            pass  # another worker or replica was first; the next round compares

    def _update(self, rt: ResourceType, namespace: str, obj: dict) -> None:
        try:
            self.registry.update(rt, namespace, obj["metadata"]["name"], obj, manager=self.naming.apiserver_name)
        except (Conflict, NotFound):
            pass  # changed meanwhile; the next round compares again


def _rt(catalog: Catalog, group: str, plural: str) -> ResourceType:
    rt = catalog.lookup(group, "v1", plural)
    assert rt is not None, plural
    return rt


def _normal(value: Any) -> Any:
    return value if value not in (None, [], {}) else None


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None
