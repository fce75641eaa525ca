"""app/pki.py and app.server.prepare: CA, serving and client certificates, bundle, admin kubeconfig."""

from __future__ import annotations

import base64
import ipaddress
import os
import socket
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from orch_apiserver import pki
from orch_apiserver.config import Settings, settings_from_env


def mode(path: Path | str) -> int:
    return os.stat(path).st_mode & 0o777


@pytest.fixture(scope="module")
def ca() -> pki.CertKey:
    return pki.create_ca("test-ca")


def sans(cert: x509.Certificate) -> set[object]:
    ext = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return set(ext.get_values_for_type(x509.IPAddress)) | set(ext.get_values_for_type(x509.DNSName))


def test_ca_is_created_once_and_reused(tmp_path: Path) -> None:
    crt, key = str(tmp_path / "ca.crt"), str(tmp_path / "ca.key")
    first = pki.ensure_ca(crt, key, "orch-ca")
    assert mode(key) == 0o600
    assert first.cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert first.cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "orch-ca"
    assert pki.ensure_ca(crt, key, "orch-ca").cert == first.cert


def test_half_a_ca_is_an_error_not_a_silent_replacement(tmp_path: Path, ca: pki.CertKey) -> None:
    pki.write_file(tmp_path / "ca.crt", ca.cert_pem)
    with pytest.raises(pki.PkiError, match="only one of"):
        pki.ensure_ca(str(tmp_path / "ca.crt"), str(tmp_path / "ca.key"), "orch-ca")


def test_mismatched_pair_is_refused(tmp_path: Path, ca: pki.CertKey) -> None:
    other = pki.issue_client_cert(ca, "x")
    pki.write_file(tmp_path / "a.crt", ca.cert_pem)
    pki.write_file(tmp_path / "a.key", other.key_pem)
    with pytest.raises(pki.PkiError, match="does not belong"):
        pki.load_pair(tmp_path / "a.crt", tmp_path / "a.key")
    pki.write_file(tmp_path / "b.crt", b"garbage")
    with pytest.raises(pki.PkiError, match="cannot load"):
        pki.load_pair(tmp_path / "b.crt", tmp_path / "a.key")


def test_serving_cert_names_loopback_and_is_reused(tmp_path: Path, ca: pki.CertKey) -> None:
    crt, key = str(tmp_path / "s.crt"), str(tmp_path / "s.key")
    first = pki.ensure_serving_cert(ca, crt, key, "orch-apiserver", ["127.0.0.1", "localhost"])
    assert sans(first.cert) == {ipaddress.ip_address("127.0.0.1"), "localhost"}
    assert pki.signed_by(first.cert, ca.cert)
    eku = first.cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(eku) == [ExtendedKeyUsageOID.SERVER_AUTH]
    assert mode(key) == 0o600
    assert pki.ensure_serving_cert(ca, crt, key, "orch-apiserver", ["127.0.0.1", "localhost"]).cert == first.cert


def test_serving_cert_is_reissued_for_new_hosts_another_ca_or_near_expiry(tmp_path: Path, ca: pki.CertKey) -> None:
    crt, key = str(tmp_path / "s.crt"), str(tmp_path / "s.key")
    first = pki.ensure_serving_cert(ca, crt, key, "orch-apiserver", ["127.0.0.1"])
    wider = pki.ensure_serving_cert(ca, crt, key, "orch-apiserver", ["127.0.0.1", "10.0.0.5"])
    assert wider.cert != first.cert and ipaddress.ip_address("10.0.0.5") in sans(wider.cert)
    other_ca = pki.create_ca("other")
    moved = pki.ensure_serving_cert(other_ca, crt, key, "orch-apiserver", ["127.0.0.1"])
    assert pki.signed_by(moved.cert, other_ca.cert)
    short = pki.issue_serving_cert(ca, "orch-apiserver", ["127.0.0.1"], lifetime=timedelta(hours=1))
    pki.write_pair(short, crt, key)
    renewed = pki.ensure_serving_cert(ca, crt, key, "orch-apiserver", ["127.0.0.1"])
    assert renewed.cert != short.cert and pki.is_current(renewed.cert)


def test_client_cert_has_cn_organizations_and_client_auth(ca: pki.CertKey) -> None:
    pair = pki.issue_client_cert(ca, "admin", ["system:masters", "ops"])
    subject = pair.cert.subject
    assert [a.value for a in subject.get_attributes_for_oid(NameOID.COMMON_NAME)] == ["admin"]
    assert [a.value for a in subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)] == ["system:masters", "ops"]
    eku = pair.cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(eku) == [ExtendedKeyUsageOID.CLIENT_AUTH]
    assert not pair.cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert pki.signed_by(pair.cert, ca.cert) and not pki.signed_by(pair.cert, pki.create_ca("x").cert)


