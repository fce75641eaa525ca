"""Client config files (kubeconfig format): clusters, users, contexts, the env-var list merge, file/data paths."""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..naming import DEFAULT_API_DOMAIN, Naming

NAMING = Naming(DEFAULT_API_DOMAIN)
CONFIG_ENV_VAR = NAMING.env_var("CONFIG")  # ORCH_CONFIG
DEFAULT_CONFIG_PATH = f"~/.{NAMING.short}/config"  # ~/.orch/config
#: the reserved per-cluster extension an exec plugin receives as spec.cluster.config
EXEC_EXTENSION_NAME = NAMING.group("client.authentication") + "/exec"


class ConfigError(Exception):
    """The client config is missing, unreadable or inconsistent."""


@dataclass
class ExecConfig:
    command: str
    api_version: str
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    install_hint: str = ""
    provide_cluster_info: bool = False
    interactive_mode: str = ""  # "" when unset (v1beta1 defaults to IfAvailable; v1 requires it)
    base_dir: str = "."  # the directory of the file that defined it: relative commands resolve here


@dataclass
class ClientConfig:
    server: str
    namespace: str = "default"
    context: str = ""
    path: str = ""
    cluster_name: str = ""
    user_name: str = ""
    ca_data: bytes | None = None  # PEM; from certificate-authority-data or the certificate-authority file
    ca_file: str | None = None
    insecure_skip_tls_verify: bool = False
    tls_server_name: str | None = None
    proxy_url: str | None = None
    client_cert_data: bytes | None = None
    client_key_data: bytes | None = None
    client_cert_file: str | None = None
    client_key_file: str | None = None
    token: str | None = None
    token_file: str | None = None
    exec: ExecConfig | None = None
    cluster_extension: Any = None  # the exec extension of the cluster, passed to plugins as spec.cluster.config
    raw: dict = field(default_factory=dict, repr=False)  # the merged config document

    @classmethod
    def for_server(
        cls, server: str, *, ca_data: bytes | None = None, insecure: bool = False, token: str | None = None
    ) -> ClientConfig:
        """A config without a file: a server, its CA and maybe a token (bootstrap discovery, tests)."""
        return cls(server=server.rstrip("/"), ca_data=ca_data, insecure_skip_tls_verify=insecure, token=token)


def config_paths(kubeconfig: str | None, environ: Mapping[str, str]) -> list[str]:
    if kubeconfig:
        return [os.path.expanduser(kubeconfig)]
    listed = environ.get(CONFIG_ENV_VAR, "")
    if listed:
        return [os.path.expanduser(p) for p in listed.split(os.pathsep) if p]
    return [os.path.expanduser(DEFAULT_CONFIG_PATH)]


def _read(path: str, required: bool) -> dict | None:
    try:
        text = Path(path).read_text()
    except FileNotFoundError:
        if required:
            raise ConfigError(f"client config file {path} does not exist") from None
        return None
    except OSError as err:
        raise ConfigError(f"cannot read client config file {path}: {err}") from None
    try:
        document = yaml.safe_load(text) or {}
    except yaml.YAMLError as err:
        raise ConfigError(f"client config file {path} is not valid YAML: {err}") from None
    if not isinstance(document, dict):
        raise ConfigError(f"client config file {path} is not a mapping")
    return document


def _absolutize(entry: dict, keys: tuple[str, ...], base: str) -> None:
    for key in keys:
        value = entry.get(key)
        if isinstance(value, str) and value and not os.path.isabs(value):
            entry[key] = os.path.join(base, os.path.expanduser(value))


_CLUSTER_PATH_KEYS = ("certificate-authority",)
_USER_PATH_KEYS = ("client-certificate", "client-key", "tokenFile")


def merge_files(paths: list[str], *, explicit: bool) -> tuple[dict, str]:
    """Merge the files kubectl-style: the first file to set a named entry or current-context wins.

    Relative file references are resolved against the directory of the file that holds them.
    """
    merged: dict[str, Any] = {"clusters": [], "users": [], "contexts": []}
    seen: dict[str, set[str]] = {"clusters": set(), "users": set(), "contexts": set()}
    first_path = ""
    for path in paths:
        document = _read(path, required=explicit)
        if document is None:
            continue
        first_path = first_path or path
        base = os.path.dirname(os.path.abspath(path))
        if not merged.get("current-context") and document.get("current-context"):
            merged["current-context"] = document["current-context"]
        if "preferences" not in merged and document.get("preferences"):
            merged["preferences"] = document["preferences"]
        for section, inner in (("clusters", "cluster"), ("users", "user"), ("contexts", "context")):
            for named in document.get(section) or []:
                if not isinstance(named, dict) or not named.get("name") or named["name"] in seen[section]:
                    continue
                seen[section].add(named["name"])
                body = dict(named.get(inner) or {})
                if section == "clusters":
                    _absolutize(body, _CLUSTER_PATH_KEYS, base)
                elif section == "users":
                    _absolutize(body, _USER_PATH_KEYS, base)
                    if isinstance(body.get("exec"), dict):
                        body["exec"] = {**body["exec"], "_base_dir": base}
                merged[section].append({"name": named["name"], inner: body})
    if not first_path:
        raise ConfigError(
            f"no client config found (looked in {', '.join(paths)}); pass --kubeconfig or set {CONFIG_ENV_VAR}"
        )
    return merged, first_path


def _named(document: dict, section: str, inner: str, name: str) -> dict | None:
    for entry in document.get(section) or []:
        if entry.get("name") == name:
            return entry.get(inner) or {}
    return None


