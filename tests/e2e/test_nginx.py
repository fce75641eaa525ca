"""The API server behind a real nginx, with the configurations in config/nginx/ as the README gives them: TLS
pass-through, a terminating proxy that forwards users with the --requestheader-* headers (set up in the README's
order on a fresh data directory: `pki init`, nginx's files, one start), and a terminating proxy left with nginx's
defaults (HTTP/1.0 to the upstream, response buffering on), through which watches still stream."""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from orch_apiserver import pki
from orch_apiserver.storage.schema import ensure_schema

from . import (
    REPO_ROOT,
    SHARED_SERVER_ARGS,
    ApiSession,
    RunningServer,
    free_port,
    poll,
    scratch_database,
    server_env,
    start_server,
    unavailable,
)

CONFIGS = REPO_ROOT / "config" / "nginx"
STREAM_MODULE = Path("/usr/lib/nginx/modules/ngx_stream_module.so")


@pytest.fixture(scope="module")
def nginx_binary() -> str:
    path = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")
    if path is None or not STREAM_MODULE.exists():
        unavailable("nginx is not installed: `apt-get install nginx libnginx-mod-stream` (.ci/run installs them)")
    return path


@dataclass
class Proxied:
    server: RunningServer
    tmp: Path
    front_proxy: tuple[str, str]
    serving_serial: int  # of the certificate `pki init` issued


def orch_apiserver(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "orch_apiserver.cli", *args],
        cwd=REPO_ROOT,
        env=server_env(env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def proxied(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, nginx_binary: str
) -> Iterator[Proxied]:
    """README.md's "Deployment behind a reverse proxy" in its order, on a fresh data directory: the database
    migrated, `pki init` with the names the proxy needs, nginx's files copied from it, then one start."""
    tmp = tmp_path_factory.mktemp(f"nginx-{request.param}")
    data = tmp / "data"
    # step 2's variables (the test binds loopback only); the server's own port is free_port()'s
    names = {"ORCH_TLS_SAN": "orch.example.com", "ORCH_EXTERNAL_HOSTNAME": "orch.example.com:443"}
    with contextlib.ExitStack() as stack:
        url = None
        if request.param == "postgresql":
            url = stack.enter_context(scratch_database())
            ensure_schema(url, upgrade=True)  # step 1, what `flask db upgrade` does
        done = orch_apiserver("pki", "init", "--data-dir", str(data), env=names)
        assert done.returncode == 0, done.stderr
        for source, target in {
            "ca.crt": "cluster-ca.crt",
            "front-proxy-client.crt": "front-proxy-client.crt",
            "front-proxy-client.key": "front-proxy-client.key",
            "serving.crt": "proxy.crt",
            "serving.key": "proxy.key",
        }.items():
            shutil.copy(data / "pki" / source, tmp / target)
        serial = pki.load_certificates(str(data / "pki" / "serving.crt"))[0].serial_number
        server = start_server(
            data,
            [
                *SHARED_SERVER_ARGS,
                "--requestheader-client-ca-file",
                str(data / "pki" / "front-proxy-ca.crt"),
                "--requestheader-allowed-names",
                "front-proxy-client",
                "--requestheader-username-headers",
                "X-Remote-User",
                "--requestheader-group-headers",
                "X-Remote-Group",
            ],
            env=names,
            database_url=url,
        )
        stack.callback(server.stop)
        assert "clients are given https://orch.example.com:443" in server.log()
        cluster_ca = pki.load_pair(server.ca_file, data / "pki" / "ca.key")
        pki.write_pair(pki.issue_client_cert(cluster_ca, "jane", ["developers"]), tmp / "jane.crt", tmp / "jane.key")
        yield Proxied(server, tmp, (str(tmp / "front-proxy-client.crt"), str(tmp / "front-proxy-client.key")), serial)


def configured(name: str, proxied: Proxied, port: int, drop: tuple[str, ...] = ()) -> str:
    """The shipped configuration, pointed at this test's server, files and port (each replaced value must be in
    it: the test fails when the shipped file changes under it)."""
    text = (CONFIGS / name).read_text()
    upstream = f"127.0.0.1:{proxied.server.port}"
    replacements = {
        "10.0.0.11:6443": upstream,
        "10.0.0.12:6443": upstream,
        "/etc/nginx/orch/": f"{proxied.tmp}/",
        "listen 6443;": f"listen 127.0.0.1:{port};",
        "listen 443 ssl;": f"listen 127.0.0.1:{port} ssl;",
    }
    for old, new in replacements.items():
        if old in text:
            text = text.replace(old, new)
        else:
            assert old.startswith(("listen", "/etc/nginx")), f"{old} is no longer in {name}"
    for line in drop:
        assert line in text, f"{line} is no longer in {name}"
        text = text.replace(line, "")
    return text


@pytest.fixture
def run_nginx(nginx_binary: str, tmp_path: Path) -> Iterator:
    processes: list[subprocess.Popen[bytes]] = []

    def run(main: str) -> str:
        port = free_port()
        (tmp_path / "nginx.conf").write_text(
            f"load_module {STREAM_MODULE};\nerror_log {tmp_path}/error.log;\npid {tmp_path}/nginx.pid;\n"
            f"user root;\nevents {{}}\n" + main.format(port=port)
        )
        processes.append(
            subprocess.Popen(
                [
                    nginx_binary,
                    "-p",
                    str(tmp_path),
                    "-c",
                    str(tmp_path / "nginx.conf"),
                    "-e",
                    str(tmp_path / "error.log"),
                    "-g",
                    "daemon off;",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.STDOUT,
            )
        )

        def listening() -> bool:
            assert processes[-1].poll() is None, (tmp_path / "error.log").read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=2).close()
            except OSError:
                return False
            return True

        poll(listening, timeout=15)
        return f"https://127.0.0.1:{port}"

    yield run
    for process in processes:
        process.terminate()
        process.wait(10)


def http_block(name: str, proxied: Proxied, drop: tuple[str, ...] = ()) -> str:
    return (
        "http {{\n"
        + configured(name, proxied, 0, drop)
        .replace("{", "{{")
        .replace("}", "}}")
        .replace("127.0.0.1:0 ssl", "127.0.0.1:{port} ssl")
        + "\n}}\n"
    )


def stream_block(proxied: Proxied) -> str:
    return (
        configured("orch-passthrough.conf", proxied, 0)
        .replace("{", "{{")
        .replace("}", "}}")
        .replace("127.0.0.1:0;", "127.0.0.1:{port};")
    )


def session(proxied: Proxied, url: str, cert: tuple[str, str] | None, **headers: str) -> ApiSession:
    http = ApiSession(url, str(proxied.server.ca_file), cert)
    http.headers.update(headers)
    return http


def watch_sees_a_live_event(http: ApiSession) -> None:
    """A configmaps watch opened through the proxy delivers an event written after it opened, as clean JSON lines."""
    name = f"live-{uuid.uuid4().hex[:6]}"
    lines: list[bytes] = []
    with http.get("/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=20", stream=True, timeout=30) as answer:
        assert answer.status_code == 200

        def read() -> None:
            for line in answer.iter_lines():
                if line:
                    lines.append(line)
                if name.encode() in line:
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        created = http.post(
            "/api/v1/namespaces/default/configmaps",
            json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}},
        )
        assert created.status_code == 201
        reader.join(10)  # far less than the watch's 20 s: the event came live, not with the end of the body
        assert any(name.encode() in line for line in lines), f"no live event through the proxy; got {lines}"
    events = [json.loads(line) for line in lines]  # no chunk-size lines or CRLFs inside the stream
    assert events[-1]["type"] == "ADDED" and events[-1]["object"]["metadata"]["name"] == name


