"""Authentication for every request: client certificates now; the other methods plug in here."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.auth.user import ANONYMOUS, UserInfo

Authenticator = Callable[[dict[str, Any]], "UserInfo | None"]


def client_certificate(environ: dict[str, Any]) -> UserInfo | None:
    der = environ.get("orch.peer_cert_der")
    if not der:
        return None
    from app.auth.x509 import authenticate_x509

    return authenticate_x509(der)


def authenticate(environ: dict[str, Any], authenticators: list[Authenticator]) -> UserInfo:
    """The first authenticator that recognises the request wins; else the anonymous user."""
    for authenticator in authenticators:
        user = authenticator(environ)
        if user is not None:
            return user.with_authenticated_group()
    return ANONYMOUS
