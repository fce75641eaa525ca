"""Fixtures: an admin app whose controllers are driven by hand (`sync()`) under a clock the test moves."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver.controllers.base import Context
from orch_apiserver.controllers.manager import ensure_namespaced_policy

from tests.conftest import admin_app

USERS = {
    "boot": ("system:bootstrap:abcdef", "system:bootstrappers"),
    "node1": ("system:node:n1", "system:nodes"),
    "bob": ("bob", ""),
}


def as_token(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer token-{name}"}


@dataclass
class FakeClock:
    now: datetime

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime.now(UTC).replace(microsecond=0))


@pytest.fixture
def capp(sqlite_url: str, tmp_path: Path) -> Iterator[Any]:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text("".join(f'token-{n},{user},uid-{n},"{groups}"\n' for n, (user, groups) in USERS.items()))
    app = admin_app(sqlite_url, tmp_path, TOKEN_AUTH_FILE=str(tokens))
    yield app
    app.extensions["orch.stop"]()


@pytest.fixture
def cclient(capp: Any) -> Any:
    client = capp.test_client()
    assert client.get("/api").status_code == 200  # the first request reconciles the default policy
    return client


@pytest.fixture
def ctx(capp: Any, cclient: Any, clock: FakeClock) -> Context:
    """The controllers' context of `capp`: its registry and authorizer, the fake clock."""
    svc = capp.extensions["orch"]
    context = Context(
        svc.registry, svc.naming, svc.hub, capp.extensions["orch.auth"], clock=clock, settings=dict(capp.config)
    )
    ensure_namespaced_policy(context)
    return context
