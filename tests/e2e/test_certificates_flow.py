"""Certificates end to end on a real server (two workers, so the controllers' leases matter): a node
bootstraps with a token and gets a client certificate that authenticates as system:node:<name>; a user's
request is approved by the admin through /approval and the issued certificate works for TLS client auth."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from orch_apiserver.naming import Naming

from tests.controllers import (
    CLIENT_SIGNER,
    CLIENT_USAGES,
    NODE_CLIENT_SIGNER,
    NODE_CLIENT_USAGES,
    csr_body,
    new_key,
    request_pem,
)

from . import RunningServer, start_server

NAMING = Naming()
CSRS = f"/apis/{NAMING.group('certificates')}/v1/certificatesigningrequests"
WHOAMI = f"/apis/{NAMING.group('authentication')}/v1/selfsubjectreviews"
TOKEN_ID, TOKEN_SECRET = "abcdef", "0123456789abcdef"


@pytest.fixture(scope="module")
def cert_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = start_server(tmp_path_factory.mktemp("orch-certs"), ["--enable-bootstrap-token-auth", "--workers", "2"])
    yield running
    running.stop()


def poll(check: Callable[[], Any], timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


def issued(session: Any, name: str) -> bytes:
    def certificate() -> str:
        return (session.get(f"{CSRS}/{name}").json().get("status") or {}).get("certificate", "")

    found = poll(certificate)
    assert found, session.get(f"{CSRS}/{name}").json()
    return base64.b64decode(found)


def key_files(directory: Path, name: str, key: Any, cert_pem: bytes) -> tuple[str, str]:
    cert_path, key_path = directory / f"{name}.crt", directory / f"{name}.key"
    cert_path.write_bytes(cert_pem)
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return str(cert_path), str(key_path)


def whoami(server: RunningServer, cert: tuple[str, str]) -> dict:
    response = server.new_session(cert).post(
        WHOAMI, json={"apiVersion": f"{NAMING.group('authentication')}/v1", "kind": "SelfSubjectReview"}
    )
    assert response.status_code == 201, response.text
    return response.json()["status"]["userInfo"]


def test_node_bootstraps_with_a_token(cert_server: RunningServer, tmp_path: Path) -> None:
    token = {
        "metadata": {"name": f"bootstrap-token-{TOKEN_ID}"},
        "type": f"{NAMING.group('bootstrap')}/token",
        "stringData": {
            "token-id": TOKEN_ID,
            "token-secret": TOKEN_SECRET,
            "usage-bootstrap-authentication": "true",
            "usage-bootstrap-signing": "true",
        },
    }
    created = cert_server.session.post(f"/api/v1/namespaces/{NAMING.system_namespace}/secrets", json=token)
    assert created.status_code == 201, created.text

    # cluster-info, read anonymously, is signed with the token (verified here by HMAC)
    anonymous = cert_server.new_session(None)
    info_path = f"/api/v1/namespaces/{NAMING.public_namespace}/configmaps/cluster-info"
    data = poll(lambda: (d := anonymous.get(info_path).json().get("data", {})).get(f"jws-kubeconfig-{TOKEN_ID}") and d)
    assert data, anonymous.get(info_path).text
    header, _, mac = data[f"jws-kubeconfig-{TOKEN_ID}"].split(".")
    assert json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))["alg"] == "HS256"
    payload = base64.urlsafe_b64encode(data["kubeconfig"].encode()).rstrip(b"=").decode()
    expected = hmac.new(f"{TOKEN_ID}.{TOKEN_SECRET}".encode(), f"{header}.{payload}".encode(), hashlib.sha256)
    assert base64.urlsafe_b64encode(expected.digest()).rstrip(b"=").decode() == mac

    # the bootstrap token files a node client request; it is auto-approved and signed
    node = cert_server.new_session(None)
    node.headers["Authorization"] = f"Bearer {TOKEN_ID}.{TOKEN_SECRET}"
    key = new_key()
    body = csr_body(
        "node-n1", NODE_CLIENT_SIGNER, NODE_CLIENT_USAGES, request_pem("system:node:n1", ["system:nodes"], key=key)
    )
    filed = node.post(CSRS, json=body)
    assert filed.status_code == 201, filed.text
    assert filed.json()["spec"]["username"] == f"system:bootstrap:{TOKEN_ID}"
    cert_pem = issued(node, "node-n1")
    conditions = node.get(f"{CSRS}/node-n1").json()["status"]["conditions"]
    assert [c["reason"] for c in conditions] == ["AutoApproved"]

    user = whoami(cert_server, key_files(tmp_path, "node", key, cert_pem))
    assert user["username"] == "system:node:n1"
    assert "system:nodes" in user["groups"]


def test_user_request_approved_by_the_admin(cert_server: RunningServer, tmp_path: Path) -> None:
    admin = cert_server.session
    key = new_key()
    body = csr_body(
        "jane", CLIENT_SIGNER, CLIENT_USAGES, request_pem("jane", ["devs"], key=key), expirationSeconds=3600
    )
    created = admin.post(CSRS, json=body)
    assert created.status_code == 201, created.text
    assert not (admin.get(f"{CSRS}/jane").json().get("status") or {}).get("conditions")
    approval = {
        **created.json(),
        "status": {
            "conditions": [{"type": "Approved", "status": "True", "reason": "AdminApproved", "message": "welcome"}]
        },
    }
    approved = admin.put(f"{CSRS}/jane/approval", json=approval)
    assert approved.status_code == 200, approved.text
    cert_pem = issued(admin, "jane")
    user = whoami(cert_server, key_files(tmp_path, "jane", key, cert_pem))
    assert user["username"] == "jane"
    assert "devs" in user["groups"]
