"""Exec credential plugins: run the configured command, pass ORCH_EXEC_INFO, read an ExecCredential, cache it."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import threading
from datetime import UTC, datetime
from typing import Any

from .config import NAMING, ClientConfig, ConfigError, ExecConfig
from .credentials import Credentials

EXEC_GROUP = NAMING.group("client.authentication")  # client.authentication.orch.io
SUPPORTED_VERSIONS = (f"{EXEC_GROUP}/v1", f"{EXEC_GROUP}/v1beta1")
EXEC_INFO_ENV_VAR = NAMING.env_var("EXEC_INFO")  # ORCH_EXEC_INFO
INTERACTIVE_MODES = ("Never", "IfAvailable", "Always")
#: how long a plugin may take (it may prompt the user when interactive)
PLUGIN_TIMEOUT = 300.0


class ExecPluginError(ConfigError):
    """The credential plugin could not be run or returned something unusable; `stderr` holds its error output."""

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr


def stdin_is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):  # closed or detached stdin
        return False


def interactive_mode(exec_config: ExecConfig) -> str:
    mode = exec_config.interactive_mode
    if not mode:
        if exec_config.api_version.endswith("/v1"):
            raise ExecPluginError(
                f"exec plugin config for {exec_config.api_version} must set interactiveMode "
                f"({', '.join(INTERACTIVE_MODES)})"
            )
        return "IfAvailable"
    if mode not in INTERACTIVE_MODES:
        raise ExecPluginError(f"exec plugin interactiveMode {mode!r} is invalid; one of {', '.join(INTERACTIVE_MODES)}")
    return mode


def resolve_command(exec_config: ExecConfig, path_env: str | None) -> str | None:
    """A command with a path separator is relative to the config's directory; a bare name is looked up in PATH."""
    command = os.path.expanduser(exec_config.command)
    if os.sep in command or (os.altsep and os.altsep in command):
        if not os.path.isabs(command):
            command = os.path.join(exec_config.base_dir, command)
        return command if os.path.isfile(command) and os.access(command, os.X_OK) else None
    return shutil.which(command, path=path_env)


def cluster_info(config: ClientConfig) -> dict[str, Any]:
    """spec.cluster for provideClusterInfo (client-go omits empty fields)."""
    cluster: dict[str, Any] = {"server": config.server}
    if config.tls_server_name:
        cluster["tls-server-name"] = config.tls_server_name
    if config.insecure_skip_tls_verify:
        cluster["insecure-skip-tls-verify"] = True
    if config.ca_data:
        cluster["certificate-authority-data"] = base64.b64encode(config.ca_data).decode()
    if config.proxy_url:
        cluster["proxy-url"] = config.proxy_url
    if config.cluster_extension is not None:
        cluster["config"] = config.cluster_extension
    return cluster


def parse_timestamp(value: str) -> datetime:
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    parsed = datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def parse_credential(output: str, api_version: str) -> Credentials:
    try:
        document = json.loads(output)
    except ValueError as err:
        raise ExecPluginError(f"exec plugin output is not a JSON ExecCredential: {err}") from None
    if not isinstance(document, dict):
        raise ExecPluginError("exec plugin output is not a JSON object")
    returned = document.get("apiVersion")
    if returned != api_version:
        raise ExecPluginError(
            f"exec plugin is configured to use API version {api_version}, plugin returned version {returned}"
        )
    if document.get("kind") != "ExecCredential":
        raise ExecPluginError(f"exec plugin returned kind {document.get('kind')!r}, expected ExecCredential")
    status = document.get("status")
    if not isinstance(status, dict):
        raise ExecPluginError("exec plugin didn't return a status field")
    token = status.get("token") or None
    cert, key = status.get("clientCertificateData") or None, status.get("clientKeyData") or None
    if bool(cert) != bool(key):
        raise ExecPluginError(
            "exec plugin returned only one of clientCertificateData and clientKeyData; they must come together"
        )
    if not token and not cert:
        raise ExecPluginError("exec plugin didn't return a token or cert/key pair")
    expires = None
    if status.get("expirationTimestamp"):
        try:
            expires = parse_timestamp(str(status["expirationTimestamp"]))
        except ValueError:
            raise ExecPluginError(
                f"exec plugin returned an invalid expirationTimestamp {status['expirationTimestamp']!r}"
            ) from None
    return Credentials(
        token=token, cert_pem=cert.encode() if cert else None, key_pem=key.encode() if key else None, expires=expires
    )


