"""Serving: PKI and kubeconfig preparation, gunicorn settings, and a gthread worker that exposes the peer cert."""
from __future__ import annotations

import ipaddress
import os
import signal
import socket
import ssl
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

from gunicorn.app.base import BaseApplication
from gunicorn.http.message import Request
from gunicorn.http.parser import RequestParser
from gunicorn.workers.gthread import ThreadWorker

from app import pki
from app.auth.user import MASTERS_GROUP
from app.metrics.multiprocess import child_exit as metrics_child_exit
from app.naming import Naming
from config import Settings, defaults, flask_config

PEER_CERT_KEY = "orch.peer_cert_der"
ADMIN_USER = "admin"

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
_request_local = threading.local()


def _peer_cert_der(sock: object) -> bytes | None:
    getpeercert = getattr(sock, "getpeercert", None)
    if getpeercert is None:
        return None
    try:
        return getpeercert(binary_form=True) or None
    except (ValueError, OSError):  # handshake not finished or connection gone: no identity
        return None


def with_peer_cert(app: WSGIApp) -> WSGIApp:
    """Copy the verified client leaf (DER) that the worker saw on this thread into the environ."""

    def peer_cert_app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        der = getattr(_request_local, "peer_cert_der", None)
        if der:
            environ[PEER_CERT_KEY] = der
        else:
            environ.pop(PEER_CERT_KEY, None)
        return app(environ, start_response)

    return peer_cert_app


#: the longest request line (method, URI, version) read: the reference's 1 MiB header limit (Go's
#: MaxHeaderBytes), where gunicorn caps its own setting at 8190 bytes
REQUEST_LINE_LIMIT = 1 << 20


class BoundedRequest(Request):
    """gunicorn's request with the request line bounded by REQUEST_LINE_LIMIT (its setting is 0: unlimited)."""

    def read_line(self, unreader: Any, buf: Any, limit: int = 0) -> Any:
        return super().read_line(unreader, buf, limit or REQUEST_LINE_LIMIT)


class PeerCertWorker(ThreadWorker):
    """gthread worker that hands each request the client certificate the TLS layer verified."""

    def init_process(self) -> None:
        # gunicorn builds every parser from this class attribute; there is no setting for the message class
        RequestParser.mesg_class = BoundedRequest
        super().init_process()

    def load_wsgi(self) -> None:
        from app.shutdown import worker_booted

        super().load_wsgi()
        self.app_wsgi = self.wsgi
        self.wsgi = with_peer_cert(self.wsgi)
        worker_booted(self.app_wsgi)  # post-start hooks run now, not with the first request

    def init_signals(self) -> None:
        super().init_signals()
        # Ctrl-C reaches the workers too (one process group): end watches and drain, as on SIGTERM
        signal.signal(signal.SIGINT, self.handle_exit)

    def handle_exit(self, sig: int, frame: Any) -> None:
        from app.shutdown import worker_exiting

        super().handle_exit(sig, frame)
        worker_exiting(getattr(self, "app_wsgi", None))  # end open watches cleanly, then drain

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        """A request gunicorn could not parse (or an app crash it caught) answered with a Status body."""
        from app.api.wire import error_response

        if isinstance(exc, ssl.SSLError):  # as the reference: counted, logged, the connection closed
            from app.observability import count_tls_handshake_error

            count_tls_handshake_error(getattr(self, "app_wsgi", None))
            self.log.info("TLS handshake error from %s: %s", (addr or ("",))[0], exc)
            return
        code, message = below_app_error(exc)
        if code >= 500:
            self.log.exception("Error handling request")
        else:
            self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], message)
        try:
            client.sendall(error_response(code, message))
        except OSError:
            self.log.debug("Failed to send error message.")

    def handle_request(self, req: Any, conn: Any) -> bool:
        # The request (and its streamed response) runs on this thread, so a thread-local is enough.
        _request_local.peer_cert_der = _peer_cert_der(conn.sock)
        try:
            return super().handle_request(req, conn)
        finally:
            _request_local.peer_cert_der = None


def below_app_error(exc: BaseException) -> tuple[int, str]:
    """The code and message of an error found while parsing a request (gunicorn's own classification)."""
    from gunicorn.http import errors

    if type(exc).__name__.startswith("InvalidResponseHeader"):  # a header the app wrote: the server's fault
        return 500, "Internal Server Error"
    if isinstance(exc, errors.LimitRequestLine):
        return 414, f"request URI too long: {exc}"
    if isinstance(exc, errors.LimitRequestHeaders):
        return 431, f"request header fields too large: {exc}"
    if isinstance(exc, errors.UnsupportedTransferCoding):
        return 501, str(exc)
    if isinstance(exc, errors.ExpectationFailed):
        return 417, str(exc)
    if isinstance(exc, errors.ForbiddenProxyRequest):
        return 403, "request forbidden"
    if isinstance(exc, errors.ParseException):
        return 400, f"malformed HTTP request: {exc}"
    return 500, "Internal Server Error"


_contexts: dict[tuple[Any, ...], ssl.SSLContext] = {}
_contexts_lock = threading.Lock()


