"""Webhook token authentication against a real local HTTPS TokenReview service (mutual TLS)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver import pki
from orch_apiserver.auth.webhook import load_remote

from .helpers import API, TOKENREVIEWS, HttpsServer, bearer, der, https_server, kubeconfig, whoami


@pytest.fixture
def pki_files(tmp_path: Path) -> dict[str, Any]:
    server_ca, client_ca = pki.create_ca("webhook-ca"), pki.create_ca("our-client-ca")
    ours = pki.issue_client_cert(client_ca, "orch-apiserver")
    pki.write_pair(ours, tmp_path / "ours.crt", tmp_path / "ours.key")
    (tmp_path / "webhook-ca.crt").write_bytes(server_ca.cert_pem)
    return {
        "server_ca": server_ca,
        "client_ca": client_ca,
        "ours": ours,
        "ca_file": tmp_path / "webhook-ca.crt",
        "client": (tmp_path / "ours.crt", tmp_path / "ours.key"),
    }


@pytest.fixture
def remote(pki_files, tmp_path: Path) -> Iterator[HttpsServer]:
    with https_server(pki_files["server_ca"], tmp_path, client_ca=pki_files["client_ca"]) as server:
        server.routes["/review"] = review_by_table
        yield server


USERS = {"good": {"username": "jane", "uid": "j-1", "groups": ["dev"], "extra": {"scopes": ["a", "b"]}}}


def review_by_table(_method: str, _path: str, _headers: dict[str, str], body: bytes) -> tuple[int, Any]:
    review = json.loads(body)
    token = review["spec"]["token"]
    if token in USERS:
        status: dict[str, Any] = {"authenticated": True, "user": USERS[token], "error": "ignored when authenticated"}
    elif token == "denied-with-reason":
        status = {"authenticated": False, "error": "token revoked"}
    elif token == "wrong-version":
        return 200, {
            "apiVersion": "authentication.orch.io/v9",
            "kind": "TokenReview",
            "status": {"authenticated": True, "user": USERS["good"]},
        }
    elif token == "broken":
        return 500, {}
    elif token == "other-audience":
        status = {"authenticated": True, "user": USERS["good"], "audiences": ["vault"]}
    else:
        status = {"authenticated": False}
    return 200, {"apiVersion": review["apiVersion"], "kind": "TokenReview", "status": status}


def make(auth_app, tmp_path: Path, pki_files, server_url: str, **config: Any):
    path = kubeconfig(tmp_path / "webhook.kubeconfig", server_url, pki_files["ca_file"], pki_files["client"])
    settings = {
        "AUTHENTICATION_TOKEN_WEBHOOK_CONFIG_FILE": str(path),
        "OUTBOUND_TIMEOUT": 0.5,
        "OUTBOUND_DEADLINE": 1.5,
        **config,
    }
    return auth_app(**settings).test_client()


def test_an_accepted_token_gives_the_remote_user(auth_app, tmp_path, pki_files, remote) -> None:
    client = make(auth_app, tmp_path, pki_files, remote.url + "/review")
    code, user = whoami(client, bearer("good"))
    assert code == 201, user
    assert user == {
        "username": "jane",
        "uid": "j-1",
        "groups": ["dev", "system:authenticated"],
        "extra": {"scopes": ["a", "b"]},
    }
    method, path, headers, body = remote.calls[0]
    sent = json.loads(body)
    assert (method, path) == ("POST", "/review") and headers["Content-Type"] == "application/json"
    assert sent["apiVersion"] == "authentication.orch.io/v1beta1" and sent["kind"] == "TokenReview"
    assert sent["spec"]["token"] == "good" and sent["spec"]["audiences"]
    assert remote.peer_certs[0] == der(pki_files["ours"])  # our client certificate from `users`


def test_version_v1_is_sent_when_configured(auth_app, tmp_path, pki_files, remote) -> None:
    client = make(auth_app, tmp_path, pki_files, remote.url + "/review", AUTHENTICATION_TOKEN_WEBHOOK_VERSION="v1")
    assert whoami(client, bearer("good"))[0] == 201
    assert json.loads(remote.calls[0][3])["apiVersion"] == "authentication.orch.io/v1"


@pytest.mark.parametrize("token", ["unknown", "denied-with-reason", "wrong-version", "other-audience"])
def test_refusals_are_401(auth_app, tmp_path, pki_files, remote, token: str) -> None:
    client = make(auth_app, tmp_path, pki_files, remote.url + "/review")
    response = client.get(API, headers=bearer(token))
    assert response.status_code == 401 and response.get_json()["message"] == "Unauthorized"


def test_decisions_are_cached_for_the_ttl(auth_app, tmp_path, pki_files, remote) -> None:
    client = make(auth_app, tmp_path, pki_files, remote.url + "/review")
    for _ in range(3):
        assert whoami(client, bearer("good"))[0] == 201
        assert whoami(client, bearer("unknown"))[0] == 401
    assert len(remote.calls) == 2
    uncached = make(auth_app, tmp_path, pki_files, remote.url + "/review", AUTHENTICATION_TOKEN_WEBHOOK_CACHE_TTL=0)
    for _ in range(3):
        assert whoami(uncached, bearer("good"))[0] == 201
    assert len(remote.calls) == 5


def test_a_down_remote_fails_closed_quickly(auth_app, tmp_path, pki_files) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    client = make(auth_app, tmp_path, pki_files, f"https://127.0.0.1:{port}/review")
    started = time.monotonic()
    assert client.get(API, headers=bearer("good")).status_code == 401
    assert time.monotonic() - started < 5


def test_a_slow_remote_fails_closed_within_the_deadline(auth_app, tmp_path, pki_files, remote) -> None:
    remote.delay = 3.0
    client = make(auth_app, tmp_path, pki_files, remote.url + "/review")
    started = time.monotonic()
    assert client.get(API, headers=bearer("good")).status_code == 401
    assert time.monotonic() - started < 2.5
    remote.delay = 0.0
    assert whoami(client, bearer("good"))[0] == 201  # a failure is not cached


def test_server_errors_are_retried_then_fail_closed(auth_app, tmp_path, pki_files, remote) -> None:
    client = make(auth_app, tmp_path, pki_files, remote.url + "/review")
    assert client.get(API, headers=bearer("broken")).status_code == 401
    assert len(remote.calls) >= 2


def test_the_webhook_must_have_a_trusted_certificate(auth_app, tmp_path, pki_files, remote) -> None:
    untrusted = tmp_path / "other.crt"
    untrusted.write_bytes(pki.create_ca("other").cert_pem)
    path = kubeconfig(tmp_path / "bad.kubeconfig", remote.url + "/review", untrusted, pki_files["client"])
    client = auth_app(AUTHENTICATION_TOKEN_WEBHOOK_CONFIG_FILE=str(path), OUTBOUND_DEADLINE=0.5).test_client()
    assert client.get(API, headers=bearer("good")).status_code == 401
    assert remote.calls == []


def test_inline_credentials_in_the_config_file(auth_app, tmp_path, pki_files, remote) -> None:
    ours = pki_files["ours"]
    path = kubeconfig(
        tmp_path / "inline.kubeconfig",
        remote.url + "/review",
        inline=(pki_files["server_ca"].cert_pem, ours.cert_pem, ours.key_pem),
    )
    assert load_remote(str(path)).cert is not None
    client = auth_app(AUTHENTICATION_TOKEN_WEBHOOK_CONFIG_FILE=str(path)).test_client()
    assert whoami(client, bearer("good"))[1]["username"] == "jane"


def test_this_server_can_be_the_webhook_of_another(auth_app, tmp_path, pki_files, remote) -> None:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text('ada-token,ada,7,"admins"\n')
    reviewer = auth_app(TOKEN_AUTH_FILE=str(tokens), SERVICE_ACCOUNT_ISSUERS=("https://shared",)).test_client()

    def forward(_method: str, _path: str, _headers: dict[str, str], body: bytes) -> tuple[int, Any]:
        response = reviewer.post(TOKENREVIEWS, data=body, headers={"Content-Type": "application/json"})
        return response.status_code, response.get_json()

    remote.routes["/forward"] = forward
    client = make(
        auth_app,
        tmp_path,
        pki_files,
        remote.url + "/forward",
        AUTHENTICATION_TOKEN_WEBHOOK_VERSION="v1",
        SERVICE_ACCOUNT_ISSUERS=("https://shared",),
    )
    code, user = whoami(client, bearer("ada-token"))
    assert code == 201, user
    assert user == {"username": "ada", "uid": "7", "groups": ["admins", "system:authenticated"]}
    assert whoami(client, bearer("nope"))[0] == 401
