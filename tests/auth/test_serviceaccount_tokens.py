"""Service-account tokens: TokenRequest, verification, lookup, bound objects, legacy token secrets."""

from __future__ import annotations

import base64
import os
import stat
import time
import uuid
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from orch_apiserver.auth import jwt

from .helpers import API, TOKENREVIEWS, SigningKey, bearer, whoami

NS = "/api/v1/namespaces/default"
ISSUER = "https://orch.example:6443"


@pytest.fixture
def client(auth_app):
    client = auth_app(SERVICE_ACCOUNT_ISSUERS=(ISSUER, "https://old.example")).test_client()
    assert client.post(f"{NS}/serviceaccounts", json={"metadata": {"name": "bot"}}).status_code == 201
    return client


def request_token(client, name: str = "bot", **spec: object) -> dict:
    response = client.post(
        f"{NS}/serviceaccounts/{name}/token",
        json={"apiVersion": "authentication.orch.io/v1", "kind": "TokenRequest", "spec": spec},
    )
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def our_key(client, tmp_path: Path) -> SigningKey:
    request_token(client)  # the signing key is made on first use
    private = serialization.load_pem_private_key((tmp_path / "pki" / "sa.key").read_bytes(), password=None)
    return SigningKey(private)  # type: ignore[arg-type]


def claims_of(token: str) -> dict:
    return jwt.peek(token)[1]


def test_token_request_answers_a_signed_token(client) -> None:
    reply = request_token(client)
    assert reply["kind"] == "TokenRequest" and reply["apiVersion"] == "authentication.orch.io/v1"
    assert reply["metadata"]["name"] == "bot" and reply["metadata"]["namespace"] == "default"
    # the API audiences default to every issuer; the first issuer signs
    audiences = [ISSUER, "https://old.example"]
    assert reply["spec"] == {"audiences": audiences, "expirationSeconds": 3600, "boundObjectRef": None}
    claims = claims_of(reply["status"]["token"])
    assert (
        claims["iss"] == ISSUER and claims["aud"] == audiences and claims["sub"] == "system:serviceaccount:default:bot"
    )
    assert claims["exp"] - claims["iat"] == 3600 and claims["nbf"] == claims["iat"] and claims["jti"]
    assert claims["orch.io"]["namespace"] == "default" and claims["orch.io"]["serviceaccount"]["name"] == "bot"
    assert reply["status"]["expirationTimestamp"].endswith("Z")


def test_the_token_authenticates_as_the_service_account(client) -> None:
    token = request_token(client)["status"]["token"]
    sa = client.get(f"{NS}/serviceaccounts/bot").get_json()
    code, user = whoami(client, bearer(token))
    assert code == 201
    assert user["username"] == "system:serviceaccount:default:bot" and user["uid"] == sa["metadata"]["uid"]
    assert user["groups"] == ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"]
    assert user["extra"]["authentication.orch.io/credential-id"] == [f"JTI={claims_of(token)['jti']}"]


def test_deleting_or_replacing_the_account_revokes_its_tokens(client) -> None:
    token = request_token(client)["status"]["token"]
    assert client.delete(f"{NS}/serviceaccounts/bot").status_code == 200
    assert client.get(API, headers=bearer(token)).status_code == 401
    assert client.post(f"{NS}/serviceaccounts", json={"metadata": {"name": "bot"}}).status_code == 201
    assert client.get(API, headers=bearer(token)).status_code == 401  # same name, another uid


def test_a_token_for_another_audience_is_not_for_the_api_server(client) -> None:
    token = request_token(client, audiences=["vault"])["status"]["token"]
    assert client.get(API, headers=bearer(token)).status_code == 401
    review = client.post(TOKENREVIEWS, json={"spec": {"token": token, "audiences": ["vault", "other"]}}).get_json()
    assert review["status"]["authenticated"] is True and review["status"]["audiences"] == ["vault"]
    default = client.post(TOKENREVIEWS, json={"spec": {"token": token}}).get_json()
    assert "authenticated" not in default["status"] and "audiences" in default["status"]["error"]


