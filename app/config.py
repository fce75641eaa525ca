"""The server's settings: one table of options read from flags (app/cli.py) or ORCH_* variables (wsgi.py)."""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from . import defaults
from .auth.authz import parse_modes
from .durations import parse_duration
from .memory import parse_byte_size

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


def _file_path(text: str) -> str:
    # checked in Settings.check: the file may be one the server creates in its data directory
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


def _byte_size(text: str) -> int:
    try:
        return parse_byte_size(text)
    except ValueError as err:
        raise ConfigError(str(err)) from None


def _positive_duration(text: str) -> float:
    try:
        seconds = parse_duration(text)
    except ValueError as err:
        raise ConfigError(str(err)) from None
    if seconds <= 0:
        raise ConfigError(f"{text!r}: must be longer than 0s")
    return seconds


def _history_retention(text: str) -> tuple[tuple[str, float], ...]:
    """`leases=5m,events=1h,*=7d`: how long each kind's changes are kept (`*`: the rest, else --history-window);
    Go durations plus whole days."""
    rules = []
    for item in _items(text):
        kind, sep, duration = item.partition("=")
        if not sep or not kind.strip():
            raise ConfigError(f"{item!r}: expected <resource>[.<group>]=<duration> or *=<duration>")
        days, d, rest = duration.strip().partition("d")  # Go durations stop at hours: `7d`, `1d12h` are ours
        if d and days.isdigit():
            seconds = int(days) * 86400 + (_positive_duration(rest) if rest else 0)
            if seconds <= 0:
                raise ConfigError(f"{item!r}: must be longer than 0s")
        else:
            seconds = _positive_duration(duration.strip())
        rules.append((kind.strip(), float(seconds)))
    return tuple(rules)


def _bool(text: str) -> bool:
    # the spellings Go's strconv.ParseBool accepts, as the reference's boolean flags do
    value = text.strip()
    if value in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if value in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    raise ConfigError(f"{text!r} is not a boolean (true or false)")


_DNS_NAME = re.compile(r"^(\*\.)?[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$")


def _items(text: str) -> tuple[str, ...]:
    """A comma-separated list (one flag occurrence or one ORCH_* variable); blanks are dropped."""
    return tuple(item.strip() for item in text.split(",") if item.strip())


def _tls_names(text: str) -> tuple[str, ...]:
    names = _items(text)
    for name in names:
        if not _DNS_NAME.match(name):
            try:
                ipaddress.ip_address(name)
            except ValueError:
                raise ConfigError(f"{name!r} is neither a DNS name nor an IP address") from None
    return names


def split_host_port(text: str) -> tuple[str, int | None]:
    """`host`, `host:port`, `[ipv6]:port` or a bare IPv6 address, as Go's net.SplitHostPort reads the reference's
    --external-hostname (lower-cased host, port or None)."""
    text = text.strip().lower()
    host, port = text, ""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        if "]" not in text or (rest and not rest.startswith(":")):
            raise ConfigError(f"{text!r} is not HOST, HOST:PORT or [IPv6]:PORT")
        port = rest[1:]
    elif text.count(":") == 1:
        host, port = text.split(":")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if host.startswith("*") or not _DNS_NAME.match(host):
            raise ConfigError(f"{text!r}: {host!r} is neither a DNS name nor an IP address") from None
    if not port and not text.endswith(":"):
        return host, None
    try:
        return host, _int_in(1, 65535)(port)
    except ConfigError as err:
        raise ConfigError(f"{text!r}: port {err}") from None


def _external_hostname(text: str) -> str:
    host, port = split_host_port(text)
    shown = f"[{host}]" if ":" in host else host
    return shown if port is None else f"{shown}:{port}"


def _files(text: str) -> tuple[str, ...]:
    return tuple(_existing_file(item) for item in _items(text))


def _https_url(text: str) -> str:
    if not text.startswith("https://") or len(text) <= len("https://"):
        raise ConfigError(f"{text!r} is not an https:// URL")
    return text


def _claims(text: str) -> tuple[str, ...]:
    pairs = _items(text)
    for pair in pairs:
        key, sep, _ = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{pair!r} is not a key=value pair")
    return pairs


def _webhook_version(text: str) -> str:
    if text not in ("v1", "v1beta1"):
        raise ConfigError(f"{text!r}: supported versions are v1 and v1beta1")
    return text


def _cache_ttl(text: str) -> float:
    try:
        seconds = parse_duration(text)
    except ValueError as err:
        raise ConfigError(str(err)) from None
    if seconds < 0:
        raise ConfigError(f"{text!r}: must not be negative")
    return seconds


def _controllers(text: str) -> str:
    from .controllers.names import parse_controllers

    try:
        parse_controllers(text)
    except ValueError as err:
        raise ConfigError(str(err)) from None
    return text


def _signing_duration(text: str) -> float:
    return _positive_duration(text)  # a positive Go duration


def _runtime_config(text: str) -> tuple[tuple[str, bool], ...]:
    from .versions import RuntimeConfigError, parse_runtime_config

    try:
        return parse_runtime_config(text)
    except RuntimeConfigError as err:
        raise ConfigError(str(err)) from None