def cached_ssl_context(conf: Any, default_factory: Callable[[], ssl.SSLContext]) -> ssl.SSLContext:
    """One SSLContext per worker process: gunicorn would otherwise reload cert, key and CAs per connection."""
    key = (conf.certfile, conf.keyfile, conf.ca_certs, conf.cert_reqs, conf.ciphers)
    with _contexts_lock:
        if key not in _contexts:
            context = default_factory()
            context.minimum_version = ssl.TLSVersion.TLSv1_2
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
    extra += settings.tls_san or ()
    for host in extra:
        if host not in hosts:
            hosts.append(host)
    return hosts


@dataclass(frozen=True)
class Prepared:
    kubeconfig: str
    serving_cert_from_cluster_ca: bool


def prepare(settings: Settings) -> Prepared:
    """Data directory, cluster CA, serving pair, client-CA bundle and admin.kubeconfig; idempotent."""
    os.makedirs(settings.data_path, exist_ok=True)
    naming = Naming(settings.api_domain)
    with pki.locked(settings.pki_dir):
        ca = pki.ensure_ca(settings.pki_file(defaults.CA_CERT), settings.pki_file(defaults.CA_KEY), f"{naming.namespace_prefix}-ca")
        if settings.tls_cert_file and settings.tls_private_key_file:
            serving = pki.load_pair(settings.tls_cert_file, settings.tls_private_key_file)
        else:
            serving = pki.ensure_serving_cert(
                ca, settings.serving_cert_file, settings.serving_key_file,
                naming.apiserver_name, serving_hosts(settings),
            )
        extra = pki.load_certificates(settings.client_ca_file) if settings.client_ca_file else []
        if settings.requestheader_client_ca_file:  # the front proxy's certificate must pass the handshake too
            extra += pki.load_certificates(settings.requestheader_client_ca_file)
        pki.write_bundle(settings.pki_file(defaults.CLIENT_CA_BUNDLE), [ca.cert, *extra])
        admin = pki.ensure_client_cert(
            ca, settings.pki_file(defaults.ADMIN_CERT), settings.pki_file(defaults.ADMIN_KEY),
            ADMIN_USER, [MASTERS_GROUP],
        )
        config = pki.kubeconfig(settings.server_url, ca.cert_pem, admin, naming.product, ADMIN_USER)
        pki.write_kubeconfig(settings.kubeconfig_path, config)
    return Prepared(settings.kubeconfig_path, pki.signed_by(serving.cert, ca.cert))


def gunicorn_options(settings: Settings) -> dict[str, Any]:
    ip = ipaddress.ip_address(settings.bind_address)
    host = f"[{ip}]" if ip.version == 6 else str(ip)
    return {
        "bind": [f"{host}:{settings.secure_port}"],
        "workers": settings.workers,
        "threads": settings.threads,
        "worker_class": f"{__name__}.PeerCertWorker",
        "certfile": settings.serving_cert_file,
        "keyfile": settings.serving_key_file,
        "ca_certs": settings.pki_file(defaults.CLIENT_CA_BUNDLE),
        "cert_reqs": ssl.CERT_OPTIONAL,
        "ssl_context": cached_ssl_context,
        "http_protocols": "h1",
        "preload_app": False,
        "timeout": defaults.WORKER_TIMEOUT,
        "graceful_timeout": defaults.GRACEFUL_TIMEOUT,
        "keepalive": defaults.KEEPALIVE,
        "limit_request_line": 0,  # long label/field selectors: bounded by BoundedRequest instead
        "proc_name": "orch-apiserver",
        # heartbeat files on tmpfs: a container's overlay filesystem can stall them into worker timeouts
        "worker_tmp_dir": "/dev/shm" if os.path.isdir("/dev/shm") else None,
        "control_socket_disable": True,  # a shared $HOME socket would clash between instances
        "child_exit": metrics_child_exit,  # a dead worker's live gauges leave the /metrics sums
    }


class ApiServer(BaseApplication):
    """gunicorn run in-process; each worker builds its own app (no preload: no state shared across fork)."""

    def __init__(self, load_app: Callable[[], WSGIApp], options: dict[str, Any], shutdown_delay: float = 0.0,
                 shutdown_signal: Any = None) -> None:
        self._load_app = load_app
        self._options = options
        self._shutdown_delay = shutdown_delay
        self._shutdown_signal = shutdown_signal
        super().__init__(prog="orch-apiserver")

    def run(self) -> None:
        """gunicorn's run, with a master that honours --shutdown-delay-duration (app/shutdown.py)."""
        from app.shutdown import DelayedShutdownArbiter

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


def _create_app(config: dict[str, Any]) -> WSGIApp:
    from app import create_app  # imported in the worker, after fork

    return create_app(config)


def run(settings: Settings) -> None:
    """Serve until signalled; gunicorn's arbiter exits the process."""
    from app.lifecycle import SHUTDOWN_SIGNAL_KEY, ShutdownSignal

    shutdown_signal = ShutdownSignal()  # made before the workers fork: they all see it
    config = {**flask_config(settings), SHUTDOWN_SIGNAL_KEY: shutdown_signal}
    ApiServer(partial(_create_app, config), gunicorn_options(settings), settings.shutdown_delay_duration,
              shutdown_signal).run()
