"""One real server per test module (orchctl runs as a subprocess against it), with bootstrap tokens enabled."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e import RunningServer, start_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = start_server(
        tmp_path_factory.mktemp("orchctl-server"),
        args=["--enable-bootstrap-token-auth", "--controllers", "*,-rootcacertpublisher"],
    )
    yield running
    running.stop()
