"""Client certificates: the TLS layer verified the chain against the whole trust bundle; here each
authenticator checks the leaf against ITS CAs (the bundle also holds the front proxy's CA), its
validity and its usage, then maps it to a user."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from ..user import UserInfo
from .authn import AuthenticationError

#: where app.server's worker puts the DER of the verified client leaf.
PEER_CERT_KEY = "orch.peer_cert_der"
# A leaf without an EKU extension may be used for anything; with one it must allow client auth.
_CLIENT_USAGES = {ExtendedKeyUsageOID.CLIENT_AUTH, ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE}


def _allows_client_auth(cert: x509.Certificate) -> bool:
    try:
        usages = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    except x509.ExtensionNotFound:
        return True
    return any(oid in _CLIENT_USAGES for oid in usages)


def _text(value: str | bytes) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _moment(now: datetime | None) -> datetime:
    moment = now or datetime.now(UTC)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)  # naive means UTC


def load_pem_bundle(paths: Sequence[str]) -> tuple[x509.Certificate, ...]:
    """Every certificate of the given PEM files, in order; ValueError names an unreadable file."""
    found: list[x509.Certificate] = []
    for path in paths:
        try:
            with open(path, "rb") as handle:
                found.extend(x509.load_pem_x509_certificates(handle.read()))
        except (OSError, ValueError) as err:
            raise ValueError(f"{path}: not a PEM certificate bundle ({err})") from err
    return tuple(found)


def issued_by_any(cert: x509.Certificate, cas: Sequence[x509.Certificate]) -> bool:
    """Directly signed by one of `cas` (put intermediates in the bundle to accept their leaves)."""
    for ca in cas:
        try:
            cert.verify_directly_issued_by(ca)
        except (ValueError, TypeError, InvalidSignature):
            continue
        return True
    return False


def verify_client_certificate(
    der: bytes, cas: Sequence[x509.Certificate], now: datetime | None = None
) -> x509.Certificate:
    """The parsed leaf when it comes from `cas`, is valid now and may authenticate a client."""
    try:
        cert = x509.load_der_x509_certificate(der)
    except ValueError as err:
        raise AuthenticationError(f"x509: unreadable certificate: {err}") from None
    if not issued_by_any(cert, cas):
        raise AuthenticationError("x509: certificate signed by unknown authority")
    moment = _moment(now)
    if not cert.not_valid_before_utc <= moment <= cert.not_valid_after_utc:
        raise AuthenticationError("x509: certificate has expired or is not yet valid")
    try:
        allowed = _allows_client_auth(cert)
    except ValueError as err:  # a malformed extension
        raise AuthenticationError(f"x509: unreadable extension: {err}") from None
    if not allowed:
        raise AuthenticationError("x509: certificate specifies an incompatible key usage")
    return cert


def common_name(cert: x509.Certificate) -> str:
    # The reference takes the last CN when a subject carries several.
    names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    return _text(names[-1].value) if names else ""


def user_from_certificate(cert: x509.Certificate) -> UserInfo | None:
    """User = subject CN, groups = each O in order; None without a CN."""
    username = common_name(cert)
    if not username:
        return None
    groups = tuple(_text(a.value) for a in cert.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME))
    return UserInfo(username=username, groups=groups)


def authenticate_x509(der: bytes, cas: Sequence[x509.Certificate], now: datetime | None = None) -> UserInfo | None:
    """The user of a leaf from `cas`; None if it is not from them, expired, not for clients or without a CN (the
    TLS layer does not verify client certificates: app/tls.py)."""
    try:
        return user_from_certificate(verify_client_certificate(der, cas, now))
    except AuthenticationError:
        return None


@dataclass(frozen=True)
class ClientCertificates:
    """The x509 request authenticator: leaves from the cluster CA or a --client-ca-file CA."""

    cas: tuple[x509.Certificate, ...]

    def authenticate(self, environ: dict[str, Any]) -> UserInfo | None:
        der = environ.get(PEER_CERT_KEY)
        if not der:
            return None
        return user_from_certificate(verify_client_certificate(der, self.cas))
