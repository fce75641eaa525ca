"""Helpers: real PKCS#10 requests and CSR bodies for the certificates tests."""

from __future__ import annotations

import base64
import ipaddress
from collections.abc import Sequence

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from orch_apiserver.naming import Naming

NAMING = Naming()
CSRS = f"/apis/{NAMING.group('certificates')}/v1/certificatesigningrequests"
CLIENT_SIGNER = NAMING.signer("apiserver-client")
NODE_CLIENT_SIGNER = NAMING.signer("apiserver-client-node")
NODE_SERVING_SIGNER = NAMING.signer("node-serving")
CLIENT_USAGES = ["digital signature", "key encipherment", "client auth"]
NODE_CLIENT_USAGES = ["digital signature", "key encipherment", "client auth"]
SERVING_USAGES = ["digital signature", "key encipherment", "server auth"]


def new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def request_pem(
    common_name: str,
    organizations: Sequence[str] = (),
    dns: Sequence[str] = (),
    ips: Sequence[str] = (),
    emails: Sequence[str] = (),
    uris: Sequence[str] = (),
    key: ec.EllipticCurvePrivateKey | None = None,
) -> bytes:
    key = key or new_key()
    attrs = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in organizations]
    builder = x509.CertificateSigningRequestBuilder().subject_name(
        x509.Name([*attrs, x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    )
    names: list[x509.GeneralName] = [x509.DNSName(d) for d in dns]
    names += [x509.IPAddress(ipaddress.ip_address(i)) for i in ips]
    names += [x509.RFC822Name(e) for e in emails] + [x509.UniformResourceIdentifier(u) for u in uris]
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def csr_body(
    name: str,
    signer: str = CLIENT_SIGNER,
    usages: Sequence[str] = tuple(CLIENT_USAGES),
    pem: bytes | None = None,
    **spec: object,
) -> dict:
    pem = pem if pem is not None else request_pem("someone", ["some-group"])
    return {
        "apiVersion": f"{NAMING.group('certificates')}/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": name},
        "spec": {"request": b64(pem), "signerName": signer, "usages": list(usages), **spec},
    }


def condition(kind: str, status: str = "True", reason: str = "Test") -> dict:
    return {"type": kind, "status": status, "reason": reason, "message": "by the test"}


def certificate_pem(obj: dict) -> bytes:
    return base64.b64decode(obj["status"]["certificate"])
