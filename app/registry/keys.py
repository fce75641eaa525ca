"""Storage keys: /<group or core>/<resource>/[<namespace>/]<name>, ordered like etcd's (the group and
resource of the storage version: a kind served in several versions is stored once)."""

from __future__ import annotations

from ..catalog import ResourceType


def resource_prefix(rt: ResourceType) -> str:
    """Every served version of a kind shares its storage type's prefix (objects are stored once)."""
    conv = rt.conversion
    if conv is not None:
        return f"/{conv.storage_group or 'core'}/{conv.storage_plural}/"
    return f"/{rt.group or 'core'}/{rt.plural}/"


def collection_prefix(rt: ResourceType, namespace: str | None) -> str:
    prefix = resource_prefix(rt)
    return f"{prefix}{namespace}/" if rt.namespaced and namespace else prefix


def object_key(rt: ResourceType, namespace: str | None, name: str) -> str:
    if rt.namespaced:
        return f"{resource_prefix(rt)}{namespace}/{name}"
    return f"{resource_prefix(rt)}{name}"
