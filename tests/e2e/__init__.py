"""Harness for end-to-end tests: run the real orch-apiserver in a subprocess and talk to it over TLS."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import pytest
import requests

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_TEST_DATABASE_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
START_TIMEOUT = 90.0  # seconds; a cold start generates keys, migrates and boots gunicorn workers
LOG_TAIL = 8000


#: the shared servers host many tests that count what they put into fresh namespaces: no root-CA ConfigMap
#: appears in them (tests/e2e/test_garbage_collection.py checks the publisher on its own server)
SHARED_SERVER_ARGS = ["--controllers", "*,-rootcacertpublisher"]


def poll(check: Callable[[], Any], timeout: float = 30.0, interval: float = 0.05) -> Any:
    """Call `check` until it returns something true (returned), failing the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not (value := check()):
        assert time.monotonic() < deadline, f"condition not reached in {timeout:.0f} s"
        time.sleep(interval)
    return value


def closed_by_server(sock: socket.socket) -> bool:
    """The peer has closed `sock` (reads EOF or an error); False while it is open and quiet."""
    try:
        sock.setblocking(False)
        return sock.recv(1) == b""
    except (BlockingIOError, ssl.SSLWantReadError):
        return False
    except (OSError, ssl.SSLError):
        return True


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def unavailable(reason: str) -> NoReturn:
    """Missing tool or service: skip with a how-to locally, fail under CI (a skip there would hide it)."""
    if in_ci():
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


class ApiSession(requests.Session):
    """A requests.Session with the admin client certificate that takes paths relative to the server URL."""

    def __init__(self, base_url: str, ca_file: str, cert: tuple[str, str] | None) -> None:
        super().__init__()
        self.base_url = base_url
        self.verify = ca_file
        self.cert = cert

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        if isinstance(url, str) and url.startswith("/"):
            url = self.base_url + url
        kwargs.setdefault("timeout", 30)
        kwargs.setdefault("verify", self.verify)  # else REQUESTS_CA_BUNDLE from the environment would win
        return super().request(method, url, *args, **kwargs)


@dataclass
class RunningServer:
    url: str
    port: int
    data_dir: Path
    process: subprocess.Popen[bytes]
    log_path: Path
    database_url: str | None = None
    _session: ApiSession | None = field(default=None, repr=False)

    @property
    def kubeconfig(self) -> Path:
        return self.data_dir / "admin.kubeconfig"

    @property
    def ca_file(self) -> Path:
        return self.data_dir / "pki" / "ca.crt"

    @property
    def client_cert(self) -> tuple[str, str]:
        return str(self.data_dir / "pki" / "admin.crt"), str(self.data_dir / "pki" / "admin.key")

    @property
    def session(self) -> ApiSession:
        if self._session is None:
            self._session = self.new_session()
        return self._session

    def new_session(self, cert: tuple[str, str] | bool | None = True) -> ApiSession:
        """A fresh session: the admin certificate by default, `cert=None` for an anonymous one."""
        return ApiSession(self.url, str(self.ca_file), self.client_cert if cert is True else cert or None)

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.session.get(path, **kwargs)

    def metric(self, name: str, **labels: str) -> float:
        """The sum of /metrics samples named `name` whose labels include `labels`."""
        from prometheus_client.parser import text_string_to_metric_families

        return sum(
            sample.value
            for family in text_string_to_metric_families(self.get("/metrics").text)
            for sample in family.samples
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items())
        )

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        if self._session is not None:
            self._session.close()
        stop_process(self.process)


def child_pids(parent: int) -> set[int]:
    """The process ids whose parent is `parent` (a server's gunicorn workers), from /proc."""
    children = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == parent:
            children.add(int(stat.parent.name))
    return children


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without ORCH_* settings (they would leak into the server), plus extra."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORCH_")}
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


