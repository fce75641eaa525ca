"""Exec credential plugins: real executables against a real server with a token file."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from orch_apiserver import pki
from orch_apiserver.client import ApiError, Client, ExecPluginError, load_config

from tests.e2e import REPO_ROOT, RunningServer, server_env

from .helpers import EXEC_V1, EXEC_V1BETA1, NAMING, Plugin, ca_data, credential, write_config

pytestmark = pytest.mark.e2e

WHOAMI = f"/apis/{NAMING.group('authentication')}/v1/selfsubjectreviews"
EXEC_EXTENSION = NAMING.group("client.authentication") + "/exec"


def whoami(client: Client) -> str:
    return client.create(WHOAMI, {"apiVersion": f"{NAMING.group('authentication')}/v1", "kind": "SelfSubjectReview"})[
        "status"
    ]["userInfo"]["username"]


def client_for(
    server: RunningServer, tmp_path: Path, plugin: Plugin, cluster: dict | None = None, **exec_fields: object
) -> Client:
    section = plugin.exec_section(**exec_fields)  # type: ignore[arg-type]
    path = write_config(
        tmp_path / "config",
        server.url,
        cluster={"certificate-authority-data": ca_data(server.ca_file), **(cluster or {})},
        user={"exec": section},
    )
    return Client(load_config(str(path)))


def stamp(delta: timedelta) -> str:
    return (datetime.now(UTC) + delta).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_token_without_expiry_is_cached_for_the_process(api_server: RunningServer, tmp_path: Path) -> None:
    plugin = Plugin(tmp_path / "p", [credential(token="alice-token")])
    client = client_for(api_server, tmp_path, plugin)
    assert [whoami(client) for _ in range(3)] == ["alice"] * 3
    assert len(plugin.runs) == 1
    info = plugin.runs[0]
    assert info["apiVersion"] == EXEC_V1 and info["kind"] == "ExecCredential"
    assert info["spec"]["interactive"] is False  # stdin is not a terminal under pytest
    assert "cluster" not in info["spec"]


def test_an_expired_credential_runs_the_plugin_again(api_server: RunningServer, tmp_path: Path) -> None:
    plugin = Plugin(tmp_path / "p", [credential(token="alice-token", expirationTimestamp=stamp(-timedelta(hours=1)))])
    client = client_for(api_server, tmp_path, plugin)
    assert [whoami(client), whoami(client)] == ["alice", "alice"]
    assert len(plugin.runs) == 2


def test_a_credential_is_cached_until_its_expiry(api_server: RunningServer, tmp_path: Path) -> None:
    plugin = Plugin(tmp_path / "p", [credential(token="alice-token", expirationTimestamp=stamp(timedelta(hours=1)))])
    client = client_for(api_server, tmp_path, plugin)
    assert [whoami(client), whoami(client)] == ["alice", "alice"]
    assert len(plugin.runs) == 1


def test_a_401_voids_the_cache_and_retries_once_with_fresh_credentials(
    api_server: RunningServer, tmp_path: Path
) -> None:
    plugin = Plugin(tmp_path / "p", [credential(token="revoked-token"), credential(token="bob-token")])
    client = client_for(api_server, tmp_path, plugin)
    assert whoami(client) == "bob"
    assert whoami(client) == "bob"
    assert len(plugin.runs) == 2


def test_a_second_401_is_returned_to_the_caller(api_server: RunningServer, tmp_path: Path) -> None:
    plugin = Plugin(tmp_path / "p", [credential(token="revoked-token")])
    client = client_for(api_server, tmp_path, plugin)
    with pytest.raises(ApiError) as raised:
        client.get("/api/v1/namespaces")
    assert raised.value.status == 401 and raised.value.reason == "Unauthorized"
    assert len(plugin.runs) == 2  # the first run, and exactly one retry


def test_the_output_version_must_match_the_configured_one(api_server: RunningServer, tmp_path: Path) -> None:
    plugin = Plugin(tmp_path / "p", [credential(EXEC_V1BETA1, token="alice-token")])
    client = client_for(api_server, tmp_path, plugin)
    with pytest.raises(ExecPluginError, match=f"configured to use API version {EXEC_V1}.*returned.*{EXEC_V1BETA1}"):
        client.get("/api/v1/namespaces")


def test_v1beta1_plugins_default_to_if_available(api_server: RunningServer, tmp_path: Path) -> None:
    plugin = Plugin(tmp_path / "p", [credential(EXEC_V1BETA1, token="alice-token")])
    client = client_for(api_server, tmp_path, plugin, api_version=EXEC_V1BETA1)
    assert whoami(client) == "alice"
    assert plugin.runs[0]["apiVersion"] == EXEC_V1BETA1 and plugin.runs[0]["spec"]["interactive"] is False


def test_a_missing_executable_shows_the_install_hint(api_server: RunningServer, tmp_path: Path) -> None:
    plugin = Plugin(tmp_path / "p", [credential(token="alice-token")])
    for command in ("./no-such-plugin", "no-such-plugin-on-path"):
        client = client_for(
            api_server, tmp_path, plugin, command=command, installHint="install it with: pip install no-such-plugin"
        )
        with pytest.raises(ExecPluginError) as raised:
            client.get("/api/v1/namespaces")
        assert "not found" in str(raised.value) and "pip install no-such-plugin" in str(raised.value)


def test_a_relative_command_resolves_against_the_config_directory(api_server: RunningServer, tmp_path: Path) -> None:
    plugin = Plugin(tmp_path / "plugins", [credential(token="alice-token")])
    client = client_for(api_server, tmp_path, plugin, command="./plugins/plugin.py")  # config is in tmp_path
    assert whoami(client) == "alice"


def test_interactive_always_without_a_terminal_does_not_run_the_plugin(
    api_server: RunningServer, tmp_path: Path
) -> None:
    plugin = Plugin(tmp_path / "p", [credential(token="alice-token")])
    client = client_for(api_server, tmp_path, plugin, interactiveMode="Always")
    with pytest.raises(ExecPluginError, match="not a terminal"):
        client.get("/api/v1/namespaces")
    assert plugin.runs == []


def test_interactive_never_runs_without_stdin(api_server: RunningServer, tmp_path: Path) -> None:
    plugin = Plugin(tmp_path / "p", [credential(token="alice-token")])
    client = client_for(api_server, tmp_path, plugin, interactiveMode="Never")
    assert whoami(client) == "alice"
    assert plugin.runs[0]["spec"]["interactive"] is False


def test_v1_requires_an_interactive_mode(api_server: RunningServer, tmp_path: Path) -> None:
    plugin = Plugin(tmp_path / "p", [credential(token="alice-token")])
    client = client_for(api_server, tmp_path, plugin, interactiveMode=None)
    with pytest.raises(ExecPluginError, match="interactiveMode"):
        client.get("/api/v1/namespaces")
    assert plugin.runs == []


def test_provide_cluster_info_passes_the_cluster_and_its_exec_extension(
    api_server: RunningServer, tmp_path: Path
) -> None:
    plugin = Plugin(tmp_path / "p", [credential(token="alice-token")])
    extension = {"audience": "orch-test", "region": ["a", "b"]}
    client = client_for(
        api_server,
        tmp_path,
        plugin,
        provideClusterInfo=True,
        cluster={"extensions": [{"name": EXEC_EXTENSION, "extension": extension}]},
    )
    assert whoami(client) == "alice"
    cluster = plugin.runs[0]["spec"]["cluster"]
    assert cluster["server"] == api_server.url
    assert cluster["certificate-authority-data"] == ca_data(api_server.ca_file)
    assert cluster["config"] == extension


def test_a_failing_plugin_reports_its_stderr(api_server: RunningServer, tmp_path: Path) -> None:
    plugin = Plugin(tmp_path / "p", [{"exit": 3, "stderr": "login expired, run sso-login"}])
    client = client_for(api_server, tmp_path, plugin)
    with pytest.raises(ExecPluginError) as raised:
        client.get("/api/v1/namespaces")
    assert "exit code 3" in str(raised.value) and "sso-login" in raised.value.stderr


def _client_cert(server: RunningServer, user: str) -> dict[str, str]:
    ca = pki.load_pair(server.data_dir / "pki" / "ca.crt", server.data_dir / "pki" / "ca.key")
    pair = pki.issue_client_cert(ca, user)
    return {"clientCertificateData": pair.cert_pem.decode(), "clientKeyData": pair.key_pem.decode()}


def test_certificate_credentials_and_a_changed_pair_uses_new_connections(
    api_server: RunningServer, tmp_path: Path
) -> None:
    expired = stamp(-timedelta(minutes=1))
    plugin = Plugin(
        tmp_path / "p",
        [
            credential(**_client_cert(api_server, "carol"), expirationTimestamp=expired),
            credential(**_client_cert(api_server, "dave")),
        ],
    )
    client = client_for(api_server, tmp_path, plugin)
    assert whoami(client) == "carol"
    # the expired pair is replaced: a reused TLS connection would still authenticate as carol
    assert whoami(client) == "dave"
    assert whoami(client) == "dave"
    assert len(plugin.runs) == 2


def test_a_certificate_without_its_key_is_an_error(api_server: RunningServer, tmp_path: Path) -> None:
    pair = _client_cert(api_server, "carol")
    plugin = Plugin(tmp_path / "p", [credential(clientCertificateData=pair["clientCertificateData"])])
    client = client_for(api_server, tmp_path, plugin)
    with pytest.raises(ExecPluginError, match="must come together"):
        client.get("/api/v1/namespaces")


def test_with_a_terminal_on_stdin_the_plugin_is_interactive(api_server: RunningServer, tmp_path: Path) -> None:
    """A separate process whose stdin is a pseudo-terminal: Always runs the plugin, spec.interactive is true."""
    plugin = Plugin(tmp_path / "p", [credential(token="alice-token")])
    client_for(api_server, tmp_path, plugin, interactiveMode="Always")  # writes tmp_path/config
    script = (
        "import sys; from orch_apiserver.client import Client, load_config; "
        "from tests.client.test_exec_plugins import whoami; "
        f"print(whoami(Client(load_config({str(tmp_path / 'config')!r}))))"
    )
    controller, terminal = os.openpty()
    try:
        result = subprocess.run(
            [sys.executable, "-c", script],
            stdin=terminal,
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,
            env=server_env(),
            timeout=120,
            check=False,
        )
    finally:
        os.close(terminal)
        os.close(controller)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "alice"
    assert plugin.runs[0]["spec"]["interactive"] is True
