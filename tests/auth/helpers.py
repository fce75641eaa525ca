"""Real credentials made in the test: CAs and certificates, signing keys and JWTs, and HTTPS servers in threads."""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from orch_apiserver import pki
from orch_apiserver.auth import jwt

API = "/api/v1/namespaces"
WHOAMI = "/apis/authentication.orch.io/v1/selfsubjectreviews"
TOKENREVIEWS = "/apis/authentication.orch.io/v1/tokenreviews"


def whoami(client: Any, headers: dict[str, str] | None = None, cert: pki.CertKey | None = None) -> tuple[int, dict]:
    """POST a SelfSubjectReview (with a client certificate when given); (code, status.userInfo or the Status)."""
    response = client.post(WHOAMI, json={}, headers=headers or {}, environ_overrides=peer(cert) if cert else {})
    body = response.get_json()
    return response.status_code, (body.get("status", {}).get("userInfo") if response.status_code == 201 else body)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def der(pair: pki.CertKey) -> bytes:
    return pair.cert.public_bytes(serialization.Encoding.DER)


def peer(pair: pki.CertKey) -> dict[str, bytes]:
    """environ_overrides presenting `pair` as the TLS client certificate (what app.server's worker sets)."""
    return {"orch.peer_cert_der": der(pair)}


def write_ca(tmp: Path, name: str) -> tuple[pki.CertKey, Path]:
    ca = pki.create_ca(name)
    path = tmp / f"{name}.crt"
    path.write_bytes(ca.cert_pem)
    return ca, path


def odd_client_cert(
    ca: pki.CertKey,
    cn: str,
    *,
    not_before: datetime | None = None,
    not_after: datetime | None = None,
    usage: x509.ObjectIdentifier = ExtendedKeyUsageOID.CLIENT_AUTH,
) -> pki.CertKey:
    """A client certificate with chosen validity and usage (expired, not yet valid, server-only)."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)]))
        .issuer_name(ca.cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before or now - timedelta(hours=1))
        .not_valid_after(not_after or now + timedelta(hours=1))
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        .sign(ca.key, hashes.SHA256())
    )
    return pki.CertKey(cert, key)  # type: ignore[arg-type]


# -- JWTs -----------------------------------------------------------------------------------------


@dataclass
class SigningKey:
    private: jwt.PrivateKey
    kid: str = ""

    @classmethod
    def rsa(cls, kid: str = "") -> SigningKey:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        return cls(key, kid or jwt.key_id(key.public_key()))

    @classmethod
    def ec(cls, kid: str = "") -> SigningKey:
        key = ec.generate_private_key(ec.SECP256R1())
        return cls(key, kid or jwt.key_id(key.public_key()))

    def jwk(self) -> dict[str, Any]:
        from jose import jwk as jose_jwk

        pem = self.private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        entry = jose_jwk.construct(pem, jwt.algorithm_for(self.private)).to_dict()
        return {**entry, "kid": self.kid, "use": "sig"}

    def sign(self, claims: dict[str, Any], **header: Any) -> str:
        from jose import jws

        pem = self.private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        algorithm = header.pop("alg", jwt.algorithm_for(self.private))
        headers = {"kid": self.kid, **header}
        return jws.sign(json.dumps(claims).encode(), pem, headers=headers, algorithm=algorithm)

    def public_pem(self) -> bytes:
        return self.private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )

    def private_pem(self) -> bytes:
        return self.private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )


# -- HTTPS servers in a thread ----------------------------------------------------------------------

Handler = Callable[[str, str, dict[str, str], bytes], tuple[int, Any]]


@dataclass
class HttpsServer:
    """A real local HTTPS server; `routes[path](method, path, headers, body) -> (status, JSON body)`."""

    ca: pki.CertKey
    routes: dict[str, Handler] = field(default_factory=dict)
    calls: list[tuple[str, str, dict[str, str], bytes]] = field(default_factory=list)
    delay: float = 0.0
    client_ca: pki.CertKey | None = None  # require a client certificate from this CA
    peer_certs: list[bytes | None] = field(default_factory=list)
    url: str = ""

    def json_route(self, path: str, document: Any) -> None:
        self.routes[path] = lambda *_: (200, document)


@contextmanager
def https_server(
    ca: pki.CertKey,
    tmp: Path,
    client_ca: pki.CertKey | None = None,
    hosts: tuple[str, ...] = ("127.0.0.1", "localhost"),
) -> Iterator[HttpsServer]:
    state = HttpsServer(ca, client_ca=client_ca)
    serving = pki.issue_serving_cert(ca, hosts[0], list(hosts))
    cert_file, key_file = tmp / f"srv-{id(state)}.crt", tmp / f"srv-{id(state)}.key"
    pki.write_pair(serving, cert_file, key_file)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    if client_ca is not None:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(cadata=client_ca.cert_pem.decode())

    class Handle(BaseHTTPRequestHandler):
        def log_message(self, *_: Any) -> None:
            pass

        def _serve(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            path = self.path.split("?", 1)[0]
            state.calls.append((self.command, path, dict(self.headers), body))
            state.peer_certs.append(self.connection.getpeercert(binary_form=True))  # type: ignore[attr-defined]
            if state.delay:
                time.sleep(state.delay)
            route = state.routes.get(path)
            status, document = route(self.command, path, dict(self.headers), body) if route else (404, {})
            data = json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _serve

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handle)
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    state.url = f"https://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def kubeconfig(
    path: Path,
    server: str,
    ca_file: Path | None = None,
    client: tuple[Path, Path] | None = None,
    inline: Sequence[bytes] | None = None,
) -> Path:
    """A kubeconfig-format file naming `server` (the webhook) and our client credentials."""
    import base64

    import yaml

    cluster: dict[str, Any] = {"server": server}
    user: dict[str, Any] = {}
    if inline is not None:
        ca_pem, cert_pem, key_pem = inline
        cluster["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
        user = {
            "client-certificate-data": base64.b64encode(cert_pem).decode(),
            "client-key-data": base64.b64encode(key_pem).decode(),
        }
    else:
        if ca_file is not None:
            cluster["certificate-authority"] = str(ca_file)
        if client is not None:
            user = {"client-certificate": str(client[0]), "client-key": str(client[1])}
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "remote", "cluster": cluster}],
        "users": [{"name": "us", "user": user}],
        "contexts": [{"name": "webhook", "context": {"cluster": "remote", "user": "us"}}],
        "current-context": "webhook",
    }
    path.write_text(yaml.safe_dump(config))
    return path
