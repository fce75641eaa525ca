"""JSON Web Tokens with python-jose: signing with our keys and checking signatures and times.

Only asymmetric algorithms are ever accepted, and always for the key type at hand, so a token can
never have an RSA public key used as an HMAC secret.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jose import jwk, jws
from jose.exceptions import JOSEError

from .authn import AuthenticationError

RSA_ALGORITHMS = ("RS256", "RS384", "RS512")
EC_ALGORITHMS = {"secp256r1": "ES256", "secp384r1": "ES384", "secp521r1": "ES512"}
ASYMMETRIC = frozenset(RSA_ALGORITHMS) | frozenset(EC_ALGORITHMS.values())

PublicKey = rsa.RSAPublicKey | ec.EllipticCurvePublicKey
PrivateKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey


class NotAJwt(Exception):
    """The string is not a compact JWS with a JSON header and payload (another authenticator's token)."""


def _b64decode(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def peek(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(header, claims) WITHOUT verification: only to route the token to the right verifier."""
    parts = token.split(".")
    if len(parts) != 3 or not all(parts[:2]):
        raise NotAJwt("not a compact JWT")
    try:
        header, claims = json.loads(_b64decode(parts[0])), json.loads(_b64decode(parts[1]))
    except (ValueError, UnicodeDecodeError) as err:
        raise NotAJwt(f"malformed JWT: {err}") from None
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise NotAJwt("malformed JWT: header and payload must be objects")
    return header, claims


def key_id(public_key: PublicKey) -> str:
    """The reference's key id: base64url (unpadded) of the SHA-256 of the DER public key."""
    der = public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.urlsafe_b64encode(hashlib.sha256(der).digest()).rstrip(b"=").decode()


def algorithm_for(key: PrivateKey | PublicKey) -> str:
    if isinstance(key, (rsa.RSAPrivateKey, rsa.RSAPublicKey)):
        return "RS256"
    return EC_ALGORITHMS[key.curve.name]


def algorithms_for(key: PublicKey) -> tuple[str, ...]:
    if isinstance(key, rsa.RSAPublicKey):
        return RSA_ALGORITHMS
    return (EC_ALGORITHMS[key.curve.name],)


def sign(claims: Mapping[str, Any], private_key: PrivateKey) -> str:
    algorithm = algorithm_for(private_key)
    pem = private_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    headers = {"kid": key_id(private_key.public_key())}
    payload = json.dumps(dict(claims), separators=(",", ":")).encode()
    return jws.sign(payload, jwk.construct(pem, algorithm), headers=headers, algorithm=algorithm)


@dataclass(frozen=True)
class VerifyingKey:
    """A public key with the algorithms it may verify (a JWKS entry or a PEM key)."""

    kid: str
    key: Any  # a jose Key
    algorithms: tuple[str, ...]


def pem_verifying_key(public_key: PublicKey) -> VerifyingKey:
    pem = public_key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    algorithms = algorithms_for(public_key)
    return VerifyingKey(key_id(public_key), jwk.construct(pem, algorithms[0]), algorithms)


def jwk_verifying_key(entry: Mapping[str, Any]) -> VerifyingKey | None:
    """A JWKS entry usable for signatures, or None (encryption keys, symmetric keys, unknown types)."""
    if entry.get("use", "sig") != "sig" or entry.get("kty") not in ("RSA", "EC"):
        return None
    algorithm = entry.get("alg")
    if entry["kty"] == "RSA":
        algorithms = (algorithm,) if algorithm in RSA_ALGORITHMS else RSA_ALGORITHMS
    else:
        curve = {"P-256": "ES256", "P-384": "ES384", "P-521": "ES512"}.get(str(entry.get("crv")))
        if curve is None:
            return None
        algorithms = (curve,)
    try:
        key = jwk.construct(dict(entry), algorithms[0])
    except (JOSEError, ValueError, TypeError):
        return None
    return VerifyingKey(str(entry.get("kid") or ""), key, algorithms)


def verify(token: str, keys: Iterable[VerifyingKey], allowed: Iterable[str]) -> dict[str, Any]:
    """The claims when one of `keys` made the signature with an allowed algorithm."""
    header, _ = peek(token)
    algorithm = header.get("alg")
    if not isinstance(algorithm, str) or algorithm not in ASYMMETRIC or algorithm not in set(allowed):
        raise AuthenticationError(f"unsupported signing algorithm {algorithm!r}")
    kid = header.get("kid") if isinstance(header.get("kid"), str) else None
    for candidate in keys:
        if algorithm not in candidate.algorithms or (kid and candidate.kid and kid != candidate.kid):
            continue
        try:
            payload = jws.verify(token, candidate.key, algorithms=[algorithm])
        except JOSEError:
            continue
        claims = json.loads(payload)
        if isinstance(claims, dict):
            return claims
    raise AuthenticationError("token signature is invalid")


def numeric(claims: Mapping[str, Any], name: str) -> float | None:
    value = claims.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AuthenticationError(f"claim {name!r} is not a number")
    return float(value)


def check_times(
    claims: Mapping[str, Any],
    now: float,
    leeway: float,
    nbf_leeway: float | None = None,
    require_exp: bool = True,
    check_iat: bool = False,
    what: str = "token",
) -> None:
    """`exp` in the future, `nbf` (and `iat` when asked) in the past, within the leeways."""
    expiry = numeric(claims, "exp")
    if expiry is None and require_exp:
        raise AuthenticationError(f"{what} has no expiry")
    if expiry is not None and now > expiry + leeway:
        raise AuthenticationError(f"{what} has expired")
    not_before = numeric(claims, "nbf")
    if not_before is not None and now + (leeway if nbf_leeway is None else nbf_leeway) < not_before:
        raise AuthenticationError(f"{what} is not valid yet")
    issued = numeric(claims, "iat")
    if check_iat and issued is not None and now + leeway < issued:
        raise AuthenticationError(f"{what} is issued in the future")


def audiences(claims: Mapping[str, Any]) -> tuple[str, ...]:
    value = claims.get("aud")
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(a, str) for a in value):
        return tuple(value)
    if value is None:
        return ()
    raise AuthenticationError("claim 'aud' is neither a string nor a list of strings")
