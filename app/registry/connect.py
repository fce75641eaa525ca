"""Where a connect subresource's request goes: the node agent of the object's node, at the node's preferred
address and its agent's port (the reference's --kubelet-preferred-address-types default order)."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..catalog import NodeCall, ResourceType
from ..errors import BadRequest, InternalError, MethodNotAllowed, NotFound, ServiceUnavailable

if TYPE_CHECKING:
    from .store import Registry

PREFERRED_ADDRESS_TYPES = ("Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP")
DEFAULT_AGENT_PORT = 10250


@dataclass(frozen=True)
class NodeLocation:
    host: str
    port: int
    call: NodeCall


@dataclass(frozen=True)
class ProxyTarget:
    """Where a proxy subresource's request goes; `node_agent`: shown the server's node-agent client certificate."""

    scheme: str
    host: str
    port: int | None
    node_agent: bool = False

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}" + (f":{self.port}" if self.port else "")


def split_scheme_name_port(text: str, what: str) -> tuple[str, str, str]:
    """`name`, `name:port` or `scheme:name:port` (scheme http or https), as the reference splits proxy names."""
    parts = text.split(":")
    if len(parts) == 1:
        return "", parts[0], ""
    if len(parts) == 2:
        return "", parts[0], parts[1]
    if len(parts) == 3 and parts[0] in ("http", "https"):
        return parts[0], parts[1], parts[2]
    raise BadRequest(f'invalid {what} request "{text}"')


def proxyable(address: str) -> str:
    """Only global unicast addresses are proxied to (the reference's rule: never the server's own loopback,
    link-local or unspecified addresses)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        raise BadRequest("address not allowed") from None
    if (
        ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_unspecified
        or (ip.version == 4 and int(ip) == 0xFFFFFFFF)
    ):
        raise BadRequest("address not allowed")
    return address


def proxy_target(registry: Registry, rt: ResourceType, namespace: str | None, text: str) -> tuple[str, ProxyTarget]:
    """(object name, target) of `<plural>/<name>/proxy` for a pod, a service or a node."""
    sub = rt.subresource("proxy")
    kind = sub.proxy if sub is not None else None
    scheme, name, port = split_scheme_name_port(text, kind or "node")
    if kind == "pod":
        pod = registry.get(rt, namespace, name)
        address = proxyable(str((pod.get("status") or {}).get("podIP") or ""))
        return name, ProxyTarget(scheme or "http", address, _port(port))
    if kind == "service":
        return name, _service_target(registry, rt, namespace or "", name, scheme, port)
    if kind == "node":
        node = registry.get(rt, None, name)
        host, agent_port = _node_address(node)
        proxyable(host)
        if not port or port == str(agent_port):
            return name, ProxyTarget(scheme or "https", host, agent_port, node_agent=True)
        return name, ProxyTarget(scheme or "http", host, _port(port))
    raise MethodNotAllowed()


def _port(text: str) -> int | None:
    if not text:
        return None
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise BadRequest(f'invalid port "{text}"')
    return int(text)


def _service_target(
    registry: Registry, rt: ResourceType, namespace: str, name: str, scheme: str, port: str
) -> ProxyTarget:
    service = registry.get(rt, namespace, name)
    ports = [p for p in (service.get("spec") or {}).get("ports") or [] if isinstance(p, dict)]
    chosen = next((p for p in ports if not port or p.get("name") == port or str(p.get("port")) == port), None)
    if chosen is None:
        raise BadRequest(f'no service port "{port}" found for service "{name}"')
    endpoints = registry.catalog.known_type("", "v1", "endpoints")
    try:
        found = registry.get(endpoints, namespace, name)
    except NotFound:
        found = {}
    for subset in found.get("subsets") or []:
        match = next((p for p in subset.get("ports") or [] if p.get("name", "") == chosen.get("name", "")), None)
        addresses = subset.get("addresses") or []
        if match is not None and addresses:
            return ProxyTarget(scheme or "http", proxyable(str(addresses[0].get("ip", ""))), int(match["port"]))
    raise ServiceUnavailable(f'no endpoints available for service "{name}"')


def _node_address(node: dict) -> tuple[str, int]:
    status = node.get("status") or {}
    addresses = [a for a in status.get("addresses") or [] if isinstance(a, dict)]
    host = next(
        (
            str(a.get("address"))
            for kind in PREFERRED_ADDRESS_TYPES
            for a in addresses
            if a.get("type") == kind and a.get("address")
        ),
        None,
    )
    if host is None:
        known = " ".join(f"{{{a.get('type', '')} {a.get('address', '')}}}" for a in addresses)
        raise InternalError(f"no preferred addresses found; known addresses: [{known}]")
    port = ((status.get("daemonEndpoints") or {}).get("kubeletEndpoint") or {}).get("Port")
    return host, int(port) if isinstance(port, int) and port > 0 else DEFAULT_AGENT_PORT


def node_location(
    registry: Registry, rt: ResourceType, namespace: str | None, name: str, subresource: str, query: Mapping[str, str]
) -> NodeLocation | None:
    """The node agent's address for this request; None when there is nothing to connect to (an empty answer)."""
    sub = rt.subresource(subresource)
    if sub is None or sub.connect is None:
        raise MethodNotAllowed()
    call = sub.connect(registry.get(rt, namespace, name), query)
    if call is None:
        return None
    nodes = registry.catalog.known_type("", "v1", "nodes")
    try:
        node = registry.get(nodes, None, call.node)
    except NotFound:
        raise NotFound("nodes", "", call.node) from None
    host, port = _node_address(node)
    return NodeLocation(host, port, call)
