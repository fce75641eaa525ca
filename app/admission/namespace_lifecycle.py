"""NamespaceLifecycle: no new content in a missing or terminating namespace; the immortal namespaces stay."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import Forbidden, NotFound
from ..registry.admission import CREATE, DELETE, Attributes, Plugin
from ..registry.keys import object_key

if TYPE_CHECKING:
    from ..registry.store import Registry


class NamespaceLifecycle(Plugin):
    name = "NamespaceLifecycle"
    operations = frozenset({CREATE, DELETE})

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        naming = registry.naming
        self.immortal = frozenset({"default", naming.system_namespace, naming.public_namespace})
        self.namespaces = registry.catalog.known_type("", "v1", "namespaces")

    def validate(self, attrs: Attributes) -> None:
        rt = attrs.rt
        if attrs.operation == DELETE:
            if rt.group == "" and rt.plural == "namespaces" and not attrs.subresource and attrs.name in self.immortal:
                raise Forbidden(
                    f'namespaces "{attrs.name}" is forbidden: this namespace may not be deleted',
                    "namespaces",
                    "",
                    attrs.name,
                )
            return
        if not rt.namespaced or attrs.subresource or rt.plural == "localsubjectaccessreviews":
            return  # an access review says nothing about the namespace (as the reference: that would leak it)
        namespace = attrs.namespace
        live = self.registry.live_namespaces
        if live is not None and live.is_live(namespace):
            return
        stored = self.registry.storage.get(object_key(self.namespaces, None, namespace))
        if stored is None:
            raise NotFound("namespaces", "", namespace)
        if (stored.decode().get("metadata") or {}).get("deletionTimestamp"):
            raise Forbidden(
                f'{rt.group_resource} "{attrs.name}" is forbidden: unable to create new content in namespace '
                f"{namespace} because it is being terminated",
                rt.plural,
                rt.group,
                attrs.name,
                causes=[
                    {
                        "reason": "NamespaceTerminating",
                        "message": f"namespace {namespace} is being terminated",
                        "field": "metadata.namespace",
                    }
                ],
            )
