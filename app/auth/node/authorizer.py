"""The `Node` authorization mode: what a node agent (user `system:node:<name>` in `system:nodes`) may do.

As the reference's node authorizer: reads of secrets, config maps, claims, volumes and volume attachments, and
tokens of service accounts, are allowed only along an edge of the graph to the asking node; a node's Lease and
CSINode only under its own name; everything else by the `system:node` ClusterRole's rules, held here (no
binding needed). A refusal is `no opinion` with the reason, so the next mode (RBAC) may still allow it.
"""

from __future__ import annotations

from ...naming import Naming
from ...user import node_identity
from ..authz import Attributes, Decision
from ..rbac.rules import Rule, allows
from .graph import CLAIM, CONFIGMAP, SECRET, SERVICE_ACCOUNT, NodeGraph

LEASE_VERBS = ("get", "create", "update", "patch", "delete")


def no_relationship(node: str) -> str:
    return f"no relationship found between node '{node}' and this object"


class NodeAuthorizer:
    def __init__(self, graph: NodeGraph, rules: list[Rule], naming: Naming) -> None:
        self.graph = graph
        self.rules = rules
        self.lease_namespace = naming.node_lease_namespace
        storage = naming.group("storage")
        #: (group, resource) -> how requests for it are decided
        self._subdivided = {
            ("", "secrets"): lambda n, a: self._read_namespaced(n, SECRET, a),
            ("", "configmaps"): lambda n, a: self._read_namespaced(n, CONFIGMAP, a),
            ("", "persistentvolumeclaims"): self._claim,
            ("", "persistentvolumes"): lambda n, a: self._get(n, "persistentvolume", a),
            (storage, "volumeattachments"): lambda n, a: self._get(n, "volumeattachment", a),
            ("", "serviceaccounts"): self._create_token,
            (naming.group("coordination"), "leases"): self._lease,
            (storage, "csinodes"): self._csinode,
        }

    def authorize(self, attributes: Attributes) -> Decision:
        node = node_identity(attributes.user)
        if node is None:
            return Decision.abstain()
        if not node:
            return Decision.abstain(f'unknown node for user "{attributes.user.username}"')
        if attributes.resource_request:
            decide = self._subdivided.get((attributes.group, attributes.resource))
            if decide is not None:
                return decide(node, attributes)
        if any(allows(rule, attributes) for rule in self.rules):
            return Decision.allow()
        return Decision.abstain()

    def _path(self, node: str, kind: str, attributes: Attributes) -> Decision:
        if not attributes.name:
            return Decision.abstain("No Object name found")
        if self.graph.may_read(node, kind, attributes.namespace, attributes.name):
            return Decision.allow()
        return Decision.abstain(no_relationship(node))

    def _read_namespaced(self, node: str, kind: str, attributes: Attributes) -> Decision:
        if attributes.verb not in ("get", "list", "watch"):
            return Decision.abstain("can only read resources of this type")
        if attributes.subresource:
            return Decision.abstain("cannot read subresource")
        if not attributes.namespace:
            return Decision.abstain("can only read namespaced object of this type")
        return self._path(node, kind, attributes)

    def _get(self, node: str, kind: str, attributes: Attributes) -> Decision:
        if attributes.verb != "get":
            return Decision.abstain("can only get individual resources of this type")
        if attributes.subresource:
            return Decision.abstain("cannot get subresource")
        return self._path(node, kind, attributes)

    def _claim(self, node: str, attributes: Attributes) -> Decision:
        if attributes.subresource != "status":
            return self._get(node, CLAIM, attributes)
        if attributes.verb not in ("update", "patch"):
            return Decision.abstain("can only get/update/patch this type")
        return self._path(node, CLAIM, attributes)

    def _create_token(self, node: str, attributes: Attributes) -> Decision:
        if attributes.verb != "create" or not attributes.name:
            return Decision.abstain("can only create tokens for individual service accounts")
        if attributes.subresource != "token":
            return Decision.abstain("can only create token subresource of serviceaccount")
        return self._path(node, SERVICE_ACCOUNT, attributes)

    def _lease(self, node: str, attributes: Attributes) -> Decision:
        if attributes.verb not in LEASE_VERBS:
            return Decision.abstain("can only get, create, update, patch, or delete a node lease")
        if attributes.namespace != self.lease_namespace:
            return Decision.abstain(f'can only access leases in the "{self.lease_namespace}" system namespace')
        if attributes.verb != "create" and attributes.name != node:  # a create's name: NodeRestriction checks it
            return Decision.abstain("can only access node lease with the same name as the requesting node")
        return Decision.allow()

    def _csinode(self, node: str, attributes: Attributes) -> Decision:
        if attributes.verb not in LEASE_VERBS:
            return Decision.abstain("can only get, create, update, patch, or delete a CSINode")
        if attributes.subresource:
            return Decision.abstain("cannot authorize CSINode subresources")
        if attributes.verb != "create" and attributes.name != node:
            return Decision.abstain("can only access CSINode with the same name as the requesting node")
        return Decision.allow()
