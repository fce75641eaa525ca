"""The core Service kind: scheme defaults plus the REST layer's cluster IP and node port allocation.

Allocation here is local (pseudo-random within the ranges); it does not track which values other
services already hold.
"""

from __future__ import annotations

import copy
import hashlib
import ipaddress
import secrets
from typing import Any, ClassVar

from ..catalog import Obj
from ..errors import FieldError, forbidden, invalid, not_supported, required
from .common import KindStrategy, child, dig, items, setdefault, setdefault_empty

SERVICE_CIDR = ipaddress.ip_network("10.96.0.0/12")
NODE_PORT_RANGE = (30000, 32767)
TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]
PROTOCOLS = ["SCTP", "TCP", "UDP"]
_NODE_PORT_TYPES = ("NodePort", "LoadBalancer")
_CLIENT_IP_TIMEOUT = 10800  # DefaultClientIPServiceAffinitySeconds


def _pick(seed: str, salt: str, size: int) -> int:
    """A pseudo-unique offset in [0, size): derived from the object's uid when known, random otherwise."""
    if not seed:
        return secrets.randbelow(size)
    digest = hashlib.sha256(f"{seed}/{salt}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % size


def allocate_cluster_ip(seed: str) -> str:
    # skip the network address, .1 (the API service's address) and the broadcast address
    offset = 2 + _pick(seed, "clusterIP", SERVICE_CIDR.num_addresses - 3)
    return str(SERVICE_CIDR.network_address + offset)


def allocate_node_port(seed: str, salt: str, taken: set[int]) -> int:
    low, high = NODE_PORT_RANGE
    size = high - low + 1
    start = _pick(seed, salt, size)
    for step in range(size):
        port = low + (start + step) % size
        if port not in taken:
            return port
    raise ValueError("node port range exhausted")


def _family(ip: str) -> str:
    try:
        return "IPv6" if ipaddress.ip_address(ip).version == 6 else "IPv4"
    except ValueError:
        return "IPv4"


def _needs_node_ports(spec: Obj) -> bool:
    if spec.get("type") == "LoadBalancer":
        return spec.get("allocateLoadBalancerNodePorts") is not False
    return spec.get("type") == "NodePort"


class ServiceStrategy(KindStrategy):
    generation = False
    allow_create_on_update = True
    initial_status: ClassVar[Obj] = {"loadBalancer": {}}

    def default(self, obj: Obj) -> None:
        spec = child(obj, "spec")
        setdefault_empty(spec, "sessionAffinity", "None")
        if spec["sessionAffinity"] == "None":
            spec.pop("sessionAffinityConfig", None)
        elif spec["sessionAffinity"] == "ClientIP":
            client_ip = child(child(spec, "sessionAffinityConfig"), "clientIP")
            setdefault(client_ip, "timeoutSeconds", _CLIENT_IP_TIMEOUT)
        setdefault_empty(spec, "type", "ClusterIP")
        for port in items(spec, "ports"):
            setdefault_empty(port, "protocol", "TCP")
            if port.get("targetPort") in (None, 0, "") and port.get("port") is not None:
                port["targetPort"] = port["port"]
        kind = spec["type"]
        if kind in _NODE_PORT_TYPES:
            setdefault_empty(spec, "externalTrafficPolicy", "Cluster")
        if kind in ("ClusterIP", "NodePort", "LoadBalancer"):
            setdefault_empty(spec, "internalTrafficPolicy", "Cluster")
        if kind == "LoadBalancer":
            setdefault(spec, "allocateLoadBalancerNodePorts", True)

    def prepare_for_create(self, obj: Obj) -> None:
        super().prepare_for_create(obj)
        seed = str(dig(obj, "metadata", "uid", default=""))
        self._allocate(child(obj, "spec"), seed)

    def prepare_for_update(self, obj: Obj, old: Obj) -> None:
        super().prepare_for_update(obj, old)
        spec, old_spec = child(obj, "spec"), old.get("spec") or {}
        if "ExternalName" not in (spec.get("type"), old_spec.get("type")):
            # a write that omits allocated values keeps them (the reference's patchAllocatedValues)
            if not spec.get("clusterIP") and not spec.get("clusterIPs"):
                for key in ("clusterIP", "clusterIPs"):
                    if key in old_spec:
                        spec[key] = copy.deepcopy(old_spec[key])
            for key in ("ipFamilies", "ipFamilyPolicy"):
                if not spec.get(key) and key in old_spec:
                    spec[key] = copy.deepcopy(old_spec[key])
        if _needs_node_ports(spec) and _needs_node_ports(old_spec):
            by_name = {p.get("name", ""): p.get("nodePort") for p in items(old_spec, "ports")}
            used = {p.get("nodePort") for p in items(spec, "ports") if p.get("nodePort")}
            for port in items(spec, "ports"):
                previous = by_name.get(port.get("name", ""))
                if not port.get("nodePort") and previous and previous not in used:
                    port["nodePort"] = previous
                    used.add(previous)
            if not spec.get("healthCheckNodePort") and old_spec.get("healthCheckNodePort"):
                spec["healthCheckNodePort"] = old_spec["healthCheckNodePort"]
        elif _needs_node_ports(old_spec):
            # leaving NodePort/LoadBalancer releases the node ports
            for port in items(spec, "ports"):
                if port.get("nodePort") in {p.get("nodePort") for p in items(old_spec, "ports")}:
                    port.pop("nodePort", None)
        self._allocate(spec, str(dig(obj, "metadata", "uid", default="")))

    @staticmethod
    def _allocate(spec: Obj, seed: str) -> None:
        if spec.get("type") == "ExternalName":
            for key in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
                spec.pop(key, None)
            return
        ips = spec["clusterIPs"] if isinstance(spec.get("clusterIPs"), list) else []
        if not spec.get("clusterIP") and ips:
            spec["clusterIP"] = ips[0]
        if not spec.get("clusterIP"):
            spec["clusterIP"] = allocate_cluster_ip(seed)
        if not ips:
            spec["clusterIPs"] = [spec["clusterIP"]]
        setdefault_empty(spec, "ipFamilyPolicy", "SingleStack")
        if spec["clusterIP"] != "None":
            setdefault_empty(spec, "ipFamilies", [_family(spec["clusterIP"])])
        else:
            setdefault_empty(spec, "ipFamilies", ["IPv4"])
        if _needs_node_ports(spec):
            taken = {p["nodePort"] for p in items(spec, "ports") if isinstance(p.get("nodePort"), int)}
            for i, port in enumerate(items(spec, "ports")):
                if not port.get("nodePort"):
                    port["nodePort"] = allocate_node_port(seed, f"port/{i}/{port.get('port')}", taken)
                    taken.add(port["nodePort"])

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = obj["spec"] if isinstance(obj.get("spec"), dict) else {}
        errors: list[FieldError] = []
        kind = spec.get("type")
        if kind not in TYPES:
            errors.append(not_supported("spec.type", kind, TYPES))
        headless = spec.get("clusterIP") == "None"
        ports = items(spec, "ports")
        if not ports and not headless and kind != "ExternalName":
            errors.append(required("spec.ports"))
        if kind == "ExternalName":
            if not spec.get("externalName"):
                errors.append(required("spec.externalName"))
            if spec.get("clusterIP"):
                errors.append(forbidden("spec.clusterIP", "may not be set for ExternalName services"))
        else:
            errors += self._cluster_ip_errors(spec)
        errors += self._port_errors(spec, ports)
        affinity = spec.get("sessionAffinity")
        if affinity not in ("ClientIP", "None"):
            errors.append(not_supported("spec.sessionAffinity", affinity, ["ClientIP", "None"]))
        for key, allowed in (
            ("externalTrafficPolicy", ["Cluster", "Local"]),
            ("internalTrafficPolicy", ["Cluster", "Local"]),
        ):
            value = spec.get(key)
            if value is not None and value not in allowed:
                errors.append(not_supported(f"spec.{key}", value, allowed))
        return errors

    @staticmethod
    def _cluster_ip_errors(spec: Obj) -> list[FieldError]:
        ip = spec.get("clusterIP")
        ips = spec.get("clusterIPs")
        if isinstance(ips, list) and ips and ips[0] != ip:
            return [invalid("spec.clusterIPs[0]", ips[0], "must match `clusterIP` when both are specified")]
        if ip in (None, "", "None"):
            return []
        try:
            address = ipaddress.ip_address(ip)
        except ValueError:
            return [invalid("spec.clusterIPs[0]", ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")]
        if address.version == 4 and address not in SERVICE_CIDR:
            return [
                invalid(
                    "spec.clusterIPs",
                    ips or [ip],
                    f"failed to allocate IP {ip}: provided IP ({ip}) is not in the valid range. "
                    f"The range of valid IPs is {SERVICE_CIDR}",
                )
            ]
        return []

    @staticmethod
    def _port_errors(spec: Obj, ports: list[Obj]) -> list[FieldError]:
        errors: list[FieldError] = []
        names: set[str] = set()
        low, high = NODE_PORT_RANGE
        for i, port in enumerate(ports):
            path = f"spec.ports[{i}]"
            name = str(port.get("name") or "")
            if len(ports) > 1 and not name:
                errors.append(required(f"{path}.name"))
            elif name and name in names:
                errors.append(FieldError("FieldValueDuplicate", f"{path}.name", "", name))
            names.add(name)
            number = port.get("port")
            if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= 65535:
                errors.append(
                    invalid(
                        f"{path}.port", number if number is not None else 0, "must be between 1 and 65535, inclusive"
                    )
                )
            if port.get("protocol") not in PROTOCOLS:
                errors.append(not_supported(f"{path}.protocol", port.get("protocol"), PROTOCOLS))
            node_port = port.get("nodePort")
            if node_port:
                if spec.get("type") in ("ClusterIP", "ExternalName"):
                    errors.append(forbidden(f"{path}.nodePort", f"may not be used when `type` is '{spec['type']}'"))
                elif not isinstance(node_port, int) or not low <= node_port <= high:
                    errors.append(
                        invalid(
                            f"{path}.nodePort",
                            node_port,
                            f"provided port is not in the valid range. The range of valid ports is {low}-{high}",
                        )
                    )
        return errors

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        spec, old_spec = obj.get("spec") or {}, old.get("spec") or {}
        if "ExternalName" in (spec.get("type"), old_spec.get("type")):
            return []
        old_ips: Any = old_spec.get("clusterIPs") or ([old_spec["clusterIP"]] if old_spec.get("clusterIP") else [])
        new_ips: Any = spec.get("clusterIPs") or ([spec["clusterIP"]] if spec.get("clusterIP") else [])
        if old_ips and new_ips[:1] != old_ips[:1]:
            return [invalid("spec.clusterIPs[0]", new_ips, "may not change once set")]
        return []
