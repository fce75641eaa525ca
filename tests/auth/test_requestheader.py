"""Authenticating proxy: headers count only behind the proxy's certificate (with an allowed CN)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from orch_apiserver import pki
from werkzeug.datastructures import Headers

from .helpers import WHOAMI, peer, write_ca

PROXY_HEADERS = {
    "REQUESTHEADER_USERNAME_HEADERS": ("X-Remote-User", "X-Forwarded-User"),
    "REQUESTHEADER_GROUP_HEADERS": ("X-Remote-Group", "X-Remote-Team"),
    "REQUESTHEADER_EXTRA_HEADERS_PREFIX": ("X-Remote-Extra-",),
}


@pytest.fixture
def proxy_ca(tmp_path: Path) -> tuple[pki.CertKey, Path]:
    return write_ca(tmp_path, "front-proxy-ca")


@pytest.fixture
def client(auth_app, proxy_ca, cluster_ca) -> Any:
    return auth_app(
        REQUESTHEADER_CLIENT_CA_FILE=str(proxy_ca[1]), REQUESTHEADER_ALLOWED_NAMES=("front-proxy",), **PROXY_HEADERS
    ).test_client()


def ask(client: Any, headers: list[tuple[str, str]], cert: pki.CertKey | None) -> tuple[int, dict]:
    response = client.post(WHOAMI, json={}, headers=Headers(headers), environ_overrides=peer(cert) if cert else {})
    body = response.get_json()
    return response.status_code, body["status"]["userInfo"] if response.status_code == 201 else body


IDENTITY = [
    ("X-Remote-User", "jane"),
    ("X-Remote-Group", "dev"),
    ("X-Remote-Group", "ops"),
    ("X-Remote-Team", "blue"),
    ("X-Remote-Extra-Scopes", "read"),
    ("X-Remote-Extra-Scopes", "write"),
    ("X-Remote-Extra-Acme.com%2Fproject", "apollo"),
]


def test_the_proxy_asserts_the_user(client, proxy_ca) -> None:
    proxy = pki.issue_client_cert(proxy_ca[0], "front-proxy")
    assert ask(client, IDENTITY, proxy) == (
        201,
        {
            "username": "jane",
            "groups": ["dev", "ops", "blue", "system:authenticated"],
            "extra": {"scopes": ["read", "write"], "acme.com/project": ["apollo"]},
        },
    )


def test_the_first_username_header_with_a_value_wins(client, proxy_ca) -> None:
    proxy = pki.issue_client_cert(proxy_ca[0], "front-proxy")
    assert ask(client, [("X-Forwarded-User", "second"), ("X-Remote-User", "")], proxy)[1]["username"] == "second"
    both = [("X-Forwarded-User", "second"), ("x-remote-user", "first")]
    assert ask(client, both, proxy)[1]["username"] == "first"


def test_header_injection_without_the_proxy_certificate_is_ignored(client, cluster_ca) -> None:
    assert ask(client, IDENTITY, None) == (201, {"username": "system:anonymous", "groups": ["system:unauthenticated"]})
    user = pki.issue_client_cert(cluster_ca, "mallory")
    assert ask(client, IDENTITY, user)[1] == {"username": "mallory", "groups": ["system:authenticated"]}


def test_a_proxy_certificate_with_another_name_is_401(client, proxy_ca) -> None:
    impostor = pki.issue_client_cert(proxy_ca[0], "not-the-proxy")
    code, body = ask(client, IDENTITY, impostor)
    assert code == 401 and body["reason"] == "Unauthorized"


def test_a_certificate_from_another_ca_with_the_proxy_name_does_not_count(client, cluster_ca) -> None:
    lookalike = pki.issue_client_cert(cluster_ca, "front-proxy")
    assert ask(client, IDENTITY, lookalike)[1]["username"] == "front-proxy"  # just a user named like the proxy


def test_the_proxy_without_a_user_header_is_not_a_user(client, proxy_ca) -> None:
    proxy = pki.issue_client_cert(proxy_ca[0], "front-proxy")
    assert ask(client, [("X-Remote-Group", "dev")], proxy)[0] == 401  # its CA does not make users


def test_any_name_is_allowed_when_no_names_are_listed(auth_app, proxy_ca) -> None:
    client = auth_app(REQUESTHEADER_CLIENT_CA_FILE=str(proxy_ca[1]), **PROXY_HEADERS).test_client()
    anyone = pki.issue_client_cert(proxy_ca[0], "whatever")
    assert ask(client, [("X-Remote-User", "jane")], anyone)[1]["username"] == "jane"
