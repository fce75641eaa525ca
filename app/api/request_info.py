"""Turning a resource path below a group version into (namespace, resource, name, subresource)."""
from __future__ import annotations

from dataclasses import dataclass

from app.errors import RouteNotFound

NAMESPACE_SUBRESOURCES = ("status", "finalize")


@dataclass(frozen=True)
class RequestInfo:
    resource: str
    namespace: str | None = None
    name: str | None = None
    subresource: str | None = None


def parse_resource_path(path: str) -> RequestInfo:
    """`path` is what follows /api/v1/ or /apis/<g>/<v>/ (the reference's RequestInfoFactory rules)."""
    parts = [p for p in path.split("/") if p != ""]
    if not parts:
        raise RouteNotFound()
    namespace = None
    if parts[0] == "namespaces" and len(parts) > 2 and parts[2] not in NAMESPACE_SUBRESOURCES:
        namespace = parts[1]
        parts = parts[2:]
    if len(parts) > 3:
        raise RouteNotFound()
    return RequestInfo(
        resource=parts[0],
        namespace=namespace,
        name=parts[1] if len(parts) > 1 else None,
        subresource=parts[2] if len(parts) > 2 else None,
    )
