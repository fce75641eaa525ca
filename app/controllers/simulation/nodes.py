"""The simulation's simulated nodes (Node objects, Leases, a kubelet's pod lifecycle) and the scheduler.

`SimulatedNodes` keeps `sim-node-0..N-1` registered and Ready as N kubelets would: each Node with capacity,
conditions, addresses and nodeInfo, its status reported every nodeStatusReportFrequency (5 min), its Lease in the
node-lease namespace renewed every 10 s, and the not-ready taint of TaintNodesByCondition taken off once Ready (the
node lifecycle controller's part). Simulated nodes beyond N (a restart with a smaller N) are deleted."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ...errors import AlreadyExists, Conflict, NotFound
from ..base import Context, Controller
from . import cluster
from .kubelet import PodLifecycle
from .scheduler import Scheduler
from .workload_common import rfc3339

if TYPE_CHECKING:
    from ...catalog import ResourceType
    from ...registry.informer import Change

#: the reference's node lease duration (kubelet --node-lease-duration-seconds)
LEASE_DURATION_SECONDS = 40
KUBELET_VERSION = "v1.23.0-sim"
CONDITIONS = (
    ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
)


class SimulatedNodes(Controller):
    name = "sim-nodes"
    account = "sim-node-agent"
    resync_seconds = 10.0

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.nodes, self.leases = ctx.kind("", "nodes"), ctx.kind("coordination", "leases")
        self.identities = cluster.NodeIdentities(ctx, self.client)  # the node agent's writes, as each node
        self.count = cluster.node_count(ctx)
        self.lease_every = timedelta(seconds=cluster.seconds(ctx, "SIMULATE_NODE_LEASE_SECONDS"))
        self.status_every = timedelta(seconds=cluster.seconds(ctx, "SIMULATE_NODE_STATUS_SECONDS"))
        self.label = cluster.simulated_label(ctx.naming)

    def watches(self) -> list[ResourceType]:
        return [self.nodes]

    def relevant(self, change: Change) -> bool:
        # a deleted simulated node registers again, as a kubelet does; our own status writes need nothing
        return change.type == "DELETED" and cluster.node_index(change.key.rsplit("/", 1)[-1]) is not None

    def sync(self) -> None:
        now = self.now()
        present = {str(n["metadata"]["name"]): n for n in self.client.list(self.nodes)}
        for name, node in present.items():
            index = cluster.node_index(name)
            labels = (node.get("metadata") or {}).get("labels") or {}
            if index is not None and index >= self.count and labels.get(self.label) == "true":
                self._delete(self.nodes, None, node)
        leases = {
            str(lease["metadata"]["name"]): lease
            for lease in self.client.list(self.leases, self.naming.node_lease_namespace)
        }
        for name, lease in leases.items():
            index = cluster.node_index(name)
            if index is not None and index >= self.count and name not in present:
                self._delete(self.leases, self.naming.node_lease_namespace, lease)
        next_due = now + self.lease_every
        for index in range(self.count):
            name = cluster.node_name(index)
            registered = present.get(name) or self._register(index, now)
            if registered is None:
                continue
            node = self._report(registered, index, now)
            self._untaint(node)
            renewed = self._renew(leases.get(name), node, now)
            next_due = min(next_due, renewed + self.lease_every, self._reported(node) + self.status_every)
        self.resync_seconds = max(cluster.until(self.now(), next_due), 0.05)

    # -- the Node ---------------------------------------------------------------------------------------

    def _register(self, index: int, now: datetime) -> dict | None:
        name, n = cluster.node_name(index), self.naming
        cidr = str(cluster.pod_cidr(index))
        node = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": name,
                "labels": {
                    f"{n.key_group('beta')}/arch": "amd64",
                    f"{n.key_group('beta')}/os": "linux",
                    n.key("arch"): "amd64",
                    n.key("hostname"): name,
                    n.key("os"): "linux",
                    f"{n.key_group('node')}/instance-type": "simulated",
                    self.label: "true",
                },
                "annotations": {f"{n.key_group('node.alpha')}/ttl": "0"},
            },
            "spec": {"podCIDR": cidr, "podCIDRs": [cidr], "providerID": f"sim://{name}"},
        }
        try:
            return self.client.create(self.nodes, None, node)
        except AlreadyExists:
            return self.client.find(self.nodes, None, name)

    def _status(self, node: dict, index: int, now: datetime) -> dict:
        name = cluster.node_name(index)
        resources = {
            "cpu": str(cluster.setting(self.ctx, "SIMULATE_NODE_CPU")),
            "memory": str(cluster.setting(self.ctx, "SIMULATE_NODE_MEMORY")),
            "pods": str(cluster.setting(self.ctx, "SIMULATE_NODE_PODS")),
            "ephemeral-storage": "100Gi",
        }
        old = {c.get("type"): c for c in (node.get("status") or {}).get("conditions") or [] if isinstance(c, dict)}
        stamp = rfc3339(now)
        conditions = []
        for kind, status, reason, message in CONDITIONS:
            previous = old.get(kind) or {}
            moved = previous.get("status") != status
            conditions.append(
                {
                    "type": kind,
                    "status": status,
                    "lastHeartbeatTime": stamp,
                    "lastTransitionTime": stamp if moved else previous.get("lastTransitionTime", stamp),
                    "reason": reason,
                    "message": message,
                }
            )
        digest = hashlib.sha256(name.encode()).hexdigest()
        return {
            "capacity": resources,
            "allocatable": dict(resources),
            "conditions": conditions,
            "addresses": [
                {"type": "InternalIP", "address": cluster.node_ip(index)},
                {"type": "Hostname", "address": name},
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "machineID": digest[:32],
                "systemUUID": f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}",
                "bootID": digest[32:64],
                "kernelVersion": "simulated",
                "osImage": "orch-apiserver simulated node",
                "containerRuntimeVersion": "sim://0",
                "kubeletVersion": KUBELET_VERSION,
                "kubeProxyVersion": KUBELET_VERSION,
                "operatingSystem": "linux",
                "architecture": "amd64",
            },
        }

    def _reported(self, node: dict) -> datetime:
        for condition in (node.get("status") or {}).get("conditions") or []:
            if isinstance(condition, dict) and condition.get("type") == "Ready":
                when = cluster.parse_time(condition.get("lastHeartbeatTime"))
                if when is not None and condition.get("status") == "True":
                    return when
        return datetime.min.replace(tzinfo=self.now().tzinfo)

    def _report(self, node: dict, index: int, now: datetime) -> dict:
        """Post the node's status when it is not Ready or its last report is older than the report interval."""
        if now - self._reported(node) < self.status_every:
            return node
        try:
            as_node = self.identities.client(str(node["metadata"]["name"]))
            return as_node.update(self.nodes, None, {**node, "status": self._status(node, index, now)}, "status")
        except (Conflict, NotFound):
            return node  # changed or deleted meanwhile: the next round reports again

    def _untaint(self, node: dict) -> None:
        """Take the not-ready NoSchedule taint off a Ready node (the reference's node lifecycle controller)."""
        taints = (node.get("spec") or {}).get("taints") or []
        not_ready = f"{self.naming.key_group('node')}/not-ready"
        kept = [t for t in taints if not (isinstance(t, dict) and t.get("key") == not_ready)]
        if len(kept) == len(taints):
            return
        spec = {**(node.get("spec") or {}), "taints": kept}
        if not kept:
            spec.pop("taints")
        try:
            self.client.update(self.nodes, None, {**node, "spec": spec})
        except (Conflict, NotFound):
            pass  # the next round sees it again

    # -- the Lease ----------------------------------------------------------------------------------------

    def _renew(self, lease: dict | None, node: dict, now: datetime) -> datetime:
        """Renew the node's Lease when due; returns its renewTime."""
        namespace, name = self.naming.node_lease_namespace, str(node["metadata"]["name"])
        if lease is not None:
            renewed = cluster.parse_time((lease.get("spec") or {}).get("renewTime"))
            if renewed is not None and now - renewed < self.lease_every:
                return renewed
        spec = {
            "holderIdentity": name,
            "leaseDurationSeconds": LEASE_DURATION_SECONDS,
            "renewTime": cluster.micro_time(now),
        }
        try:
            if lease is None:
                # no ownerReference to the Node (the kubelet sets one): the garbage collector, which reads kinds one
                # after another, could take a Lease made right after its Node for an orphan; scale-down deletes it
                body = {
                    "apiVersion": f"{self.naming.group('coordination')}/v1",
                    "kind": "Lease",
                    "metadata": {"name": name, "namespace": namespace},
                    "spec": spec,
                }
                self.identities.client(name).create(self.leases, namespace, body)
            else:
                renewed_lease = {**lease, "spec": {**(lease.get("spec") or {}), **spec}}
                self.identities.client(name).update(self.leases, namespace, renewed_lease)
        except (AlreadyExists, Conflict, NotFound):
            return now - self.lease_every  # raced: try again next round
        return now

    def _delete(self, rt: ResourceType, namespace: str | None, obj: dict) -> None:
        md = obj.get("metadata") or {}
        try:
            self.client.delete(rt, namespace, str(md.get("name")), str(md.get("uid") or ""))
        except (Conflict, NotFound):
            pass


NODE_CONTROLLERS: tuple[type[Controller], ...] = (SimulatedNodes, PodLifecycle, Scheduler)
