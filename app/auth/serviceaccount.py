"""Service-account tokens: JWTs we sign (TokenRequest, legacy token secrets) and verify.

Bound tokens carry `iss` = one of --service-account-issuer, `aud`, `exp` and a private claim named
after the API domain (namespace, service account, bound pod/secret/node). Legacy tokens
(stored in secrets) carry the `<domain>/serviceaccount/...` claims and no expiry.
"""

from __future__ import annotations

import hmac
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from ..naming import Naming
from ..user import UserInfo, service_account_groups, service_account_username, split_service_account_username
from . import jwt
from .authn import AuthenticationError, TokenResult, intersect
from .lookup import CoreObjects, metadata, secret_value
from .sakeys import ensure_signing_key, load_public_keys

LEEWAY = 60.0  # seconds of clock skew tolerated, as the reference's JWT library


@dataclass(frozen=True)
class SaNames:
    """Every domain-derived name of service-account credentials."""

    naming: Naming

    @property
    def private_claim(self) -> str:
        return self.naming.key_domain

    @property
    def legacy_issuer(self) -> str:
        # upstream "kubernetes/serviceaccount": the project's name, as in the namespace finalizer
        return f"{self.naming.namespace_finalizer}/serviceaccount"

    def legacy_claim(self, name: str) -> str:
        return f"{self.naming.key_domain}/serviceaccount/{name}"

    def extra_key(self, name: str) -> str:
        return f"{self.naming.key_group('authentication')}/{name}"

    @property
    def token_secret_type(self) -> str:
        return self.naming.key("service-account-token")

    @property
    def name_annotation(self) -> str:
        return self.naming.key("service-account.name")

    @property
    def uid_annotation(self) -> str:
        return self.naming.key("service-account.uid")


@dataclass
class Keyring:
    """The signing key (loaded or generated on first use) and every key that verifies tokens."""

    signing_key_file: str
    key_files: tuple[str, ...] = ()
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _signing: jwt.PrivateKey | None = field(default=None, repr=False)

    def signing_key(self) -> jwt.PrivateKey:
        with self._lock:
            if self._signing is None:
                self._signing = ensure_signing_key(self.signing_key_file)
            return self._signing

    @cached_property
    def _configured(self) -> tuple[jwt.VerifyingKey, ...]:
        return tuple(jwt.pem_verifying_key(k) for path in self.key_files for k in load_public_keys(path))

    @cached_property
    def _all(self) -> tuple[jwt.VerifyingKey, ...]:
        return (jwt.pem_verifying_key(self.signing_key().public_key()), *self._configured)

    def verifying_keys(self) -> tuple[jwt.VerifyingKey, ...]:
        return self._all

    def check(self) -> None:
        """Load every key now (start-up): ValueError names a bad file."""
        _ = self._configured
        self.signing_key()


@dataclass(frozen=True)
class BoundRef:
    kind: str  # Pod, Secret or Node
    name: str
    uid: str


def _ref(value: Any) -> dict[str, str] | None:
    if not isinstance(value, dict):
        return None
    return {"name": str(value.get("name") or ""), "uid": str(value.get("uid") or "")}


@dataclass(frozen=True)
class TokenIssuer:
    keyring: Keyring
    issuer: str
    names: SaNames

    def bound_token(
        self, account: dict, audiences: list[str], lifetime: int, bound: list[BoundRef], now: float | None = None
    ) -> str:
        """A TokenRequest token for `account`, bound to `bound` objects (pod, its node, or secret)."""
        moment = int(now if now is not None else time.time())
        md = metadata(account)
        private: dict[str, Any] = {
            "namespace": md.get("namespace", ""),
            "serviceaccount": {"name": md.get("name", ""), "uid": md.get("uid", "")},
        }
        for ref in bound:
            private[ref.kind.lower()] = {"name": ref.name, "uid": ref.uid} if ref.uid else {"name": ref.name}
        claims = {
            "aud": audiences,
            "exp": moment + lifetime,
            "iat": moment,
            "iss": self.issuer,
            "jti": str(uuid.uuid4()),
            self.names.private_claim: private,
            "nbf": moment,
            "sub": service_account_username(md.get("namespace", ""), md.get("name", "")),
        }
        return jwt.sign(claims, self.keyring.signing_key())

    def legacy_token(self, account: dict, secret_name: str) -> str:
        """The never-expiring token stored in a service-account token secret."""
        md = metadata(account)
        namespace, name = md.get("namespace", ""), md.get("name", "")
        claims = {
            "iss": self.names.legacy_issuer,
            self.names.legacy_claim("namespace"): namespace,
            self.names.legacy_claim("secret.name"): secret_name,
            self.names.legacy_claim("service-account.name"): name,
            self.names.legacy_claim("service-account.uid"): md.get("uid", ""),
            "sub": service_account_username(namespace, name),
        }
        return jwt.sign(claims, self.keyring.signing_key())


def _gone(obj: dict | None, now: float) -> bool:
    """Missing, or deleted (terminating) for longer than the leeway."""
    if obj is None:
        return True
    stamp = metadata(obj).get("deletionTimestamp")
    if not stamp:
        return False
    try:
        deleted = datetime.fromisoformat(str(stamp)).timestamp()
    except ValueError:
        return True
    return deleted < now - LEEWAY


