"""Keys of service-account tokens: the signing key (generated into the data dir when absent) and
the PEM files of public keys that verify tokens."""

from __future__ import annotations

import os
import re

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from .. import pki
from .jwt import PrivateKey, PublicKey

_PEM_BLOCK = re.compile(rb"-----BEGIN ([A-Z0-9 ]+)-----.*?-----END \1-----", re.DOTALL)


def _usable_public(key: object, origin: str) -> PublicKey:
    if isinstance(key, (rsa.RSAPublicKey, ec.EllipticCurvePublicKey)):
        return key
    raise ValueError(f"{origin}: only RSA and ECDSA keys can verify service-account tokens")


def load_public_keys(path: str) -> list[PublicKey]:
    """Every public key, private key or certificate in a PEM file (as the reference's key files)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as err:
        raise ValueError(f"{path}: {err}") from err
    keys: list[PublicKey] = []
    for block in _PEM_BLOCK.finditer(data):
        label, pem = block.group(1).decode(), block.group(0)
        try:
            if label == "CERTIFICATE":
                keys.append(_usable_public(x509.load_pem_x509_certificate(pem).public_key(), path))
            elif label.endswith("PUBLIC KEY"):
                keys.append(_usable_public(serialization.load_pem_public_key(pem), path))
            elif label.endswith("PRIVATE KEY"):
                private = serialization.load_pem_private_key(pem, password=None)
                keys.append(_usable_public(private.public_key(), path))
        except (ValueError, TypeError) as err:
            raise ValueError(f"{path}: unreadable {label}: {err}") from err
    if not keys:
        raise ValueError(f"{path}: no public key, private key or certificate found")
    return keys


def load_private_key(path: str) -> PrivateKey:
    try:
        with open(path, "rb") as handle:
            key = serialization.load_pem_private_key(handle.read(), password=None)
    except (OSError, ValueError, TypeError) as err:
        raise ValueError(f"{path}: not a PEM private key ({err})") from err
    if not isinstance(key, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey)):
        raise ValueError(f"{path}: only RSA and ECDSA keys can sign service-account tokens")
    if isinstance(key, ec.EllipticCurvePrivateKey) and key.curve.name not in ("secp256r1", "secp384r1", "secp521r1"):
        raise ValueError(f"{path}: unsupported curve {key.curve.name}")
    return key


def ensure_signing_key(path: str) -> PrivateKey:
    """Load the key, or create an RSA key there first (under the PKI lock shared with other processes)."""
    if os.path.exists(path):
        return load_private_key(path)
    with pki.locked(os.path.dirname(path) or "."):
        if not os.path.exists(path):
            key = pki.new_key()
            pem = key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
            pki.write_file(path, pem, 0o600)
    return load_private_key(path)
