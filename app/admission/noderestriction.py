"""NodeRestriction: a node agent (user `system:node:<name>` in `system:nodes`) writes only what is its own.

Its Node (no taints, no restricted labels), mirror pods bound to it, the status of and the deletion of pods
bound to it, evictions of those, tokens bound to those, the status of claims, its Lease and its CSINode. Every
refusal is the reference's wording, so a user can search it. Nobody else is restricted by it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..auth.node.graph import CLAIM, CONFIGMAP, SECRET, pod_edges
from ..errors import ApiError, Forbidden
from ..registry.admission import CREATE, DELETE, UPDATE, Attributes, Plugin, forbidden
from ..user import node_identity

if TYPE_CHECKING:
    from ..registry.store import Registry

#: the label keys a node agent sets on its Node (the reference's kubelet labels, in the key domain)
KUBELET_LABELS = (
    "{k}/hostname",
    "topology.{k}/zone",
    "topology.{k}/region",
    "failure-domain.beta.{k}/zone",
    "failure-domain.beta.{k}/region",
    "beta.{k}/instance-type",
    "node.{k}/instance-type",
    "{k}/os",
    "{k}/arch",
    "beta.{k}/os",
    "beta.{k}/arch",
)
KUBELET_LABEL_NAMESPACES = ("kubelet.{k}", "node.{k}")


def _namespace_of(key: str) -> str:
    prefix, sep, _ = key.partition("/")
    return prefix if sep else ""


def _under(namespace: str, domain: str) -> bool:
    return namespace == domain or namespace.endswith("." + domain)


def modified_labels(new: dict | None, old: dict | None) -> set[str]:
    new, old = new or {}, old or {}
    return {k for k in set(new) | set(old) if new.get(k) != old.get(k) or (k in new) != (k in old)}


class NodeRestriction(Plugin):
    name = "NodeRestriction"
    operations = frozenset({CREATE, UPDATE, DELETE})

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        naming = registry.naming
        key_domain = naming.key_domain
        self.domains = (key_domain, naming.domain)
        self.restricted_namespace = f"node-restriction.{key_domain}"
        self.kubelet_labels = frozenset(label.format(k=key_domain) for label in KUBELET_LABELS)
        self.kubelet_namespaces = tuple(ns.format(k=key_domain) for ns in KUBELET_LABEL_NAMESPACES)
        self.mirror_annotation = naming.key("config.mirror")
        self.lease_namespace = naming.node_lease_namespace
        catalog = registry.catalog
        self.pods = catalog.known_type("", "v1", "pods")
        self.nodes = catalog.known_type("", "v1", "nodes")
        self._by_resource = {
            ("", "pods"): self._pod,
            ("", "nodes"): self._node,
            ("", "persistentvolumeclaims"): self._claim,
            ("", "serviceaccounts"): self._service_account,
            (naming.group("coordination"), "leases"): self._lease,
            (naming.group("storage"), "csinodes"): self._csinode,
        }

    def handles(self, attrs: Attributes) -> bool:
        return attrs.operation in self.operations and node_identity(attrs.user) is not None

    def admit(self, attrs: Attributes) -> None:  # the reference's is a mutating plugin: it runs in that phase
        node = node_identity(attrs.user)
        if node is None:
            return
        if not node:
            username = attrs.user.username if attrs.user else ""
            raise forbidden(attrs, f'could not determine node from user "{username}"')
        check = self._by_resource.get((attrs.rt.group, attrs.rt.plural))
        if check is not None:
            check(node, attrs)

    # -- pods -----------------------------------------------------------------------------------------------

    def _existing_pod(self, attrs: Attributes, name: str) -> dict:
        try:
            return self.registry.get(self.pods, attrs.namespace, name)
        except Forbidden:
            raise
        except ApiError as err:
            if err.code == 404:
                raise
            raise forbidden(attrs, str(err)) from err

    def _pod(self, node: str, attrs: Attributes) -> None:
        if attrs.subresource == "status":
            self._pod_status(node, attrs)
        elif attrs.subresource == "eviction":
            self._eviction(node, attrs)
        elif attrs.subresource:
            raise forbidden(
                attrs, f"unexpected pod subresource \"{attrs.subresource}\", only 'status' and 'eviction' are allowed"
            )
        elif attrs.operation == CREATE:
            self._mirror_pod(node, attrs)
        elif attrs.operation == DELETE:
            existing = attrs.old or self._existing_pod(attrs, attrs.name)
            if _node_of(existing) != node:
                raise forbidden(attrs, f'node "{node}" can only delete pods with spec.nodeName set to itself')
        else:
            raise forbidden(
                attrs, f'unexpected operation "{attrs.operation}", node "{node}" can only create and delete mirror pods'
            )

    def _mirror_pod(self, node: str, attrs: Attributes) -> None:
        pod = attrs.obj or {}
        md = pod.get("metadata") or {}
        if self.mirror_annotation not in (md.get("annotations") or {}):
            raise forbidden(
                attrs,
                f'pod does not have "{self.mirror_annotation}" annotation, node "{node}" can only create mirror pods',
            )
        if _node_of(pod) != node:
            raise forbidden(attrs, f'node "{node}" can only create pods with spec.nodeName set to itself')
        self._owned_by_node(node, attrs, md.get("ownerReferences") or [])
        if (pod.get("spec") or {}).get("serviceAccountName"):
            raise forbidden(attrs, f'node "{node}" can not create pods that reference a service account')
        edges = pod_edges(pod)
        kinds = {kind for kind, _, _ in edges.refs} if edges is not None else set()
        for kind, word in ((SECRET, "secrets"), (CONFIGMAP, "configmaps"), (CLAIM, "persistentvolumeclaims")):
            if kind in kinds:
                raise forbidden(attrs, f'node "{node}" can not create pods that reference {word}')

    def _owned_by_node(self, node: str, attrs: Attributes, owners: list) -> None:
        if len(owners) > 1:
            raise forbidden(attrs, f'node "{node}" can only create pods with a single owner reference set to itself')
        owner = owners[0] if owners and isinstance(owners[0], dict) else None
        if owner is None or (owner.get("apiVersion"), owner.get("kind"), owner.get("name")) != ("v1", "Node", node):
            raise forbidden(attrs, f'node "{node}" can only create pods with an owner reference set to itself')
        if owner.get("controller") is not True:
            raise forbidden(
                attrs, f'node "{node}" can only create pods with a controller owner reference set to itself'
            )
        if owner.get("blockOwnerDeletion") is True:
            raise forbidden(attrs, f'node "{node}" must not set blockOwnerDeletion on an owner reference')
        uid = (self.registry.get(self.nodes, None, node).get("metadata") or {}).get("uid")
        if owner.get("uid") != uid:
            raise forbidden(attrs, f"node {node} UID mismatch: expected {owner.get('uid')} got {uid}")

    def _pod_status(self, node: str, attrs: Attributes) -> None:
        if attrs.operation != UPDATE:
            raise forbidden(attrs, f'unexpected operation "{attrs.operation}"')
        old, new = attrs.old or {}, attrs.obj or {}
        if _node_of(old) != node:
            raise forbidden(
                attrs, f'node "{node}" can only update pod status for pods with spec.nodeName set to itself'
            )
        if ((old.get("metadata") or {}).get("labels") or {}) != ((new.get("metadata") or {}).get("labels") or {}):
            raise forbidden(attrs, f'node "{node}" cannot update labels through pod status')

    def _eviction(self, node: str, attrs: Attributes) -> None:
        if attrs.operation != CREATE:
            raise forbidden(attrs, f"unexpected operation {attrs.operation}")
        name = attrs.name or ((attrs.obj or {}).get("metadata") or {}).get("name", "")
        if not name:
            raise forbidden(attrs, "could not determine pod from request data")
        if _node_of(self._existing_pod(attrs, name)) != node:
            raise forbidden(attrs, f"node {node} can only evict pods with spec.nodeName set to itself")

    # -- nodes ----------------------------------------------------------------------------------------------

    def _node(self, node: str, attrs: Attributes) -> None:
        requested = attrs.name or ((attrs.obj or {}).get("metadata") or {}).get("name", "")
        if requested != node:
            raise forbidden(attrs, f'node "{node}" is not allowed to modify node "{requested}"')
        new_labels = ((attrs.obj or {}).get("metadata") or {}).get("labels")
        if attrs.operation == CREATE:
            refused = self._forbidden_labels(modified_labels(new_labels, None))
            if refused:
                raise forbidden(attrs, f'node "{node}" is not allowed to set the following labels: {refused}')
        elif attrs.operation == UPDATE and attrs.obj is not None:
            old = attrs.old or {}
            if ((attrs.obj.get("spec") or {}).get("taints") or []) != ((old.get("spec") or {}).get("taints") or []):
                raise forbidden(attrs, f'node "{node}" is not allowed to modify taints')
            refused = self._forbidden_labels(modified_labels(new_labels, (old.get("metadata") or {}).get("labels")))
            if refused:
                raise forbidden(attrs, f"is not allowed to modify labels: {refused}")

    def _forbidden_labels(self, keys: set[str]) -> str:
        """The keys a node may not set, sorted and joined as the reference lists them; "" when none."""
        refused = set()
        for key in keys:
            namespace = _namespace_of(key)
            restricted = _under(namespace, self.restricted_namespace)
            if restricted or (
                any(_under(namespace, d) for d in self.domains) and not self._kubelet_label(key, namespace)
            ):
                refused.add(key)
        return ", ".join(sorted(refused))

    def _kubelet_label(self, key: str, namespace: str) -> bool:
        return key in self.kubelet_labels or any(_under(namespace, ns) for ns in self.kubelet_namespaces)

    # -- claims, tokens, leases, CSINodes -------------------------------------------------------------------

    def _claim(self, node: str, attrs: Attributes) -> None:
        if attrs.subresource != "status":
            raise forbidden(attrs, "may only update PVC status")
        if attrs.operation != UPDATE:
            raise forbidden(attrs, f'unexpected operation "{attrs.operation}"')
        changed = sorted(_claim_changes(attrs.old or {}, attrs.obj or {}))
        if changed:
            raise forbidden(
                attrs,
                f'node "{node}" is not allowed to update fields other than status.capacity and status.conditions: '
                + ", ".join(changed),
            )

    def _service_account(self, node: str, attrs: Attributes) -> None:
        if attrs.operation != CREATE or attrs.subresource != "token":
            return
        ref = ((attrs.obj or {}).get("spec") or {}).get("boundObjectRef")
        if (
            not isinstance(ref, dict)
            or ref.get("apiVersion") != "v1"
            or ref.get("kind") != "Pod"
            or not ref.get("name")
        ):
            raise forbidden(attrs, "node requested token not bound to a pod")
        if not ref.get("uid"):
            raise forbidden(attrs, "node requested token with a pod binding without a uid")
        pod = self._existing_pod(attrs, str(ref["name"]))
        if ref["uid"] != (pod.get("metadata") or {}).get("uid"):
            raise forbidden(
                attrs,
                f"the UID in the bound object reference ({ref['uid']}) does not match the UID in record. "
                "The object might have been deleted and then recreated",
            )
        if _node_of(pod) != node:
            raise forbidden(attrs, "node requested token bound to a pod scheduled on a different node")

    def _lease(self, node: str, attrs: Attributes) -> None:
        if attrs.namespace != self.lease_namespace:
            raise forbidden(attrs, f'can only access leases in the "{self.lease_namespace}" system namespace')
        if _own_name(attrs) != node:
            raise forbidden(attrs, "can only access node lease with the same name as the requesting node")

    def _csinode(self, node: str, attrs: Attributes) -> None:
        if _own_name(attrs) != node:
            raise forbidden(attrs, "can only access CSINode with the same name as the requesting node")


def _node_of(pod: dict) -> str:
    return str((pod.get("spec") or {}).get("nodeName") or "")


def _own_name(attrs: Attributes) -> str:
    """The name written: the new object's on create (the request names none), the request's otherwise."""
    if attrs.operation == CREATE:
        return str(((attrs.obj or {}).get("metadata") or {}).get("name") or "")
    return attrs.name


#: what a node may change in a claim's status; metadata the server keeps is not the node's change either
_CLAIM_FREE_STATUS = ("capacity", "conditions", "allocatedResources", "allocatedResourceStatuses")
_CLAIM_FREE_METADATA = ("resourceVersion", "managedFields", "generation")


def _claim_changes(old: dict, new: dict) -> set[str]:
    """The fields outside the ones a node may update that differ between the old and new claim."""
    changed = set()
    for top in set(old) | set(new):
        before, after = old.get(top), new.get(top)
        if top in ("status", "metadata") and isinstance(before, dict) and isinstance(after, dict):
            free = _CLAIM_FREE_STATUS if top == "status" else _CLAIM_FREE_METADATA
            for field in set(before) | set(after):
                if field not in free and before.get(field) != after.get(field):
                    changed.add(f"{top}.{field}")
        elif before != after:
            changed.add(top)
    return changed
