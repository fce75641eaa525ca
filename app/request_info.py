"""A request path read once, as the reference's RequestInfoFactory reads it: authorization, the handler, metrics
and audit all use the one `RequestInfo` the handler chain parses (app/pipeline.py)."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import RouteNotFound

NAMESPACE_SUBRESOURCES = ("status", "finalize")
PROXY = "proxy"


@dataclass(frozen=True)
class RequestInfo:
    """Below `/api/<version>/` or `/apis/<group>/<version>/` a resource request; any other path is not."""

    resource: str = ""
    #: the namespace of a namespaced object or collection (None for cluster-scoped ones, namespaces included)
    namespace: str | None = None
    name: str | None = None
    subresource: str | None = None
    #: below a proxy subresource: the path the request goes on to (`/` at least)
    proxy_path: str | None = None
    resource_request: bool = True
    group: str = ""
    version: str = ""
    #: the namespace authorization sees: also a namespace object's own name, as the reference's RequestInfo
    authz_namespace: str = ""
    #: more segments than a resource path has: the handler answers 404 (after authorization, as the reference)
    too_long: bool = False

    def routed(self) -> RequestInfo:
        """This, when the handler serves such a path; RouteNotFound otherwise."""
        if not self.resource or self.too_long:
            raise RouteNotFound()
        return self


def parse_request_path(path: str) -> RequestInfo:
    """Any request path: a resource request's group, version and parts, or a non-resource path."""
    parts = [p for p in path.split("/") if p]
    trailing = "/" if path.endswith("/") else ""
    if len(parts) >= 3 and parts[0] == "api":
        group, version, below = "", parts[1], "/".join(parts[2:]) + trailing
    elif len(parts) >= 4 and parts[0] == "apis":
        group, version, below = parts[1], parts[2], "/".join(parts[3:]) + trailing
    else:
        return RequestInfo(resource_request=False)
    return parse_resource_path(below, group, version)


def parse_resource_path(path: str, group: str = "", version: str = "") -> RequestInfo:
    """`path` is what follows /api/v1/ or /apis/<g>/<v>/ (the reference's RequestInfoFactory rules)."""
    parts = [p for p in path.split("/") if p]
    if not parts:
        return RequestInfo(resource_request=False, group=group, version=version)
    namespace = None
    authz_namespace = ""
    if parts[0] == "namespaces" and len(parts) > 1:
        authz_namespace = parts[1]
        if len(parts) > 2 and parts[2] not in NAMESPACE_SUBRESOURCES:
            namespace = parts[1]
            parts = parts[2:]
    if len(parts) >= 3 and parts[2] == PROXY:  # what follows is the target's own path, trailing slash kept
        rest = "/".join(parts[3:])
        trailing = "/" if path.endswith("/") and rest else ""
        return RequestInfo(
            parts[0], namespace, parts[1], PROXY, f"/{rest}{trailing}",
            group=group, version=version, authz_namespace=authz_namespace,
        )  # fmt: skip
    return RequestInfo(
        resource=parts[0],
        namespace=namespace,
        name=parts[1] if len(parts) > 1 else None,
        subresource=parts[2] if len(parts) > 2 else None,
        group=group,
        version=version,
        authz_namespace=authz_namespace,
        too_long=len(parts) > 3,
    )
