"""Serving: PKI and kubeconfig preparation and gunicorn settings (the worker itself is app/worker.py).

gunicorn is imported only when serving: the test server prepares its PKI here too (app/testing/server.py).
"""

from __future__ import annotations

import ipaddress
import math
import os
import socket
import ssl
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, partial
from typing import TYPE_CHECKING, Any

from . import defaults, pki
from .config import Settings, flask_config, split_host_port
from .metrics.multiprocess import child_exit as metrics_child_exit
from .naming import Naming
from .storage import encryption_config
from .tls import request_client_certificates
from .user import MASTERS_GROUP

if TYPE_CHECKING:
    from gunicorn.app.base import BaseApplication

ADMIN_USER = "admin"

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


_contexts: dict[tuple[Any, ...], ssl.SSLContext] = {}
_contexts_lock = threading.Lock()


def cached_ssl_context(conf: Any, default_factory: Callable[[], ssl.SSLContext]) -> ssl.SSLContext:
    """One SSLContext per worker process: gunicorn would otherwise reload cert, key and CAs per connection."""
    key = (conf.certfile, conf.keyfile, conf.ca_certs, conf.cert_reqs, conf.ciphers)
    with _contexts_lock:
        if key not in _contexts:
            context = default_factory()
            context.minimum_version = ssl.TLSVersion.TLSv1_2
            request_client_certificates(context)  # a bad client certificate is a 401, not a TLS alert
            _contexts[key] = context
        return _contexts[key]


def serving_hosts(settings: Settings) -> list[str]:
    """Names of the generated serving certificate: loopback, the addresses we are reached at, --tls-san, and
    the host's name when bound to all interfaces (clients on other hosts use it)."""
    hosts = ["127.0.0.1", "localhost"]
    bind = ipaddress.ip_address(settings.bind_address)
    extra = [] if bind.is_unspecified else [str(bind)]
    if bind.is_unspecified:
        extra.append(socket.gethostname().lower())
    if settings.advertise_address:
        extra.append(str(ipaddress.ip_address(settings.advertise_address)))
    if settings.external_hostname:  # the name externalized URLs (admin.kubeconfig) give clients
        extra.append(split_host_port(settings.external_hostname)[0])
    extra += settings.tls_san or ()
    for host in extra:
        if host not in hosts:
            hosts.append(host)
    return hosts


@dataclass(frozen=True)
class Prepared:
    kubeconfig: str
    serving_cert_from_cluster_ca: bool
    #: this start made the data dir's EncryptionConfiguration (encryption at rest turned on now)
    encryption_config_made: bool = False


def prepare(settings: Settings) -> Prepared:
    """Data directory, cluster CA, serving pair, client-CA bundle and admin.kubeconfig; idempotent."""
    os.makedirs(settings.data_path, exist_ok=True)
    naming = Naming(settings.api_domain)
    with pki.locked(settings.pki_dir):
        ca = pki.ensure_ca(
            settings.pki_file(defaults.CA_CERT), settings.pki_file(defaults.CA_KEY), f"{naming.namespace_prefix}-ca"
        )
        if settings.tls_cert_file and settings.tls_private_key_file:
            serving = pki.load_pair(settings.tls_cert_file, settings.tls_private_key_file)
        else:
            serving = pki.ensure_serving_cert(
                ca,
                settings.serving_cert_file,
                settings.serving_key_file,
                naming.apiserver_name,
                serving_hosts(settings),
            )
        if settings.front_proxy_ca_file:  # the aggregation layer's proxy identity, as kubeadm makes it
            front_proxy = pki.ensure_ca(
                settings.front_proxy_ca_file,
                settings.pki_file(defaults.FRONT_PROXY_CA_KEY),
                f"{naming.namespace_prefix}-front-proxy-ca",
            )
            pki.ensure_client_cert(
                front_proxy,
                settings.pki_file(defaults.FRONT_PROXY_CLIENT_CERT),
                settings.pki_file(defaults.FRONT_PROXY_CLIENT_KEY),
                defaults.FRONT_PROXY_CLIENT_NAME,
                [],
            )
        extra = pki.load_certificates(settings.client_ca_file) if settings.client_ca_file else []
        # read after the front-proxy CA exists: --requestheader-client-ca-file may name it on a first start
        if settings.requestheader_client_ca_file:  # the front proxy's certificate must pass the handshake too
            extra += pki.load_certificates(settings.requestheader_client_ca_file)
        pki.write_bundle(settings.pki_file(defaults.CLIENT_CA_BUNDLE), [ca.cert, *extra])
        admin = pki.ensure_client_cert(
            ca,
            settings.pki_file(defaults.ADMIN_CERT),
            settings.pki_file(defaults.ADMIN_KEY),
            ADMIN_USER,
            [MASTERS_GROUP],
        )
        config = pki.kubeconfig(settings.server_url, ca.cert_pem, admin, naming.product, ADMIN_USER)
        pki.write_kubeconfig(settings.kubeconfig_path, config)
        made = not settings.encryption_provider_config and encryption_config.ensure_default(
            settings.encryption_config_file, settings.api_domain
        )  # secure by default: Secrets encrypted with a key of the data dir's own
    return Prepared(settings.kubeconfig_path, pki.signed_by(serving.cert, ca.cert), made)


