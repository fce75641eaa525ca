"""The authorization attributes of an HTTP request (the reference's RequestInfoFactory).

Resource requests live below `/api/<version>/` and `/apis/<group>/<version>/`; everything else
(`/healthz`, `/version`, `/api`, `/apis/<group>/<version>` discovery, ...) is a non-resource path
authorized with the lowercase HTTP method as verb.
"""

from __future__ import annotations

from collections.abc import Mapping

from app.auth.authz import Attributes
from app.user import UserInfo

NAMESPACE_SUBRESOURCES = ("status", "finalize")
_VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


def _truthy(value: str | None) -> bool:
    return value is not None and value.lower() in ("1", "true")


def request_attributes(user: UserInfo, method: str, path: str, args: Mapping[str, str]) -> Attributes:
    parts = [p for p in path.split("/") if p]
    method = method.upper()
    if len(parts) >= 3 and parts[0] == "api":
        group, version, rest = "", parts[1], parts[2:]
    elif len(parts) >= 4 and parts[0] == "apis":
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return Attributes(user, method.lower(), resource_request=False, path=path or "/")
    namespace = ""
    if rest[0] == "namespaces" and len(rest) > 1:
        namespace = rest[1]
        if len(rest) > 2 and rest[2] not in NAMESPACE_SUBRESOURCES:
            rest = rest[2:]
    resource = rest[0]
    name = rest[1] if len(rest) > 1 else ""
    subresource = rest[2] if len(rest) > 2 else ""
    if method in ("GET", "HEAD"):
        verb = "get" if name else "list"
        if _truthy(args.get("watch")):
            verb = "watch"
    else:
        verb = _VERBS.get(method, method.lower())
        if verb == "delete" and not name:
            verb = "deletecollection"
    if verb in ("list", "watch", "deletecollection") and not name:
        selector = args.get("fieldSelector", "")
        for requirement in selector.split(","):
            key, _, value = requirement.partition("=")
            if key.strip() == "metadata.name" and value:
                name = value.lstrip("=").strip()  # a watch or list of one object is authorized by name
    return Attributes(
        user,
        verb,
        group=group,
        version=version,
        resource=resource,
        subresource=subresource,
        namespace=namespace,
        name=name,
    )
