"""Fixtures: an app factory taking authentication settings, and a cluster CA written to the data dir."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver import pki

from tests.conftest import make_app


@pytest.fixture
def cluster_ca(tmp_path: Path) -> pki.CertKey:
    """The cluster CA at <data dir>/pki/ca.crt, where create_app finds it."""
    ca = pki.create_ca("orch-ca")
    pki.write_pair(ca, tmp_path / "pki" / "ca.crt", tmp_path / "pki" / "ca.key")
    return ca


@pytest.fixture
def auth_app(sqlite_url: str, tmp_path: Path) -> Iterator[Callable[..., Any]]:
    """`auth_app(**config)`: a Flask app with these settings (stopped after the test). These tests are about
    who is asking, so authorization is `AlwaysAllow` unless a test sets `AUTHORIZATION_MODE`."""
    apps: list[Any] = []

    def make(**config: Any) -> Any:
        config.setdefault("AUTHORIZATION_MODE", "AlwaysAllow")
        app = make_app(sqlite_url, tmp_path, **config)
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.extensions["orch.stop"]()