def _b64(value: str, what: str) -> bytes:
    try:
        return base64.b64decode(value, validate=False)
    except (ValueError, TypeError) as err:
        raise ConfigError(f"{what} is not valid base64: {err}") from None


def _read_bytes(path: str, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as err:
        raise ConfigError(f"cannot read {what} {path}: {err}") from None


def _exec_config(raw: dict) -> ExecConfig:
    command = raw.get("command")
    if not command:
        raise ConfigError("exec plugin config has no command")
    api_version = raw.get("apiVersion") or ""
    if not api_version:
        raise ConfigError("exec plugin config has no apiVersion")
    env: dict[str, str] = {}
    for pair in raw.get("env") or []:
        if not isinstance(pair, dict) or "name" not in pair:
            raise ConfigError("exec plugin env entries need a name and a value")
        env[str(pair["name"])] = str(pair.get("value", ""))
    return ExecConfig(
        command=str(command),
        api_version=str(api_version),
        args=[str(a) for a in raw.get("args") or []],
        env=env,
        install_hint=str(raw.get("installHint") or ""),
        provide_cluster_info=bool(raw.get("provideClusterInfo")),
        interactive_mode=str(raw.get("interactiveMode") or ""),
        base_dir=str(raw.get("_base_dir") or "."),
    )


def config_from_document(document: dict, path: str = "", context: str | None = None) -> ClientConfig:
    """The client settings of one context of a (merged) config document."""
    context_name = context or document.get("current-context") or ""
    if not context_name:
        raise ConfigError(f"client config {path or '(inline)'} names no current-context; pass a context")
    ctx = _named(document, "contexts", "context", context_name)
    if ctx is None:
        raise ConfigError(f"context {context_name!r} not found in client config {path or '(inline)'}")
    cluster_name = ctx.get("cluster") or ""
    cluster = _named(document, "clusters", "cluster", cluster_name)
    if cluster is None:
        raise ConfigError(f"cluster {cluster_name!r} of context {context_name!r} not found")
    user_name = ctx.get("user") or ""
    user = _named(document, "users", "user", user_name) if user_name else {}
    if user is None:
        raise ConfigError(f"user {user_name!r} of context {context_name!r} not found")
    server = cluster.get("server") or ""
    if not server:
        raise ConfigError(f"cluster {cluster_name!r} has no server")
    config = ClientConfig(
        server=str(server).rstrip("/"),
        namespace=ctx.get("namespace") or "default",
        context=context_name,
        path=path,
        cluster_name=cluster_name,
        user_name=user_name,
        raw=document,
        insecure_skip_tls_verify=bool(cluster.get("insecure-skip-tls-verify")),
        tls_server_name=cluster.get("tls-server-name") or None,
        proxy_url=cluster.get("proxy-url") or None,
    )
    if cluster.get("certificate-authority-data"):
        config.ca_data = _b64(cluster["certificate-authority-data"], "certificate-authority-data")
    elif cluster.get("certificate-authority"):
        config.ca_file = cluster["certificate-authority"]
        config.ca_data = _read_bytes(config.ca_file, "certificate authority file")
    if config.insecure_skip_tls_verify and config.ca_data:
        raise ConfigError(
            f"cluster {cluster_name!r}: specifying a certificate authority together with "
            "insecure-skip-tls-verify is not allowed"
        )
    for extension in cluster.get("extensions") or []:
        if isinstance(extension, dict) and extension.get("name") == EXEC_EXTENSION_NAME:
            config.cluster_extension = extension.get("extension")
    if user.get("client-certificate-data"):
        config.client_cert_data = _b64(user["client-certificate-data"], "client-certificate-data")
    elif user.get("client-certificate"):
        config.client_cert_file = user["client-certificate"]
        config.client_cert_data = _read_bytes(config.client_cert_file, "client certificate file")
    if user.get("client-key-data"):
        config.client_key_data = _b64(user["client-key-data"], "client-key-data")
    elif user.get("client-key"):
        config.client_key_file = user["client-key"]
        config.client_key_data = _read_bytes(config.client_key_file, "client key file")
    if bool(config.client_cert_data) != bool(config.client_key_data):
        raise ConfigError(f"user {user_name!r} has a client certificate without a key or a key without a certificate")
    config.token = user.get("token") or None
    config.token_file = user.get("tokenFile") or None
    if isinstance(user.get("exec"), dict):
        config.exec = _exec_config(user["exec"])
    return config


def load_config(
    kubeconfig: str | None = None, *, context: str | None = None, environ: Mapping[str, str] = os.environ
) -> ClientConfig:
    """Load the client config: `kubeconfig`, else $ORCH_CONFIG (a path list, first wins), else ~/.orch/config."""
    paths = config_paths(kubeconfig, environ)
    document, first = merge_files(paths, explicit=bool(kubeconfig))
    return config_from_document(document, first, context)


def certificate_kubeconfig(
    server: str, ca_pem: bytes, cluster: str, user: str, cert_pem: bytes, key_pem: bytes
) -> dict:
    """A kubeconfig (kubectl, client-go, this client) for `user`'s client certificate, the CA embedded."""
    context = f"{user}@{cluster}"

    def b64(data: bytes) -> str:
        return base64.b64encode(data).decode("ascii")

    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster, "cluster": {"server": server, "certificate-authority-data": b64(ca_pem)}}],
        "users": [{"name": user, "user": {"client-certificate-data": b64(cert_pem), "client-key-data": b64(key_pem)}}],
        "contexts": [{"name": context, "context": {"cluster": cluster, "user": user}}],
        "current-context": context,
        "preferences": {},
    }
