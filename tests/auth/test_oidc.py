"""OpenID Connect against a real local HTTPS issuer serving discovery and JWKS from a thread."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver import pki
from orch_apiserver.auth.oidc import OidcConfig

from .helpers import API, HttpsServer, SigningKey, bearer, https_server, whoami

CLIENT_ID = "orch-cli"


@pytest.fixture
def issuer_ca(tmp_path: Path) -> tuple[pki.CertKey, Path]:
    ca = pki.create_ca("issuer-ca")
    path = tmp_path / "issuer-ca.crt"
    path.write_bytes(ca.cert_pem)
    return ca, path


@pytest.fixture
def issuer(issuer_ca, tmp_path: Path) -> Iterator[tuple[HttpsServer, SigningKey]]:
    key = SigningKey.rsa("key-1")
    with https_server(issuer_ca[0], tmp_path) as server:
        server.json_route(
            "/.well-known/openid-configuration",
            {
                "issuer": server.url,
                "jwks_uri": f"{server.url}/keys",
                "id_token_signing_alg_values_supported": ["RS256"],
            },
        )
        server.json_route("/keys", {"keys": [key.jwk()]})
        yield server, key


def claims(server: HttpsServer, **changes: Any) -> dict[str, Any]:
    now = int(time.time())
    base = {
        "iss": server.url,
        "aud": CLIENT_ID,
        "sub": "u-42",
        "email": "jane@example.com",
        "email_verified": True,
        "groups": ["dev", "ops"],
        "iat": now,
        "exp": now + 300,
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def make(auth_app, server: HttpsServer, ca_file: Path, **config: Any) -> Any:
    settings = {
        "OIDC_ISSUER_URL": server.url,
        "OIDC_CLIENT_ID": CLIENT_ID,
        "OIDC_CA_FILE": str(ca_file),
        "OIDC_MIN_REFRESH_SECONDS": 0.0,
        **config,
    }
    return auth_app(**settings).test_client()


def test_an_id_token_authenticates_with_the_default_prefix(auth_app, issuer, issuer_ca) -> None:
    server, key = issuer
    client = make(auth_app, server, issuer_ca[1], OIDC_GROUPS_CLAIM="groups")
    code, user = whoami(client, bearer(key.sign(claims(server))))
    assert code == 201, user
    assert user == {"username": f"{server.url}#u-42", "groups": ["dev", "ops", "system:authenticated"]}


def test_email_claim_has_no_prefix_and_must_be_verified(auth_app, issuer, issuer_ca) -> None:
    server, key = issuer
    client = make(auth_app, server, issuer_ca[1], OIDC_USERNAME_CLAIM="email")
    assert whoami(client, bearer(key.sign(claims(server))))[1]["username"] == "jane@example.com"
    assert whoami(client, bearer(key.sign(claims(server, email_verified=False))))[0] == 401
    assert whoami(client, bearer(key.sign(claims(server, email_verified=None))))[0] == 201


def test_prefixes_and_required_claims(auth_app, issuer, issuer_ca) -> None:
    server, key = issuer
    client = make(
        auth_app,
        server,
        issuer_ca[1],
        OIDC_USERNAME_PREFIX="oidc:",
        OIDC_GROUPS_CLAIM="groups",
        OIDC_GROUPS_PREFIX="oidc:",
        OIDC_REQUIRED_CLAIMS={"hd": "example.com"},
    )
    code, user = whoami(client, bearer(key.sign(claims(server, hd="example.com"))))
    assert code == 201 and user["username"] == "oidc:u-42" and user["groups"][:2] == ["oidc:dev", "oidc:ops"]
    assert whoami(client, bearer(key.sign(claims(server))))[0] == 401  # required claim missing
    assert whoami(client, bearer(key.sign(claims(server, hd="evil.com"))))[0] == 401
    no_prefix = make(auth_app, server, issuer_ca[1], OIDC_USERNAME_PREFIX="-")
    assert whoami(no_prefix, bearer(key.sign(claims(server))))[1]["username"] == "u-42"


def test_the_username_prefix_rules() -> None:
    assert OidcConfig("https://i", "c").effective_username_prefix == "https://i#"
    assert OidcConfig("https://i", "c", username_claim="email").effective_username_prefix == ""
    assert OidcConfig("https://i", "c", username_claim="email", username_prefix="x:").effective_username_prefix == "x:"
    assert OidcConfig("https://i", "c", username_prefix="-").effective_username_prefix == ""


def test_tokens_that_must_not_authenticate(auth_app, issuer, issuer_ca) -> None:
    server, key = issuer
    client = make(auth_app, server, issuer_ca[1], OIDC_GROUPS_CLAIM="groups")
    now = int(time.time())
    refused = {
        "wrong signature": SigningKey.rsa("key-1").sign(claims(server)),
        "unknown kid": SigningKey.rsa("key-9").sign(claims(server)),
        "expired": key.sign(claims(server, exp=now - 1, iat=now - 600)),
        "no expiry": key.sign(claims(server, exp=None)),
        "not yet valid": key.sign(claims(server, nbf=now + 3600)),
        "wrong audience": key.sign(claims(server, aud="someone-else")),
        "groups not a list": key.sign(claims(server, groups="dev")),
        "groups not strings": key.sign(claims(server, groups=["dev", 7])),
        "no subject": key.sign(claims(server, sub=None)),
        "algorithm not allowed": SigningKey(key.private, "key-1").sign(claims(server), alg="RS512"),
        "hmac confusion": _hmac(claims(server)),
    }
    for what, token in refused.items():
        assert client.get(API, headers=bearer(token)).status_code == 401, what
    assert whoami(client, bearer(key.sign(claims(server, aud=["other", CLIENT_ID]))))[0] == 201


def _hmac(body: dict[str, Any]) -> str:
    import json

    from jose import jws

    return jws.sign(json.dumps(body).encode(), "secret", algorithm="HS256", headers={"kid": "key-1"})


def test_keys_are_cached_and_refreshed_for_an_unknown_kid(auth_app, issuer, issuer_ca) -> None:
    server, key = issuer
    client = make(auth_app, server, issuer_ca[1], OIDC_SIGNING_ALGS=("RS256", "ES256"))
    for _ in range(3):
        assert whoami(client, bearer(key.sign(claims(server))))[0] == 201
    fetches = [path for _, path, _, _ in server.calls]
    assert fetches == ["/.well-known/openid-configuration", "/keys"]  # fetched once, then cached
    rotated = SigningKey.ec("key-2")
    server.json_route("/keys", {"keys": [key.jwk(), rotated.jwk()]})
    assert whoami(client, bearer(rotated.sign(claims(server))))[0] == 201
    assert [path for _, path, _, _ in server.calls][2:] == ["/keys"]


def test_refreshes_are_rate_limited(auth_app, issuer, issuer_ca) -> None:
    server, key = issuer
    client = make(auth_app, server, issuer_ca[1], OIDC_MIN_REFRESH_SECONDS=60.0)
    assert whoami(client, bearer(key.sign(claims(server))))[0] == 201
    for n in range(5):
        assert whoami(client, bearer(SigningKey.rsa(f"random-{n}").sign(claims(server))))[0] == 401
    assert len(server.calls) == 2


def test_an_issuer_with_an_untrusted_certificate_is_refused(auth_app, issuer, tmp_path: Path) -> None:
    server, key = issuer
    other = tmp_path / "other-ca.crt"
    other.write_bytes(pki.create_ca("other").cert_pem)
    client = make(auth_app, server, other)
    assert whoami(client, bearer(key.sign(claims(server))))[0] == 401
    assert server.calls == [] or all(path != "/keys" for _, path, _, _ in server.calls)


def test_discovery_must_name_the_same_issuer(auth_app, issuer, issuer_ca) -> None:
    server, key = issuer
    server.json_route(
        "/.well-known/openid-configuration", {"issuer": "https://impostor", "jwks_uri": f"{server.url}/keys"}
    )
    client = make(auth_app, server, issuer_ca[1])
    assert whoami(client, bearer(key.sign(claims(server))))[0] == 401


def test_tokens_of_other_issuers_are_left_to_other_authenticators(auth_app, issuer, issuer_ca, tmp_path) -> None:
    server, key = issuer
    tokens = tmp_path / "tokens.csv"
    tokens.write_text("plain-token,alice,1\n")
    client = make(auth_app, server, issuer_ca[1], TOKEN_AUTH_FILE=str(tokens))
    assert whoami(client, bearer("plain-token"))[1]["username"] == "alice"
    assert whoami(client, bearer(key.sign(claims(server, iss="https://elsewhere"))))[0] == 401
    assert server.calls == []  # a foreign issuer's token never reaches out to ours