def _feature_gates(text: str) -> tuple[str, ...]:
    """`Name=true,Other=false`, checked against app.features (unknown or locked gates refuse to start)."""
    from .features import FeatureGateError, parse

    try:
        return tuple(f"{name}={str(value).lower()}" for name, value in parse(text).items())
    except FeatureGateError as err:
        raise ConfigError(str(err)) from None


def _fault_injection(text: str) -> bool | str:
    if text.strip() == "force":
        return "force"
    try:
        return _bool(text)
    except ConfigError:
        raise ConfigError(f"{text!r}: expected true, false or force") from None


def _audit_log_format(text: str) -> str:
    if text not in ("json", "legacy"):
        raise ConfigError(f"{text!r}: supported formats are json and legacy")
    return text


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
    #: "value"; "bool" (`--flag` alone means true); "list" (repeatable, values are tuples).
    shape: str = "value"

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
    Option(
        "advertise_address",
        None,
        _ip_address,
        "IP",
        "address clients and other replicas use to reach this server (kubeconfig, serving certificate); "
        "default: the bind address, or 127.0.0.1 when bound to all addresses",
    ),
    Option(
        "external_hostname",
        None,
        _external_hostname,
        "HOST[:PORT]",
        "the hostname to use when generating externalized URLs for this server (admin.kubeconfig, cluster-info); "
        "also named by the serving certificate; the port defaults to --secure-port",
    ),
    Option(
        "request_log",
        True,
        _bool,
        "BOOL",
        "log one line per request (method, path, user, code, latency), as the reference's httplog",
        "bool",
    ),
    Option(
        "tls_san",
        None,
        _tls_names,
        "NAMES",
        "extra DNS names or IP addresses of the generated serving certificate; repeatable",
        "list",
    ),
    Option("workers", defaults.WORKERS, _int_in(1, 256), "N", "worker processes"),
    Option(
        "threads",
        defaults.THREADS,
        _int_in(1, 10000),
        "N",
        "threads per worker: requests being served at once (open watches and idle connections hold none)",
    ),
    Option(
        "read_header_timeout",
        defaults.READ_HEADER_TIMEOUT,
        _positive_duration,
        "DURATION",
        "how long a connection may take for its TLS handshake and request head before it is closed",
    ),
    Option(
        "request_timeout",
        defaults.REQUEST_TIMEOUT,
        _positive_duration,
        "DURATION",
        "a request that is not long-running (watch, log, exec, proxy...) and not answered this long after its head "
        "arrived, its body included, is answered 504; the `timeout` parameter may shorten it",
    ),
    Option(
        "idle_timeout",
        defaults.IDLE_TIMEOUT,
        _positive_duration,
        "DURATION",
        "how long an idle keep-alive connection is kept open between requests",
    ),
    Option(
        "max_requests_inflight",
        defaults.MAX_REQUESTS_INFLIGHT,
        _int_in(0, 1 << 20),
        "N",
        "non-mutating requests queued or served at once, watches not counted (0: no limit); beyond: 429",
    ),
    Option(
        "max_mutating_requests_inflight",
        defaults.MAX_MUTATING_REQUESTS_INFLIGHT,
        _int_in(0, 1 << 20),
        "N",
        "mutating requests queued or served at once (0: no limit); beyond: 429 with Retry-After",
    ),
    Option(
        "enable_priority_and_fairness",
        defaults.ENABLE_PRIORITY_AND_FAIRNESS,
        _bool,
        "BOOL",
        "API Priority and Fairness: requests classified by FlowSchemas, seats and queues per priority level "
        "(from the two in-flight limits, at most half of --threads per worker); false: the in-flight limits",
        "bool",
    ),
    Option(
        "apf_waiting_threads",
        None,
        _int_in(0, 1 << 16),
        "N",
        "threads per worker besides --threads for requests waiting in priority and fairness queues (a waiting "
        "request holds one; beyond them 429 queue-full); "
        f"default {defaults.APF_WAITING_THREADS_PER_THREAD} x --threads",
    ),
    Option(
        "database_url",
        defaults.DATABASE_URL,
        _database_url,
        "URL",
        "SQLAlchemy URL (postgresql+psycopg://USER@HOST/DB); default: SQLite file orch.db in the data dir",
    ),
    Option(
        "database_pool_size",
        defaults.DATABASE_POOL_SIZE,
        _int_in(1, 1000),
        "N",
        "database connections each worker keeps open between uses; under load it opens more, up to --threads "
        f"+ {defaults.BACKGROUND_DATABASE_CONNECTIONS}, and closes them when returned (docs/operations.md)",
    ),
    Option(
        "max_request_body_buffer",
        defaults.MAX_REQUEST_BODY_BUFFER,
        _byte_size,
        "SIZE",
        "request bodies still arriving that the workers hold, all workers together (each its share; 0: no limit); "
        "a body beyond it is answered 429 at once (docs/connections.md)",
    ),
    Option(
        "max_list_memory",
        defaults.MAX_LIST_MEMORY,
        _byte_size,
        "SIZE",
        "memory that list responses being built or sent may hold, all workers together (e.g. 512Mi, 2Gi; 0: no "
        "limit); a list waits for its share, then 429",
    ),
    Option(
        "tls_cert_file",
        defaults.TLS_CERT_FILE,
        _existing_file,
        "FILE",
        "serving certificate (PEM, may hold the chain); default: generated, signed by the cluster CA",
    ),
    Option("tls_private_key_file", defaults.TLS_PRIVATE_KEY_FILE, _existing_file, "FILE", "key of --tls-cert-file"),
    Option(
        "client_ca_file",
        defaults.CLIENT_CA_FILE,
        _existing_file,
        "FILE",
        "PEM bundle of CAs whose client certificates authenticate users (added to the cluster CA)",
    ),
    Option(
        "authorization_mode",
        defaults.AUTHORIZATION_MODE,
        _authorization_mode,
        "MODES",
        "comma-separated authorizers in order: AlwaysAllow, AlwaysDeny, Node, RBAC, Webhook",
    ),
    Option(
        "authorization_webhook_config_file",
        None,
        _existing_file,
        "FILE",
        "kubeconfig-format file: clusters = the SubjectAccessReview service, users = our client credentials",
    ),
    Option(
        "authorization_webhook_cache_authorized_ttl",
        defaults.AUTHORIZATION_WEBHOOK_CACHE_AUTHORIZED_TTL,
        _cache_ttl,
        "DURATION",
        "how long the webhook authorizer's allow decisions are cached",
    ),
    Option(
        "authorization_webhook_cache_unauthorized_ttl",
        defaults.AUTHORIZATION_WEBHOOK_CACHE_UNAUTHORIZED_TTL,
        _cache_ttl,
        "DURATION",
        "how long the webhook authorizer's other decisions are cached",
    ),
    Option(
        "history_window",
        defaults.HISTORY_WINDOW,
        _positive_duration,
        "DURATION",
        "how long watch history and continue tokens last (Go duration: 90s, 5m, 1h30m)",
    ),
    Option(
        "history_retention",
        None,
        _history_retention,
        "RULES",
        "history kept per kind, e.g. leases=5m,events=1h,*=7d (resource or resource.group; * the rest, else "
        "--history-window)",
    ),
    Option("api_domain", defaults.API_DOMAIN, _api_domain, "DOMAIN", "domain of API groups and well-known names"),
    Option(
        "anonymous_auth",
        defaults.ANONYMOUS_AUTH,
        _bool,
        "BOOL",
        "requests without credentials are system:anonymous (else 401)",
        "bool",
    ),
    Option(
        "token_auth_file",
        defaults.TOKEN_AUTH_FILE,
        _existing_file,
        "FILE",
        'CSV of static bearer tokens: token,user,uid[,"group1,group2"]',
    ),
    Option(
        "enable_bootstrap_token_auth",
        defaults.ENABLE_BOOTSTRAP_TOKEN_AUTH,
        _bool,
        "BOOL",
        "accept bootstrap tokens from secrets in the system namespace",
        "bool",
    ),
    Option(
        "service_account_key_file",
        defaults.SERVICE_ACCOUNT_KEY_FILE,
        _files,
        "FILE",
        "PEM file of public keys (or certificates) verifying service-account tokens; repeatable",
        "list",
    ),
    Option(
        "service_account_signing_key_file",
        defaults.SERVICE_ACCOUNT_SIGNING_KEY_FILE,
        _existing_file,
        "FILE",
        "private key signing service-account tokens; default: pki/sa.key, generated",
    ),
    Option(
        "service_account_issuer",
        defaults.SERVICE_ACCOUNT_ISSUER,
        _items,
        "URL",
        "issuer of service-account tokens (the first signs, all are accepted); default: the server URL",
        "list",
    ),
    Option(
        "service_account_lookup",
        defaults.SERVICE_ACCOUNT_LOOKUP,
        _bool,
        "BOOL",
        "reject service-account tokens whose account, secret or bound object is gone",
        "bool",
    ),
    Option("oidc_issuer_url", None, _https_url, "URL", "https:// URL of the OpenID Connect issuer"),
    Option("oidc_client_id", None, str, "ID", "client id every OpenID Connect ID token must be issued for"),
    Option("oidc_username_claim", defaults.OIDC_USERNAME_CLAIM, str, "CLAIM", "ID-token claim of the user name"),
    Option(
        "oidc_username_prefix",
        None,
        str,
        "PREFIX",
        "prefix of OIDC user names; '-' for none; default: '<issuer>#' unless the claim is email",
    ),
    Option("oidc_groups_claim", None, str, "CLAIM", "ID-token claim (a list of strings) of the groups"),
    Option("oidc_groups_prefix", None, str, "PREFIX", "prefix of OIDC group names"),
    Option(
        "oidc_required_claim",
        None,
        _claims,
        "KEY=VALUE",
        "claim an ID token must carry with this value; repeatable",
        "list",
    ),
    Option("oidc_ca_file", None, _existing_file, "FILE", "CA bundle of the issuer; default: the system's roots"),
    Option(
        "oidc_signing_algs",
        defaults.OIDC_SIGNING_ALGS,
        _items,
        "ALGS",
        "comma-separated JOSE algorithms an ID token may be signed with",
    ),
    Option(
        "authentication_token_webhook_config_file",
        None,
        _existing_file,
        "FILE",
        "kubeconfig-format file: clusters = the token review service, users = our client credentials",
    ),
    Option(
        "authentication_token_webhook_version",
        defaults.AUTHENTICATION_TOKEN_WEBHOOK_VERSION,
        _webhook_version,
        "VERSION",
        "TokenReview version sent to the webhook (v1beta1 or v1)",
    ),
    Option(
        "authentication_token_webhook_cache_ttl",
        defaults.AUTHENTICATION_TOKEN_WEBHOOK_CACHE_TTL,
        _cache_ttl,
        "DURATION",
        "how long webhook decisions are cached",
    ),
    Option(
        "requestheader_username_headers",
        None,
        _items,
        "HEADERS",
        "headers holding the user name set by an authenticating proxy (first with a value wins)",
        "list",
    ),
    Option("requestheader_group_headers", None, _items, "HEADERS", "headers holding the groups", "list"),
    Option(
        "requestheader_extra_headers_prefix",
        None,
        _items,
        "PREFIXES",
        "header prefixes of extra user attributes",
        "list",
    ),
    Option(
        "requestheader_client_ca_file",
        None,
        _file_path,
        "FILE",
        "CA bundle the authenticating proxy's client certificate must chain to",
    ),
    Option(
        "requestheader_allowed_names",
        None,
        _items,
        "NAMES",
        "common names allowed for the proxy's certificate; default: any",
        "list",
    ),
    Option(
        "proxy_client_cert_file",
        None,
        _existing_file,
        "FILE",
        "client certificate the server presents to extension API servers it proxies to (the aggregation "
        "layer); default: one issued by a front-proxy CA in the data directory",
    ),
    Option("proxy_client_key_file", None, _existing_file, "FILE", "its private key"),
    Option(
        "kubelet_client_certificate",
        None,
        _existing_file,
        "FILE",
        "client certificate the server presents to node agents (pods/log, ...)",
    ),
    Option("kubelet_client_key", None, _existing_file, "FILE", "its private key"),
    Option(
        "kubelet_certificate_authority",
        None,
        _existing_file,
        "FILE",
        "CA bundle node agents' serving certificates must chain to; default: not verified, as the reference",
    ),
    Option(
        "feature_gates",
        None,
        _feature_gates,
        "NAME=BOOL",
        "comma-separated gates to switch on or off, e.g. APIListChunking=false; repeatable",
        "list",
    ),
    Option(
        "livez_grace_period",
        defaults.LIVEZ_GRACE_PERIOD,
        _cache_ttl,
        "DURATION",
        "how long after start unfinished post-start hooks do not fail /livez (Go duration)",
    ),
    Option(
        "endpoint_lease_duration",
        "15s",
        _cache_ttl,
        "DURATION",
        "how long a replica stays in the default/kubernetes endpoints after its last renewal (Go duration)",
    ),
    Option(
        "shutdown_delay_duration",
        defaults.SHUTDOWN_DELAY_DURATION,
        _cache_ttl,
        "DURATION",
        "on SIGTERM, how long /readyz fails while requests are still served, before draining (Go duration)",
    ),
    Option(
        "controllers",
        defaults.CONTROLLERS,
        _controllers,
        "NAMES",
        "controllers to run: '*' (default-on ones), 'name' enables, '-name' disables (e.g. '*,tokencleaner')",
    ),
    Option(
        "simulate_nodes",
        defaults.SIMULATE_NODES,
        _int_in(0, 100000),
        "N",
        "simulate a cluster of N nodes: Node objects, node agents, a scheduler and workload controllers that make "
        "Deployments, Jobs, ... move (docs/simulation.md); 0: a plain API server",
    ),
    Option(
        "enable_fault_injection",
        False,
        _fault_injection,
        "BOOL|force",
        "serve the testing Fault kind: failures injected on demand (docs/testing.md); refused with a non-loopback "
        "--bind-address unless =force",
        "bool",
    ),
    Option(
        "simulate_kubelet_events",
        True,
        _bool,
        "BOOL",
        "with --simulate-nodes: the simulated kubelets record the Events a kubelet does as pods start and stop "
        "(Pulling, Pulled, Created, Started, Killing); false: fewer writes in a large simulation",
        "bool",
    ),
    Option(
        "cluster_signing_cert_file",
        defaults.CLUSTER_SIGNING_CERT_FILE,
        _existing_file,
        "FILE",
        "CA certificate the csrsigning controller issues with; default: the cluster CA",
    ),
    Option(
        "cluster_signing_key_file",
        defaults.CLUSTER_SIGNING_KEY_FILE,
        _existing_file,
        "FILE",
        "key of --cluster-signing-cert-file",
    ),
    Option(
        "cluster_signing_duration",
        defaults.CLUSTER_SIGNING_DURATION,
        _signing_duration,
        "DURATION",
        "longest lifetime of certificates the csrsigning controller issues (Go duration)",
    ),
    Option(
        "enable_admission_plugins",
        None,
        _items,
        "NAMES",
        "admission plugins to run besides the default ones (e.g. AlwaysDeny); order does not matter",
        "list",
    ),
    Option(
        "disable_admission_plugins",
        None,
        _items,
        "NAMES",
        "default admission plugins not to run (e.g. ValidatingAdmissionWebhook)",
        "list",
    ),
    Option(
        "runtime_config",
        None,
        _runtime_config,
        "KEY[=BOOL],...",
        "API versions to serve or not: <group>/<version>[=true|false] (api/v1 is core), api/all, api/ga, "
        "api/beta, api/alpha; repeatable",
        "list",
    ),
)
OPTIONS = OPTIONS + (  # audit (app/audit): flag names and meanings as the reference's
    Option("audit_log_path", None, str, "PATH", "write audit events (JSON lines) to this file; '-' is stdout"),
    Option(
        "audit_log_maxage",
        defaults.AUDIT_LOG_MAXAGE,
        _int_in(0, 1 << 30),
        "DAYS",
        "days to keep rotated audit log files (0: no limit)",
    ),
    Option(
        "audit_log_maxbackup",
        defaults.AUDIT_LOG_MAXBACKUP,
        _int_in(0, 1 << 30),
        "N",
        "rotated audit log files to keep (0: no limit)",
    ),
    Option(
        "audit_log_maxsize",
        defaults.AUDIT_LOG_MAXSIZE,
        _int_in(0, 1 << 30),
        "MB",
        "size in megabytes at which the audit log is rotated (0: 100)",
    ),
    Option(
        "audit_log_format",
        defaults.AUDIT_LOG_FORMAT,
        _audit_log_format,
        "FORMAT",
        "audit log line format: json or legacy",
    ),
    Option("audit_policy_file", None, _existing_file, "FILE", "audit Policy (YAML); without it nothing is audited"),
    Option(
        "encryption_provider_config",
        None,
        _existing_file,
        "FILE",
        "EncryptionConfiguration of what is encrypted at rest, and with which keys; default: "
        "<data-dir>/pki/encryption-config.yaml, generated (Secrets, one secretbox key) when absent",
    ),
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
    history_retention: tuple[tuple[str, float], ...] | None = None
    read_header_timeout: float = parse_duration(defaults.READ_HEADER_TIMEOUT)
    request_timeout: float = parse_duration(defaults.REQUEST_TIMEOUT)
    idle_timeout: float = parse_duration(defaults.IDLE_TIMEOUT)
    max_requests_inflight: int = defaults.MAX_REQUESTS_INFLIGHT
    max_mutating_requests_inflight: int = defaults.MAX_MUTATING_REQUESTS_INFLIGHT
    apf_waiting_threads: int | None = None  # None: APF_WAITING_THREADS_PER_THREAD x threads
    database_pool_size: int = defaults.DATABASE_POOL_SIZE
    max_list_memory: int = parse_byte_size(defaults.MAX_LIST_MEMORY)
    max_request_body_buffer: int = parse_byte_size(defaults.MAX_REQUEST_BODY_BUFFER)
    enable_priority_and_fairness: bool = defaults.ENABLE_PRIORITY_AND_FAIRNESS
    anonymous_auth: bool = defaults.ANONYMOUS_AUTH
    token_auth_file: str | None = None
    enable_bootstrap_token_auth: bool = defaults.ENABLE_BOOTSTRAP_TOKEN_AUTH
    service_account_key_file: tuple[str, ...] | None = None
    service_account_signing_key_file: str | None = None
    service_account_issuer: tuple[str, ...] | None = None
    service_account_lookup: bool = defaults.SERVICE_ACCOUNT_LOOKUP
    oidc_issuer_url: str | None = None
    oidc_client_id: str | None = None
    oidc_username_claim: str = defaults.OIDC_USERNAME_CLAIM
    oidc_username_prefix: str | None = None
    oidc_groups_claim: str | None = None
    oidc_groups_prefix: str | None = None
    oidc_required_claim: tuple[str, ...] | None = None
    oidc_ca_file: str | None = None
    oidc_signing_algs: tuple[str, ...] = (defaults.OIDC_SIGNING_ALGS,)
    authentication_token_webhook_config_file: str | None = None
    authorization_webhook_config_file: str | None = None
    authorization_webhook_cache_authorized_ttl: float = parse_duration(
        defaults.AUTHORIZATION_WEBHOOK_CACHE_AUTHORIZED_TTL
    )
    authorization_webhook_cache_unauthorized_ttl: float = parse_duration(
        defaults.AUTHORIZATION_WEBHOOK_CACHE_UNAUTHORIZED_TTL
    )
    authentication_token_webhook_version: str = defaults.AUTHENTICATION_TOKEN_WEBHOOK_VERSION
    authentication_token_webhook_cache_ttl: float = parse_duration(defaults.AUTHENTICATION_TOKEN_WEBHOOK_CACHE_TTL)
    requestheader_username_headers: tuple[str, ...] | None = None
    requestheader_group_headers: tuple[str, ...] | None = None
    requestheader_extra_headers_prefix: tuple[str, ...] | None = None
    requestheader_client_ca_file: str | None = None
    requestheader_allowed_names: tuple[str, ...] | None = None
    proxy_client_cert_file: str | None = None
    proxy_client_key_file: str | None = None
    kubelet_client_certificate: str | None = None
    kubelet_client_key: str | None = None
    kubelet_certificate_authority: str | None = None
    audit_log_path: str | None = None
    audit_log_maxage: int = defaults.AUDIT_LOG_MAXAGE
    audit_log_maxbackup: int = defaults.AUDIT_LOG_MAXBACKUP
    audit_log_maxsize: int = defaults.AUDIT_LOG_MAXSIZE
    audit_log_format: str = defaults.AUDIT_LOG_FORMAT
    audit_policy_file: str | None = None
    encryption_provider_config: str | None = None
    feature_gates: tuple[str, ...] | None = None
    livez_grace_period: float = 0.0
    endpoint_lease_duration: float = 15.0
    shutdown_delay_duration: float = 0.0
    runtime_config: tuple[tuple[str, bool], ...] | None = None
    enable_admission_plugins: tuple[str, ...] | None = None
    disable_admission_plugins: tuple[str, ...] | None = None
    controllers: str = defaults.CONTROLLERS
    simulate_nodes: int = defaults.SIMULATE_NODES
    #: False, True, or "force" (served even on a non-loopback bind address)
    enable_fault_injection: bool | str = False
    simulate_kubelet_events: bool = True
    cluster_signing_cert_file: str | None = None
    cluster_signing_key_file: str | None = None
    cluster_signing_duration: float = parse_duration(defaults.CLUSTER_SIGNING_DURATION)
    advertise_address: str | None = None
    tls_san: tuple[str, ...] | None = None
    external_hostname: str | None = None
    request_log: bool = True

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
    def encryption_config_file(self) -> str:
        """--encryption-provider-config, else the data dir's own (generated by app/server.py when absent)."""
        return self.encryption_provider_config or self.pki_file(defaults.ENCRYPTION_CONFIG)

    @property
    def resolved_database_url(self) -> str:
        return self.database_url or f"sqlite:///{os.path.join(self.data_path, defaults.SQLITE_FILE)}"

    @property
    def client_host(self) -> str:
        """Where clients reach us: --advertise-address, else the bind address, else (bound to all) loopback."""
        ip = ipaddress.ip_address(self.advertise_address or self.bind_address)
        if ip.is_unspecified:
            return "127.0.0.1"
        return f"[{ip}]" if ip.version == 6 else str(ip)

    @property
    def endpoint_address(self) -> str:
        """The address the default/kubernetes endpoints list for this replica (client_host without brackets)."""
        return self.client_host.strip("[]")

    @property
    def listen_url(self) -> str:
        """This replica's own URL (the advertised address and the port it listens on)."""
        return f"https://{self.client_host}:{self.secure_port}"

    @property
    def server_url(self) -> str:
        """The URL clients are given: --external-hostname (its port, else --secure-port), else listen_url."""
        if not self.external_hostname:
            return self.listen_url
        host, port = split_host_port(self.external_hostname)
        return f"https://{f'[{host}]' if ':' in host else host}:{port or self.secure_port}"

    @property
    def front_proxy_ca_file(self) -> str | None:
        """The front-proxy CA the server creates in its data directory (none with --proxy-client-cert-file)."""
        return None if self.proxy_client_cert_file else self.pki_file(defaults.FRONT_PROXY_CA_CERT)

    @property
    def service_account_signing_key(self) -> str:
        return self.service_account_signing_key_file or self.pki_file(defaults.SERVICE_ACCOUNT_KEY)

    @property
    def service_account_issuers(self) -> tuple[str, ...]:
        return self.service_account_issuer or (self.server_url,)

    @property
    def admission_plugins(self) -> list[str]:
        from .admission.plugins import AdmissionConfigError, enabled_plugins

        try:
            return enabled_plugins(self.enable_admission_plugins or (), self.disable_admission_plugins or ())
        except AdmissionConfigError as err:
            raise ConfigError(str(err)) from None

    def check(self) -> None:
        if bool(self.tls_cert_file) != bool(self.tls_private_key_file):
            raise ConfigError("--tls-cert-file and --tls-private-key-file must be given together")
        if bool(self.oidc_issuer_url) != bool(self.oidc_client_id):
            raise ConfigError("--oidc-issuer-url and --oidc-client-id must be given together")
        if "Webhook" in self.authorization_mode.split(",") and not self.authorization_webhook_config_file:
            raise ConfigError("--authorization-mode Webhook needs --authorization-webhook-config-file")
        if bool(self.proxy_client_cert_file) != bool(self.proxy_client_key_file):
            raise ConfigError("--proxy-client-cert-file and --proxy-client-key-file must be given together")
        if bool(self.kubelet_client_certificate) != bool(self.kubelet_client_key):
            raise ConfigError("--kubelet-client-certificate and --kubelet-client-key must be given together")
        if self.requestheader_client_ca_file and not self.requestheader_username_headers:
            raise ConfigError("--requestheader-client-ca-file needs --requestheader-username-headers")
        self._check_requestheader_client_ca_file()
        if self.audit_policy_file:
            _check_audit_policy(self.audit_policy_file, self.api_domain)
        if self.encryption_provider_config:
            _check_encryption_config(self.encryption_provider_config, self.api_domain)
        if self.runtime_config:
            _check_runtime_config(self.runtime_config, self.api_domain, bool(self.enable_fault_injection))
        self._check_fault_injection()
        self.admission_plugins  # noqa: B018 - unknown or unbuilt plugin names refuse to start
        if bool(self.cluster_signing_cert_file) != bool(self.cluster_signing_key_file):
            raise ConfigError("--cluster-signing-cert-file and --cluster-signing-key-file must be given together")

    def _check_fault_injection(self) -> None:
        """Faults let whoever may create them fail everyone's requests: a test server's tool, kept to loopback."""
        if self.enable_fault_injection is not True or ipaddress.ip_address(self.bind_address).is_loopback:
            return
        raise ConfigError(
            f"--enable-fault-injection lets anyone allowed to create Faults fail other clients' requests; it is "
            f"refused with --bind-address {self.bind_address} (not a loopback address): bind to 127.0.0.1, or "
            "pass --enable-fault-injection=force to serve it there anyway"
        )

    def _check_requestheader_client_ca_file(self) -> None:
        path = self.requestheader_client_ca_file
        if not path or os.path.isfile(path):
            return
        own = self.front_proxy_ca_file
        if own and os.path.realpath(path) == os.path.realpath(own):
            return  # the data directory's front-proxy CA, created before anything reads it (app/server.py)
        hint = f" (the front-proxy CA this server creates is {own})" if own else ""
        raise ConfigError(f"--requestheader-client-ca-file: {path!r}: no such file{hint}")


def _check_audit_policy(path: str, api_domain: str) -> None:
    """An invalid audit policy fails start (its apiVersion depends on --api-domain, so not at parse time)."""
    from .audit.policy import PolicyError, load_policy
    from .naming import Naming

    try:
        load_policy(path, Naming(api_domain))
    except PolicyError as err:
        raise ConfigError(f"--audit-policy-file: {err}") from None


def _check_encryption_config(path: str, api_domain: str) -> None:
    """A bad EncryptionConfiguration fails start, never the first write."""
    from .storage.encryption_config import EncryptionConfigError, load

    try:
        load(path, api_domain)
    except EncryptionConfigError as err:
        raise ConfigError(f"--encryption-provider-config: {err}") from None


def _check_runtime_config(config: tuple[tuple[str, bool], ...], api_domain: str, faults: bool = False) -> None:
    """Unknown or removed group versions fail start (they need the catalog, so not at parse time)."""
    from .naming import Naming
    from .resources import add_fault_kind, build_catalog
    from .versions import RuntimeConfigError, served_keys

    naming = Naming(api_domain)
    catalog = add_fault_kind(build_catalog(naming), naming) if faults else build_catalog(naming)
    try:
        served_keys(catalog, config, naming)
    except RuntimeConfigError as err:
        raise ConfigError(f"--runtime-config: {err}") from None


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
        # (kept, most) connections per worker: its request threads and background loops (docs/operations.md)
        "DATABASE_POOL": (
            min(settings.database_pool_size, settings.threads + defaults.BACKGROUND_DATABASE_CONNECTIONS),
            settings.threads + defaults.BACKGROUND_DATABASE_CONNECTIONS,
        ),
        "MAX_LIST_MEMORY": settings.max_list_memory // settings.workers,  # each worker's share
        "API_DOMAIN": settings.api_domain,
        "HISTORY_WINDOW_SECONDS": float(settings.history_window),
        "HISTORY_RETENTION": settings.history_retention or (),
        "AUTHORIZATION_MODE": settings.authorization_mode,
        "SERVER_URL": settings.server_url,
        "CLUSTER_CA_CERT_FILE": settings.pki_file(defaults.CA_CERT),
        "CLUSTER_CA_KEY_FILE": settings.pki_file(defaults.CA_KEY),
        "CLIENT_CA_FILE": settings.client_ca_file,
        "TLS_CERT_FILE": settings.serving_cert_file,
        "TLS_PRIVATE_KEY_FILE": settings.serving_key_file,
        "FEATURE_GATES": {k: v == "true" for k, _, v in (p.partition("=") for p in settings.feature_gates or ())},
        "LIVEZ_GRACE_PERIOD": float(settings.livez_grace_period),
        "ENDPOINT_ADDRESS": settings.endpoint_address,
        "SECURE_PORT": settings.secure_port,
        "ENDPOINT_LEASE_DURATION": float(settings.endpoint_lease_duration),
        "RUNTIME_CONFIG": settings.runtime_config or (),
        "ADMISSION_PLUGINS": settings.admission_plugins,
        "CONTROLLERS": settings.controllers,
        "SIMULATE_NODES": settings.simulate_nodes,
        "FAULT_INJECTION": bool(settings.enable_fault_injection),
        "SIMULATE_KUBELET_EVENTS": settings.simulate_kubelet_events,
        "ENABLE_PRIORITY_AND_FAIRNESS": settings.enable_priority_and_fairness,
        "APF_WORKER_SHARE": (
            settings.max_requests_inflight,
            settings.max_mutating_requests_inflight,
            settings.workers,
            settings.threads,
            settings.apf_waiting_threads,
        ),
        "CLUSTER_SIGNING_CERT_FILE": settings.cluster_signing_cert_file or settings.pki_file(defaults.CA_CERT),
        "CLUSTER_SIGNING_KEY_FILE": settings.cluster_signing_key_file or settings.pki_file(defaults.CA_KEY),
        "CLUSTER_SIGNING_DURATION": float(settings.cluster_signing_duration),
        "AUDIT_LOG_PATH": settings.audit_log_path,
        "AUDIT_LOG_MAXAGE": settings.audit_log_maxage,
        "AUDIT_LOG_MAXBACKUP": settings.audit_log_maxbackup,
        "AUDIT_LOG_MAXSIZE": settings.audit_log_maxsize,
        "AUDIT_LOG_FORMAT": settings.audit_log_format,
        "AUDIT_POLICY_FILE": settings.audit_policy_file,
        "ENCRYPTION_PROVIDER_CONFIG": settings.encryption_config_file,
        "REQUEST_LOG": settings.request_log,
        "REQUEST_LOG_BATCH_SECONDS": defaults.REQUEST_LOG_BATCH_SECONDS,
        **authentication_config(settings),
    }