@pytest.mark.parametrize(
    ("spec", "status", "message"),
    [
        ({"expirationSeconds": 599}, 422, "may not specify a duration less than 10 minutes"),
        ({"expirationSeconds": 2**32 + 1}, 422, "may not specify a duration larger than 2^32 seconds"),
        (
            {"boundObjectRef": {"kind": "ConfigMap", "apiVersion": "v1", "name": "x"}},
            400,
            "cannot bind token to object",
        ),
        ({"boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "nope"}}, 404, 'pods "nope" not found'),
    ],
)
def test_token_request_validation(client, spec: dict, status: int, message: str) -> None:
    response = client.post(f"{NS}/serviceaccounts/bot/token", json={"spec": spec})
    assert response.status_code == status and message in response.get_json()["message"]


def test_token_request_names_must_match_the_url(client) -> None:
    wrong_name = client.post(f"{NS}/serviceaccounts/bot/token", json={"metadata": {"name": "other"}})
    assert wrong_name.status_code == 422
    assert "must match the service account name if specified" in wrong_name.get_json()["message"]
    wrong_ns = client.post(f"{NS}/serviceaccounts/bot/token", json={"metadata": {"namespace": "kube"}})
    assert wrong_ns.status_code in (400, 422)
    wrong_uid = client.post(f"{NS}/serviceaccounts/bot/token", json={"metadata": {"uid": "not-it"}})
    assert wrong_uid.status_code == 409
    assert client.post(f"{NS}/serviceaccounts/ghost/token", json={}).status_code == 404
    wrong_kind = client.post(f"{NS}/serviceaccounts/bot/token", json={"apiVersion": "v1", "kind": "Secret"})
    assert wrong_kind.status_code == 400
    assert client.get(f"{NS}/serviceaccounts/bot/token").status_code == 405


def test_a_pod_bound_token_dies_with_its_pod(client) -> None:
    pod = {
        "metadata": {"name": "web"},
        "spec": {"serviceAccountName": "bot", "nodeName": "n1", "containers": [{"name": "c", "image": "nginx"}]},
    }
    created = client.post(f"{NS}/pods", json=pod).get_json()
    ref = {"kind": "Pod", "apiVersion": "v1", "name": "web", "uid": created["metadata"]["uid"]}
    token = request_token(client, boundObjectRef=ref)["status"]["token"]
    claims = claims_of(token)["orch.io"]
    assert claims["pod"] == {"name": "web", "uid": created["metadata"]["uid"]} and claims["node"] == {"name": "n1"}
    user = whoami(client, bearer(token))[1]
    assert user["extra"]["authentication.orch.io/pod-name"] == ["web"]
    assert user["extra"]["authentication.orch.io/pod-uid"] == [created["metadata"]["uid"]]
    assert user["extra"]["authentication.orch.io/node-name"] == ["n1"]
    assert client.delete(f"{NS}/pods/web?gracePeriodSeconds=0").status_code == 200
    assert client.get(API, headers=bearer(token)).status_code == 401


def test_binding_checks_the_pod_account_and_uid(client) -> None:
    pod = {
        "metadata": {"name": "other"},
        "spec": {"serviceAccountName": "default", "containers": [{"name": "c", "image": "nginx"}]},
    }
    client.post(f"{NS}/pods", json=pod)
    ref = {"kind": "Pod", "apiVersion": "v1", "name": "other"}
    wrong_account = client.post(f"{NS}/serviceaccounts/bot/token", json={"spec": {"boundObjectRef": ref}})
    assert wrong_account.status_code == 400 and "different serviceaccount" in wrong_account.get_json()["message"]
    client.post(f"{NS}/secrets", json={"metadata": {"name": "s"}})
    stale = {"kind": "Secret", "apiVersion": "v1", "name": "s", "uid": str(uuid.uuid4())}
    assert client.post(f"{NS}/serviceaccounts/bot/token", json={"spec": {"boundObjectRef": stale}}).status_code == 409


def test_a_secret_bound_token_dies_with_its_secret(client) -> None:
    client.post(f"{NS}/secrets", json={"metadata": {"name": "s"}})
    token = request_token(client, boundObjectRef={"kind": "Secret", "apiVersion": "v1", "name": "s"})["status"]["token"]
    assert whoami(client, bearer(token))[0] == 201
    client.delete(f"{NS}/secrets/s")
    assert whoami(client, bearer(token))[0] == 401


def _forged(client, key: SigningKey, **changes: object) -> str:
    claims = claims_of(request_token(client)["status"]["token"])
    claims.update(changes)
    return key.sign({k: v for k, v in claims.items() if v is not None})


def test_forged_tokens_are_401(client, tmp_path: Path) -> None:
    ours, stranger = our_key(client, tmp_path), SigningKey.rsa()
    now = int(time.time())
    assert whoami(client, bearer(_forged(client, ours)))[0] == 201  # the forge works with our key...
    refused = {
        "wrong signature": _forged(client, stranger),
        "wrong signature, our kid": _forged(client, SigningKey(stranger.private, kid=ours.kid)),
        "expired": _forged(client, ours, exp=now - 120, iat=now - 4000, nbf=now - 4000),
        "not yet valid": _forged(client, ours, nbf=now + 600),
        "issued in the future": _forged(client, ours, iat=now + 600),
        "wrong audience": _forged(client, ours, aud=["someone-else"]),
        "unknown issuer": _forged(client, ours, iss="https://elsewhere"),
        "another account": _forged(
            client, ours, **{"orch.io": {"namespace": "default", "serviceaccount": {"name": "bot", "uid": "x"}}}
        ),
        "hmac": _hmac_token(claims_of(_forged(client, ours)), ours),
    }
    token = _forged(client, ours)
    head, body, signature = token.split(".")
    tampered = base64.urlsafe_b64encode(base64.urlsafe_b64decode(body + "==").replace(b"bot", b"bit")).rstrip(b"=")
    refused["tampered"] = f"{head}.{tampered.decode()}.{signature}"
    for what, bad in refused.items():
        assert client.get(API, headers=bearer(bad)).status_code == 401, what


def _hmac_token(claims: dict, key: SigningKey) -> str:
    """HS256 with our PUBLIC key as the secret: the classic algorithm-confusion attack."""
    import json

    from jose import jws

    return jws.sign(json.dumps(claims).encode(), "secret", algorithm="HS256", headers={"kid": key.kid})


def test_older_issuers_are_accepted(client, tmp_path: Path) -> None:
    assert whoami(client, bearer(_forged(client, our_key(client, tmp_path), iss="https://old.example")))[0] == 201


def test_keys_of_service_account_key_files_verify_tokens(auth_app, tmp_path: Path) -> None:
    external = SigningKey.ec()
    (tmp_path / "external.pub").write_bytes(external.public_pem())
    client = auth_app(
        SERVICE_ACCOUNT_ISSUERS=(ISSUER,), SERVICE_ACCOUNT_KEY_FILES=(str(tmp_path / "external.pub"),)
    ).test_client()
    client.post(f"{NS}/serviceaccounts", json={"metadata": {"name": "bot"}})
    assert whoami(client, bearer(_forged(client, external)))[0] == 201
    assert whoami(client, bearer(_forged(client, SigningKey.ec())))[0] == 401


def test_the_signing_key_is_generated_privately_or_taken_from_the_flag(auth_app, tmp_path: Path) -> None:
    client = auth_app().test_client()
    client.post(f"{NS}/serviceaccounts", json={"metadata": {"name": "bot"}})
    request_token(client)
    key_file = tmp_path / "pki" / "sa.key"
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    own = SigningKey.ec()
    (tmp_path / "own.key").write_bytes(own.private_pem())
    other = auth_app(SERVICE_ACCOUNT_SIGNING_KEY_FILE=str(tmp_path / "own.key")).test_client()
    header, _ = jwt.peek(request_token(other)["status"]["token"])
    assert header["alg"] == "ES256" and header["kid"] == own.kid


def test_legacy_token_secrets_are_filled_in_and_checked(auth_app, cluster_ca) -> None:
    client = auth_app(SERVICE_ACCOUNT_ISSUERS=(ISSUER,)).test_client()
    sa = client.post(f"{NS}/serviceaccounts", json={"metadata": {"name": "bot"}}).get_json()
    secret = {
        "metadata": {"name": "bot-token", "annotations": {"orch.io/service-account.name": "bot"}},
        "type": "orch.io/service-account-token",
    }
    assert client.post(f"{NS}/secrets", json=secret).status_code == 201
    data = _wait_for_token(client, "bot-token")
    assert base64.b64decode(data["namespace"]) == b"default"
    assert base64.b64decode(data["ca.crt"]) == cluster_ca.cert_pem
    stored = client.get(f"{NS}/secrets/bot-token").get_json()
    assert stored["metadata"]["annotations"]["orch.io/service-account.uid"] == sa["metadata"]["uid"]
    token = base64.b64decode(data["token"]).decode()
    claims = claims_of(token)
    assert claims["iss"] == "orch/serviceaccount" and "exp" not in claims
    assert claims["orch.io/serviceaccount/secret.name"] == "bot-token"
    assert whoami(client, bearer(token))[1]["username"] == "system:serviceaccount:default:bot"
    client.delete(f"{NS}/secrets/bot-token")
    assert whoami(client, bearer(token))[0] == 401


def test_a_legacy_token_secret_of_a_missing_account_is_deleted(auth_app) -> None:
    client = auth_app().test_client()
    secret = {
        "metadata": {"name": "orphan", "annotations": {"orch.io/service-account.name": "ghost"}},
        "type": "orch.io/service-account-token",
    }
    assert client.post(f"{NS}/secrets", json=secret).status_code == 201
    deadline = time.monotonic() + 10
    while client.get(f"{NS}/secrets/orphan").status_code == 200 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert client.get(f"{NS}/secrets/orphan").status_code == 404


def test_without_lookup_a_legacy_token_outlives_its_secret(auth_app) -> None:
    client = auth_app(SERVICE_ACCOUNT_LOOKUP=False).test_client()
    client.post(f"{NS}/serviceaccounts", json={"metadata": {"name": "bot"}})
    client.post(
        f"{NS}/secrets",
        json={
            "metadata": {"name": "t", "annotations": {"orch.io/service-account.name": "bot"}},
            "type": "orch.io/service-account-token",
        },
    )
    token = base64.b64decode(_wait_for_token(client, "t")["token"]).decode()
    client.delete(f"{NS}/secrets/t")
    assert whoami(client, bearer(token))[0] == 201


def _wait_for_token(client, name: str) -> dict:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        data = client.get(f"{NS}/secrets/{name}").get_json().get("data") or {}
        if "token" in data:
            return data
        time.sleep(0.05)
    raise AssertionError(f"secret {name} was not filled in")
