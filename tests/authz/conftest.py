"""Fixtures: an app in RBAC mode whose static tokens name a few users (`as_user(name)` gives headers)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_app

USERS = {"admin": ("admin", "system:masters"), "alice": ("alice", "devs"), "bob": ("bob", ""), "root": ("root", "")}


def as_user(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer token-{name}"}


@pytest.fixture
def rbac_app(sqlite_url: str, tmp_path: Path) -> Iterator[Any]:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text("".join(f'token-{n},{user},uid-{n},"{groups}"\n' for n, (user, groups) in USERS.items()))
    app = make_app(sqlite_url, tmp_path, AUTHORIZATION_MODE="RBAC", TOKEN_AUTH_FILE=str(tokens))
    yield app
    app.extensions["orch.stop"]()


@pytest.fixture
def rbac(rbac_app: Any) -> Any:
    return rbac_app.test_client()


@pytest.fixture
def auth_app_deny(sqlite_url: str, tmp_path: Path) -> Iterator[Any]:
    app = make_app(sqlite_url, tmp_path, AUTHORIZATION_MODE="AlwaysDeny")
    yield app
    app.extensions["orch.stop"]()
