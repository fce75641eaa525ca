"""The authenticator chain: every request is authenticated before anything else.

A request authenticator returns a UserInfo, None ("not my kind of credential") or raises
AuthenticationError ("credentials were presented and are wrong"). The first success wins; when none
succeeds, any error (a bad bearer token, say) is 401 even with anonymous access on.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..errors import Unauthorized
from ..user import ANONYMOUS, UserInfo
from . import headers

log = logging.getLogger(__name__)
Environ = dict[str, Any]
INVALID_BEARER_TOKEN = "invalid bearer token"


class AuthenticationError(Exception):
    """Presented credentials are invalid (the message is for logs and TokenReview status.error)."""


class RequestAuthenticator(Protocol):
    def authenticate(self, environ: Environ) -> UserInfo | None: ...


@dataclass(frozen=True)
class TokenResult:
    user: UserInfo
    #: the requested audiences the token is valid for.
    audiences: tuple[str, ...] = ()


class TokenAuthenticator(Protocol):
    def authenticate_token(self, token: str, audiences: tuple[str, ...]) -> TokenResult | None: ...


def intersect(wanted: Sequence[str], offered: Sequence[str]) -> tuple[str, ...]:
    return tuple(a for a in wanted if a in offered)


@dataclass(frozen=True)
class AudienceAgnostic:
    """A token authenticator that knows no audiences is valid only for the API server's own."""

    inner: TokenAuthenticator
    api_audiences: tuple[str, ...]

    def authenticate_token(self, token: str, audiences: tuple[str, ...]) -> TokenResult | None:
        wanted = intersect(audiences, self.api_audiences)
        if not wanted:
            return None
        result = self.inner.authenticate_token(token, audiences)
        return None if result is None else TokenResult(result.user, wanted)


@dataclass(frozen=True)
class TokenUnion:
    """Token authenticators in order; the first to accept wins, otherwise the errors are reported."""

    authenticators: tuple[TokenAuthenticator, ...]

    def review(self, token: str, audiences: tuple[str, ...]) -> TokenResult:
        errors: list[str] = []
        for authenticator in self.authenticators:
            try:
                result = authenticator.authenticate_token(token, audiences)
            except AuthenticationError as err:
                errors.append(str(err))
                continue
            if result is not None:
                return TokenResult(result.user.with_authenticated_group(), result.audiences)
        raise AuthenticationError(_aggregate(errors) or INVALID_BEARER_TOKEN)


def _aggregate(errors: list[str]) -> str:
    # the reference's error aggregate: one message as it is, several in brackets
    unique = list(dict.fromkeys(errors))
    if len(unique) <= 1:
        return unique[0] if unique else ""
    return "[" + ", ".join(unique) + "]"


def bearer_token(environ: Environ) -> str | None:
    """The token of `Authorization: Bearer <token>`; None for another scheme or an empty token."""
    value = headers.header(environ, "Authorization").strip()
    parts = value.split(" ", 2)
    if len(parts) < 2 or parts[0].lower() != "bearer" or not parts[1]:
        return None
    return parts[1]


@dataclass(frozen=True)
class BearerTokenAuthenticator:
    tokens: TokenUnion
    api_audiences: tuple[str, ...]

    def authenticate(self, environ: Environ) -> UserInfo | None:
        token = bearer_token(environ)
        if token is None:
            return None
        user = self.tokens.review(token, self.api_audiences).user
        headers.drop(environ, ["Authorization"])
        return user


@dataclass(frozen=True)
class Chain:
    authenticators: tuple[RequestAuthenticator, ...]
    anonymous: bool = True

    def authenticate(self, environ: Environ) -> UserInfo:
        """The first authenticator that recognises the request wins; else anonymous, or 401."""
        errors: list[str] = []
        for authenticator in self.authenticators:
            try:
                user = authenticator.authenticate(environ)
            except AuthenticationError as err:
                errors.append(str(err))
                continue
            if user is not None:
                return user.with_authenticated_group()
        if errors:
            log.info("unable to authenticate the request: %s", _aggregate(errors))
            raise Unauthorized()
        if not self.anonymous:
            raise Unauthorized()
        return ANONYMOUS
