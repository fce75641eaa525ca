"""Shared fixtures: apps on a migrated SQLite or PostgreSQL store, each test on a clean store."""

from __future__ import annotations

import atexit
import functools
import gc
import os
import shutil
import tempfile
import time
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from cryptography.hazmat.primitives import serialization
from flask.testing import FlaskClient
from orch_apiserver.admission.plugins import enabled_plugins
from orch_apiserver.storage import schema

PG_URL_ENV = "ORCH_TEST_DATABASE_URL"
DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
IN_CI = os.environ.get("CI", "").lower() == "true"


def _pg_admin_url() -> str:
    return os.environ.get(PG_URL_ENV, DEFAULT_PG_URL)


def _pg_reachable(url: str) -> str | None:
    try:
        engine = sa.create_engine(url)
        with engine.connect() as conn:
            conn.execute(sa.text("select 1"))
        engine.dispose()
        return None
    except Exception as exc:  # noqa: BLE001 - any failure means "not reachable" for the skip message
        return str(exc).splitlines()[0]


@pytest.fixture(autouse=True)
def app_logger_as_it_was() -> Iterator[None]:
    """A test that runs the CLI's main() gives the `app` logger a handler on that test's captured stderr; the
    next tests' lines (the request log is written by a thread, after the test) must not go to a closed stream."""
    import logging

    logger = logging.getLogger("app")
    handlers, level = list(logger.handlers), logger.level
    yield
    logger.handlers[:] = handlers
    logger.setLevel(level)


@pytest.fixture
def kr8s_connections_collected() -> Iterator[None]:
    """kr8s's sync API leaves its httpx transports to the garbage collector: collect them at the end of the test that
    made them, quietly, rather than as an unraisable ResourceWarning failing whichever test runs next."""
    yield
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()


@pytest.fixture(autouse=True)
def kubectl_discovery_cache_per_test(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """kubectl caches discovery per host:port under ~/.kube/cache; test servers reuse ports, so a later server
    with another API domain would be answered from an earlier server's cache (kubectl creates the directory)."""
    cache = tmp_path_factory.getbasetemp() / "kubectl-cache" / uuid.uuid4().hex
    monkeypatch.setenv("KUBECACHEDIR", str(cache))


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "orch.db"
    schema.upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """A scratch PostgreSQL database for this test process, migrated once."""
    admin_url = _pg_admin_url()
    problem = _pg_reachable(admin_url)
    if problem:
        message = (
            f"PostgreSQL is not reachable at {admin_url} ({problem}); start it (for example "
            f"`pg_ctlcluster 15 main start`) or point {PG_URL_ENV} at one"
        )
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    name = f"orch_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = admin_url.rsplit("/", 1)[0] + "/" + name
    schema.upgrade(url)
    yield url
    with admin.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def _reset_pg(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("TRUNCATE objects, changes, compaction_marks"))
        conn.execute(sa.text("UPDATE sequence SET rv = 1, compacted = 1"))
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: Path) -> str:
    """A clean, migrated store: every storage behaviour is tested on both databases."""
    if request.param == "sqlite":
        path = tmp_path / "orch.db"
        shutil.copy(sqlite_template, path)
        return f"sqlite:///{path}"
    url = request.getfixturevalue("pg_database")
    _reset_pg(url)
    return url


@pytest.fixture
def sqlite_url(tmp_path: Path, sqlite_template: Path) -> str:
    path = tmp_path / "orch.db"
    shutil.copy(sqlite_template, path)
    return f"sqlite:///{path}"


@functools.cache
def session_ca() -> tuple[str, bytes]:
    """The session's cluster CA (its PEM file) and the DER of an admin client certificate it signed:
    `CN=admin,O=system:masters`, as the admin kubeconfig of a real server."""
    from orch_apiserver import pki

    ca = pki.create_ca("orch-test-ca")
    directory = tempfile.mkdtemp(prefix="orch-test-ca-")
    atexit.register(shutil.rmtree, directory, True)
    ca_file = os.path.join(directory, "ca.crt")
    pki.write_pair(ca, ca_file, os.path.join(directory, "ca.key"))
    admin = pki.issue_client_cert(ca, "admin", ["system:masters"])
    return ca_file, admin.cert.public_bytes(serialization.Encoding.DER)


class AdminClient(FlaskClient):
    """A test client authenticated as the admin (system:masters) by the session CA's certificate."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        from orch_apiserver.auth.x509 import PEER_CERT_KEY

        self.environ_base[PEER_CERT_KEY] = session_ca()[1]


#: test apps run no controllers: no `default` ServiceAccount appears (the ServiceAccount plugin would refuse every
#: pod) and no protection controller frees a deleted claim or volume; the tests of those plugins
#: (tests/admission/) run them with their controllers
TEST_ADMISSION_PLUGINS = enabled_plugins(disable=["ServiceAccount", "StorageObjectInUseProtection"])


def make_app(url: str, tmp_path: Path, **config: object):
    """An app on a migrated store. Its aggregation layer stays idle (AGGREGATION False): at start it would write
    ~40 Local APIServices and a ConfigMap that tests counting objects or revisions do not expect; the
    aggregation tests (tests/aggregation, tests/e2e) run it."""
    from orch_apiserver import create_app

    settings = {
        "DATABASE_URL": url,
        "DATA_DIR": str(tmp_path),
        "TESTING": True,
        "WATCH_POLL_INTERVAL": 0.05,
        "ADMISSION_PLUGINS": TEST_ADMISSION_PLUGINS,
        "AGGREGATION": False,
        **config,
    }
    return create_app(settings)


def admin_app(url: str, tmp_path: Path, **config: object):
    """`make_app` with the session CA as cluster CA, whose `test_client()` calls as the admin
    (system:masters: full access under the default RBAC mode)."""
    flask_app = make_app(url, tmp_path, **{"CLUSTER_CA_CERT_FILE": session_ca()[0], **config})
    flask_app.test_client_class = AdminClient
    return flask_app


@pytest.fixture
def app(sqlite_url: str, tmp_path: Path):
    flask_app = admin_app(sqlite_url, tmp_path)
    yield flask_app
    _shutdown(flask_app)


@pytest.fixture
def any_app(database_url: str, tmp_path: Path):
    """The app on each store in turn (SQLite and PostgreSQL); its test clients call as the admin."""
    flask_app = admin_app(database_url, tmp_path)
    yield flask_app
    _shutdown(flask_app)


def _shutdown(flask_app) -> None:
    flask_app.extensions["orch.stop"]()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def any_client(any_app):
    return any_app.test_client()


@pytest.fixture(autouse=True)
def _in_process_metrics() -> Iterator[None]:
    """A test that runs the CLI's serving path in-process sets the multiprocess-metrics variable; later apps of
    this worker must still count in their own registries."""
    yield
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)


def wait_for(check, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.05)
    raise AssertionError("condition not met in time")
