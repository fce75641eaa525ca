"""pytest plugin (entry point `pytest11`): fixtures that give tests a real, fast API server.

Configuration (pytest.ini / pyproject `[tool.pytest.ini_options]`):
  orch_api_domain    k8s.io (default: stock clients' names) or orch.io
  orch_crds          CRD files or directories (one per line, relative to the rootdir), installed and Established
  orch_server_args   further orch-apiserver flags
  orch_database_url  a database URL (default: SQLite in a temporary directory); `--orch-database-url` overrides it
  orch_simulate_nodes  N > 0: a simulated cluster of N nodes (docs/simulation.md): pods get scheduled and run
  orch_fault_injection  true (default): the Fault kind is served and `orch_apiserver.fault(...)` works
                     (docs/testing.md); false: a server without it
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # the server is imported only when a test asks for it: plain pytest runs stay fast
    from .server import TestServer

_LOG_MARK = pytest.StashKey[int]()


def _rewrite_only_this_module(pluginmanager: pytest.PytestPluginManager) -> None:
    """pytest marks every top-level package of a pytest11 plugin's distribution for assertion rewriting: all of
    the server's modules, which hold no test assertions, would be rewritten on import instead of loading the
    byte-code pip compiled, and with PYTHONDONTWRITEBYTECODE=1 re-compiled at every run (issue 56)."""
    package = __name__.partition(".")[0]
    # pytest's set of marked names: it offers a way to add a name (register_assert_rewrite), none to remove one
    marked = getattr(pluginmanager.rewrite_hook, "_must_rewrite", None)
    if isinstance(marked, set) and package in marked:
        marked.discard(package)
        marked.add(__name__)
        getattr(pluginmanager.rewrite_hook, "_marked_for_rewrite_cache", {}).clear()


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    _rewrite_only_this_module(pluginmanager)  # the first hook pytest calls: before any conftest imports the server
    parser.addini("orch_api_domain", "API domain of the test server (k8s.io or orch.io)", default="k8s.io")
    parser.addini("orch_crds", "CRD files or directories to install before tests", type="linelist", default=[])
    parser.addini("orch_server_args", "extra orch-apiserver flags for the test server", type="args", default=[])
    parser.addini("orch_database_url", "database URL of the test server (default: SQLite)", default="")
    parser.addini("orch_simulate_nodes", "simulated nodes of the test server (0: a plain API server)", default="0")
    parser.addini("orch_fault_injection", "serve the Fault kind (orch_apiserver.fault)", type="bool", default=True)
    parser.addoption("--orch-database-url", default=None, help="database URL of the orch-apiserver test server")


@pytest.fixture(scope="session")
def orch_apiserver(pytestconfig: pytest.Config) -> Iterator[TestServer]:
    """A running API server for the whole session (admin kubeconfig in `.kubeconfig`)."""
    from .server import TestServer

    root = Path(str(pytestconfig.rootpath))
    crds = [root / entry for entry in pytestconfig.getini("orch_crds")]
    database_url = pytestconfig.getoption("--orch-database-url") or pytestconfig.getini("orch_database_url") or None
    server = TestServer(
        api_domain=pytestconfig.getini("orch_api_domain"),
        crds=crds,
        database_url=database_url,
        args=pytestconfig.getini("orch_server_args"),
        simulate_nodes=int(pytestconfig.getini("orch_simulate_nodes") or 0),
        fault_injection=bool(pytestconfig.getini("orch_fault_injection")),
    )
    with server:
        yield server


@pytest.fixture
def orch_namespace(orch_apiserver: TestServer) -> Iterator[str]:
    """A fresh namespace for one test, deleted afterwards."""
    name = orch_apiserver.create_namespace()
    yield name
    orch_apiserver.delete_namespace(name)


@pytest.fixture
def orch_clean_apiserver(orch_apiserver: TestServer) -> Iterator[TestServer]:
    """The session's server, reset after the test: everything the test made is gone."""
    yield orch_apiserver
    orch_apiserver.reset()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    server = getattr(item, "funcargs", {}).get("orch_apiserver")
    if server is not None:
        item.stash[_LOG_MARK] = server.log.mark()
    yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failing test's report carries what the server logged while it ran."""
    report = yield
    server = getattr(item, "funcargs", {}).get("orch_apiserver")
    if report.failed and server is not None:
        text = server.log.text(since=item.stash.get(_LOG_MARK, 0))
        report.sections.append(("orch-apiserver log", text or "(nothing logged)"))
    return report
