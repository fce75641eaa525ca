"""Turning a resource path below a group version into (namespace, resource, name, subresource)."""

from __future__ import annotations

from dataclasses import dataclass

from app.errors import RouteNotFound

NAMESPACE_SUBRESOURCES = ("status", "finalize")


PROXY = "proxy"


@dataclass(frozen=True)
class RequestInfo:
    resource: str
    namespace: str | None = None
    name: str | None = None
    subresource: str | None = None
    #: below a proxy subresource: the path the request goes on to (`/` at least)
    proxy_path: str | None = None


def parse_resource_path(path: str) -> RequestInfo:
    """`path` is what follows /api/v1/ or /apis/<g>/<v>/ (the reference's RequestInfoFactory rules)."""
    parts = [p for p in path.split("/") if p != ""]
    if not parts:
        raise RouteNotFound()
    namespace = None
    if parts[0] == "namespaces" and len(parts) > 2 and parts[2] not in NAMESPACE_SUBRESOURCES:
        namespace = parts[1]
        parts = parts[2:]
    if len(parts) >= 3 and parts[2] == PROXY:  # what follows is the target's own path, trailing slash kept
        rest = "/".join(parts[3:])
        trailing = "/" if path.endswith("/") and rest else ""
        return RequestInfo(parts[0], namespace, parts[1], PROXY, f"/{rest}{trailing}")
    if len(parts) > 3:
        raise RouteNotFound()
    return RequestInfo(
        resource=parts[0],
        namespace=namespace,
        name=parts[1] if len(parts) > 1 else None,
        subresource=parts[2] if len(parts) > 2 else None,
    )
