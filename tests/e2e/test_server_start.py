"""The real process: start-up, TLS with client certificates, kubectl and the Python client, both backends."""

from __future__ import annotations

import json
import ssl
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from . import REPO_ROOT, RunningServer, free_port, server_env, stop_process, wait_ready

pytestmark = pytest.mark.e2e


def test_readyz_and_version(server: RunningServer) -> None:
    assert server.get("/readyz").status_code == 200
    version = server.get("/version")
    assert version.status_code == 200, version.text
    assert "gitVersion" in version.json()


def test_anonymous_client_without_certificate_connects(server: RunningServer) -> None:
    with server.new_session(cert=None) as anonymous:
        assert anonymous.get("/readyz").status_code == 200


def test_admin_kubeconfig_points_at_the_server(server: RunningServer) -> None:
    config = yaml.safe_load(server.kubeconfig.read_text())
    assert config["clusters"][0]["cluster"]["server"] == server.url
    assert config["current-context"] == config["contexts"][0]["name"]
    assert oct(server.kubeconfig.stat().st_mode & 0o777) == oct(0o600)
    assert oct((server.data_dir / "pki" / "ca.key").stat().st_mode & 0o777) == oct(0o600)


@pytest.mark.parametrize("which", ["unknown CA", "expired", "server usage"])
def test_a_client_certificate_that_does_not_verify_is_a_401(
    server: RunningServer, tmp_path: Path, which: str, kubectl: str
) -> None:
    """As the reference: the handshake asks for a certificate without requiring it to verify, and the request is
    refused with a Status saying Unauthorized (kubectl: "You must be logged in to the server")."""
    from datetime import timedelta

    from orch_apiserver import pki

    cluster_ca = pki.load_pair(server.ca_file, server.data_dir / "pki" / "ca.key")
    if which == "unknown CA":
        pair = pki.issue_client_cert(pki.create_ca("stranger-ca"), "admin", ["system:masters"])
    elif which == "expired":
        pair = pki.issue_client_cert(cluster_ca, "admin", ["system:masters"], lifetime=-pki.CLOCK_SKEW / 2)
    else:
        pair = pki.issue_serving_cert(cluster_ca, "admin", ["127.0.0.1"], lifetime=timedelta(days=1))
    pki.write_pair(pair, tmp_path / "m.crt", tmp_path / "m.key")
    session = server.new_session(cert=(str(tmp_path / "m.crt"), str(tmp_path / "m.key")))
    with session:
        refused = session.get("/api/v1/namespaces")
        assert refused.status_code == 401
        assert refused.json() == {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": "Unauthorized",
            "reason": "Unauthorized",
            "code": 401,
        }
        assert session.get("/version").status_code == 401  # not anonymous either: credentials were wrong
    with server.new_session(cert=None) as anonymous:
        assert anonymous.get("/version").status_code == 200  # no certificate at all: anonymous, as before
    pki.write_kubeconfig(
        str(tmp_path / "m.kubeconfig"), pki.kubeconfig(server.url, cluster_ca.cert_pem, pair, "orch", "mallory")
    )
    shown = subprocess.run(
        [kubectl, "--kubeconfig", str(tmp_path / "m.kubeconfig"), "get", "namespaces"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shown.returncode == 1
    assert "error: You must be logged in to the server" in shown.stderr, shown.stderr


def run(command: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run to completion from the repo root without ORCH_* leaking in; the caller checks the outcome."""
    return subprocess.run(
        command,
        check=False,
        cwd=REPO_ROOT,
        env=server_env(env),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_kubectl_talks_to_the_server(server: RunningServer, kubectl: str) -> None:
    readyz = run([kubectl, "--kubeconfig", str(server.kubeconfig), "get", "--raw", "/readyz"])
    assert readyz.returncode == 0, readyz.stderr
    assert readyz.stdout.strip() == "ok"
    version = run([kubectl, "--kubeconfig", str(server.kubeconfig), "version", "-o", "json"])
    assert version.returncode == 0, version.stderr
    assert "serverVersion" in json.loads(version.stdout)


def test_python_client_reads_version(kube_client: object) -> None:
    from kubernetes import client

    info = client.VersionApi(kube_client).get_code()
    assert info.git_version


def test_both_backends_serve(any_server: RunningServer) -> None:
    assert any_server.get("/readyz").status_code == 200
    assert any_server.get("/version").status_code == 200


def _run_cli(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "-m", "orch_apiserver.cli", *args], env)


def test_bad_flag_and_bad_env_exit_2(tmp_path: Path) -> None:
    bad_flag = _run_cli(["--data-dir", str(tmp_path), "--secure-port", "http"])
    assert bad_flag.returncode == 2
    assert "--secure-port" in bad_flag.stderr and "'http' is not an integer" in bad_flag.stderr
    bad_env = _run_cli(["--data-dir", str(tmp_path)], {"ORCH_HISTORY_WINDOW": "5 minutes"})
    assert bad_env.returncode == 2
    assert "ORCH_HISTORY_WINDOW" in bad_env.stderr
    unknown = _run_cli(["--no-such-flag"])
    assert unknown.returncode == 2 and "unrecognized arguments" in unknown.stderr


def test_outdated_postgresql_schema_exits_1(empty_pg_database: str, tmp_path: Path) -> None:
    # a fresh database: nothing has migrated it
    result = _run_cli(
        ["--data-dir", str(tmp_path), "--database-url", empty_pg_database, "--secure-port", str(free_port())]
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "flask db upgrade" in result.stderr


def test_flask_db_upgrade_then_gunicorn_config(tmp_path: Path) -> None:
    """The container path: `flask db upgrade`, then `gunicorn -c config/gunicorn.py wsgi:app`, ORCH_* only."""
    port = free_port()
    env = {"ORCH_DATA_DIR": str(tmp_path), "ORCH_SECURE_PORT": str(port), "ORCH_WORKERS": "1", "ORCH_THREADS": "4"}
    upgrade = run([sys.executable, "-m", "flask", "--app", "wsgi", "db", "upgrade"], env)
    assert upgrade.returncode == 0, upgrade.stdout + upgrade.stderr
    log_path = tmp_path / "gunicorn.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py", "wsgi:app"],
            cwd=REPO_ROOT,
            env=server_env(env),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    running = RunningServer(f"https://127.0.0.1:{port}", port, tmp_path, process, log_path)
    try:
        wait_ready(running)
        assert running.get("/version").status_code == 200
    finally:
        running.stop()


ECHO_SERVER = textwrap.dedent(
    """
    import json, os
    from orch_apiserver.server import ApiServer, gunicorn_options
    from orch_apiserver.config import settings_from_env

    def echo(environ, start_response):
        der = environ.get("orch.peer_cert_der")
        body = json.dumps({"der": der.hex() if der else None}).encode()
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]

    ApiServer(lambda: echo, gunicorn_options(settings_from_env(os.environ))).run()
    """
)


@pytest.fixture
def echo_server(tmp_path: Path) -> Iterator[RunningServer]:
    """The serving stack (ApiServer, ApiWorker, TLS bundle) around a WSGI app that echoes the peer cert."""
    from orch_apiserver import pki
    from orch_apiserver.config import settings_from_env
    from orch_apiserver.server import prepare

    extra_ca = pki.create_ca("extra-client-ca")
    pki.write_pair(extra_ca, tmp_path / "extra-ca.crt", tmp_path / "extra-ca.key")
    port = free_port()
    env = {
        "ORCH_DATA_DIR": str(tmp_path / "data"),
        "ORCH_SECURE_PORT": str(port),
        "ORCH_WORKERS": "1",
        "ORCH_THREADS": "4",
        "ORCH_CLIENT_CA_FILE": str(tmp_path / "extra-ca.crt"),
    }
    prepare(settings_from_env(env))
    log_path = tmp_path / "echo.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-c", ECHO_SERVER],
            cwd=REPO_ROOT,
            env=server_env(env),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    running = RunningServer(f"https://127.0.0.1:{port}", port, tmp_path / "data", process, log_path)
    try:
        wait_ready(running)
    except BaseException:
        stop_process(process)
        raise
    yield running
    running.stop()


def _der(pem_file: str) -> str:
    return ssl.PEM_cert_to_DER_cert(Path(pem_file).read_text()).hex()


def test_peer_certificate_reaches_the_wsgi_environ(echo_server: RunningServer, tmp_path: Path) -> None:
    from orch_apiserver import pki

    assert echo_server.get("/").json()["der"] == _der(echo_server.client_cert[0])
    assert echo_server.get("/again").json()["der"] == _der(echo_server.client_cert[0])  # kept-alive connection
    with echo_server.new_session(cert=None) as anonymous:
        assert anonymous.get("/").json()["der"] is None
    extra_ca = pki.load_pair(str(tmp_path / "extra-ca.crt"), str(tmp_path / "extra-ca.key"))
    bob = pki.issue_client_cert(extra_ca, "bob", ["dev"])
    pki.write_pair(bob, tmp_path / "bob.crt", tmp_path / "bob.key")
    with echo_server.new_session(cert=(str(tmp_path / "bob.crt"), str(tmp_path / "bob.key"))) as session:
        assert session.get("/").json()["der"] == _der(str(tmp_path / "bob.crt"))


def test_kubectl_client_certificate_reaches_the_wsgi_environ(echo_server: RunningServer, kubectl: str) -> None:
    result = run([kubectl, "--kubeconfig", str(echo_server.kubeconfig), "get", "--raw", "/"])
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["der"] == _der(echo_server.client_cert[0])
