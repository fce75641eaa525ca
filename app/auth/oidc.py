"""OpenID Connect ID tokens (--oidc-*): one trusted issuer, its keys found through discovery.

Keys are fetched on first use and cached; a token signed with an unknown `kid` refreshes them
(at most once per `min_refresh` seconds, so random kids cannot turn us into a request amplifier).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import urllib3

from ..user import UserInfo
from . import jwt
from .authn import AuthenticationError, TokenResult
from .outbound import get_json, pool

log = logging.getLogger(__name__)
DISCOVERY_PATH = "/.well-known/openid-configuration"
NBF_LEEWAY = 300.0  # seconds; what go-oidc allows for `nbf`, to absorb clock skew


@dataclass(frozen=True)
class OidcConfig:
    issuer_url: str
    client_id: str
    username_claim: str = "sub"
    username_prefix: str | None = None  # None: the spec's default; "-": none
    groups_claim: str | None = None
    groups_prefix: str | None = None
    required_claims: Mapping[str, str] = field(default_factory=dict)
    ca_file: str | None = None
    signing_algs: tuple[str, ...] = ("RS256",)

    @property
    def effective_username_prefix(self) -> str:
        """The spec's table: unset means `<issuer>#` unless the claim is email; `-` means none."""
        if self.username_prefix is None:
            return "" if self.username_claim == "email" else self.issuer_url + "#"
        return "" if self.username_prefix == "-" else self.username_prefix


@dataclass
class ProviderKeys:
    """Discovery document and JWKS of the issuer, cached."""

    issuer_url: str
    ca_file: str | None
    timeout: float
    min_refresh: float = 1.0
    _keys: tuple[jwt.VerifyingKey, ...] | None = field(default=None, repr=False)
    _jwks_uri: str | None = field(default=None, repr=False)
    _fetched_at: float = field(default=0.0, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def _session(self) -> urllib3.PoolManager:
        return pool(self.ca_file or True)  # no proxy or CA bundle from the environment decides whom we trust

    def _discover(self, session: urllib3.PoolManager) -> str:
        url = self.issuer_url.rstrip("/") + DISCOVERY_PATH
        doc = get_json(session, url, self.timeout, "oidc discovery")
        if not isinstance(doc, dict) or doc.get("issuer") != self.issuer_url:
            found = doc.get("issuer") if isinstance(doc, dict) else None
            raise AuthenticationError(
                f"oidc: issuer did not match the issuer returned by provider, expected "
                f"{self.issuer_url!r} got {found!r}"
            )
        uri = doc.get("jwks_uri")
        if not isinstance(uri, str) or not uri.startswith("https://"):
            raise AuthenticationError("oidc: provider did not return an https JWKS URL")
        return uri

    def _fetch(self) -> None:
        with self._session() as session:
            if self._jwks_uri is None:
                self._jwks_uri = self._discover(session)
            doc = get_json(session, self._jwks_uri, self.timeout, "oidc keys")
        entries = doc.get("keys") if isinstance(doc, dict) else None
        if not isinstance(entries, list):
            raise AuthenticationError("oidc: the JWKS document has no keys")
        keys = tuple(k for k in (jwt.jwk_verifying_key(e) for e in entries if isinstance(e, dict)) if k)
        self._keys, self._fetched_at = keys, time.monotonic()

    def keys_for(self, kid: str | None) -> tuple[jwt.VerifyingKey, ...]:
        with self._lock:
            known = self._keys is not None and (not kid or any(k.kid == kid for k in self._keys or ()))
            due = time.monotonic() - self._fetched_at >= self.min_refresh
            if not known and (self._keys is None or due):
                try:
                    self._fetch()
                except AuthenticationError:
                    self._jwks_uri = None  # discover again next time: the issuer may have moved its keys
                    if self._keys is None:
                        raise
                    log.warning("oidc: refreshing the keys of %s failed; keeping the cached ones", self.issuer_url)
            return self._keys or ()


def _string_claim(claims: Mapping[str, object], name: str) -> str:
    if name not in claims:
        raise AuthenticationError(f"oidc: parse username claims {name!r}: claim not present")
    value = claims[name]
    if not isinstance(value, str):
        raise AuthenticationError(f"oidc: parse username claims {name!r}: not a string")
    return value


@dataclass
class OidcTokens:
    config: OidcConfig
    provider: ProviderKeys

    def authenticate_token(self, token: str, audiences: tuple[str, ...]) -> TokenResult | None:
        try:
            header, unverified = jwt.peek(token)
        except jwt.NotAJwt:
            return None
        if unverified.get("iss") != self.config.issuer_url:
            return None  # not from our issuer: another authenticator's token
        kid = header.get("kid") if isinstance(header.get("kid"), str) else None
        claims = jwt.verify(token, self.provider.keys_for(kid), self.config.signing_algs)
        if claims.get("iss") != self.config.issuer_url:
            raise AuthenticationError("oidc: id token issued by a different provider")
        if self.config.client_id not in jwt.audiences(claims):
            raise AuthenticationError(
                f"oidc: expected audience {self.config.client_id!r} got {list(jwt.audiences(claims))!r}"
            )
        jwt.check_times(claims, time.time(), 0.0, NBF_LEEWAY, what="oidc: token")
        for key, wanted in self.config.required_claims.items():
            if key not in claims:
                raise AuthenticationError(f"oidc: required claim {key} not present in ID token")
            if claims[key] != wanted:
                raise AuthenticationError(
                    f"oidc: required claim {key} value does not match. Got = {claims[key]}, want = {wanted}"
                )
        return TokenResult(UserInfo(self._username(claims), groups=self._groups(claims)))

    def _username(self, claims: Mapping[str, object]) -> str:
        name = _string_claim(claims, self.config.username_claim)
        if not name:
            raise AuthenticationError("oidc: empty username")
        if self.config.username_claim == "email" and "email_verified" in claims:
            verified = claims["email_verified"]
            if not isinstance(verified, bool):
                raise AuthenticationError("oidc: parse 'email_verified' claim: not a boolean")
            if not verified:
                raise AuthenticationError("oidc: email not verified")
        return self.config.effective_username_prefix + name

    def _groups(self, claims: Mapping[str, object]) -> tuple[str, ...]:
        claim = self.config.groups_claim
        if not claim or claim not in claims:
            return ()
        value = claims[claim]
        if not isinstance(value, list) or not all(isinstance(g, str) for g in value):
            raise AuthenticationError(f"oidc: parse groups claim {claim!r}: must be a list of strings")
        prefix = self.config.groups_prefix or ""
        return tuple(prefix + g for g in value)
