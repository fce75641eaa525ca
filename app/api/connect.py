"""Connect subresources: pods/log (the server calls the node agent with its own client certificate,
--kubelet-client-certificate, and streams the answer as it comes) and the proxy subresources of pods, services
and nodes (any request below `<object>/proxy/` passed on to the pod, a ready endpoint or the node agent)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from urllib.parse import urlencode

import urllib3
from flask import Response, current_app, request

from ..errors import InternalError
from ..registry.connect import NodeLocation, ProxyTarget
from . import upstream

CONNECT_TIMEOUT = 10.0
_pools: dict[tuple, urllib3.PoolManager] = {}
_pools_lock = threading.Lock()
#: pods and services answer over plain HTTP, or HTTPS whose certificate is not checked (the reference's)
_plain = urllib3.PoolManager(cert_reqs="CERT_NONE", assert_hostname=False, retries=False, maxsize=8)


def _pool() -> urllib3.PoolManager:
    config = current_app.config
    key = (
        config.get("KUBELET_CLIENT_CERTIFICATE"),
        config.get("KUBELET_CLIENT_KEY"),
        config.get("KUBELET_CERTIFICATE_AUTHORITY"),
    )
    with _pools_lock:
        if key not in _pools:
            cert, client_key, ca = key
            # without a CA the agent's certificate is not verified, as the reference's default
            _pools[key] = urllib3.PoolManager(
                cert_file=cert,
                key_file=client_key,
                ca_certs=ca,
                cert_reqs="CERT_REQUIRED" if ca else "CERT_NONE",
                assert_hostname=False if not ca else None,
                retries=False,
            )
        return _pools[key]


def proxy_to_node(location: NodeLocation | None) -> Response:
    if location is None:
        return Response(b"", 200, content_type="text/plain")
    host = f"[{location.host}]" if ":" in location.host else location.host
    url = f"https://{host}:{location.port}{location.call.path}"
    if location.call.query:
        url += "?" + urlencode(location.call.query)
    try:
        answer = _pool().request(
            "GET",
            url,
            preload_content=False,
            redirect=False,
            timeout=urllib3.Timeout(connect=CONNECT_TIMEOUT, read=None),
        )
    except urllib3.exceptions.HTTPError as err:
        raise InternalError(f'Get "{url}": {getattr(err, "reason", None) or err}') from None

    def body() -> Iterator[bytes]:
        try:
            yield from answer.stream(64 * 1024, decode_content=False)
        except urllib3.exceptions.HTTPError:
            return  # the agent went away mid-stream: the client sees the body end
        finally:
            answer.release_conn()

    response = Response(body(), answer.status, content_type=answer.headers.get("Content-Type", "text/plain"))
    response.headers["X-Accel-Buffering"] = "no"
    return response


def proxy_to_target(target: ProxyTarget, path: str) -> Response:
    """The request passed on to `path` below the target (a pod, a service's endpoint, a node agent)."""
    url = target.base_url + path + (f"?{request.query_string.decode()}" if request.query_string else "")
    return upstream.forward(_pool() if target.node_agent else _plain, url, upstream.client_headers())
