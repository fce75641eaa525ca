"""The authorization attributes of an HTTP request (the reference's RequestInfoFactory).

Resource requests live below `/api/<version>/` and `/apis/<group>/<version>/`; everything else
(`/healthz`, `/version`, `/api`, `/apis/<group>/<version>` discovery, ...) is a non-resource path
authorized with the lowercase HTTP method as verb.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..request_info import RequestInfo, parse_request_path
from ..user import UserInfo
from .authz import Attributes

_VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


def _truthy(value: str | None) -> bool:
    return value is not None and value.lower() in ("1", "true")


def request_attributes(
    user: UserInfo, method: str, path: str, args: Mapping[str, str], info: RequestInfo | None = None
) -> Attributes:
    """The attributes of a request; `info` is its path as the handler chain parsed it (parsed here otherwise)."""
    info = parse_request_path(path) if info is None else info
    method = method.upper()
    if not info.resource_request:
        return Attributes(user, method.lower(), resource_request=False, path=path or "/")
    group, version, namespace = info.group, info.version, info.authz_namespace
    resource, name, subresource = info.resource, info.name or "", info.subresource or ""
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
