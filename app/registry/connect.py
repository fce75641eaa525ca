"""Where a connect subresource's request goes: the node agent of the object's node, at the node's preferred
address and its agent's port (the reference's --kubelet-preferred-address-types default order)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.catalog import NodeCall, ResourceType
from app.errors import InternalError, MethodNotAllowed, NotFound

if TYPE_CHECKING:
    from app.registry.store import Registry

PREFERRED_ADDRESS_TYPES = ("Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP")
DEFAULT_AGENT_PORT = 10250


@dataclass(frozen=True)
class NodeLocation:
    host: str
    port: int
    call: NodeCall


def node_location(registry: Registry, rt: ResourceType, namespace: str | None, name: str, subresource: str,
                  query: Mapping[str, str]) -> NodeLocation | None:
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
    status = node.get("status") or {}
    addresses = [a for a in status.get("addresses") or [] if isinstance(a, dict)]
    host = next((str(a.get("address")) for kind in PREFERRED_ADDRESS_TYPES for a in addresses
                 if a.get("type") == kind and a.get("address")), None)
    if host is None:
        known = " ".join(f"{{{a.get('type', '')} {a.get('address', '')}}}" for a in addresses)
        raise InternalError(f"no preferred addresses found; known addresses: [{known}]")
    port = ((status.get("daemonEndpoints") or {}).get("kubeletEndpoint") or {}).get("Port")
    return NodeLocation(host, int(port) if isinstance(port, int) and port > 0 else DEFAULT_AGENT_PORT, call)
