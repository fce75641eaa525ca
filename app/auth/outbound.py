"""Calls this server makes to other services (an OIDC issuer, a token or authorization webhook): bounded
and TLS-checked."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import requests

from app.auth.authn import AuthenticationError

if TYPE_CHECKING:
    from app.auth.webhook import Remote

#: answers worth another attempt (the remote is overloaded or restarting).
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class OutboundError(Exception):
    """The remote could not be reached or kept failing until the deadline; the message says how."""


def post_review(remote: Remote, body: dict, timeout: float, deadline: float) -> requests.Response:
    """POST a review to a webhook described by a kubeconfig file: `timeout` per attempt, retried with
    backoff on connection failures and 429/5xx until `deadline` seconds have passed (OutboundError)."""
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if remote.token:
        headers["Authorization"] = f"Bearer {remote.token}"
    give_up = time.monotonic() + deadline
    delay, last = 0.5, "no attempt"
    with requests.Session() as session:
        session.trust_env = False  # the environment's proxies and CA bundles do not apply to the webhook
        while True:
            remaining = give_up - time.monotonic()
            if remaining <= 0:
                break
            try:
                response = session.post(remote.server, json=body, headers=headers, verify=remote.verify,
                                        cert=remote.cert, timeout=min(timeout, remaining))
            except requests.RequestException as err:
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


def get_json(session: requests.Session, url: str, timeout: float, what: str) -> Any:
    """GET a JSON document; AuthenticationError on any failure (the caller fails closed)."""
    try:
        response = session.get(url, timeout=timeout, headers={"Accept": "application/json"})
    except requests.RequestException as err:
        raise AuthenticationError(f"{what}: {url}: {err.__class__.__name__}: {err}") from None
    if response.status_code != 200:
        raise AuthenticationError(f"{what}: {url}: HTTP {response.status_code}")
    try:
        return response.json()
    except ValueError as err:
        raise AuthenticationError(f"{what}: {url}: not JSON ({err})") from None


def review_status(response: requests.Response, kind: str, api_version: str) -> dict:
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