def run_plugin(config: ClientConfig) -> Credentials:
    exec_config = config.exec
    assert exec_config is not None
    if exec_config.api_version not in SUPPORTED_VERSIONS:
        raise ExecPluginError(
            f"exec plugin apiVersion {exec_config.api_version!r} is not supported; "
            f"one of {', '.join(SUPPORTED_VERSIONS)}"
        )
    mode = interactive_mode(exec_config)
    terminal = stdin_is_terminal()
    if mode == "Always" and not terminal:
        raise ExecPluginError(
            f"exec plugin {exec_config.command} has interactiveMode Always but stdin is not a "
            "terminal; the plugin was not run"
        )
    interactive = terminal and mode != "Never"
    env = {**os.environ, **exec_config.env}
    spec: dict[str, Any] = {"interactive": interactive}
    if exec_config.provide_cluster_info:
        spec["cluster"] = cluster_info(config)
    env[EXEC_INFO_ENV_VAR] = json.dumps({"apiVersion": exec_config.api_version, "kind": "ExecCredential", "spec": spec})
    executable = resolve_command(exec_config, env.get("PATH"))
    if executable is None:
        message = f"exec plugin: executable {exec_config.command} not found"
        if exec_config.install_hint:
            message += "\n\n" + exec_config.install_hint
        raise ExecPluginError(message)
    try:
        result = subprocess.run(
            [executable, *exec_config.args],
            env=env,
            stdin=None if interactive else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=None if interactive else subprocess.PIPE,
            timeout=PLUGIN_TIMEOUT,
            check=False,
        )
    except OSError as err:
        hint = f"\n\n{exec_config.install_hint}" if exec_config.install_hint else ""
        raise ExecPluginError(f"exec plugin {exec_config.command} could not be run: {err}{hint}") from None
    except subprocess.TimeoutExpired:
        raise ExecPluginError(f"exec plugin {exec_config.command} did not finish in {PLUGIN_TIMEOUT:.0f}s") from None
    stderr = (result.stderr or b"").decode("utf-8", "replace")
    if result.returncode != 0:
        detail = f": {stderr.strip()}" if stderr.strip() else ""
        raise ExecPluginError(
            f"exec plugin {exec_config.command} failed with exit code {result.returncode}{detail}", stderr
        )
    if stderr:
        sys.stderr.write(stderr)  # the plugin's messages to the user, shown as client-go does
    return parse_credential(result.stdout.decode("utf-8", "replace"), exec_config.api_version)


class ExecCredentials:
    """Plugin credentials cached until their expirationTimestamp, a 401 from the server, or process exit."""

    def __init__(self, config: ClientConfig) -> None:
        self._config = config
        self._lock = threading.Lock()
        self._cached: Credentials | None = None

    def get(self) -> Credentials:
        with self._lock:
            cached = self._cached
            if cached is None or (cached.expires is not None and datetime.now(UTC) >= cached.expires):
                cached = self._cached = run_plugin(self._config)
            if cached.tls_pair is None and self._config.client_cert_data:
                # a token from the plugin still goes with the config's own client certificate, if any
                cached = Credentials(
                    cached.token, self._config.client_cert_data, self._config.client_key_data, cached.expires
                )
            return cached

    def invalidate(self, used: Credentials) -> bool:
        """A 401: forget the credentials that were used (unless already replaced) and retry once."""
        with self._lock:
            if self._cached is not None and (
                self._cached.token == used.token and self._cached.cert_pem in (used.cert_pem, None)
            ):
                self._cached = None
        return True
