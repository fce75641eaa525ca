"""authentication.<domain>/v1: token reviews and self-subject reviews over HTTP, and their discovery."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from orch_apiserver import pki
from orch_apiserver.auth.authz import AlwaysAllow, Attributes, Decision, ModeChain, forbidden
from orch_apiserver.user import UserInfo

from .helpers import TOKENREVIEWS, WHOAMI, bearer, whoami

AUTH_DIR = Path(__file__).resolve().parents[2] / "app" / "auth"


@pytest.fixture
def client(auth_app, tmp_path: Path):
    (tmp_path / "tokens.csv").write_text('good,jane,j-1,"dev"\n')
    return auth_app(TOKEN_AUTH_FILE=str(tmp_path / "tokens.csv")).test_client()


def test_token_review_of_a_good_token(client) -> None:
    response = client.post(
        TOKENREVIEWS, json={"apiVersion": "authentication.orch.io/v1", "kind": "TokenReview", "spec": {"token": "good"}}
    )
    assert response.status_code == 201
    review = response.get_json()
    assert review["kind"] == "TokenReview" and review["apiVersion"] == "authentication.orch.io/v1"
    assert review["status"]["authenticated"] is True
    assert review["status"]["user"] == {"username": "jane", "uid": "j-1", "groups": ["dev", "system:authenticated"]}
    assert review["status"]["audiences"]


def test_token_review_of_a_bad_token(client) -> None:
    review = client.post(TOKENREVIEWS, json={"spec": {"token": "bad"}}).get_json()
    assert review["status"] == {"user": {}, "error": "invalid bearer token"}


def test_token_review_needs_a_token_and_the_right_kind(client) -> None:
    missing = client.post(TOKENREVIEWS, json={"spec": {}})
    assert missing.status_code == 400
    assert missing.get_json()["message"] == "token is required for TokenReview in authentication"
    wrong = client.post(
        TOKENREVIEWS, json={"apiVersion": "authentication.orch.io/v1", "kind": "Pod", "spec": {"token": "good"}}
    )
    assert wrong.status_code == 400
    for method in (client.get, client.delete):
        assert method(TOKENREVIEWS).status_code == 405


def test_self_subject_review_reports_the_caller(cluster_ca, client) -> None:
    response = client.post(
        WHOAMI, json={"apiVersion": "authentication.orch.io/v1", "kind": "SelfSubjectReview"}, headers=bearer("good")
    )
    assert response.status_code == 201
    body = response.get_json()
    assert body["kind"] == "SelfSubjectReview" and body["metadata"]["creationTimestamp"]
    assert body["status"]["userInfo"]["username"] == "jane"
    admin = pki.issue_client_cert(cluster_ca, "admin", ["system:masters"])
    assert whoami(client, cert=admin)[1] == {"username": "admin", "groups": ["system:masters", "system:authenticated"]}


def test_the_group_is_discoverable(client) -> None:
    groups = client.get("/apis").get_json()["groups"]
    assert "authentication.orch.io" in [g["name"] for g in groups]
    resources = client.get("/apis/authentication.orch.io/v1").get_json()["resources"]
    assert {r["name"]: r["verbs"] for r in resources} == {"selfsubjectreviews": ["create"], "tokenreviews": ["create"]}
    core = {r["name"]: r for r in client.get("/api/v1").get_json()["resources"]}
    token = core["serviceaccounts/token"]
    assert (token["group"], token["version"], token["kind"], token["verbs"]) == (
        "authentication.orch.io",
        "v1",
        "TokenRequest",
        ["create"],
    )


def test_forbidden_messages() -> None:
    alice = UserInfo("alice")
    listing = Attributes(alice, "list", resource="pods", namespace="ns")
    assert forbidden(listing).message == (
        'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "ns"'
    )
    path = Attributes(UserInfo("system:anonymous"), "get", resource_request=False, path="/foo")
    assert forbidden(path).message == 'forbidden: User "system:anonymous" cannot get path "/foo"'
    html = Attributes(UserInfo("<b>&"), "get", group="apps", resource="deployments", name="d")
    assert forbidden(html, "why").message == (
        'deployments.apps "d" is forbidden: User "&lt;b&gt;&amp;" cannot get '
        'resource "deployments" in API group "apps" at the cluster scope: why'
    )


def test_mode_chain_takes_the_first_opinion() -> None:
    class Silent:
        def authorize(self, attributes: Attributes) -> Decision:
            return Decision.abstain("no rule")

    attributes = Attributes(UserInfo("a"), "get")
    assert ModeChain((Silent(), AlwaysAllow())).authorize(attributes).allowed
    denied = ModeChain((Silent(),)).authorize(attributes)
    assert not denied.allowed and denied.reason == "no rule" and not denied.no_opinion


def test_no_auth_module_spells_out_a_domain() -> None:
    pattern = re.compile(r"orch\.io|k8s\.io|kubernetes\.io")
    assert [p.name for p in AUTH_DIR.glob("*.py") if pattern.search(p.read_text())] == []
