"""Static token file, bearer header parsing, the chain's 401 rules, and anonymous access."""

from __future__ import annotations

from pathlib import Path

import pytest
from orch_apiserver import pki
from orch_apiserver.auth.tokenfile import StaticTokens

from .helpers import API, bearer, whoami

CSV = 't0k3n-alice,alice,1001,"dev,ops"\nt0k3n-bob,bob,1002\n\nt0k3n-carol,carol,1003,solo\n'


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.csv"
    path.write_text(CSV)
    return path


def test_static_tokens_authenticate_with_uid_and_groups(auth_app, token_file) -> None:
    client = auth_app(TOKEN_AUTH_FILE=str(token_file)).test_client()
    assert whoami(client, bearer("t0k3n-alice")) == (
        201,
        {"username": "alice", "uid": "1001", "groups": ["dev", "ops", "system:authenticated"]},
    )
    assert whoami(client, bearer("t0k3n-bob"))[1]["groups"] == ["system:authenticated"]
    assert whoami(client, bearer("t0k3n-carol"))[1]["groups"] == ["solo", "system:authenticated"]


def test_a_bearer_token_nobody_accepts_is_401_even_with_anonymous_on(auth_app, token_file) -> None:
    client = auth_app(TOKEN_AUTH_FILE=str(token_file), ANONYMOUS_AUTH=True).test_client()
    for token in ("t0k3n-mallory", "t0k3n-alic", "T0K3N-ALICE", "a.b.c"):
        response = client.get(API, headers=bearer(token))
        assert response.status_code == 401, token
        assert response.get_json() == {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": "Unauthorized",
            "reason": "Unauthorized",
            "code": 401,
        }


@pytest.mark.parametrize("header", ["Basic YWxpY2U6cHc=", "Bearer", "Bearer ", "t0k3n-alice", "Token t0k3n-alice"])
def test_other_schemes_and_empty_tokens_are_no_credentials(auth_app, token_file, header: str) -> None:
    client = auth_app(TOKEN_AUTH_FILE=str(token_file)).test_client()
    assert whoami(client, {"Authorization": header}) == (
        201,
        {"username": "system:anonymous", "groups": ["system:unauthenticated"]},
    )


def test_the_scheme_is_case_insensitive(auth_app, token_file) -> None:
    client = auth_app(TOKEN_AUTH_FILE=str(token_file)).test_client()
    assert whoami(client, {"Authorization": "bearer t0k3n-bob"})[1]["username"] == "bob"


def test_anonymous_off_makes_requests_without_credentials_401(auth_app, token_file) -> None:
    client = auth_app(TOKEN_AUTH_FILE=str(token_file), ANONYMOUS_AUTH=False).test_client()
    assert client.get(API).status_code == 401
    assert client.get("/readyz").status_code == 401
    assert client.get(API, headers=bearer("t0k3n-bob")).status_code == 200


def test_anonymous_on_serves_requests_without_credentials(auth_app) -> None:
    client = auth_app().test_client()
    assert client.get(API).status_code == 200
    assert whoami(client)[1] == {"username": "system:anonymous", "groups": ["system:unauthenticated"]}


def test_a_valid_client_certificate_wins_over_a_bad_bearer_token(auth_app, cluster_ca, token_file) -> None:
    client = auth_app(TOKEN_AUTH_FILE=str(token_file)).test_client()
    cert = pki.issue_client_cert(cluster_ca, "admin", ["system:masters"])
    assert whoami(client, bearer("nope"), cert=cert)[1]["username"] == "admin"


def test_the_token_file_format(tmp_path: Path) -> None:
    short = tmp_path / "short.csv"
    short.write_text("t,alice\n")
    with pytest.raises(ValueError, match="at least 3 columns"):
        StaticTokens.from_csv(str(short))
    odd = tmp_path / "odd.csv"
    odd.write_text(',nobody,1\n"t,1",comma,2\nt2,dup,3\nt2,dup2,4\n')
    tokens = StaticTokens.from_csv(str(odd))
    assert tokens.authenticate_token("t,1", ()).user.username == "comma"  # type: ignore[union-attr]
    assert tokens.authenticate_token("t2", ()).user.username == "dup2"  # type: ignore[union-attr]
    assert tokens.authenticate_token("", ()) is None
    assert len(tokens.users) == 2


def test_a_token_is_only_good_for_the_api_server_audience(auth_app, token_file) -> None:
    client = auth_app(TOKEN_AUTH_FILE=str(token_file)).test_client()
    review = client.post(
        "/apis/authentication.orch.io/v1/tokenreviews", json={"spec": {"token": "t0k3n-bob", "audiences": ["vault"]}}
    ).get_json()
    assert review["status"].get("authenticated") is None


def _b64(value: object) -> str:
    import base64
    import json

    raw = value if isinstance(value, bytes) else json.dumps(value).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


GARBAGE = [
    "a.b.c",
    "..",
    "x..",
    ".y.",
    "eyJ.eyJ.sig",
    f"{_b64({'alg': ['RS256']})}.{_b64({'iss': 'x'})}.c2ln",
    f"{_b64({'alg': 'none'})}.{_b64({'iss': 'https://127.0.0.1:6443', 'sub': 'x'})}.",
    f"{_b64({'alg': 'RS256', 'kid': ['k']})}.{_b64({'iss': ['https://127.0.0.1:6443']})}.c2ln",
    f"{_b64({'alg': 'RS256'})}.{_b64({'iss': 'https://127.0.0.1:6443', 'aud': 7, 'exp': 'soon'})}.c2ln",
    f"{_b64([1, 2])}.{_b64('text')}.c2ln",
    f"{_b64(b'not json')}.{_b64(b'{')}.c2ln",
    "abcdef.0123456789abcdef",
    "é-unicode-token",
    "x" * 5000,
]


@pytest.mark.parametrize("token", GARBAGE, ids=range(len(GARBAGE)))
def test_garbage_tokens_are_401_never_500(auth_app, token_file, token: str) -> None:
    client = auth_app(TOKEN_AUTH_FILE=str(token_file), ENABLE_BOOTSTRAP_TOKEN_AUTH=True).test_client()
    assert client.get(API, headers=bearer(token)).status_code == 401
