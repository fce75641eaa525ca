"""The server's settings: one table of options read from flags (app/cli.py) or ORCH_* variables (wsgi.py)."""
from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.auth.authz import parse_modes
from app.durations import parse_duration
from config import defaults

_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$")


class ConfigError(ValueError):
    """A setting's value is unusable; the message names the value and what was expected."""


def _int_in(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise ConfigError(f"{text!r} is not an integer") from None
        if not low <= value <= high:
            raise ConfigError(f"{value} is out of range [{low}, {high}]")
        return value

    return parse


def _ip_address(text: str) -> str:
    try:
        return str(ipaddress.ip_address(text.strip("[]")))
    except ValueError:
        raise ConfigError(f"{text!r} is not an IP address") from None


def _existing_file(text: str) -> str:
    if not os.path.isfile(text):
        raise ConfigError(f"{text!r}: no such file")
    return os.path.abspath(text)


def _database_url(text: str) -> str:
    scheme = text.split("://", 1)[0] if "://" in text else ""
    if scheme in ("postgres", "postgresql"):
        # psycopg 3 is the driver we ship; SQLAlchemy's bare scheme would pick psycopg2.
        return "postgresql+psycopg://" + text.split("://", 1)[1]
    if scheme.startswith(("postgresql+", "sqlite")):
        return text
    raise ConfigError(f"{text!r}: expected sqlite:///<path> or postgresql+psycopg://<user>@<host>/<db>")


def _authorization_mode(text: str) -> str:
    try:
        return ",".join(parse_modes(text))
    except ValueError as err:
        raise ConfigError(str(err)) from None


def _history_window(text: str) -> float:
    try:
        seconds = parse_duration(text)
    except ValueError as err:
        raise ConfigError(str(err)) from None
    if seconds <= 0:
        raise ConfigError(f"{text!r}: must be longer than 0s")
    return seconds


def _api_domain(text: str) -> str:
    if not _DNS_SUBDOMAIN.match(text) or len(text) > 253:
        raise ConfigError(f"{text!r} is not a lower-case DNS name with at least one dot (like orch.io)")
    return text


@dataclass(frozen=True)
class Option:
    name: str
    default: Any
    parse: Callable[[str], Any]
    metavar: str
    help: str

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return defaults.ENV_PREFIX + self.name.upper()


OPTIONS: tuple[Option, ...] = (
    Option("data_dir", defaults.DATA_DIR, str, "DIR", "directory for the SQLite database, PKI and admin.kubeconfig"),
    Option("bind_address", defaults.BIND_ADDRESS, _ip_address, "IP", "address to listen on (0.0.0.0 for all)"),
    Option("secure_port", defaults.SECURE_PORT, _int_in(1, 65535), "PORT", "HTTPS port"),
    Option("workers", defaults.WORKERS, _int_in(1, 256), "N", "worker processes"),
    Option("threads", defaults.THREADS, _int_in(1, 10000), "N", "threads per worker (each open watch holds one)"),
    Option("database_url", defaults.DATABASE_URL, _database_url, "URL",
           "SQLAlchemy URL (postgresql+psycopg://USER@HOST/DB); default: SQLite file orch.db in the data dir"),
    Option("tls_cert_file", defaults.TLS_CERT_FILE, _existing_file, "FILE",
           "serving certificate (PEM, may hold the chain); default: generated, signed by the cluster CA"),
    Option("tls_private_key_file", defaults.TLS_PRIVATE_KEY_FILE, _existing_file, "FILE",
           "key of --tls-cert-file"),
    Option("client_ca_file", defaults.CLIENT_CA_FILE, _existing_file, "FILE",
           "PEM bundle of CAs whose client certificates authenticate users (added to the cluster CA)"),
    Option("authorization_mode", defaults.AUTHORIZATION_MODE, _authorization_mode, "MODES",
           "comma-separated authorizers; only AlwaysAllow for now"),
    Option("history_window", defaults.HISTORY_WINDOW, _history_window, "DURATION",
           "how long watch history and continue tokens last (Go duration: 90s, 5m, 1h30m)"),
    Option("api_domain", defaults.API_DOMAIN, _api_domain, "DOMAIN", "domain of API groups and well-known names"),
)
OPTIONS_BY_NAME = {o.name: o for o in OPTIONS}


@dataclass(frozen=True)
class Settings:
    data_dir: str
    bind_address: str
    secure_port: int
    workers: int
    threads: int
    database_url: str | None
    tls_cert_file: str | None
    tls_private_key_file: str | None
    client_ca_file: str | None
    authorization_mode: str
    history_window: float
    api_domain: str

    @property
    def data_path(self) -> str:
        return os.path.abspath(self.data_dir)

    @property
    def pki_dir(self) -> str:
        return os.path.join(self.data_path, defaults.PKI_DIR)

    def pki_file(self, name: str) -> str:
        return os.path.join(self.pki_dir, name)

    @property
    def serving_cert_file(self) -> str:
        return self.tls_cert_file or self.pki_file(defaults.SERVING_CERT)

    @property
    def serving_key_file(self) -> str:
        return self.tls_private_key_file or self.pki_file(defaults.SERVING_KEY)

    @property
    def kubeconfig_path(self) -> str:
        return os.path.join(self.data_path, defaults.ADMIN_KUBECONFIG)

    @property
    def resolved_database_url(self) -> str:
        return self.database_url or f"sqlite:///{os.path.join(self.data_path, defaults.SQLITE_FILE)}"

    @property
    def client_host(self) -> str:
        """Where a local client reaches us: the bind address, or loopback when bound to all addresses."""
        ip = ipaddress.ip_address(self.bind_address)
        if ip.is_unspecified:
            return "127.0.0.1"
        return f"[{ip}]" if ip.version == 6 else str(ip)

    @property
    def server_url(self) -> str:
        return f"https://{self.client_host}:{self.secure_port}"

    def check(self) -> None:
        if bool(self.tls_cert_file) != bool(self.tls_private_key_file):
            raise ConfigError("--tls-cert-file and --tls-private-key-file must be given together")


def default_values() -> dict[str, Any]:
    """Each option's default, parsed (so `history_window` is seconds)."""
    return {o.name: None if o.default is None else o.parse(str(o.default)) for o in OPTIONS}


def env_values(environ: Mapping[str, str]) -> dict[str, Any]:
    """Options set through ORCH_* variables; an empty variable counts as unset."""
    values: dict[str, Any] = {}
    for option in OPTIONS:
        raw = environ.get(option.env, "")
        if raw == "":
            continue
        try:
            values[option.name] = option.parse(raw)
        except ConfigError as err:
            raise ConfigError(f"{option.env}: {err}") from None
    return values


def settings_from_env(environ: Mapping[str, str]) -> Settings:
    """Defaults overlaid with ORCH_* variables: what wsgi.py and config/gunicorn.py run with."""
    settings = Settings(**{**default_values(), **env_values(environ)})
    settings.check()
    return settings


def flask_config(settings: Settings) -> dict[str, Any]:
    """The Flask config keys create_app reads."""
    return {
        "DATA_DIR": settings.data_path,
        "DATABASE_URL": settings.resolved_database_url,
        "API_DOMAIN": settings.api_domain,
        "HISTORY_WINDOW_SECONDS": float(settings.history_window),
        "AUTHORIZATION_MODE": settings.authorization_mode,
        "SERVER_URL": settings.server_url,
        "CLUSTER_CA_CERT_FILE": settings.pki_file(defaults.CA_CERT),
        "CLUSTER_CA_KEY_FILE": settings.pki_file(defaults.CA_KEY),
        "CLIENT_CA_FILE": settings.client_ca_file,
        "TLS_CERT_FILE": settings.serving_cert_file,
        "TLS_PRIVATE_KEY_FILE": settings.serving_key_file,
    }
