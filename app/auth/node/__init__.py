"""The `Node` authorization mode and the graph it decides on (docs/authorization.md, "Node")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..rbac.defaults import DefaultPolicy
from ..rbac.rules import rules_from_api
from .authorizer import NodeAuthorizer
from .graph import NodeGraph

if TYPE_CHECKING:
    from ...naming import Naming
    from ...registry.store import Registry

__all__ = ["NodeAuthorizer", "NodeGraph", "node_authorizer"]


def node_authorizer(registry: Registry, naming: Naming) -> NodeAuthorizer:
    """The authorizer with its graph, and the rules of the reference's `system:node` ClusterRole."""
    role = next(r for r in DefaultPolicy(naming).reference_cluster_roles() if r["metadata"]["name"] == "system:node")
    return NodeAuthorizer(NodeGraph(registry), rules_from_api(role["rules"]), naming)
