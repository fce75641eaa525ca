"""The cluster CA, the serving certificate and client certificates (for admin.kubeconfig and tests)."""

from __future__ import annotations

import contextlib
import contextvars
import fcntl
import ipaddress
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
from cryptography.hazmat.primitives.asymmetric import types as keytypes
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

KEY_BITS = 2048
CA_LIFETIME = timedelta(days=3650)
LEAF_LIFETIME = timedelta(days=365)
CLOCK_SKEW = timedelta(minutes=5)  # backdate so peers with a slightly slow clock accept fresh certificates
RENEW_BEFORE = timedelta(days=1)  # a reused leaf must stay valid at least this long

#: The keys `new_key` makes: RSA (every real server), or EC P-256 inside `throwaway_keys()` (the test server's
#: throw-away PKI: a P-256 key takes well under a millisecond to make, a 2048-bit RSA key 30-150 ms)
_THROWAWAY_KEYS: contextvars.ContextVar[bool] = contextvars.ContextVar("orch_pki_throwaway_keys", default=False)

NewKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey


class PkiError(Exception):
    """The PKI files on disk cannot be used as they are; the message says which and why."""


@dataclass(frozen=True)
class CertKey:
    cert: x509.Certificate
    key: keytypes.CertificateIssuerPrivateKeyTypes

    @property
    def cert_pem(self) -> bytes:
        return self.cert.public_bytes(serialization.Encoding.PEM)

    @property
    def key_pem(self) -> bytes:
        return self.key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )


def now_utc() -> datetime:
    return datetime.now(UTC)


@contextlib.contextmanager
def locked(directory: str | os.PathLike[str]) -> Iterator[None]:
    """Serialize PKI set-up between processes sharing one data directory (replicas on a volume)."""
    os.makedirs(directory, mode=0o700, exist_ok=True)
    with open(os.path.join(directory, ".lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_file(path: str | os.PathLike[str], data: bytes, mode: int = 0o644) -> None:
    """Write atomically (temp file + rename) so readers never see half a key."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode)  # the umask may have narrowed or the file pre-existed
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_pair(pair: CertKey, cert_path: str | os.PathLike[str], key_path: str | os.PathLike[str]) -> None:
    write_file(key_path, pair.key_pem, 0o600)
    write_file(cert_path, pair.cert_pem, 0o644)


def load_pair(cert_path: str | os.PathLike[str], key_path: str | os.PathLike[str]) -> CertKey:
    """The first certificate of cert_path with its key; PkiError when unreadable or mismatched."""
    try:
        cert = x509.load_pem_x509_certificates(Path(cert_path).read_bytes())[0]
        key = serialization.load_pem_private_key(Path(key_path).read_bytes(), password=None)
    except (OSError, ValueError) as err:
        raise PkiError(f"cannot load {cert_path} / {key_path}: {err}") from err
    if not isinstance(key, keytypes.CertificateIssuerPrivateKeyTypes):  # type: ignore[arg-type]
        raise PkiError(f"{key_path}: unsupported key type {type(key).__name__}")
    if _spki(cert.public_key()) != _spki(key.public_key()):
        raise PkiError(f"{cert_path} does not belong to the key in {key_path}")
    return CertKey(cert, key)  # type: ignore[arg-type]  # narrowed by the isinstance above


def _spki(public_key: keytypes.PublicKeyTypes) -> bytes:
    return public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def _digest(key: keytypes.CertificateIssuerPrivateKeyTypes) -> hashes.SHA256 | None:
    # Edwards-curve keys sign without a separate digest; a CA supplied by the admin may use one.
    return None if isinstance(key, (ed25519.Ed25519PrivateKey, ed448.Ed448PrivateKey)) else hashes.SHA256()


@contextlib.contextmanager
def throwaway_keys() -> Iterator[None]:
    """Keys made in this block (this thread or task only) are EC P-256 instead of RSA: app/testing's servers."""
    token = _THROWAWAY_KEYS.set(True)
    try:
        yield
    finally:
        _THROWAWAY_KEYS.reset(token)


def new_key() -> NewKey:
    if _THROWAWAY_KEYS.get():
        return ec.generate_private_key(ec.SECP256R1())
    return rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)


def _name(common_name: str, organizations: Sequence[str] = ()) -> x509.Name:
    attrs = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in organizations]
    return x509.Name([*attrs, x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _builder(
    subject: x509.Name, issuer: x509.Name, public_key: keytypes.CertificatePublicKeyTypes, lifetime: timedelta
) -> x509.CertificateBuilder:
    start = now_utc() - CLOCK_SKEW
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + CLOCK_SKEW + lifetime)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
    )


def create_ca(common_name: str, lifetime: timedelta = CA_LIFETIME) -> CertKey:
    key = new_key()
    name = _name(common_name)
    cert = (
        _builder(name, name, key.public_key(), lifetime)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(_key_usage(cert_sign=True), critical=True)
        .sign(key, hashes.SHA256())
    )
    return CertKey(cert, key)


def _key_usage(cert_sign: bool = False, encipher: bool = True) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=True,
        content_commitment=False,
        key_encipherment=encipher and not cert_sign,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=cert_sign,
        crl_sign=cert_sign,
        encipher_only=False,
        decipher_only=False,
    )


def _sign_leaf(
    ca: CertKey, builder: x509.CertificateBuilder, usage: x509.ObjectIdentifier, key: NewKey
) -> x509.Certificate:
    ski = ca.cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    # keyEncipherment is RSA's key exchange; an EC key only signs (RFC 5480)
    encipher = isinstance(key, rsa.RSAPrivateKey)
    return (
        builder.add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_key_usage(encipher=encipher), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ski), critical=False)
        .sign(ca.key, _digest(ca.key))
    )


