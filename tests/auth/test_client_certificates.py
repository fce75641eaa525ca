"""Client certificates through the app: several CAs, and the certificates that must not authenticate."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography.x509.oid import ExtendedKeyUsageOID
from orch_apiserver import pki

from .helpers import odd_client_cert, whoami, write_ca


def _bundle(tmp_path: Path, *cas: pki.CertKey) -> Path:
    path = tmp_path / "client-cas.pem"
    path.write_bytes(b"".join(ca.cert_pem for ca in cas))
    return path


def test_cluster_ca_and_every_ca_of_the_client_ca_bundle_authenticate(auth_app, cluster_ca, tmp_path) -> None:
    team_a, team_b = pki.create_ca("team-a"), pki.create_ca("team-b")
    client = auth_app(CLIENT_CA_FILE=str(_bundle(tmp_path, team_a, team_b))).test_client()
    for ca, name, groups in (
        (cluster_ca, "admin", ["system:masters"]),
        (team_a, "alice", ["dev", "ops"]),
        (team_b, "bob", []),
    ):
        cert = pki.issue_client_cert(ca, name, groups)
        code, user = whoami(client, cert=cert)
        assert code == 201, user
        assert user == {"username": name, "groups": [*groups, "system:authenticated"]}


def test_a_certificate_from_an_unknown_ca_is_401(auth_app, cluster_ca) -> None:
    client = auth_app().test_client()
    stranger = pki.issue_client_cert(pki.create_ca("stranger"), "admin", ["system:masters"])
    code, body = whoami(client, cert=stranger)
    assert code == 401 and body["reason"] == "Unauthorized" and body["message"] == "Unauthorized"


def test_expired_not_yet_valid_and_server_only_certificates_are_401(auth_app, cluster_ca) -> None:
    client = auth_app().test_client()
    now = datetime.now(UTC)
    refused = [
        odd_client_cert(cluster_ca, "late", not_before=now - timedelta(days=2), not_after=now - timedelta(minutes=1)),
        odd_client_cert(cluster_ca, "early", not_before=now + timedelta(hours=1), not_after=now + timedelta(days=1)),
        odd_client_cert(cluster_ca, "server", usage=ExtendedKeyUsageOID.SERVER_AUTH),
    ]
    for cert in refused:
        assert whoami(client, cert=cert)[0] == 401
    assert whoami(client, cert=odd_client_cert(cluster_ca, "fine"))[1]["username"] == "fine"


def test_a_certificate_without_a_common_name_is_anonymous_when_allowed(auth_app, cluster_ca) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "dev")]))
        .issuer_name(cluster_ca.cert.subject)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now - timedelta(hours=1))
        .not_valid_after(now + timedelta(hours=1))
        .sign(cluster_ca.key, hashes.SHA256())
    )
    code, user = whoami(auth_app().test_client(), cert=pki.CertKey(cert, key))  # type: ignore[arg-type]
    assert code == 201 and user["username"] == "system:anonymous"


def test_the_other_ca_file_is_read_from_the_configured_bundle(auth_app, tmp_path) -> None:
    """Without the cluster CA on disk, only --client-ca-file CAs count."""
    extra, path = write_ca(tmp_path, "extra")
    client = auth_app(CLIENT_CA_FILE=str(path)).test_client()
    assert whoami(client, cert=pki.issue_client_cert(extra, "carol"))[1]["username"] == "carol"
    assert whoami(client)[1]["username"] == "system:anonymous"
