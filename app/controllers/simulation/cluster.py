"""What the simulated nodes, their node agent and the scheduler share: settings, node names and addresses,
micro-times, and a client that can POST to a subresource (pods/binding)."""

from __future__ import annotations

import ipaddress
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ...user import AUTHENTICATED_GROUP, NODE_USER_PREFIX, NODES_GROUP, UserInfo
from ..base import Client, Context

if TYPE_CHECKING:
    from ...catalog import ResourceType
    from ...naming import Naming

#: how the reference's component names itself in events and as schedulerName
SCHEDULER_NAME = "default-scheduler"
NODE_PREFIX = "sim-node-"
#: the settings (app config keys) and their defaults; docs/simulation.md lists them
DEFAULTS: dict[str, float | str] = {
    "SIMULATE_POD_START_SECONDS": 0.2,  # bound -> Running and Ready
    "SIMULATE_POD_RUN_SECONDS": 0.5,  # Running -> Succeeded/Failed for pods that run to completion
    "SIMULATE_POD_STOP_SECONDS": 0.2,  # terminating -> gone (at most the pod's grace period)
    "SIMULATE_NODE_CPU": "4",
    "SIMULATE_NODE_MEMORY": "16Gi",
    "SIMULATE_NODE_PODS": "110",
    "SIMULATE_NODE_LEASE_SECONDS": 10.0,  # the reference's node lease renew interval (0.25 * 40 s)
    "SIMULATE_NODE_STATUS_SECONDS": 300.0,  # the reference's nodeStatusReportFrequency (5m)
}
NODE_ADDRESSES = ipaddress.ip_network("172.18.0.0/16")
POD_ADDRESSES = ipaddress.ip_network("10.244.0.0/14")


class NodeIdentities:
    """The client a simulated node's agent writes with: as the node itself (`system:node:<name>` in
    `system:nodes`, so the Node authorizer and NodeRestriction decide, as for a real kubelet) when the Node mode
    is on; else as the controller (`fallback`)."""

    def __init__(self, ctx: Context, fallback: Client) -> None:
        from ...auth.node import NodeAuthorizer

        self.ctx, self.fallback = ctx, fallback
        chain = ctx.auth.authorizer if ctx.auth is not None else None
        self.on = any(isinstance(a, NodeAuthorizer) for a in getattr(chain, "authorizers", ()))
        self._clients: dict[str, Client] = {}

    def client(self, node: str) -> Client:
        if not self.on:
            return self.fallback
        found = self._clients.get(node)
        if found is None:
            user = UserInfo(NODE_USER_PREFIX + node, groups=(NODES_GROUP, AUTHENTICATED_GROUP))
            found = self._clients[node] = Client(self.ctx, user)
        return found


def setting(ctx: Context, key: str) -> Any:
    value = ctx.settings.get(key)
    return DEFAULTS[key] if value is None or value == "" else value


def seconds(ctx: Context, key: str) -> float:
    return float(setting(ctx, key))


def node_count(ctx: Context) -> int:
    return int(ctx.settings.get("SIMULATE_NODES") or 0)


def node_name(index: int) -> str:
    return f"{NODE_PREFIX}{index}"


def node_index(name: object) -> int | None:
    """The index of a simulated node's name (sim-node-<i>), None for any other name."""
    text = str(name or "")
    digits = text.removeprefix(NODE_PREFIX)
    if text == digits or not digits.isdigit() or str(int(digits)) != digits:
        return None
    return int(digits)


def simulated_label(naming: Naming) -> str:
    """The label every simulated Node carries (sim.orch.io/node, sim.kubernetes.io/node under k8s.io)."""
    return f"{naming.key_group('sim')}/node"


def fail_annotation(naming: Naming) -> str:
    """A pod annotated with this "true" ends Failed instead of Succeeded (sim.orch.io/fail)."""
    return f"{naming.key_group('sim')}/fail"


def node_ip(index: int) -> str:
    return str(NODE_ADDRESSES[(index + 2) % NODE_ADDRESSES.num_addresses])


def pod_cidr(index: int) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    """Node i's pod range: the i-th /24 of 10.244.0.0/14 (wrapping after 1024 nodes)."""
    subnets = 1 << (24 - POD_ADDRESSES.prefixlen)
    base = POD_ADDRESSES.network_address + (index % subnets) * 256
    return ipaddress.ip_network(f"{base}/24")


def micro_time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(text: object) -> datetime | None:
    try:
        return datetime.fromisoformat(str(text))
    except ValueError:
        return None


def until(now: datetime, due: datetime) -> float:
    return max((due - now) / timedelta(seconds=1), 0.0)


class SimClient(Client):
    """The controller client plus a POST to a subresource, authorized and audited like the other writes."""

    def create_subresource(self, rt: ResourceType, namespace: str | None, name: str, sub: str, body: dict) -> dict:
        attrs = self._authorize("create", rt, namespace, name, sub)
        return self._write(
            attrs,
            201,
            lambda: self.ctx.registry.create_in_subresource(rt, namespace, name, sub, body, manager=self.manager),
        )