def san_entries(hosts: Sequence[str]) -> list[x509.GeneralName]:
    entries: list[x509.GeneralName] = []
    for host in hosts:
        try:
            entries.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            entries.append(x509.DNSName(host))
    return entries


def issue_serving_cert(
    ca: CertKey, common_name: str, hosts: Sequence[str], lifetime: timedelta = LEAF_LIFETIME
) -> CertKey:
    key = new_key()
    builder = _builder(_name(common_name), ca.cert.subject, key.public_key(), lifetime).add_extension(
        x509.SubjectAlternativeName(san_entries(hosts)), critical=False
    )
    return CertKey(_sign_leaf(ca, builder, ExtendedKeyUsageOID.SERVER_AUTH, key), key)


def issue_client_cert(
    ca: CertKey,
    common_name: str,
    organizations: Sequence[str] = (),
    lifetime: timedelta = LEAF_LIFETIME,
    key: NewKey | None = None,
) -> CertKey:
    """A clientAuth certificate: user = CN, groups = each O, as the x509 authenticator reads them."""
    key = key or new_key()
    builder = _builder(_name(common_name, organizations), ca.cert.subject, key.public_key(), lifetime)
    return CertKey(_sign_leaf(ca, builder, ExtendedKeyUsageOID.CLIENT_AUTH, key), key)


def is_current(cert: x509.Certificate, now: datetime | None = None, margin: timedelta = RENEW_BEFORE) -> bool:
    now = now or now_utc()
    return cert.not_valid_before_utc <= now and now + margin < cert.not_valid_after_utc


def signed_by(cert: x509.Certificate, issuer: x509.Certificate) -> bool:
    try:
        cert.verify_directly_issued_by(issuer)
    except (ValueError, TypeError, InvalidSignature):
        return False
    return True


def names_exactly(cert: x509.Certificate, hosts: Sequence[str]) -> bool:
    """The certificate names these hosts and no others (a name dropped from --tls-san must stop working)."""
    try:
        present = set(cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value)
    except x509.ExtensionNotFound:
        return False
    return set(san_entries(hosts)) == present


def ensure_ca(cert_path: str, key_path: str, common_name: str) -> CertKey:
    """Reuse the CA on disk, else create one; never replace an existing CA behind the admin's back."""
    have_cert, have_key = os.path.exists(cert_path), os.path.exists(key_path)
    if have_cert and have_key:
        ca = load_pair(cert_path, key_path)
        if not is_current(ca.cert, margin=timedelta(0)):
            raise PkiError(f"the cluster CA {cert_path} has expired; move the pki directory away to make a new one")
        return ca
    if have_cert or have_key:
        raise PkiError(f"only one of {cert_path} and {key_path} exists; restore the other or remove both")
    ca = create_ca(common_name)
    write_pair(ca, cert_path, key_path)
    return ca


def ensure_serving_cert(ca: CertKey, cert_path: str, key_path: str, common_name: str, hosts: Sequence[str]) -> CertKey:
    """Reuse the serving pair while valid, issued by this CA and naming exactly these hosts; else issue anew."""
    with contextlib.suppress(PkiError):
        if os.path.exists(cert_path) and os.path.exists(key_path):
            pair = load_pair(cert_path, key_path)
            if is_current(pair.cert) and signed_by(pair.cert, ca.cert) and names_exactly(pair.cert, hosts):
                return pair
    pair = issue_serving_cert(ca, common_name, hosts)
    write_pair(pair, cert_path, key_path)
    return pair


def ensure_client_cert(
    ca: CertKey, cert_path: str, key_path: str, common_name: str, organizations: Sequence[str]
) -> CertKey:
    """Reuse a client pair while valid, issued by this CA and naming the same user; else issue a new one."""
    want = _name(common_name, organizations)
    with contextlib.suppress(PkiError):
        if os.path.exists(cert_path) and os.path.exists(key_path):
            pair = load_pair(cert_path, key_path)
            if is_current(pair.cert) and signed_by(pair.cert, ca.cert) and pair.cert.subject == want:
                return pair
    pair = issue_client_cert(ca, common_name, organizations)
    write_pair(pair, cert_path, key_path)
    return pair


def load_certificates(path: str) -> list[x509.Certificate]:
    """Every certificate of a PEM bundle; PkiError when there is none."""
    try:
        return x509.load_pem_x509_certificates(Path(path).read_bytes())
    except (OSError, ValueError) as err:
        raise PkiError(f"{path}: not a PEM certificate bundle ({err})") from err


def write_bundle(path: str, certificates: Sequence[x509.Certificate]) -> None:
    """One PEM file of distinct certificates, in order (the TLS layer's list of trusted client CAs)."""
    seen: list[x509.Certificate] = []
    for cert in certificates:
        if cert not in seen:
            seen.append(cert)
    write_file(path, b"".join(c.public_bytes(serialization.Encoding.PEM) for c in seen))


def kubeconfig(server_url: str, ca_pem: bytes, user: CertKey, cluster: str, user_name: str) -> dict:
    """A client config (kubectl, client-go, Python clients) with embedded CA and client credentials."""
    from .client.config import certificate_kubeconfig

    return certificate_kubeconfig(server_url, ca_pem, cluster, user_name, user.cert_pem, user.key_pem)


def write_kubeconfig(path: str, config: dict) -> None:
    write_file(path, yaml.safe_dump(config, sort_keys=False).encode("utf-8"), 0o600)