def stop_process(process: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # its own session: the master and the workers it forked
        process.wait(timeout=timeout)


def wait_ready(server: RunningServer, timeout: float = START_TIMEOUT) -> None:
    """Poll /readyz with the admin certificate until 200; raise with the server log otherwise."""
    deadline = time.monotonic() + timeout
    last = "no answer yet"
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"orch-apiserver exited with {server.process.returncode}:\n{server.log()[-LOG_TAIL:]}")
        if Path(server.client_cert[0]).exists() and server.ca_file.exists():
            try:
                response = requests.get(
                    server.url + "/readyz", verify=str(server.ca_file), cert=server.client_cert, timeout=5
                )
                if response.status_code == 200:
                    return
                last = f"HTTP {response.status_code}: {response.text[:500]}"
            except requests.RequestException as err:
                last = repr(err)
        time.sleep(0.1)
    stop_process(server.process)
    raise RuntimeError(f"orch-apiserver not ready after {timeout:.0f}s ({last}):\n{server.log()[-LOG_TAIL:]}")


def start_server(
    data_dir: Path,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    database_url: str | None = None,
    program: Sequence[str] = (sys.executable, "-m", "orch_apiserver.cli"),
    cwd: Path = REPO_ROOT,
) -> RunningServer:
    """Start `python -m orch_apiserver.cli` (or `program`) on a free port and wait until ready; retries when the port
    was taken."""
    data_dir.mkdir(parents=True, exist_ok=True)
    for attempt in range(3):
        port = free_port()
        log_path = data_dir / f"server-{port}.log"
        command = [
            *program,
            "--data-dir",
            str(data_dir),
            "--secure-port",
            str(port),
            "--workers",
            "1",
            "--threads",
            "16",
            *(["--database-url", database_url] if database_url else []),
            *args,
        ]
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                command,
                cwd=cwd,
                env=server_env(env),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        server = RunningServer(f"https://127.0.0.1:{port}", port, data_dir, process, log_path, database_url)
        try:
            wait_ready(server)
        except RuntimeError:
            if attempt < 2 and "in use" in server.log():
                continue
            raise
        return server
    raise AssertionError("unreachable")


@contextlib.contextmanager
def server_on(store: str, data_dir: Path, args: Sequence[str] = ()) -> Iterator[RunningServer]:
    """A server with `args` on `store` ("sqlite", or "postgresql": a migrated scratch database), stopped on exit."""
    if store == "sqlite":
        running = start_server(data_dir, list(args))
        try:
            yield running
        finally:
            running.stop()
        return
    from orch_apiserver.storage.schema import ensure_schema

    with scratch_database() as url:
        ensure_schema(url, upgrade=True)
        running = start_server(data_dir, list(args), database_url=url)
        try:
            yield running
        finally:
            running.stop()


def scratch_database_base_url() -> str:
    """Where scratch databases are created: ORCH_TEST_DATABASE_URL (.ci/run exports it) or the local default."""
    return os.environ.get("ORCH_TEST_DATABASE_URL") or DEFAULT_TEST_DATABASE_URL


def psycopg_dsn(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@contextlib.contextmanager
def scratch_database() -> Iterator[str]:
    """A new empty database `orch_e2e_<random>` beside ORCH_TEST_DATABASE_URL, dropped on exit (none: skip/fail)."""
    import psycopg
    from sqlalchemy.engine import make_url

    base = scratch_database_base_url()
    try:
        admin = psycopg.connect(psycopg_dsn(base), autocommit=True, connect_timeout=5)
    except psycopg.Error as err:
        unavailable(
            f"PostgreSQL is not reachable at {make_url(base).render_as_string(hide_password=True)} "
            f"({err.__class__.__name__}: {str(err).strip()[:200]}); start it "
            "(pg_ctlcluster --skip-systemctl-redirect 15 main start) or set ORCH_TEST_DATABASE_URL"
        )
    name = f"orch_e2e_{uuid.uuid4().hex[:12]}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(base).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(psycopg_dsn(base), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