def test_throwaway_keys_are_ec_inside_the_block_and_a_real_servers_stay_rsa() -> None:
    with pki.throwaway_keys():  # the test server's PKI (app/testing)
        ca = pki.create_ca("test-ca")
        serving = pki.issue_serving_cert(ca, "server", ["127.0.0.1"])
    assert isinstance(ca.key, ec.EllipticCurvePrivateKey) and isinstance(serving.key, ec.EllipticCurvePrivateKey)
    assert pki.signed_by(serving.cert, ca.cert)
    usage = serving.cert.extensions.get_extension_for_class(x509.KeyUsage).value
    assert usage.digital_signature and not usage.key_encipherment  # an EC key signs, it does not encipher
    assert isinstance(pki.new_key(), rsa.RSAPrivateKey)
    rsa_usage = pki.issue_client_cert(ca, "admin").cert.extensions.get_extension_for_class(x509.KeyUsage).value
    assert rsa_usage.key_encipherment


def test_client_cert_reuse_and_regeneration(tmp_path: Path, ca: pki.CertKey) -> None:
    crt, key = str(tmp_path / "admin.crt"), str(tmp_path / "admin.key")
    first = pki.ensure_client_cert(ca, crt, key, "admin", ["system:masters"])
    assert pki.ensure_client_cert(ca, crt, key, "admin", ["system:masters"]).cert == first.cert
    assert pki.ensure_client_cert(ca, crt, key, "root", ["system:masters"]).cert != first.cert
    os.unlink(crt)
    assert pki.ensure_client_cert(ca, crt, key, "admin", ["system:masters"]).cert != first.cert


def test_bundle_keeps_order_and_drops_duplicates(tmp_path: Path, ca: pki.CertKey) -> None:
    other = pki.create_ca("other")
    pki.write_bundle(str(tmp_path / "b.crt"), [ca.cert, other.cert, ca.cert])
    assert pki.load_certificates(str(tmp_path / "b.crt")) == [ca.cert, other.cert]
    (tmp_path / "junk.crt").write_text("not pem")
    with pytest.raises(pki.PkiError, match="not a PEM certificate bundle"):
        pki.load_certificates(str(tmp_path / "junk.crt"))


def test_kubeconfig_embeds_ca_and_credentials(tmp_path: Path, ca: pki.CertKey) -> None:
    admin = pki.issue_client_cert(ca, "admin", ["system:masters"])
    path = str(tmp_path / "admin.kubeconfig")
    pki.write_kubeconfig(path, pki.kubeconfig("https://127.0.0.1:6443", ca.cert_pem, admin, "orch", "admin"))
    assert mode(path) == 0o600
    config = yaml.safe_load(Path(path).read_text())
    cluster = config["clusters"][0]["cluster"]
    assert cluster["server"] == "https://127.0.0.1:6443"
    assert base64.b64decode(cluster["certificate-authority-data"]) == ca.cert_pem
    user = config["users"][0]["user"]
    assert base64.b64decode(user["client-certificate-data"]) == admin.cert_pem
    key = serialization.load_pem_private_key(base64.b64decode(user["client-key-data"]), None)
    assert key.public_key().public_numbers() == admin.key.public_key().public_numbers()  # type: ignore[union-attr]
    assert config["current-context"] == "admin@orch"
    assert config["contexts"][0]["context"] == {"cluster": "orch", "user": "admin"}


def test_kubeconfig_loads_in_the_python_client(tmp_path: Path, ca: pki.CertKey) -> None:
    kube_config = pytest.importorskip("kubernetes.config")
    admin = pki.issue_client_cert(ca, "admin", ["system:masters"])
    path = str(tmp_path / "admin.kubeconfig")
    pki.write_kubeconfig(path, pki.kubeconfig("https://127.0.0.1:6443", ca.cert_pem, admin, "orch", "admin"))
    client = kube_config.new_client_from_config(config_file=path)
    try:
        assert client.configuration.host == "https://127.0.0.1:6443"
        assert client.configuration.cert_file and client.configuration.key_file
    finally:
        client.close()


