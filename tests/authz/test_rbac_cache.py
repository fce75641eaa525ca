"""The RBAC policy is cached until an RBAC object changes: grants made through another server over the same
store work at once, revocations reach it through the change log, other writes keep the cache. Both stores."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver.auth.rbac.policy import PolicySource

from tests.authz.conftest import USERS, as_user
from tests.conftest import make_app, wait_for

RBAC = "/apis/rbac.authorization.orch.io/v1"
TEAM_CMS = "/api/v1/namespaces/team/configmaps"
READER = {
    "metadata": {"name": "cm-reader", "namespace": "team"},
    "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["list"]}],
}
BINDING = {
    "metadata": {"name": "bob-reads", "namespace": "team"},
    "roleRef": {"apiGroup": "rbac.authorization.orch.io", "kind": "Role", "name": "cm-reader"},
    "subjects": [{"kind": "User", "name": "bob", "apiGroup": "rbac.authorization.orch.io"}],
}


@pytest.fixture
def two_servers(database_url: str, tmp_path: Path) -> Iterator[tuple[Any, Any]]:
    """Two API servers (apps) over one store, as two workers or replicas are."""
    tokens = tmp_path / "tokens.csv"
    tokens.write_text("".join(f'token-{n},{user},uid-{n},"{groups}"\n' for n, (user, groups) in USERS.items()))
    apps = [
        make_app(database_url, tmp_path / name, AUTHORIZATION_MODE="RBAC", TOKEN_AUTH_FILE=str(tokens))
        for name in ("a", "b")
    ]
    yield apps[0].test_client(), apps[1].test_client()
    for app in apps:
        app.extensions["orch.stop"]()


def test_a_grant_through_one_server_works_at_once_on_the_other(two_servers: tuple[Any, Any]) -> None:
    a, b = two_servers
    admin = as_user("admin")
    assert a.post("/api/v1/namespaces", json={"metadata": {"name": "team"}}, headers=admin).status_code == 201
    assert b.get(TEAM_CMS, headers=as_user("bob")).status_code == 403  # b has the policy cached now
    assert a.post(f"{RBAC}/namespaces/team/roles", json=READER, headers=admin).status_code == 201
    assert a.post(f"{RBAC}/namespaces/team/rolebindings", json=BINDING, headers=admin).status_code == 201
    assert b.get(TEAM_CMS, headers=as_user("bob")).status_code == 200  # no waiting for b's change feed


def test_a_revocation_through_one_server_reaches_the_other(two_servers: tuple[Any, Any]) -> None:
    a, b = two_servers
    admin = as_user("admin")
    a.post("/api/v1/namespaces", json={"metadata": {"name": "team"}}, headers=admin)
    a.post(f"{RBAC}/namespaces/team/roles", json=READER, headers=admin)
    a.post(f"{RBAC}/namespaces/team/rolebindings", json=BINDING, headers=admin)
    assert b.get(TEAM_CMS, headers=as_user("bob")).status_code == 200
    assert a.delete(f"{RBAC}/namespaces/team/rolebindings/bob-reads", headers=admin).status_code == 200
    assert a.get(TEAM_CMS, headers=as_user("bob")).status_code == 403  # the server that revoked: at once
    wait_for(lambda: b.get(TEAM_CMS, headers=as_user("bob")).status_code == 403)
    # an edit of the role narrows what the binding grants, on both servers
    a.post(f"{RBAC}/namespaces/team/rolebindings", json=BINDING, headers=admin)
    wait_for(lambda: b.get(TEAM_CMS, headers=as_user("bob")).status_code == 200)
    narrowed = {**READER, "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["list"]}]}
    assert a.put(f"{RBAC}/namespaces/team/roles/cm-reader", json=narrowed, headers=admin).status_code == 200
    wait_for(lambda: b.get(TEAM_CMS, headers=as_user("bob")).status_code == 403)


def test_other_writes_keep_the_cached_policy(two_servers: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    a, _ = two_servers
    admin, bob = as_user("admin"), as_user("bob")
    a.post("/api/v1/namespaces", json={"metadata": {"name": "team"}}, headers=admin)
    a.post(f"{RBAC}/namespaces/team/roles", json=READER, headers=admin)
    a.post(f"{RBAC}/namespaces/team/rolebindings", json=BINDING, headers=admin)
    assert a.get(TEAM_CMS, headers=bob).status_code == 200
    loads: list[int] = []
    original = PolicySource._load
    monkeypatch.setattr(PolicySource, "_load", lambda self, *args: loads.append(1) or original(self, *args))
    for i in range(20):
        assert a.post(TEAM_CMS, json={"metadata": {"name": f"c{i}"}}, headers=admin).status_code == 201
        assert a.get(TEAM_CMS, headers=bob).status_code == 200
    assert loads == []  # configmap writes do not make bob's requests read the policy again
    narrowed = {**READER, "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["list"]}]}
    assert a.put(f"{RBAC}/namespaces/team/roles/cm-reader", json=narrowed, headers=admin).status_code == 200
    wait_for(lambda: a.get(TEAM_CMS, headers=bob).status_code == 403)
    assert loads
