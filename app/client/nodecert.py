"""A node agent's client certificate through a CertificateSigningRequest, as the kubelet gets and renews its own:
a new key, a request for `system:node:<name>` in `system:nodes` to the node client signer, then the signed
certificate once the request is approved (the server's approver does it for a bootstrap token, `nodeclient`,
and for the node itself, `selfnodeclient`) and issued."""

from __future__ import annotations

import base64
import time
from collections.abc import Callable

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from ..naming import Naming
from .config import ClientConfig, certificate_kubeconfig
from .rest import Client

NODE_USER_PREFIX, NODES_GROUP = "system:node:", "system:nodes"
NODE_CLIENT_USAGES = ["digital signature", "client auth"]


class NodeCertificateError(Exception):
    """The request was denied or failed, or was not issued in time; the message says which."""


def node_request(node: str, key: ec.EllipticCurvePrivateKey) -> bytes:
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, NODES_GROUP),
            x509.NameAttribute(NameOID.COMMON_NAME, NODE_USER_PREFIX + node),
        ]
    )
    request = x509.CertificateSigningRequestBuilder().subject_name(subject).sign(key, hashes.SHA256())
    return request.public_bytes(serialization.Encoding.PEM)


def _outcome(csr: dict) -> str | None:
    """The issued certificate (base64), or None while waiting; NodeCertificateError when it never will be."""
    status = csr.get("status") or {}
    for condition in status.get("conditions") or []:
        if condition.get("type") in ("Denied", "Failed") and condition.get("status", "True") == "True":
            why = condition.get("message") or condition.get("reason") or ""
            raise NodeCertificateError(f"certificate request {csr['metadata']['name']} {condition['type']}: {why}")
    return status.get("certificate") or None


def request_node_certificate(
    config: ClientConfig,
    node: str,
    naming: Naming,
    timeout: float = 60.0,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[bytes, bytes]:
    """(certificate PEM, key PEM) for node `node`, asked for with the credentials of `config`."""
    key = ec.generate_private_key(ec.SECP256R1())
    group = naming.group("certificates")
    path = f"/apis/{group}/v1/certificatesigningrequests"
    body = {
        "apiVersion": f"{group}/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"generateName": "node-csr-"},
        "spec": {
            "request": base64.b64encode(node_request(node, key)).decode(),
            "signerName": naming.signer("apiserver-client-node"),
            "usages": NODE_CLIENT_USAGES,
        },
    }
    with Client(config, on_warning=lambda _text: None, timeout=30.0) as client:
        name = client.create(path, body)["metadata"]["name"]
        deadline = time.monotonic() + timeout
        while (issued := _outcome(client.get(f"{path}/{name}"))) is None:
            if time.monotonic() > deadline:
                raise NodeCertificateError(
                    f"certificate request {name} was not issued within {timeout:.0f}s (is it waiting for approval?)"
                )
            sleep(0.2)
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return base64.b64decode(issued), key_pem


def node_kubeconfig(server: str, ca_pem: bytes, cluster: str, node: str, cert_pem: bytes, key_pem: bytes) -> dict:
    """A kubeconfig that authenticates as the node with its certificate."""
    return certificate_kubeconfig(server, ca_pem, cluster, NODE_USER_PREFIX + node, cert_pem, key_pem)


def node_of_certificate(cert_pem: bytes) -> str:
    """The node a client certificate names (its common name after `system:node:`); "" when it names none."""
    cert = x509.load_pem_x509_certificate(cert_pem)
    names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    common_name = str(names[0].value) if names else ""
    return common_name[len(NODE_USER_PREFIX) :] if common_name.startswith(NODE_USER_PREFIX) else ""
