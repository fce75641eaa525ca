"""Impersonation headers: the values acted as, the checks asked of the authorizer, and the refusals."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from orch_apiserver.auth.authz import Attributes, Decision
from werkzeug.datastructures import Headers

from .helpers import API, WHOAMI

CSV = "admin-token,admin,1,system:masters\n"


@pytest.fixture
def client(auth_app, tmp_path: Path):
    (tmp_path / "tokens.csv").write_text(CSV)
    return auth_app(TOKEN_AUTH_FILE=str(tmp_path / "tokens.csv")).test_client()


def ask(client, *headers: tuple[str, str]) -> tuple[int, dict]:
    response = client.post(WHOAMI, json={}, headers=Headers([("Authorization", "Bearer admin-token"), *headers]))
    body = response.get_json()
    return response.status_code, body["status"]["userInfo"] if response.status_code == 201 else body


def test_acting_as_a_user_with_groups_uid_and_extra(client) -> None:
    code, user = ask(
        client,
        ("Impersonate-User", "jane"),
        ("Impersonate-Group", "dev"),
        ("Impersonate-Group", "ops"),
        ("Impersonate-Uid", "u-9"),
        ("Impersonate-Extra-Scopes", "read"),
        ("Impersonate-Extra-Scopes", "write"),
        ("Impersonate-Extra-Acme.com%2Fproject", "apollo"),
    )
    assert code == 201
    assert user == {
        "username": "jane",
        "uid": "u-9",
        "groups": ["dev", "ops", "system:authenticated"],
        "extra": {"scopes": ["read", "write"], "acme.com/project": ["apollo"]},
    }


def test_acting_as_a_service_account_adds_its_groups(client) -> None:
    code, user = ask(client, ("Impersonate-User", "system:serviceaccount:default:bot"))
    assert code == 201 and user == {
        "username": "system:serviceaccount:default:bot",
        "groups": ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
    }
    code, user = ask(client, ("Impersonate-User", "system:serviceaccount:default:bot"), ("Impersonate-Group", "x"))
    assert user["groups"] == ["x", "system:authenticated"]  # given groups replace the fixed mapping


def test_anonymous_and_unauthenticated_groups(client) -> None:
    assert ask(client, ("Impersonate-User", "system:anonymous"))[1]["groups"] == ["system:unauthenticated"]
    both = ask(client, ("Impersonate-User", "jane"), ("Impersonate-Group", "system:unauthenticated"))[1]
    assert both["groups"] == ["system:unauthenticated"]


@pytest.mark.parametrize(
    ("headers", "listed"),
    [
        ([("Impersonate-Group", "dev")], "[{Group  dev    }]"),
        ([("Impersonate-Uid", "u-1")], "[{UID  u-1  authentication.orch.io/v1  }]"),
        ([("Impersonate-Extra-Scopes", "read")], "[{UserExtra  read  authentication.orch.io/v1  scopes}]"),
    ],
)
def test_groups_extra_or_uid_without_a_user_is_400(client, headers, listed: str) -> None:
    code, body = ask(client, *headers)
    assert code == 400 and body["reason"] == "BadRequest"
    assert body["message"] == f"requested {listed} without impersonating a user"


@dataclass
class Recorder:
    """An authorizer that allows everything except what `deny` names, and records every question."""

    deny: set[tuple[str, str]] = field(default_factory=set)
    asked: list[Attributes] = field(default_factory=list)

    def authorize(self, attributes: Attributes) -> Decision:
        self.asked.append(attributes)
        if (attributes.resource, attributes.name) in self.deny:
            return Decision.deny("not on my watch")
        return Decision.allow()


def _use(client, authorizer: Recorder) -> None:
    extensions = client.application.extensions
    extensions["orch.auth"] = replace(extensions["orch.auth"], authorizer=authorizer)


def test_each_value_is_checked_with_the_impersonate_verb(client) -> None:
    recorder = Recorder()
    _use(client, recorder)
    assert (
        ask(
            client,
            ("Impersonate-User", "system:serviceaccount:ns1:bot"),
            ("Impersonate-Group", "dev"),
            ("Impersonate-Extra-Scopes", "read"),
            ("Impersonate-Uid", "u-1"),
        )[0]
        == 201
    )
    seen = [(a.verb, a.group, a.resource, a.subresource, a.namespace, a.name, a.user.username) for a in recorder.asked]
    assert seen == [
        ("impersonate", "", "serviceaccounts", "", "ns1", "bot", "admin"),
        ("impersonate", "", "groups", "", "", "dev", "admin"),
        ("impersonate", "authentication.orch.io", "userextras", "scopes", "", "read", "admin"),
        ("impersonate", "authentication.orch.io", "uids", "", "", "u-1", "admin"),
    ]
    assert all(a.resource_request for a in recorder.asked)


def test_a_denied_value_is_403_worded_like_the_reference(client) -> None:
    _use(client, Recorder(deny={("users", "root"), ("userextras", "admin"), ("serviceaccounts", "bot")}))
    code, body = ask(client, ("Impersonate-User", "root"))
    assert code == 403 and body["reason"] == "Forbidden"
    assert body["message"] == (
        'users "root" is forbidden: User "admin" cannot impersonate resource "users" in API '
        'group "" at the cluster scope: not on my watch'
    )
    assert body["details"] == {"name": "root", "kind": "users"}
    code, body = ask(client, ("Impersonate-User", "jane"), ("Impersonate-Extra-Scopes", "admin"))
    assert body["message"].startswith(
        'userextras.authentication.orch.io "admin" is forbidden: User "admin" cannot '
        'impersonate resource "userextras/scopes" in API group "authentication.orch.io"'
    )
    code, body = ask(client, ("Impersonate-User", "system:serviceaccount:ns1:bot"))
    assert 'in the namespace "ns1"' in body["message"]


def test_impersonation_needs_an_authenticated_caller_only_through_the_authorizer(client) -> None:
    response = client.get(API, headers={"Impersonate-User": "jane"})  # anonymous may, if the authorizer says so
    assert response.status_code == 200


def test_invalid_service_account_names_are_plain_users(client) -> None:
    for name in ("system:serviceaccount:Bad:bot", "system:serviceaccount:a:b:c", "system:serviceaccount:ns"):
        code, user = ask(client, ("Impersonate-User", name))
        assert code == 201 and user["username"] == name and user["groups"] == ["system:authenticated"]
