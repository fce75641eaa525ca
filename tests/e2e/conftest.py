"""Fixtures that run the real orch-apiserver in a subprocess (one per pytest-xdist worker and backend)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from . import LOG_TAIL, SHARED_SERVER_ARGS, RunningServer, scratch_database, server_on, start_server, unavailable


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """The real server on SQLite in a temporary data directory."""
    running = start_server(tmp_path_factory.mktemp("orch-sqlite"), SHARED_SERVER_ARGS)
    yield running
    running.stop()


@pytest.fixture
def empty_pg_database() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test (SQLAlchemy URL); dropped afterwards."""
    with scratch_database() as url:
        yield url


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """The real server on its own fresh PostgreSQL database, migrated first (what `flask db upgrade` does)."""
    from orch_apiserver.storage.schema import ensure_schema

    with scratch_database() as url:
        ensure_schema(url, upgrade=True)
        running = start_server(tmp_path_factory.mktemp("orch-pg"), SHARED_SERVER_ARGS, database_url=url)
        yield running
        running.stop()


@pytest.fixture(scope="module")
def k8s_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A server of the reference's domain (`--api-domain k8s.io`), its own for each test module."""
    running = start_server(tmp_path_factory.mktemp("k8s-domain"), ["--api-domain", "k8s.io"])
    yield running
    running.stop()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def k8s(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A server of the reference's domain on each store, its own for each test module."""
    with server_on(
        request.param, tmp_path_factory.mktemp(f"k8s-{request.param}"), ["--api-domain", "k8s.io"]
    ) as running:
        yield running


@pytest.fixture(params=["sqlite", "postgresql"])
def any_server(request: pytest.FixtureRequest) -> RunningServer:
    """Parametrize a test over both backends."""
    return request.getfixturevalue("server" if request.param == "sqlite" else "pg_server")


@pytest.fixture(scope="session")
def kubectl() -> str:
    path = shutil.which("kubectl") or ("/usr/bin/kubectl" if os.access("/usr/bin/kubectl", os.X_OK) else None)
    if path is None:
        unavailable("kubectl is not installed: put a kubectl binary (v1.28 or newer) on PATH, e.g. /usr/bin/kubectl")
    return path


@pytest.fixture(scope="session")
def kube_client(server: RunningServer) -> Iterator[Any]:
    """The official Python client's ApiClient, configured from the admin kubeconfig."""
    from kubernetes import config

    client = config.new_client_from_config(config_file=str(server.kubeconfig))
    yield client
    client.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """On a failure, attach the log of every server the test used."""
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    for value in getattr(item, "funcargs", {}).values():
        # duck-typed: this module may also be imported as tests.e2e, with its own RunningServer class
        if type(value).__name__ == RunningServer.__name__ and callable(getattr(value, "log", None)):
            report.sections.append((f"orch-apiserver log ({value.url})", value.log()[-LOG_TAIL:]))