def authentication_config(settings: Settings) -> dict[str, Any]:
    """The Flask config keys app.auth.config reads (lists become tuples, absent lists empty)."""
    return {
        "ANONYMOUS_AUTH": settings.anonymous_auth,
        "TOKEN_AUTH_FILE": settings.token_auth_file,
        "ENABLE_BOOTSTRAP_TOKEN_AUTH": settings.enable_bootstrap_token_auth,
        "SERVICE_ACCOUNT_KEY_FILES": settings.service_account_key_file or (),
        "SERVICE_ACCOUNT_SIGNING_KEY_FILE": settings.service_account_signing_key,
        "SERVICE_ACCOUNT_ISSUERS": settings.service_account_issuers,
        "SERVICE_ACCOUNT_LOOKUP": settings.service_account_lookup,
        "OIDC_ISSUER_URL": settings.oidc_issuer_url,
        "OIDC_CLIENT_ID": settings.oidc_client_id,
        "OIDC_USERNAME_CLAIM": settings.oidc_username_claim,
        "OIDC_USERNAME_PREFIX": settings.oidc_username_prefix,
        "OIDC_GROUPS_CLAIM": settings.oidc_groups_claim,
        "OIDC_GROUPS_PREFIX": settings.oidc_groups_prefix,
        "OIDC_REQUIRED_CLAIMS": dict(p.split("=", 1) for p in settings.oidc_required_claim or ()),
        "OIDC_CA_FILE": settings.oidc_ca_file,
        "OIDC_SIGNING_ALGS": settings.oidc_signing_algs,
        "AUTHENTICATION_TOKEN_WEBHOOK_CONFIG_FILE": settings.authentication_token_webhook_config_file,
        "AUTHORIZATION_WEBHOOK_CONFIG_FILE": settings.authorization_webhook_config_file,
        "AUTHORIZATION_WEBHOOK_CACHE_AUTHORIZED_TTL": settings.authorization_webhook_cache_authorized_ttl,
        "AUTHORIZATION_WEBHOOK_CACHE_UNAUTHORIZED_TTL": settings.authorization_webhook_cache_unauthorized_ttl,
        "AUTHENTICATION_TOKEN_WEBHOOK_VERSION": settings.authentication_token_webhook_version,
        "AUTHENTICATION_TOKEN_WEBHOOK_CACHE_TTL": settings.authentication_token_webhook_cache_ttl,
        "REQUESTHEADER_USERNAME_HEADERS": settings.requestheader_username_headers or (),
        "REQUESTHEADER_GROUP_HEADERS": settings.requestheader_group_headers or (),
        "REQUESTHEADER_EXTRA_HEADERS_PREFIX": settings.requestheader_extra_headers_prefix or (),
        "REQUESTHEADER_CLIENT_CA_FILE": settings.requestheader_client_ca_file,
        "REQUESTHEADER_ALLOWED_NAMES": settings.requestheader_allowed_names or (),
        "PROXY_CLIENT_CERT_FILE": settings.proxy_client_cert_file
        or settings.pki_file(defaults.FRONT_PROXY_CLIENT_CERT),
        "PROXY_CLIENT_KEY_FILE": settings.proxy_client_key_file or settings.pki_file(defaults.FRONT_PROXY_CLIENT_KEY),
        "FRONT_PROXY_CA_FILE": None
        if settings.proxy_client_cert_file
        else settings.pki_file(defaults.FRONT_PROXY_CA_CERT),
        "CLIENT_CA_BUNDLE_FILE": settings.pki_file(defaults.CLIENT_CA_BUNDLE),
        "KUBELET_CLIENT_CERTIFICATE": settings.kubelet_client_certificate,
        "KUBELET_CLIENT_KEY": settings.kubelet_client_key,
        "KUBELET_CERTIFICATE_AUTHORITY": settings.kubelet_certificate_authority,
    }


def environment_flask_config(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The app's configuration from ORCH_* variables (wsgi.py, `flask db upgrade`); exits on a bad value."""
    try:
        settings = settings_from_env(os.environ if environ is None else environ)
    except ConfigError as err:
        raise SystemExit(f"orch-apiserver: {err}") from None
    if settings.database_url is None:
        os.makedirs(settings.data_path, exist_ok=True)  # the default SQLite file lives there
    return flask_config(settings)