def kubectl_reads_through(kubectl: str, proxied: Proxied, url: str) -> None:
    shown = subprocess.run(
        [
            kubectl,
            "--kubeconfig",
            str(proxied.server.kubeconfig),
            "--server",
            url,
            "get",
            "namespace",
            "default",
            "-o",
            "name",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0 and shown.stdout.strip() == "namespace/default", shown.stderr


def test_tls_pass_through_keeps_client_certificates_and_watches(proxied, run_nginx, kubectl):
    url = run_nginx(stream_block(proxied))
    admin = session(proxied, url, proxied.server.client_cert)
    assert admin.get("/api/v1/namespaces/default").status_code == 200
    jane = session(proxied, url, (str(proxied.tmp / "jane.crt"), str(proxied.tmp / "jane.key")))
    refused = jane.get("/api/v1/namespaces")
    assert refused.status_code == 403 and 'User "jane" cannot list resource "namespaces"' in refused.json()["message"]
    watch_sees_a_live_event(admin)
    kubectl_reads_through(kubectl, proxied, url)


def test_a_terminating_proxy_forwards_users_as_request_headers(proxied, run_nginx, kubectl):
    # the server started on what `pki init` prepared: nothing was reissued, nothing needed a second start
    assert pki.load_certificates(str(proxied.server.data_dir / "pki" / "serving.crt"))[0].serial_number == (
        proxied.serving_serial
    )
    url = run_nginx(http_block("orch-terminating.conf", proxied))
    admin = session(proxied, url, proxied.server.client_cert)
    assert admin.get("/api/v1/namespaces/default").status_code == 200
    jane = session(proxied, url, (str(proxied.tmp / "jane.crt"), str(proxied.tmp / "jane.key")))
    refused = jane.get("/api/v1/namespaces")
    assert refused.status_code == 403 and 'User "jane" cannot list resource "namespaces"' in refused.json()["message"]
    forger = session(proxied, url, None, **{"X-Remote-User": "admin", "X-Remote-Group": "system:masters"})
    assert forger.get("/api/v1/namespaces").status_code in (401, 403)
    watch_sees_a_live_event(admin)
    kubectl_reads_through(kubectl, proxied, url)


def test_watches_stream_through_a_proxy_left_at_nginx_defaults(proxied, run_nginx):
    """proxy_http_version 1.0 and proxy_buffering on, nginx's defaults: the watch body is unframed and each
    event passes as it comes (the server answers X-Accel-Buffering: no)."""
    url = run_nginx(
        http_block(
            "orch-terminating.conf",
            proxied,
            drop=("proxy_http_version 1.1;", 'proxy_set_header Connection "";', "proxy_buffering off;"),
        )
    )
    watch_sees_a_live_event(session(proxied, url, proxied.server.client_cert))
