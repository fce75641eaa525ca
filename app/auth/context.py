"""The wired authentication of the running app, reachable from strategies without Flask."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InternalError

if TYPE_CHECKING:
    from ..naming import Naming
    from .authn import Chain, TokenUnion
    from .authz import Authorizer
    from .lookup import CoreObjects
    from .serviceaccount import SaNames, TokenIssuer


@dataclass(frozen=True)
class Authentication:
    naming: Naming
    chain: Chain
    #: every token authenticator, for TokenReview (the server may itself be another's webhook).
    tokens: TokenUnion
    api_audiences: tuple[str, ...]
    issuer: TokenIssuer
    objects: CoreObjects
    names: SaNames
    authorizer: Authorizer
    #: PEM of the cluster CA, put into legacy service-account token secrets as ca.crt.
    ca_pem: bytes = b""


#: set by the HTTP layer for each request (like app.user.current_user).
current_authentication: ContextVar[Authentication | None] = ContextVar("current_authentication", default=None)


def active() -> Authentication:
    found = current_authentication.get()
    if found is None:
        raise InternalError("authentication is not configured for this request")
    return found
