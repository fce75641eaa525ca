"""The server's calls out to webhooks it was configured with through the API (conversion and admission
webhooks): a JSON POST over HTTPS to a `clientConfig` (a `url`, or a `service` resolved through its
Endpoints, as the reference's aggregator routing does), trusting only its `caBundle` when one is given.

Connections are pooled per (CA bundle, server name): a webhook called on every write keeps its TLS session.
"""

from __future__ import annotations

import base64
import ssl
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import orjson
import urllib3

#: (namespace, service name, service port) -> (address, port) of a ready endpoint; LookupError when none
ServiceResolver = Callable[[str, str, int], tuple[str, int]]


class CallFailed(Exception):
    """The webhook could not be reached or did not answer in time (not: it answered with an error)."""


#: connection pools by (CA bundle, server name, insecure, client certificate), the least recently used dropped
#: past MAX_POOLS: configurations that change their caBundle or service leave no pool behind for ever
_pools: OrderedDict[tuple, urllib3.PoolManager] = OrderedDict()
_pools_lock = threading.Lock()
MAX_POOLS = 64


def target(client_config: dict, resolve: ServiceResolver | None, query: str = "") -> tuple[str, str, str]:
    """(URL to call, TLS server name, URL as messages name it): a service's certificate is checked against
    `<service>.<namespace>.svc`, the name its URL shows; `query` is appended to both."""
    if client_config.get("url"):
        url = str(client_config["url"])
        url += ("&" if "?" in url else "?") + query if query else ""
        return url, "", url
    service = client_config.get("service") or {}
    namespace, name = str(service.get("namespace", "")), str(service.get("name", ""))
    port = int(service.get("port") or 443)
    path = str(service.get("path") or "/") + (f"?{query}" if query else "")
    shown = f"https://{name}.{namespace}.svc:{port}{path}"
    if resolve is None:
        raise CallFailed(f'Post "{shown}": services cannot be resolved here')
    try:
        host, target_port = resolve(namespace, name, port)
    except LookupError as err:
        raise CallFailed(f'Post "{shown}": {err}') from None  # the reference's dialer resolves the service
    return f"https://{host}:{target_port}{path}", f"{name}.{namespace}.svc", shown


def pool_for(
    ca_bundle: str, server_name: str, *, insecure: bool = False, client_cert: tuple[str, str] | None = None
) -> urllib3.PoolManager:
    """Connections to one kind of server: trusting `ca_bundle` (the system's roots without one) for `server_name`,
    or nothing at all (`insecure`), showing `client_cert` when given."""
    key = (ca_bundle, server_name, insecure, client_cert)
    with _pools_lock:
        pool = _pools.get(key)
        if pool is not None:
            _pools.move_to_end(key)
        else:
            context = (
                ssl.create_default_context(cadata=base64.b64decode(ca_bundle).decode())
                if ca_bundle
                else ssl.create_default_context()
            )
            kwargs: dict[str, Any] = {"ssl_context": context, "retries": False, "maxsize": 8}
            if insecure:
                context.check_hostname = False
                context.verify_mode = ssl.CERT_NONE
                kwargs.update(cert_reqs="CERT_NONE", assert_hostname=False)
            elif server_name:
                kwargs.update(server_hostname=server_name, assert_hostname=server_name)
            if client_cert is not None:
                context.load_cert_chain(*client_cert)
            pool = _pools[key] = urllib3.PoolManager(**kwargs)
            while len(_pools) > MAX_POOLS:
                _pools.popitem(last=False)[1].clear()  # its idle connections close; calls under way finish
    return pool


def post_json(
    client_config: dict,
    body: Any,
    timeout: float,
    resolve: ServiceResolver | None = None,
    timeout_in_query: bool = False,
) -> tuple[int, bytes]:
    """POST `body` as JSON; (HTTP status, response body). CallFailed, in Go's words, when no answer came;
    `timeout_in_query`: the URL carries `?timeout=<n>s`, as the reference's client sends a request timeout."""
    query = f"timeout={_go_seconds(timeout)}" if timeout_in_query else ""
    url, server_name, shown = target(client_config, resolve, query)
    try:
        pool = pool_for(str(client_config.get("caBundle") or ""), server_name)
        reply = pool.request(
            "POST",
            url,
            body=orjson.dumps(body),
            timeout=urllib3.Timeout(total=timeout),
            headers={"Content-Type": "application/json", "Accept": "application/json"},
            redirect=False,
        )
    except urllib3.exceptions.NewConnectionError as err:  # a ConnectTimeoutError subclass: it goes first
        raise CallFailed(f'Post "{shown}": {_dial_error(url, err)}') from None
    except urllib3.exceptions.TimeoutError:
        raise CallFailed(f'Post "{shown}": context deadline exceeded') from None
    except (urllib3.exceptions.HTTPError, OSError, ValueError) as err:
        raise CallFailed(f'Post "{shown}": {_reason(err)}') from None
    return reply.status, reply.data


def _go_seconds(seconds: float) -> str:
    """A whole or fractional number of seconds as Go's time.Duration prints it (10s, 1.5s)."""
    return f"{int(seconds)}s" if float(seconds).is_integer() else f"{seconds:g}s"


def _dial_error(url: str, err: Exception) -> str:
    """Go's net.Dial error for a connection that failed: `dial tcp 127.0.0.1:8443: connect: connection refused`."""
    parsed = urllib3.util.parse_url(url)
    address = f"{parsed.host}:{parsed.port or 443}"
    cause = err.__cause__ or err.__context__
    if isinstance(cause, ConnectionRefusedError) or "refused" in str(err).lower():
        return f"dial tcp {address}: connect: connection refused"
    return f"dial tcp {address}: {_reason(err)}"


def _reason(err: Exception) -> str:
    reason = getattr(err, "reason", None)  # MaxRetryError wraps the cause
    return f"{reason.__class__.__name__}: {reason}" if reason is not None else f"{err.__class__.__name__}: {err}"