def gunicorn_options(settings: Settings) -> dict[str, Any]:
    from .flowcontrol.dispatcher import waiting_threads
    from .worker import worker_class

    ip = ipaddress.ip_address(settings.bind_address)
    host = f"[{ip}]" if ip.version == 6 else str(ip)
    return {
        "bind": [f"{host}:{settings.secure_port}"],
        "workers": settings.workers,
        "threads": settings.threads,
        "worker_class": worker_class(
            settings.read_header_timeout,
            settings.workers,
            # with APF on, its seats limit requests after authentication; the worker's blind limit stays off
            0 if settings.enable_priority_and_fairness else settings.max_requests_inflight,
            0 if settings.enable_priority_and_fairness else settings.max_mutating_requests_inflight,
            request_timeout=settings.request_timeout,
            body_buffer=settings.max_request_body_buffer,
            # a request waiting in an APF queue holds a thread: these wait, --threads run
            waiting_threads=(
                waiting_threads(settings.threads, settings.apf_waiting_threads)
                if settings.enable_priority_and_fairness
                else 0
            ),
        ),
        # open watches and idle keep-alive connections cost a descriptor, not a thread (app/worker.py)
        "worker_connections": defaults.WORKER_CONNECTIONS,
        "certfile": settings.serving_cert_file,
        "keyfile": settings.serving_key_file,
        "ca_certs": settings.pki_file(defaults.CLIENT_CA_BUNDLE),
        "cert_reqs": ssl.CERT_OPTIONAL,
        "ssl_context": cached_ssl_context,
        "http_protocols": "h1",
        "preload_app": False,
        "timeout": defaults.WORKER_TIMEOUT,
        "graceful_timeout": defaults.GRACEFUL_TIMEOUT,
        "keepalive": math.ceil(settings.idle_timeout),  # gunicorn takes whole seconds
        "limit_request_line": 0,  # long label/field selectors: bounded by BoundedRequest instead
        "proc_name": "orch-apiserver",
        # heartbeat files on tmpfs: a container's overlay filesystem can stall them into worker timeouts
        "worker_tmp_dir": "/dev/shm" if os.path.isdir("/dev/shm") else None,
        "control_socket_disable": True,  # a shared $HOME socket would clash between instances
        "child_exit": metrics_child_exit,  # a dead worker's live gauges leave the /metrics sums
    }


def __getattr__(name: str) -> Any:
    """`ApiServer`, made on first use."""
    if name == "ApiServer":
        return api_server_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def api_server_class() -> type[BaseApplication]:
    from gunicorn.app.base import BaseApplication

    class ApiServer(BaseApplication):
        """gunicorn run in-process; each worker builds its own app (no preload: no state shared across fork)."""

        def __init__(
            self,
            load_app: Callable[[], WSGIApp],
            options: dict[str, Any],
            shutdown_delay: float = 0.0,
            shutdown_signal: Any = None,
        ) -> None:
            self._load_app = load_app
            self._options = options
            self._shutdown_delay = shutdown_delay
            self._shutdown_signal = shutdown_signal
            super().__init__(prog="orch-apiserver")

        def run(self) -> None:
            """gunicorn's run, with a master that honours --shutdown-delay-duration (app/shutdown.py)."""
            from .shutdown import DelayedShutdownArbiter

            if self._shutdown_signal is None:
                super().run()
                return
            try:
                DelayedShutdownArbiter(self, self._shutdown_delay, self._shutdown_signal).run()
            except RuntimeError as err:
                print(f"\nError: {err}\n", file=sys.stderr, flush=True)
                sys.exit(1)

        def load_config(self) -> None:
            for name, value in self._options.items():
                if name in self.cfg.settings and value is not None:  # settings this gunicorn lacks are skipped
                    self.cfg.set(name, value)

        def load(self) -> WSGIApp:
            return self._load_app()

    return ApiServer


def _create_app(config: dict[str, Any]) -> WSGIApp:
    from . import create_app  # imported in the worker, after fork

    return create_app(config)


def run(settings: Settings) -> None:
    """Serve until signalled; gunicorn's arbiter exits the process."""
    from .lifecycle import SHUTDOWN_SIGNAL_KEY, ShutdownSignal

    shutdown_signal = ShutdownSignal()  # made before the workers fork: they all see it
    config = {**flask_config(settings), SHUTDOWN_SIGNAL_KEY: shutdown_signal}
    api_server_class()(
        partial(_create_app, config), gunicorn_options(settings), settings.shutdown_delay_duration, shutdown_signal
    ).run()
