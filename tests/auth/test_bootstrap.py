"""Bootstrap tokens: secrets created through the API, then `Bearer <id>.<secret>`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from .helpers import bearer, whoami

SECRETS = "/api/v1/namespaces/orch-system/secrets"


def _secret(token_id: str, token_secret: str, **extra: str) -> dict:
    data = {"token-id": token_id, "token-secret": token_secret, "usage-bootstrap-authentication": "true", **extra}
    return {"metadata": {"name": f"bootstrap-token-{token_id}"}, "type": "bootstrap.orch.io/token", "stringData": data}


@pytest.fixture
def client(auth_app):
    client = auth_app(ENABLE_BOOTSTRAP_TOKEN_AUTH=True).test_client()
    client.get("/readyz")  # the first request creates the system namespaces
    return client


def _create(client, body: dict) -> None:
    response = client.post(SECRETS, json=body)
    assert response.status_code == 201, response.get_json()


def test_a_bootstrap_token_authenticates_with_its_groups(client) -> None:
    _create(
        client,
        _secret(
            "abcdef",
            "0123456789abcdef",
            **{
                "auth-extra-groups": "system:bootstrappers:worker, system:bootstrappers:kubeadm:x",
                "expiration": (datetime.now(UTC) + timedelta(hours=1)).isoformat(),
            },
        ),
    )
    assert whoami(client, bearer("abcdef.0123456789abcdef")) == (
        201,
        {
            "username": "system:bootstrap:abcdef",
            "groups": [
                "system:bootstrappers",
                "system:bootstrappers:worker",
                "system:bootstrappers:kubeadm:x",
                "system:authenticated",
            ],
        },
    )


@pytest.mark.parametrize(
    "case",
    [
        "wrong-secret",
        "expired",
        "unreadable-expiration",
        "no-usage",
        "usage-false",
        "bad-extra-group",
        "wrong-type",
        "id-mismatch",
        "missing",
    ],
)
def test_bootstrap_tokens_that_must_not_authenticate(client, case: str) -> None:
    token_id, token_secret = "qwerty", "0000000000000000"
    body = _secret(token_id, token_secret)
    data = body["stringData"]
    if case == "wrong-secret":
        data["token-secret"] = "1111111111111111"
    elif case == "expired":
        data["expiration"] = (datetime.now(UTC) - timedelta(seconds=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    elif case == "unreadable-expiration":
        data["expiration"] = "tomorrow"
    elif case == "no-usage":
        del data["usage-bootstrap-authentication"]
    elif case == "usage-false":
        data["usage-bootstrap-authentication"] = "false"
    elif case == "bad-extra-group":
        data["auth-extra-groups"] = "system:masters"
    elif case == "wrong-type":
        body["type"] = "Opaque"
    elif case == "id-mismatch":
        data["token-id"] = "zzzzzz"
    if case != "missing":
        _create(client, body)
    assert client.get("/api/v1/namespaces", headers=bearer(f"{token_id}.{token_secret}")).status_code == 401


def test_bootstrap_tokens_are_off_unless_enabled(auth_app) -> None:
    client = auth_app().test_client()
    client.get("/readyz")
    _create(client, _secret("abcdef", "0123456789abcdef"))
    assert whoami(client, bearer("abcdef.0123456789abcdef"))[0] == 401


def test_a_deleted_secret_stops_the_token(client) -> None:
    _create(client, _secret("abcdef", "0123456789abcdef"))
    assert whoami(client, bearer("abcdef.0123456789abcdef"))[0] == 201
    assert client.delete(f"{SECRETS}/bootstrap-token-abcdef").status_code == 200
    assert whoami(client, bearer("abcdef.0123456789abcdef"))[0] == 401


@pytest.mark.parametrize("token", ["abcdef.0123456789abcde", "ABCDEF.0123456789abcdef", "abcdef:0123456789abcdef"])
def test_malformed_bootstrap_tokens_are_not_looked_up(client, token: str) -> None:
    _create(client, _secret("abcdef", "0123456789abcdef"))
    assert whoami(client, bearer(token))[0] == 401
