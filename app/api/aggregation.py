"""Requests for aggregated group versions, proxied to their extension server after this server authenticated
and authorized them: the server's front-proxy client certificate and the user in X-Remote-* headers (the
names of --requestheader-*-headers), the answer streamed back as it comes (watches, long logs)."""

from __future__ import annotations

from urllib.parse import quote

import urllib3
from flask import Response, current_app, request

from ..context import services
from ..controllers.aggregation import Aggregation, Remote, sorted_versions
from ..errors import APIServiceUnavailable
from ..outbound import pool_for
from ..resources.apiregistration import CRD_PRIORITY, builtin_priorities
from ..user import current_user
from . import upstream

EXTENSION_KEY = "orch.aggregation"


def aggregation() -> Aggregation | None:
    return current_app.extensions.get(EXTENSION_KEY)


def remote_for(group: str, version: str) -> Remote | None:
    found = aggregation()
    return found.remote(group, version) if found is not None else None


def aggregated_versions() -> dict[str, list[str]]:
    """group -> versions served by extension servers, by their versionPriority."""
    found = aggregation()
    by_group: dict[str, list[tuple[str, int]]] = {}
    for remote in found.remotes() if found is not None else []:
        by_group.setdefault(remote.group, []).append((remote.version, remote.version_priority))
    return {group: sorted_versions(versions) for group, versions in by_group.items()}


def aggregated_discovery() -> dict[tuple[str, str], tuple[list[dict], bool]]:
    """(group, version) -> (the APIResources its extension listed at the last good check, whether Available)."""
    found = aggregation()
    if found is None:
        return {}
    return {(r.group, r.version): (found.resources(r), found.availability(r).available) for r in found.remotes()}


def aggregated_v3_paths() -> list[str]:
    """The /openapi/v3 index paths (`apis/<group>/<version>`) of available aggregated group versions."""
    found = aggregation()
    if found is None:
        return []
    return [_v3_path(r) for r in found.remotes() if found.availability(r).available]


def aggregated_openapi_v2() -> dict[str, dict]:
    found = aggregation()
    return found.openapi_v2() if found is not None else {}


def remote_for_v3_path(path: str) -> Remote | None:
    found = aggregation()
    return next((r for r in found.remotes() if _v3_path(r) == path), None) if found is not None else None


def _v3_path(remote: Remote) -> str:
    return f"apis/{remote.group}/{remote.version}" if remote.group else f"api/{remote.version}"


def group_priority(group: str) -> int:
    """A group's place in /apis: its APIServices' highest groupPriorityMinimum (the built-in table before the
    Local APIServices exist; a CRD's group otherwise)."""
    found = aggregation()
    stored = found.group_priority(group) if found is not None else None
    if stored is not None:
        return stored
    table = builtin_priorities(services().naming)
    return max((value[0] for (g, _), value in table.items() if g == group), default=CRD_PRIORITY[0])


def proxy(remote: Remote) -> Response:
    """The request as the extension server answers it (503 `service unavailable` while the APIService is not
    Available)."""
    found = aggregation()
    assert found is not None
    if not found.availability(remote).available:
        raise APIServiceUnavailable()
    try:
        address, port = found.resolve(remote.namespace, remote.service, remote.port)
    except LookupError:
        raise APIServiceUnavailable() from None
    host = f"[{address}]" if ":" in address else address
    url = f"https://{host}:{port}{request.full_path if request.query_string else request.path}"
    pool = pool_for(remote.ca_bundle, remote.server_name, insecure=remote.insecure, client_cert=found.client_cert)
    return upstream.forward(pool, url, _forwarded_headers())


def _forwarded_headers() -> urllib3.HTTPHeaderDict:
    """The client's headers less any identity it claims, then the identity this server authenticated."""
    config = current_app.config
    user_header = (config.get("REQUESTHEADER_USERNAME_HEADERS") or ("X-Remote-User",))[0]
    group_header = (config.get("REQUESTHEADER_GROUP_HEADERS") or ("X-Remote-Group",))[0]
    extra_prefix = (config.get("REQUESTHEADER_EXTRA_HEADERS_PREFIX") or ("X-Remote-Extra-",))[0]
    headers = upstream.client_headers((user_header.lower(), group_header.lower(), extra_prefix.lower()))
    user = current_user.get()
    if user is not None:
        headers[user_header] = user.username
        for group in user.groups:
            headers.add(group_header, group)
        for key, values in user.extra.items():
            for value in values:
                headers.add(extra_prefix + quote(key, safe=""), value)
    return headers
