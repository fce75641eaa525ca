"""Storage keys: /<group or core>/<resource>/[<namespace>/]<name>, ordered like etcd's."""
from __future__ import annotations

from app.catalog import ResourceType


def resource_prefix(rt: ResourceType) -> str:
    return f"/{rt.group or 'core'}/{rt.plural}/"


def collection_prefix(rt: ResourceType, namespace: str | None) -> str:
    prefix = resource_prefix(rt)
    return f"{prefix}{namespace}/" if rt.namespaced and namespace else prefix


def object_key(rt: ResourceType, namespace: str | None, name: str) -> str:
    if rt.namespaced:
        return f"{resource_prefix(rt)}{namespace}/{name}"
    return f"{resource_prefix(rt)}{name}"
