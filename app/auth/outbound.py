"""Calls this server makes to other services (an OIDC issuer, a token webhook): bounded and TLS-checked."""
from __future__ import annotations

from typing import Any

import requests

from app.auth.authn import AuthenticationError


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
