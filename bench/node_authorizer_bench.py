"""The Node authorizer's own cost, in process: the graph's memory at N nodes and M pods (each pod referencing a
secret, a config map, a claim and its service account, as a typical workload does), the cost of one pod's change
(its edges out and in), and the cost of a decision per request kind (a secret read along an edge and refused,
a Lease renewal, a pod watch by the system:node rules).

    python bench/node_authorizer_bench.py --nodes 1000 --pods 10000

By hand (no timing assertions in tests). The graph is fed as the watch hub feeds it, without a store.
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
from typing import Any

from orch_apiserver.auth.authz import Attributes
from orch_apiserver.auth.node import NodeAuthorizer
from orch_apiserver.auth.node.graph import NodeGraph, pod_edges
from orch_apiserver.auth.rbac.defaults import DefaultPolicy
from orch_apiserver.auth.rbac.rules import rules_from_api
from orch_apiserver.naming import Naming
from orch_apiserver.user import UserInfo


class _Following:
    """Stands for a hub subscription that is never lost: the graph is fed below, not listed."""

    lost = False

    def close(self) -> None:
        pass


def pod(index: int, nodes: int) -> dict:
    namespace, app = f"ns-{index % 50}", f"app-{index % 500}"
    return {
        "metadata": {"name": f"pod-{index}", "namespace": namespace},
        "spec": {
            "nodeName": f"node-{index % nodes}",
            "serviceAccountName": app,
            "volumes": [
                {"name": "s", "secret": {"secretName": f"{app}-secret"}},
                {"name": "d", "persistentVolumeClaim": {"claimName": f"data-{index}"}},
            ],
            "containers": [{"name": "c", "image": "app", "envFrom": [{"configMapRef": {"name": f"{app}-config"}}]}],
        },
    }


def per_call(fn: Any, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--pods", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=20000)
    args = parser.parse_args()
    naming = Naming()
    graph = NodeGraph(registry=None)  # type: ignore[arg-type]  # fed directly
    graph._follower = _Following()  # type: ignore[assignment]
    pods = [pod(i, args.nodes) for i in range(args.pods)]

    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    start = time.perf_counter()
    for i, body in enumerate(pods):
        graph._set_pod(f"/core/pods/{body['metadata']['namespace']}/pod-{i}", pod_edges(body))
    fill = time.perf_counter() - start
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()

    role = next(r for r in DefaultPolicy(naming).reference_cluster_roles() if r["metadata"]["name"] == "system:node")
    authorizer = NodeAuthorizer(graph, rules_from_api(role["rules"]), naming)
    node = UserInfo("system:node:node-7", groups=("system:nodes", "system:authenticated"))
    coordination = naming.group("coordination")
    asks = {
        "secret get, along an edge": Attributes(node, "get", resource="secrets", namespace="ns-7", name="app-7-secret"),
        "secret get, refused": Attributes(node, "get", resource="secrets", namespace="ns-8", name="app-8-secret"),
        "lease update": Attributes(
            node, "update", group=coordination, resource="leases", namespace=naming.node_lease_namespace, name="node-7"
        ),
        "pods watch (rules)": Attributes(node, "watch", resource="pods"),
        "not a node (no opinion)": Attributes(UserInfo("alice"), "get", resource="secrets", namespace="a", name="b"),
    }
    moved = pod(7, args.nodes)
    moved["spec"]["nodeName"] = "node-8"
    key = "/core/pods/ns-7/pod-7"
    edges_a, edges_b = pod_edges(pod(7, args.nodes)), pod_edges(moved)

    def change() -> None:
        graph._set_pod(key, edges_b)
        graph._set_pod(key, edges_a)

    print(f"graph: {args.nodes} nodes, {args.pods} pods: {graph.size()}")
    print(f"  memory held: {held / 2**20:.1f} MiB ({held / args.pods:.0f} B per pod); filled in {fill:.2f} s")
    print(f"  one pod's change (edges out and in): {per_call(change, args.repeat) / 2:.1f} us")
    for what, attributes in asks.items():
        print(f"  decision, {what}: {per_call(lambda a=attributes: authorizer.authorize(a), args.repeat):.2f} us")


if __name__ == "__main__":
    main()
