"""Client-certificate authentication: the TLS layer verified the chain; this maps the leaf to a user."""
from __future__ import annotations

from datetime import UTC, datetime

from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from app.auth.user import UserInfo

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


def authenticate_x509(der: bytes, now: datetime | None = None) -> UserInfo | None:
    """User = subject CN, groups = each O in order; None if unusable (the caller adds system:authenticated)."""
    try:
        cert = x509.load_der_x509_certificate(der)
        if not _allows_client_auth(cert):
            return None
        common_names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
        groups = tuple(_text(a.value) for a in cert.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME))
    except ValueError:
        return None
    moment = now or datetime.now(UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # naive datetimes are taken as UTC
    if not cert.not_valid_before_utc <= moment <= cert.not_valid_after_utc:
        return None
    # The reference takes the last CN when a subject carries several; an empty one authenticates no one.
    username = _text(common_names[-1].value) if common_names else ""
    if not username:
        return None
    return UserInfo(username=username, groups=groups)
