"""The EndpointSlice and Endpoints controllers (the reference's pkg/controller/endpointslice and endpoint) for
Services with a selector: the pods it selects that have an IP, grouped by the ports their targetPorts resolve to.
Slices carry ready/serving/terminating conditions (one slice per address type and port set), Endpoints list
ready addresses and notReadyAddresses; terminating pods appear only in slices (or as addresses when the
Service publishes not-ready addresses). Services without a selector (`default/kubernetes`) are left alone."""

from __future__ import annotations

from typing import Any

from ...errors import Conflict, NotFound
from ..base import Context
from .workload_common import (
    SimulationController,
    by_namespace,
    controller_ref,
    create_quietly,
    delete_quietly,
    finished,
    meta,
    owned,
    pod_ready,
    spec,
    status,
    terminating,
)

PortSet = tuple[tuple[str, int, str, str], ...]  # (name, port, protocol, appProtocol)


def selected_pods(service: dict, pods: list[dict]) -> list[dict]:
    selector = spec(service).get("selector") or {}
    return [
        p
        for p in pods
        if status(p).get("podIP")
        and not finished(p)
        and all((meta(p).get("labels") or {}).get(k) == v for k, v in selector.items())
    ]


def wants_endpoints(service: dict) -> bool:
    return bool(spec(service).get("selector")) and spec(service).get("type") != "ExternalName"


def resolve_ports(service: dict, pod: dict) -> PortSet | None:
    """The service's ports with targetPorts resolved against the pod's containers (None: a named port is
    missing, so the pod serves none of them here)."""
    out = []
    for port in spec(service).get("ports") or []:
        target = port.get("targetPort", port.get("port"))
        if isinstance(target, str) and not target.isdigit():
            number = next(
                (
                    cp.get("containerPort")
                    for c in spec(pod).get("containers") or []
                    for cp in c.get("ports") or []
                    if cp.get("name") == target and (cp.get("protocol") or "TCP") == (port.get("protocol") or "TCP")
                ),
                None,
            )
            if number is None:
                return None
            target = number
        protocol = str(port.get("protocol") or "TCP")
        out.append((str(port.get("name") or ""), int(target), protocol, str(port.get("appProtocol") or "")))
    return tuple(out)


def _port_objects(ports: PortSet) -> list[dict]:
    out = []
    for name, number, protocol, app_protocol in ports:
        entry: dict[str, Any] = {"name": name, "port": number, "protocol": protocol}
        if app_protocol:
            entry["appProtocol"] = app_protocol
        out.append(entry)
    return out


def _target(pod: dict) -> dict:
    md = meta(pod)
    return {"kind": "Pod", "namespace": md.get("namespace"), "name": md.get("name"), "uid": md.get("uid")}


def _hostname(service: dict, pod: dict) -> str:
    ps = spec(pod)
    name = meta(service).get("name")
    return str(ps.get("hostname") or "") if ps.get("hostname") and ps.get("subdomain") == name else ""


def _endpoints_differ(current: dict, desired: dict, keys: tuple[str, ...]) -> bool:
    return any(current.get(k) != desired.get(k) for k in keys)


