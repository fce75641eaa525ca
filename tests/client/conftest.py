"""One real server for the client-library tests: admin certificate, a token file, bootstrap tokens, AlwaysAllow."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e import RunningServer, start_server
from tests.e2e.conftest import pytest_runtest_makereport  # noqa: F401 -- attach the server log to failures

#: tokens the server accepts (user alice, and bob for the second credential of the 401 test)
TOKENS = {"alice-token": "alice", "bob-token": "bob"}


# the client library is tested on namespaces it fills itself: no root-CA ConfigMap in each of them
QUIET_CONTROLLERS = "*,-rootcacertpublisher"


@pytest.fixture(scope="session")
def api_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    tmp = tmp_path_factory.mktemp("client-server")
    (tmp / "tokens.csv").write_text("".join(f"{token},{user},{user}-uid\n" for token, user in TOKENS.items()))
    running = start_server(
        tmp / "data",
        args=[
            "--token-auth-file",
            str(tmp / "tokens.csv"),
            "--enable-bootstrap-token-auth",
            "--authorization-mode",
            "AlwaysAllow",  # these tests are about the client, not about who may do what
            "--controllers",
            QUIET_CONTROLLERS,
        ],
    )
    yield running
    running.stop()


@pytest.fixture(scope="session")
def admin_config_path(api_server: RunningServer) -> Path:
    return api_server.kubeconfig