@dataclass(frozen=True)
class ServiceAccountTokens:
    """The token authenticator for bound and legacy service-account tokens."""

    keyring: Keyring
    issuers: tuple[str, ...]
    api_audiences: tuple[str, ...]
    objects: CoreObjects
    names: SaNames
    lookup: bool = True

    def authenticate_token(self, token: str, audiences: tuple[str, ...]) -> TokenResult | None:
        try:
            _, unverified = jwt.peek(token)
        except jwt.NotAJwt:
            return None
        issuer = unverified.get("iss")
        legacy = issuer == self.names.legacy_issuer
        if not legacy and issuer not in self.issuers:
            return None  # someone else's JWT (OIDC, webhook)
        claims = jwt.verify(token, self.keyring.verifying_keys(), jwt.ASYMMETRIC)
        if claims.get("iss") != issuer:
            raise AuthenticationError(f"token issuer {claims.get('iss')!r} is invalid")
        offered = jwt.audiences(claims) or self.api_audiences  # a token without aud is for the API server
        wanted = intersect(audiences, offered)
        if not wanted:
            raise AuthenticationError(
                f"token audiences {list(offered)!r} is invalid for the target audiences {list(audiences)!r}"
            )
        user = self._legacy(token, claims) if legacy else self._bound(claims)
        return TokenResult(user, wanted)

    def _legacy(self, token: str, claims: dict[str, Any]) -> UserInfo:
        namespace = claims.get(self.names.legacy_claim("namespace"))
        secret_name = claims.get(self.names.legacy_claim("secret.name"))
        name = claims.get(self.names.legacy_claim("service-account.name"))
        uid = claims.get(self.names.legacy_claim("service-account.uid"))
        for value, what in (
            (namespace, "namespace"),
            (secret_name, "secretName"),
            (name, "serviceAccountName"),
            (uid, "serviceAccountUID"),
        ):
            if not isinstance(value, str) or not value:
                raise AuthenticationError(f"{what} claim is missing")
        namespace, secret_name, name, uid = str(namespace), str(secret_name), str(name), str(uid)  # checked above
        if split_service_account_username(str(claims.get("sub") or "")) != (namespace, name):
            raise AuthenticationError("sub claim is invalid")
        if self.lookup:
            secret = self.objects.get("secrets", namespace, secret_name)
            if secret is None or metadata(secret).get("deletionTimestamp"):
                raise AuthenticationError("token has been invalidated")
            if not hmac.compare_digest(secret_value(secret, "token").encode(), token.encode()):
                raise AuthenticationError("token does not match server's copy")
            account = self.objects.get("serviceaccounts", namespace, name)
            if account is None or metadata(account).get("deletionTimestamp"):
                raise AuthenticationError(f"ServiceAccount {namespace}/{name} has been deleted")
            if metadata(account).get("uid") != uid:
                raise AuthenticationError(
                    f"ServiceAccount UID ({metadata(account).get('uid')}) does not match claim ({uid})"
                )
        return UserInfo(service_account_username(namespace, name), uid, service_account_groups(namespace))

    def _bound(self, claims: dict[str, Any]) -> UserInfo:
        now = time.time()
        jwt.check_times(claims, now, LEEWAY, require_exp=False, check_iat=True, what="service account token")
        private = claims.get(self.names.private_claim)
        if not isinstance(private, dict):
            raise AuthenticationError("service account token has no service account claims")
        namespace = str(private.get("namespace") or "")
        account_ref = _ref(private.get("serviceaccount")) or {"name": "", "uid": ""}
        if not namespace or not account_ref["name"]:
            raise AuthenticationError("service account token names no service account")
        extra: dict[str, tuple[str, ...]] = {}
        account = self.objects.get("serviceaccounts", namespace, account_ref["name"])
        if account is None:
            raise AuthenticationError(f'serviceaccounts "{account_ref["name"]}" not found')
        if metadata(account).get("uid") != account_ref["uid"]:
            raise AuthenticationError(
                f"service account UID ({metadata(account).get('uid')}) does not match claim ({account_ref['uid']})"
            )
        if _gone(account, now):
            raise AuthenticationError(f"service account {namespace}/{account_ref['name']} has been deleted")
        for kind, plural, scoped in (("secret", "secrets", True), ("pod", "pods", True), ("node", "nodes", False)):
            ref = _ref(private.get(kind))
            if ref is None:
                continue
            if kind == "node" and not ref["uid"]:
                extra[self.names.extra_key("node-name")] = (ref["name"],)  # a pod's node, unknown when issued
                continue
            bound = self.objects.get(plural, namespace if scoped else None, ref["name"])
            if _gone(bound, now):
                raise AuthenticationError("service account token has been invalidated")
            if metadata(bound or {}).get("uid") != ref["uid"]:
                raise AuthenticationError(
                    f"{kind} UID ({metadata(bound or {}).get('uid')}) does not match "
                    f"service account {kind} ref claim ({ref['uid']})"
                )
            if kind != "secret":
                extra[self.names.extra_key(f"{kind}-name")] = (ref["name"],)
                extra[self.names.extra_key(f"{kind}-uid")] = (ref["uid"],)
        if isinstance(claims.get("jti"), str) and claims["jti"]:
            extra[self.names.extra_key("credential-id")] = (f"JTI={claims['jti']}",)
        return UserInfo(
            service_account_username(namespace, account_ref["name"]),
            account_ref["uid"],
            service_account_groups(namespace),
            extra,
        )
