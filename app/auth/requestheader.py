"""Authenticating proxy (--requestheader-*): the identity comes from headers, but only when the
request carries a client certificate from --requestheader-client-ca-file (with an allowed CN).
Headers from anyone else are ignored."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cryptography import x509

from ..user import UserInfo
from . import headers
from .authn import AuthenticationError
from .x509 import PEER_CERT_KEY, common_name, verify_client_certificate


@dataclass(frozen=True)
class RequestHeaderAuthenticator:
    cas: tuple[x509.Certificate, ...]
    username_headers: tuple[str, ...]
    group_headers: tuple[str, ...] = ()
    extra_prefixes: tuple[str, ...] = ()
    allowed_names: tuple[str, ...] = ()

    def authenticate(self, environ: dict[str, Any]) -> UserInfo | None:
        der = environ.get(PEER_CERT_KEY)
        if not der:
            return None  # no proxy certificate: the headers mean nothing
        cert = verify_client_certificate(der, self.cas)
        name = common_name(cert)
        if self.allowed_names and name not in self.allowed_names:
            raise AuthenticationError(f"x509: subject with cn={name} is not in the allowed list")
        username = next((v for v in (headers.header(environ, h) for h in self.username_headers) if v), "")
        if not username:
            return None
        groups = tuple(g for h in self.group_headers for g in headers.header_values(environ, h))
        extra: dict[str, list[str]] = {}
        for prefix in self.extra_prefixes:
            for key, values in headers.prefixed(environ, prefix).items():
                extra.setdefault(key, []).extend(values)
        headers.drop(environ, (*self.username_headers, *self.group_headers), self.extra_prefixes)
        return UserInfo(username, groups=groups, extra={k: tuple(v) for k, v in extra.items()})
