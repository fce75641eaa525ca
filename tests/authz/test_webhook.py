"""The Webhook authorization mode against a real local HTTPS SubjectAccessReview service (mutual TLS)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver import pki
from orch_apiserver.auth.authz import Attributes
from orch_apiserver.auth.authz_webhook import WebhookAuthorizer
from orch_apiserver.auth.webhook import load_remote
from orch_apiserver.user import UserInfo

from tests.auth.helpers import HttpsServer, https_server, kubeconfig
from tests.conftest import make_app

CM = "/api/v1/namespaces/default/configmaps"
SAR = "authorization.orch.io/v1"


def review_by_user(_method: str, _path: str, _headers: dict[str, str], body: bytes) -> tuple[int, Any]:
    """alice may do anything; bob is explicitly denied; carol gets no opinion; others break the remote."""
    review = json.loads(body)
    user = review["spec"]["user"]
    if user == "alice":
        status: dict[str, Any] = {"allowed": True, "reason": "alice is trusted"}
    elif user == "bob":
        status = {"allowed": False, "denied": True, "reason": "bob is banned"}
    elif user == "carol":
        status = {"allowed": False, "reason": "no idea"}
    elif user == "wrong-kind":
        return 200, {"apiVersion": SAR, "kind": "TokenReview", "status": {"allowed": True}}
    else:
        return 500, {}
    return 200, {"apiVersion": SAR, "kind": "SubjectAccessReview", "status": status}


@pytest.fixture
def remote(tmp_path: Path) -> Iterator[tuple[HttpsServer, Path]]:
    server_ca, client_ca = pki.create_ca("authz-webhook-ca"), pki.create_ca("our-client-ca")
    pki.write_pair(pki.issue_client_cert(client_ca, "orch-apiserver"), tmp_path / "ours.crt", tmp_path / "ours.key")
    (tmp_path / "webhook-ca.crt").write_bytes(server_ca.cert_pem)
    with https_server(server_ca, tmp_path, client_ca=client_ca) as server:
        server.routes["/authorize"] = review_by_user
        config = kubeconfig(
            tmp_path / "authz.kubeconfig",
            server.url + "/authorize",
            tmp_path / "webhook-ca.crt",
            (tmp_path / "ours.crt", tmp_path / "ours.key"),
        )
        yield server, config


def attrs(user: str, **fields: Any) -> Attributes:
    return Attributes(UserInfo(user, groups=("dev",)), fields.pop("verb", "list"), **fields)


def authorizer(config: Path, **options: Any) -> WebhookAuthorizer:
    return WebhookAuthorizer(load_remote(str(config)), SAR, **{"timeout": 2.0, "deadline": 3.0, **options})


def test_the_review_carries_the_request_attributes(remote) -> None:
    server, config = remote
    decision = authorizer(config).authorize(attrs("alice", resource="configmaps", namespace="team", version="v1"))
    assert decision.allowed and decision.reason == "alice is trusted"
    body = json.loads(server.calls[-1][3])
    assert body == {
        "apiVersion": SAR,
        "kind": "SubjectAccessReview",
        "spec": {
            "user": "alice",
            "groups": ["dev"],
            "resourceAttributes": {"namespace": "team", "verb": "list", "version": "v1", "resource": "configmaps"},
        },
    }
    authorizer(config).authorize(attrs("alice", verb="get", resource_request=False, path="/healthz"))
    assert json.loads(server.calls[-1][3])["spec"]["nonResourceAttributes"] == {"path": "/healthz", "verb": "get"}


def test_allowed_denied_and_no_opinion(remote) -> None:
    _, config = remote
    hook = authorizer(config)
    bob = hook.authorize(attrs("bob", resource="pods"))
    assert (bob.allowed, bob.no_opinion, bob.reason) == (False, False, "bob is banned")
    carol = hook.authorize(attrs("carol", resource="pods"))
    assert (carol.allowed, carol.no_opinion) == (False, True)


def test_decisions_are_cached_for_their_ttl(remote) -> None:
    server, config = remote
    hook = authorizer(config, authorized_ttl=60.0, unauthorized_ttl=0.3)
    for _ in range(3):
        assert hook.authorize(attrs("alice", resource="pods")).allowed
        assert not hook.authorize(attrs("bob", resource="pods")).allowed
    assert len(server.calls) == 2
    hook.authorize(attrs("alice", resource="secrets"))  # other attributes: another review
    assert len(server.calls) == 3
    time.sleep(0.4)
    hook.authorize(attrs("bob", resource="pods"))  # the deny expired, the allow did not
    hook.authorize(attrs("alice", resource="pods"))
    assert len(server.calls) == 4


def test_failures_have_no_opinion_within_the_deadline_and_are_not_cached(remote) -> None:
    server, config = remote
    hook = authorizer(config, deadline=1.0)
    for user in ("broken", "wrong-kind"):
        started = time.monotonic()
        decision = hook.authorize(attrs(user, resource="pods"))
        assert (decision.allowed, decision.no_opinion) == (False, True)
        assert time.monotonic() - started < 3
    calls = len(server.calls)
    hook.authorize(attrs("wrong-kind", resource="pods"))
    assert len(server.calls) == calls + 1


def test_an_unreachable_webhook_fails_closed(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = kubeconfig(tmp_path / "gone.kubeconfig", f"https://127.0.0.1:{port}/authorize")
    started = time.monotonic()
    decision = authorizer(config, deadline=1.0).authorize(attrs("alice", resource="pods"))
    assert (decision.allowed, decision.no_opinion) == (False, True)
    assert time.monotonic() - started < 3


def test_the_webhook_mode_in_the_chain_over_http(remote, sqlite_url: str, tmp_path: Path) -> None:
    _, config = remote
    tokens = tmp_path / "tokens.csv"
    tokens.write_text("".join(f"token-{n},{n},uid-{n}\n" for n in ("alice", "bob", "carol")))
    app = make_app(
        sqlite_url,
        tmp_path,
        AUTHORIZATION_MODE="Webhook,AlwaysAllow",
        TOKEN_AUTH_FILE=str(tokens),
        AUTHORIZATION_WEBHOOK_CONFIG_FILE=str(config),
        OUTBOUND_DEADLINE=2.0,
    )
    try:
        client = app.test_client()

        def call(user: str) -> Any:
            return client.get(CM, headers={"Authorization": f"Bearer token-{user}"})

        assert call("alice").status_code == 200
        denied = call("bob")
        assert denied.status_code == 403
        assert denied.json["message"] == (
            'configmaps is forbidden: User "bob" cannot list resource "configmaps" in '
            'API group "" in the namespace "default": bob is banned'
        )
        assert call("carol").status_code == 200  # no opinion: the next mode (AlwaysAllow) decides
    finally:
        app.extensions["orch.stop"]()


def test_webhook_mode_needs_its_config_file(sqlite_url: str, tmp_path: Path) -> None:
    from orch_apiserver.auth.setup import AuthConfigError

    with pytest.raises(AuthConfigError, match="--authorization-webhook-config-file"):
        make_app(sqlite_url, tmp_path, AUTHORIZATION_MODE="Webhook")
