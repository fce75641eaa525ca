"""Calls this server makes to other services (an OIDC issuer, a token or authorization webhook): bounded
and TLS-checked."""

from __future__ import annotations

import ssl
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
import urllib3

from .authn import AuthenticationError

if TYPE_CHECKING:
    from .webhook import Remote

#: answers worth another attempt (the remote is overloaded or restarting).
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class OutboundError(Exception):
    """The remote could not be reached or kept failing until the deadline; the message says how."""


@dataclass(frozen=True)
class Reply:
    status_code: int
    body: bytes

    def json(self) -> Any:
        """The decoded body; ValueError when it is not JSON."""
        return orjson.loads(self.body)


def pool(verify: str | bool, cert: tuple[str, str] | None = None) -> urllib3.PoolManager:
    """Connections that trust `verify` (a CA file, the system store when True, nobody checked when False)
    and never the environment's proxies or CA bundles."""
    if verify is False:
        # the admin's explicit insecure-skip-tls-verify: no warning per request
        urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
        return urllib3.PoolManager(
            cert_reqs=ssl.CERT_NONE, cert_file=cert and cert[0], key_file=cert and cert[1], retries=False
        )
    context = ssl.create_default_context(cafile=verify if isinstance(verify, str) else None)
    if cert:
        context.load_cert_chain(*cert)
    return urllib3.PoolManager(ssl_context=context, retries=False)


def _request(
    http: urllib3.PoolManager, method: str, url: str, timeout: float, headers: dict[str, str], body: bytes | None = None
) -> Reply:
    response = http.request(
        method,
        url,
        body=body,
        headers=headers,
        timeout=urllib3.Timeout(total=timeout),
        redirect=False,
        preload_content=True,
    )
    return Reply(response.status, response.data)


def post_review(remote: Remote, body: dict, timeout: float, deadline: float) -> Reply:
    """POST a review to a webhook described by a kubeconfig file: `timeout` per attempt, retried with
    backoff on connection failures and 429/5xx until `deadline` seconds have passed (OutboundError)."""
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if remote.token:
        headers["Authorization"] = f"Bearer {remote.token}"
    give_up = time.monotonic() + deadline
    delay, last = 0.5, "no attempt"
    payload = orjson.dumps(body)
    with pool(remote.verify, remote.cert) as http:
        while True:
            remaining = give_up - time.monotonic()
            if remaining <= 0:
                break
            try:
                response = _request(http, "POST", remote.server, min(timeout, remaining), headers, payload)
            except (urllib3.exceptions.HTTPError, OSError, ValueError) as err:
                last = f"{err.__class__.__name__}: {err}"
            else:
                if response.status_code not in RETRY_STATUSES:
                    return response
                last = f"HTTP {response.status_code}"
            if time.monotonic() + delay >= give_up:
                break
            time.sleep(delay)
            delay *= 1.5
    raise OutboundError(last)


def get_json(http: urllib3.PoolManager, url: str, timeout: float, what: str) -> Any:
    """GET a JSON document; AuthenticationError on any failure (the caller fails closed)."""
    try:
        response = _request(http, "GET", url, timeout, {"Accept": "application/json"})
    except (urllib3.exceptions.HTTPError, OSError, ValueError) as err:
        raise AuthenticationError(f"{what}: {url}: {err.__class__.__name__}: {err}") from None
    if response.status_code != 200:
        raise AuthenticationError(f"{what}: {url}: HTTP {response.status_code}")
    try:
        return response.json()
    except ValueError as err:
        raise AuthenticationError(f"{what}: {url}: not JSON ({err})") from None


def review_status(response: Reply, kind: str, api_version: str) -> dict:
    """The `status` of a webhook's review reply; OutboundError unless it is a 2xx `kind` in `api_version`."""
    if response.status_code // 100 != 2:
        raise OutboundError(f"HTTP {response.status_code}")
    try:
        reply: Any = response.json()
    except ValueError:
        raise OutboundError("the reply is not JSON") from None
    if not isinstance(reply, dict) or reply.get("kind", kind) != kind:
        raise OutboundError(f"the reply is not a {kind}")
    if reply.get("apiVersion", api_version) != api_version:
        raise OutboundError(f"expected {api_version}, got {reply.get('apiVersion')}")
    status = reply.get("status")
    return status if isinstance(status, dict) else {}
