"""Creates check their namespace against the namespaces seen in the change log, not the store: what another
server over the same store did reaches them, and what this server did counts at once. Both stores."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import admin_app, wait_for

NS = "/api/v1/namespaces"


@pytest.fixture
def two_servers(database_url: str, tmp_path: Path) -> Iterator[tuple[Any, Any]]:
    apps = [admin_app(database_url, tmp_path / name) for name in ("a", "b")]
    yield apps[0].test_client(), apps[1].test_client()
    for app in apps:
        app.extensions["orch.stop"]()


def _cm(name: str) -> dict:
    return {"metadata": {"name": name}}


def test_a_namespace_made_elsewhere_is_usable_at_once(two_servers: tuple[Any, Any]) -> None:
    a, b = two_servers
    assert b.post(f"{NS}/default/configmaps", json=_cm("warm")).status_code == 201  # b follows namespaces now
    assert a.post(NS, json={"metadata": {"name": "fresh"}}).status_code == 201
    assert b.post(f"{NS}/fresh/configmaps", json=_cm("first")).status_code == 201
    assert b.post(f"{NS}/nowhere/configmaps", json=_cm("x")).status_code == 404


def test_a_namespace_terminated_elsewhere_refuses_new_content(two_servers: tuple[Any, Any]) -> None:
    a, b = two_servers
    a.post(NS, json={"metadata": {"name": "doomed"}})
    held = {"metadata": {"name": "held", "finalizers": ["example.com/hold"]}}
    assert b.post(f"{NS}/doomed/configmaps", json=held).status_code == 201  # keeps the namespace terminating
    assert a.delete(f"{NS}/doomed").status_code == 200
    refused = a.post(f"{NS}/doomed/configmaps", json=_cm("late"))  # the server that deleted: at once
    assert refused.status_code == 403
    assert refused.get_json()["details"]["causes"][0]["reason"] == "NamespaceTerminating"
    wait_for(
        lambda: b.post(f"{NS}/doomed/configmaps", json={"metadata": {"generateName": "later-"}}).status_code == 403
    )