def test_write_file_is_atomic_and_sets_mode(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "f"
    pki.write_file(target, b"one", 0o600)
    pki.write_file(target, b"two", 0o640)
    assert target.read_bytes() == b"two" and mode(target) == 0o640
    assert sorted(p.name for p in target.parent.iterdir()) == ["f"]


def _settings(tmp_path: Path, **env: str) -> Settings:
    return settings_from_env({"ORCH_DATA_DIR": str(tmp_path / "data"), **env})


def test_prepare_creates_everything_and_is_idempotent(tmp_path: Path) -> None:
    from orch_apiserver.server import prepare

    settings = _settings(tmp_path, ORCH_SECURE_PORT="7443")
    prepared = prepare(settings)
    pki_dir = tmp_path / "data" / "pki"
    names = {p.name for p in pki_dir.iterdir()} - {".lock"}
    assert names == {
        "ca.crt",
        "ca.key",
        "serving.crt",
        "serving.key",
        "client-ca-bundle.crt",
        "admin.crt",
        "admin.key",
        "front-proxy-ca.crt",
        "front-proxy-ca.key",
        "front-proxy-client.crt",
        "front-proxy-client.key",
        "encryption-config.yaml",  # Secrets encrypted at rest by default (issue 53)
    }
    assert prepared.serving_cert_from_cluster_ca
    assert all(
        mode(pki_dir / n) == 0o600
        for n in (
            "ca.key",
            "serving.key",
            "admin.key",
            "front-proxy-ca.key",
            "front-proxy-client.key",
            "encryption-config.yaml",
        )
    )
    front_proxy = pki.load_pair(pki_dir / "front-proxy-client.crt", pki_dir / "front-proxy-client.key")
    assert front_proxy.cert.subject.rfc4514_string() == "CN=front-proxy-client"
    assert pki.signed_by(
        front_proxy.cert, pki.load_pair(pki_dir / "front-proxy-ca.crt", pki_dir / "front-proxy-ca.key").cert
    )
    config = yaml.safe_load(Path(prepared.kubeconfig).read_text())
    assert config["clusters"][0]["cluster"]["server"] == "https://127.0.0.1:7443"
    kept = ("ca.crt", "serving.crt", "admin.crt", "front-proxy-ca.crt", "front-proxy-client.crt")
    before = {n: (pki_dir / n).read_bytes() for n in kept}
    prepare(settings)
    assert before == {n: (pki_dir / n).read_bytes() for n in kept}


def test_prepare_bundles_the_client_ca_file_and_names_the_bind_address(tmp_path: Path, ca: pki.CertKey) -> None:
    from orch_apiserver.server import prepare

    pki.write_file(tmp_path / "extra.crt", ca.cert_pem)
    settings = _settings(tmp_path, ORCH_CLIENT_CA_FILE=str(tmp_path / "extra.crt"), ORCH_BIND_ADDRESS="0.0.0.0")
    prepare(settings)
    pki_dir = tmp_path / "data" / "pki"
    bundle = pki.load_certificates(str(pki_dir / "client-ca-bundle.crt"))
    cluster_ca = pki.load_certificates(str(pki_dir / "ca.crt"))[0]
    assert bundle == [cluster_ca, ca.cert]
    serving = pki.load_certificates(str(pki_dir / "serving.crt"))[0]
    # bound to all addresses: loopback and the host's name (what clients on other hosts use)
    assert sans(serving) == {ipaddress.ip_address("127.0.0.1"), "localhost", socket.gethostname().lower()}
    prepare(_settings(tmp_path, ORCH_BIND_ADDRESS="10.1.2.3"))
    serving = pki.load_certificates(str(pki_dir / "serving.crt"))[0]
    assert ipaddress.ip_address("10.1.2.3") in sans(serving)


def test_prepare_with_a_given_serving_pair(tmp_path: Path, ca: pki.CertKey) -> None:
    from orch_apiserver.server import prepare

    own = pki.issue_serving_cert(ca, "own", ["127.0.0.1"])
    pki.write_pair(own, tmp_path / "own.crt", tmp_path / "own.key")
    settings = _settings(
        tmp_path, ORCH_TLS_CERT_FILE=str(tmp_path / "own.crt"), ORCH_TLS_PRIVATE_KEY_FILE=str(tmp_path / "own.key")
    )
    prepared = prepare(settings)
    assert not prepared.serving_cert_from_cluster_ca
    assert not (tmp_path / "data" / "pki" / "serving.crt").exists()


def test_prepare_names_the_external_hostname_and_creates_the_requestheader_ca_it_is_given(tmp_path: Path) -> None:
    """A first start may trust the front-proxy CA it is about to create (the proxy recipe of README.md)."""
    from orch_apiserver.server import prepare

    own = tmp_path / "data" / "pki" / "front-proxy-ca.crt"
    settings = _settings(
        tmp_path,
        ORCH_SECURE_PORT="7443",
        ORCH_EXTERNAL_HOSTNAME="orch.example.com",
        ORCH_REQUESTHEADER_CLIENT_CA_FILE=str(own),
        ORCH_REQUESTHEADER_USERNAME_HEADERS="X-Remote-User",
    )
    prepared = prepare(settings)
    config = yaml.safe_load(Path(prepared.kubeconfig).read_text())
    assert config["clusters"][0]["cluster"]["server"] == "https://orch.example.com:7443"
    serving = pki.load_certificates(str(tmp_path / "data" / "pki" / "serving.crt"))[0]
    assert "orch.example.com" in sans(serving)
    bundle = pki.load_certificates(str(tmp_path / "data" / "pki" / "client-ca-bundle.crt"))
    assert pki.load_certificates(str(own))[0] in bundle  # the proxy's client certificate passes the handshake
