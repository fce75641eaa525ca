"""Bootstrap discovery: trust a server's CA only after the signed cluster-info config map checks out.

The client reads `<public ns>/cluster-info` without credentials or CA verification, verifies the detached JWS
`jws-kubeconfig-<token id>` (HS256, key = the whole bootstrap token), optionally checks CA public-key pins, and
then re-reads cluster-info over TLS verified with that CA, as kubeadm does.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from collections.abc import Sequence
from urllib.parse import quote

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from .config import NAMING, ClientConfig
from .rest import ApiError, Client

CLUSTER_INFO_NAME = "cluster-info"
JWS_KEY_PREFIX = "jws-kubeconfig-"
TOKEN_PATTERN = re.compile(r"^([a-z0-9]{6})\.([a-z0-9]{16})$")
PIN_PATTERN = re.compile(r"^sha256:([0-9a-f]{64})$")


class BootstrapError(Exception):
    """Bootstrap discovery failed; the server's CA must not be trusted."""


def cluster_info_path(namespace: str = NAMING.public_namespace) -> str:
    return f"/api/v1/namespaces/{quote(namespace)}/configmaps/{CLUSTER_INFO_NAME}"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64url_decode(text: str) -> bytes:
    if not re.fullmatch(r"[A-Za-z0-9_-]*", text):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def parse_token(token: str) -> tuple[str, str]:
    match = TOKEN_PATTERN.match(token or "")
    if match is None:
        raise BootstrapError("the bootstrap token must look like <6 chars [a-z0-9]>.<16 chars [a-z0-9]>")
    return match.group(1), match.group(2)


def verify_detached_jws(signature: str, payload: str, token: str) -> None:
    """Check `<b64url header>..<b64url signature>` over the payload; only {"alg": "HS256"} headers pass."""
    parts = signature.strip().split(".")
    if len(parts) != 3 or parts[1] != "":
        raise BootstrapError("the cluster-info signature is not a detached JWS (<header>..<signature>)")
    encoded_header, _, encoded_signature = parts
    try:
        header = json.loads(_b64url_decode(encoded_header))
        mac = _b64url_decode(encoded_signature)
    except ValueError:
        raise BootstrapError("the cluster-info signature is not valid base64url JSON") from None
    if not isinstance(header, dict) or header.get("alg") != "HS256":
        alg = header.get("alg") if isinstance(header, dict) else None
        raise BootstrapError(f"the cluster-info signature uses algorithm {alg!r}; only HS256 is accepted")
    unknown = set(header) - {"alg", "kid", "typ"}
    if unknown:
        raise BootstrapError(f"the cluster-info signature header has unsupported fields {sorted(unknown)}")
    signing_input = f"{encoded_header}.{b64url(payload.encode())}".encode("ascii")
    expected = hmac.new(token.encode(), signing_input, hashlib.sha256).digest()
    if not hmac.compare_digest(expected, mac):
        raise BootstrapError("the cluster-info signature does not match the bootstrap token")


def ca_public_key_hash(certificate: x509.Certificate) -> str:
    """kubeadm's pin format: sha256 of the certificate's DER SubjectPublicKeyInfo."""
    spki = certificate.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return "sha256:" + hashlib.sha256(spki).hexdigest()


def check_pins(ca_pem: bytes, ca_hashes: Sequence[str]) -> None:
    pins = set()
    for pin in ca_hashes:
        normalized = pin.strip().lower()
        if not PIN_PATTERN.match(normalized):
            raise BootstrapError(f"CA pin {pin!r} is not of the form sha256:<64 hex digits>")
        pins.add(normalized)
    try:
        certificates = x509.load_pem_x509_certificates(ca_pem)
    except ValueError as err:
        raise BootstrapError(f"the CA in cluster-info is not valid PEM: {err}") from None
    found = {ca_public_key_hash(cert) for cert in certificates}
    if not found & pins:
        raise BootstrapError(
            f"none of the CA public keys in cluster-info ({', '.join(sorted(found))}) matches the pinned hashes"
        )


def _fetch(config: ClientConfig) -> dict:
    with Client(config, on_warning=lambda _text: None, timeout=30.0) as client:
        try:
            return client.get(cluster_info_path())
        except ApiError as err:
            raise BootstrapError(
                f"cannot read {NAMING.public_namespace}/{CLUSTER_INFO_NAME} from {config.server}: {err}"
            ) from None


def _cluster_of(kubeconfig_text: str) -> tuple[str, dict]:
    try:
        document = yaml.safe_load(kubeconfig_text)
    except yaml.YAMLError as err:
        raise BootstrapError(f"the kubeconfig in cluster-info is not valid YAML: {err}") from None
    clusters = (document or {}).get("clusters") if isinstance(document, dict) else None
    if not clusters or not isinstance(clusters[0], dict) or not isinstance(clusters[0].get("cluster"), dict):
        raise BootstrapError("the kubeconfig in cluster-info has no cluster")
    return str(clusters[0].get("name") or "cluster"), clusters[0]["cluster"]


def discover_cluster_info(server: str, token: str, *, ca_hashes: Sequence[str] = ()) -> dict:
    """A kubeconfig dict (one cluster: server and CA data) trusted through the cluster-info signed with `token`."""
    token_id, _secret = parse_token(token)
    server = server.rstrip("/")
    if not server.startswith("https://"):
        raise BootstrapError(f"the server URL {server!r} must start with https://")
    # unauthenticated and unverified on purpose: nothing from this answer is trusted before the signature checks out
    info = _fetch(ClientConfig.for_server(server, insecure=True))
    data = info.get("data") or {}
    payload = data.get("kubeconfig")
    if not isinstance(payload, str) or not payload:
        raise BootstrapError(f"{CLUSTER_INFO_NAME} has no kubeconfig")
    signature = data.get(JWS_KEY_PREFIX + token_id)
    if not signature:
        raise BootstrapError(
            f"{CLUSTER_INFO_NAME} has no signature for token ID {token_id!r} (is the token valid and signing enabled?)"
        )
    verify_detached_jws(signature, payload, token)
    name, cluster = _cluster_of(payload)
    ca_b64 = cluster.get("certificate-authority-data")
    if not ca_b64:
        raise BootstrapError("the kubeconfig in cluster-info has no certificate-authority-data")
    try:
        ca_pem = base64.b64decode(ca_b64, validate=True)
    except ValueError:
        raise BootstrapError("the certificate-authority-data in cluster-info is not valid base64") from None
    if ca_hashes:
        check_pins(ca_pem, ca_hashes)
    # now with the CA just trusted: the same cluster-info must come back over a verified connection
    secure = _fetch(ClientConfig.for_server(server, ca_data=ca_pem))
    if (secure.get("data") or {}).get("kubeconfig") != payload:
        raise BootstrapError(f"{CLUSTER_INFO_NAME} read over the verified connection differs from the signed one")
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": {"server": server, "certificate-authority-data": ca_b64}}],
        "contexts": [],
        "users": [],
        "current-context": "",
    }