class EndpointSliceController(SimulationController):
    name = "endpointslice"
    account = "endpointslice-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.services, self.pods = ctx.kind("", "services"), ctx.kind("", "pods")
        self.slices = ctx.kind("discovery", "endpointslices")
        n = ctx.naming
        self.service_label = n.key("service-name")
        self.managed_by_label = n.key_group("endpointslice") + "/managed-by"
        self.manager_value = f"endpointslice-controller.{n.domain}"

    def watches(self) -> list[Any]:
        return [self.services, self.pods, self.slices]

    def sync(self) -> None:
        services = self.client.list(self.services)
        slices = by_namespace(
            s
            for s in self.client.list(self.slices)
            if (meta(s).get("labels") or {}).get(self.managed_by_label) == self.manager_value
        )
        wanted = [s for s in services if wants_endpoints(s)]
        pods = by_namespace(self.client.list(self.pods)) if wanted else {}
        kept: set[str] = set()
        for service in wanted:
            ns = str(meta(service).get("namespace"))
            mine = owned(slices.get(ns, []), service)
            kept.update(str(meta(s).get("uid")) for s in mine)
            self.sync_service(service, selected_pods(service, pods.get(ns, [])), mine)
        for ns_slices in slices.values():
            for orphan in ns_slices:
                if str(meta(orphan).get("uid")) not in kept:
                    delete_quietly(self.client, self.slices, orphan)  # its service is gone or lost its selector

    def _endpoint(self, service: dict, pod: dict) -> dict:
        gone = terminating(pod)
        serving = pod_ready(pod) or bool(spec(service).get("publishNotReadyAddresses"))
        endpoint: dict[str, Any] = {
            "addresses": [status(pod)["podIP"]],
            "conditions": {"ready": serving and not gone, "serving": serving, "terminating": gone},
            "targetRef": _target(pod),
        }
        if spec(pod).get("nodeName"):
            endpoint["nodeName"] = spec(pod)["nodeName"]
        if hostname := _hostname(service, pod):
            endpoint["hostname"] = hostname
        return endpoint

    def sync_service(self, service: dict, pods: list[dict], slices: list[dict]) -> None:
        groups: dict[tuple[str, PortSet], list[dict]] = {}
        for pod in pods:
            ports = resolve_ports(service, pod)
            if ports is None:
                continue
            family = "IPv6" if ":" in str(status(pod)["podIP"]) else "IPv4"
            groups.setdefault((family, ports), []).append(self._endpoint(service, pod))
        if not groups:  # a placeholder slice says the service has no endpoints
            families = spec(service).get("ipFamilies") or ["IPv4"]
            groups[(str(families[0]), ())] = []
        unused = list(slices)
        for (family, ports), endpoints in sorted(groups.items()):
            endpoints.sort(key=lambda e: (e["addresses"][0], e["targetRef"]["name"]))
            desired = self._slice(service, family, ports, endpoints)
            same_family = [s for s in unused if s.get("addressType") == family]
            match = next((s for s in same_family if (s.get("ports") or []) == desired.get("ports", [])), None)
            match = match or next(iter(same_family), None)
            if match is None:
                create_quietly(self.client, self.slices, str(meta(service).get("namespace")), desired)
                continue
            unused.remove(match)
            labels = {**(meta(match).get("labels") or {}), **desired["metadata"]["labels"]}
            if _endpoints_differ(match, desired, ("endpoints", "ports")) or labels != meta(match).get("labels"):
                updated = {k: v for k, v in match.items() if k not in ("endpoints", "ports")}
                updated.update({k: desired[k] for k in ("endpoints", "ports") if k in desired})
                updated["metadata"] = {**meta(match), "labels": labels}
                try:
                    self.client.update(self.slices, meta(match).get("namespace"), updated)
                except (Conflict, NotFound):
                    pass  # changed meanwhile: the next round sees it
        for extra in unused:
            delete_quietly(self.client, self.slices, extra)

    def _slice(self, service: dict, family: str, ports: PortSet, endpoints: list[dict]) -> dict:
        labels = {
            **{k: v for k, v in (meta(service).get("labels") or {}).items() if k != self.service_label},
            self.service_label: str(meta(service).get("name")),
            self.managed_by_label: self.manager_value,
        }
        obj: dict[str, Any] = {
            "apiVersion": f"{self.slices.group}/v1",
            "kind": "EndpointSlice",
            "metadata": {
                "generateName": f"{meta(service).get('name')}-",
                "labels": labels,
                "ownerReferences": [controller_ref(service)],
            },
            "addressType": family,
            "endpoints": endpoints,
        }
        if ports:
            obj["ports"] = _port_objects(ports)
        return obj


class EndpointsController(SimulationController):
    name = "endpoint"
    account = "endpoint-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.services, self.pods = ctx.kind("", "services"), ctx.kind("", "pods")
        self.endpoints = ctx.kind("", "endpoints")
        #: marks Endpoints this controller keeps (the mirroring controller skips them, as upstream)
        self.skip_mirror = ctx.naming.key_group("endpointslice") + "/skip-mirror"

    def watches(self) -> list[Any]:
        return [self.services, self.pods, self.endpoints]

    def sync(self) -> None:
        services = self.client.list(self.services)
        wanted = {(meta(s).get("namespace"), meta(s).get("name")): s for s in services if wants_endpoints(s)}
        pods = by_namespace(self.client.list(self.pods)) if wanted else {}
        existing = {(meta(e).get("namespace"), meta(e).get("name")): e for e in self.client.list(self.endpoints)}
        for key, service in wanted.items():
            self.sync_service(service, selected_pods(service, pods.get(str(key[0]), [])), existing.get(key))
        for key, current in existing.items():
            if key not in wanted and (meta(current).get("labels") or {}).get(self.skip_mirror) == "true":
                delete_quietly(self.client, self.endpoints, current)  # ours, and its service is gone

    def sync_service(self, service: dict, pods: list[dict], current: dict | None) -> None:
        publish = bool(spec(service).get("publishNotReadyAddresses"))
        groups: dict[PortSet, dict[str, list[dict]]] = {}
        for pod in pods:
            ports = resolve_ports(service, pod)
            if ports is None or (terminating(pod) and not publish):
                continue
            address: dict[str, Any] = {"ip": status(pod)["podIP"], "targetRef": _target(pod)}
            if spec(pod).get("nodeName"):
                address["nodeName"] = spec(pod)["nodeName"]
            if hostname := _hostname(service, pod):
                address["hostname"] = hostname
            group = groups.setdefault(ports, {"addresses": [], "notReadyAddresses": []})
            group["addresses" if pod_ready(pod) or publish else "notReadyAddresses"].append(address)
        subsets = []
        for ports, group in sorted(groups.items()):
            subset: dict[str, Any] = {k: sorted(v, key=lambda a: a["ip"]) for k, v in group.items() if v}
            if ports:
                subset["ports"] = _port_objects(ports)
            subsets.append(subset)
        labels = {**(meta(service).get("labels") or {}), self.skip_mirror: "true"}
        md = meta(service)
        if current is None:
            body = {
                "apiVersion": "v1",
                "kind": "Endpoints",
                "metadata": {"name": md.get("name"), "labels": labels},
                "subsets": subsets,
            }
            create_quietly(self.client, self.endpoints, str(md.get("namespace")), body)
            return
        if (current.get("subsets") or []) == subsets and meta(current).get("labels") == labels:
            return
        updated = {**current, "subsets": subsets, "metadata": {**meta(current), "labels": labels}}
        try:
            self.client.update(self.endpoints, md.get("namespace"), updated)
        except (Conflict, NotFound):
            pass  # changed meanwhile: the next round sees it
