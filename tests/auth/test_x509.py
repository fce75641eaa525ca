"""authenticate_x509: CN -> user, O -> groups, and the certificates it must refuse (other CAs among them)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from orch_apiserver.auth.x509 import authenticate_x509 as authenticate_with
from orch_apiserver.user import AUTHENTICATED_GROUP, UserInfo

NOW = datetime(2030, 6, 1, 12, 0, tzinfo=UTC)
_KEY = ec.generate_private_key(ec.SECP256R1())  # signing speed matters more than realism here


def make_cert(
    subject: list[tuple[x509.ObjectIdentifier, str]],
    usages: list[x509.ObjectIdentifier] | None = None,
    not_before: datetime = NOW - timedelta(days=1),
    not_after: datetime = NOW + timedelta(days=1),
) -> bytes:
    name = x509.Name([x509.NameAttribute(oid, value) for oid, value in subject])
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test-ca")]))
        .public_key(_KEY.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
    )
    if usages is not None:
        builder = builder.add_extension(x509.ExtendedKeyUsage(usages), critical=False)
    return builder.sign(_KEY, hashes.SHA256()).public_bytes(serialization.Encoding.DER)


CLIENT = [ExtendedKeyUsageOID.CLIENT_AUTH]
_CA_NAME = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test-ca")])
TEST_CA = (
    x509.CertificateBuilder()
    .subject_name(_CA_NAME)
    .issuer_name(_CA_NAME)
    .public_key(_KEY.public_key())
    .serial_number(1)
    .not_valid_before(NOW - timedelta(days=30))
    .not_valid_after(NOW + timedelta(days=30))
    .sign(_KEY, hashes.SHA256())
)


def authenticate_x509(der: bytes, now: datetime | None = None) -> UserInfo | None:
    return authenticate_with(der, [TEST_CA], now)


def test_common_name_is_the_user_and_organizations_are_groups_in_order() -> None:
    der = make_cert(
        [
            (NameOID.ORGANIZATION_NAME, "system:masters"),
            (NameOID.ORGANIZATION_NAME, "dev"),
            (NameOID.COMMON_NAME, "alice"),
        ],
        CLIENT,
    )
    assert authenticate_x509(der, NOW) == UserInfo("alice", groups=("system:masters", "dev"))


def test_system_authenticated_is_left_to_the_caller() -> None:
    user = authenticate_x509(make_cert([(NameOID.COMMON_NAME, "bob")], CLIENT), NOW)
    assert user is not None and user.groups == ()
    assert AUTHENTICATED_GROUP not in user.groups


@pytest.mark.parametrize(
    "usages",
    [
        None,
        CLIENT,
        [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH],
        [ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE],
    ],
    ids=["no-eku", "client-auth", "server-and-client", "any-usage"],
)
def test_key_usages_that_allow_client_auth(usages: list[x509.ObjectIdentifier] | None) -> None:
    assert authenticate_x509(make_cert([(NameOID.COMMON_NAME, "carol")], usages), NOW) is not None


@pytest.mark.parametrize(
    "usages",
    [[ExtendedKeyUsageOID.SERVER_AUTH], [ExtendedKeyUsageOID.CODE_SIGNING, ExtendedKeyUsageOID.EMAIL_PROTECTION]],
    ids=["server-only", "other-usages"],
)
def test_key_usages_without_client_auth_are_refused(usages: list[x509.ObjectIdentifier]) -> None:
    assert authenticate_x509(make_cert([(NameOID.COMMON_NAME, "dave")], usages), NOW) is None


def test_expired_and_not_yet_valid_certificates_are_refused() -> None:
    der = make_cert([(NameOID.COMMON_NAME, "erin")], CLIENT, NOW - timedelta(days=2), NOW - timedelta(seconds=1))
    assert authenticate_x509(der, NOW) is None
    future = make_cert([(NameOID.COMMON_NAME, "erin")], CLIENT, NOW + timedelta(seconds=1), NOW + timedelta(days=2))
    assert authenticate_x509(future, NOW) is None
    assert authenticate_x509(future, NOW + timedelta(days=1)) is not None


def test_validity_bounds_are_inclusive_and_naive_times_are_utc() -> None:
    der = make_cert([(NameOID.COMMON_NAME, "frank")], CLIENT, NOW, NOW + timedelta(hours=1))
    assert authenticate_x509(der, NOW) is not None
    assert authenticate_x509(der, NOW.replace(tzinfo=None)) is not None
    assert authenticate_x509(der, (NOW + timedelta(hours=2)).replace(tzinfo=None)) is None


def test_default_now_is_the_current_time() -> None:
    current = datetime.now(UTC)
    der = make_cert([(NameOID.COMMON_NAME, "gina")], CLIENT, current - timedelta(hours=1), current + timedelta(hours=1))
    assert authenticate_x509(der) == UserInfo("gina")
    stale = make_cert([(NameOID.COMMON_NAME, "gina")], CLIENT, current - timedelta(days=3), current - timedelta(days=2))
    assert authenticate_x509(stale) is None


def test_no_common_name_authenticates_no_one() -> None:
    assert authenticate_x509(make_cert([(NameOID.ORGANIZATION_NAME, "dev")], CLIENT), NOW) is None


def test_the_last_common_name_wins() -> None:
    der = make_cert([(NameOID.COMMON_NAME, "first"), (NameOID.COMMON_NAME, "last")], CLIENT)
    assert authenticate_x509(der, NOW) == UserInfo("last")


def test_garbage_is_refused() -> None:
    assert authenticate_x509(b"not a certificate", NOW) is None
    assert authenticate_x509(b"", NOW) is None


def test_certificates_issued_by_the_cluster_ca_authenticate() -> None:
    from orch_apiserver import pki

    ca = pki.create_ca("orch-ca")
    admin = pki.issue_client_cert(ca, "admin", ["system:masters"])
    der = admin.cert.public_bytes(serialization.Encoding.DER)
    assert authenticate_with(der, [ca.cert]) == UserInfo("admin", groups=("system:masters",))
    assert authenticate_with(der, [TEST_CA]) is None  # the TLS layer lets any certificate in: the CA is checked here
    serving = pki.issue_serving_cert(ca, "orch-apiserver", ["127.0.0.1"])
    assert authenticate_with(serving.cert.public_bytes(serialization.Encoding.DER), [ca.cert]) is None
