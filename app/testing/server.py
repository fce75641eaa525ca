"""TestServer: the real API server in this process, on a free port, with its own data directory.

It runs the same `create_app` as `orch-apiserver`, behind werkzeug's threaded TLS server instead of a forked
gunicorn: starting takes a fraction of a second and a test can read the server's log.
"""

from __future__ import annotations

import gc
import logging
import os
import shutil
import socket
import ssl
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from .bootstrap_cache import bootstrap_prefixes, bootstrap_template, capture_bootstrap, seed_bootstrap
from .faults import ActiveFault, active_fault
from .log import ServerLog
from .manifests import Manifests
from .schema_cache import seed_sqlite

#: Stock clients speak the reference's names, so a test server defaults to the k8s.io domain.
DEFAULT_API_DOMAIN = "k8s.io"
READY_TIMEOUT = 30.0
CRD_TIMEOUT = 30.0
NODES_TIMEOUT = 30.0


class TestServerError(RuntimeError):
    """The server could not start or become ready; the message ends with the server's log."""

    __test__ = False  # not a pytest test class


class _PeerCertHandler(WSGIRequestHandler):
    """Hands the verified client certificate to the app, as the gunicorn worker does."""

    def make_environ(self) -> dict[str, Any]:
        from ..auth.x509 import PEER_CERT_KEY

        environ = super().make_environ()
        getpeercert = getattr(self.connection, "getpeercert", None)
        der = getpeercert(binary_form=True) if getpeercert else None
        if der:
            environ[PEER_CERT_KEY] = der
        return environ

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        logging.getLogger(f"{__package__}.access").debug('"%s" %s %s', self.requestline, code, size)


def _free_port(host: str) -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class TestServer:
    """`with TestServer() as server:` a ready server; `server.kubeconfig` is an admin kubeconfig.

    api_domain: `k8s.io` (stock clients' names) or `orch.io`; crds: CRD files or directories installed and
    waited for (Established) before the server is handed out; database_url: SQLite in the data directory
    when None, else e.g. a PostgreSQL URL (its schema is created or upgraded); args: further server flags;
    simulate_nodes: N > 0 runs the simulated cluster (docs/simulation.md) and hands the server out once its N nodes
    are Ready, so pods a test creates get scheduled and run; fault_injection: serve the Fault kind, so that
    `server.fault(...)` can make requests fail (docs/testing.md).
    """

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        api_domain: str = DEFAULT_API_DOMAIN,
        crds: Iterable[str | os.PathLike[str]] = (),
        database_url: str | None = None,
        args: Sequence[str] = (),
        data_dir: str | None = None,
        simulate_nodes: int = 0,
        fault_injection: bool = True,
    ) -> None:
        self.api_domain = api_domain
        self.fault_injection = fault_injection
        self.simulate_nodes = simulate_nodes
        self.crds = [Path(p) for p in crds]
        self.database_url = database_url
        self.args = list(args)
        self._own_data_dir = data_dir is None
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="orch-testserver-")
        self.host = "127.0.0.1"
        self.port = 0
        self.log = ServerLog()
        self._app: Any = None
        self._httpd: BaseWSGIServer | None = None
        self._thread: threading.Thread | None = None
        self._baseline: dict[str, str] = {}
        self._manifests: Manifests | None = None

    # -- life cycle ---------------------------------------------------------------------------------

    def start(self) -> Self:
        self.log.attach()
        collecting = gc.isenabled()
        gc.disable()  # the start makes ~100k objects that live on: collecting while it runs costs ~0.1 s, frees nothing
        try:
            self._start()
        except Exception as err:
            self.stop()
            raise TestServerError(
                f"orch-apiserver test server did not start: {err}\n--- server log ---\n{self.log.text()}"
            ) from err
        finally:
            if collecting:
                gc.enable()
        return self

    def _start(self) -> None:
        from .. import create_app, defaults, pki
        from .. import server as serving
        from ..auth.sakeys import ensure_signing_key
        from ..cli import parse_settings
        from ..config import flask_config
        from ..lifecycle import post_start_hooks

        self.port = _free_port(self.host)
        argv = [
            "--data-dir",
            self.data_dir,
            "--bind-address",
            self.host,
            "--secure-port",
            str(self.port),
            "--api-domain",
            self.api_domain,
        ]
        if self.database_url:
            argv += ["--database-url", self.database_url]
        if self.simulate_nodes:
            argv += ["--simulate-nodes", str(self.simulate_nodes)]
        if self.fault_injection:
            argv.append("--enable-fault-injection")
        try:
            settings = parse_settings(argv + self.args, environ={})  # ORCH_* of the caller's shell stay out
        except SystemExit:  # argparse has printed why to stderr
            raise TestServerError(f"invalid server flags {self.args!r} (the reason is printed above)") from None
        self.settings = settings
        with pki.throwaway_keys():  # EC P-256, not RSA: made in no time (docs/testing.md says what else differs)
            self.kubeconfig = serving.prepare(settings).kubeconfig
            ensure_signing_key(settings.service_account_signing_key)
        capture = self._seed_database(settings)
        self._app = create_app(flask_config(settings))
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(settings.serving_cert_file, settings.serving_key_file)
        context.load_verify_locations(settings.pki_file(defaults.CLIENT_CA_BUNDLE))
        context.verify_mode = ssl.CERT_OPTIONAL  # requested, not required: anonymous requests still work
        self._httpd = make_server(
            self.host, self.port, self._app, threaded=True, ssl_context=context, request_handler=_PeerCertHandler
        )
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"orch-testserver-{self.port}",
            daemon=True,
        )
        self._thread.start()
        post_start_hooks(self._app).start()  # the controllers and bootstrap hooks, as at a gunicorn worker's boot
        self._manifests = Manifests(self.kubeconfig, self.api_domain)
        self._wait_ready()
        if self.simulate_nodes:
            self._wait_nodes_ready()  # before the baseline: a reset keeps the simulated nodes
        if capture is not None:  # before anything of the caller's is written
            capture_bootstrap(*capture, bootstrap_prefixes(self._app))
        if self.crds:
            self.apply_crds(self.crds)
        self._baseline = self._snapshot()

    def _seed_database(self, settings: Any) -> tuple[str, Path] | None:
        """A fresh SQLite database from the bootstrap template, else the schema template, else migrated. Returns
        (database file, bootstrap template) when that template is still to be captured once the server is ready."""
        from .. import defaults

        sqlite_file = None if settings.database_url else os.path.join(settings.data_path, defaults.SQLITE_FILE)
        bootstrap = None
        if sqlite_file and not os.path.exists(sqlite_file) and not self.args:  # flags may change what a start writes
            bootstrap = bootstrap_template(self.api_domain, self.simulate_nodes, self.fault_injection)
            if bootstrap and seed_bootstrap(bootstrap, sqlite_file):
                return None
        if not (sqlite_file and seed_sqlite(sqlite_file)):
            from ..storage.schema import ensure_schema

            ensure_schema(settings.resolved_database_url, upgrade=True)
        return (sqlite_file, bootstrap) if sqlite_file and bootstrap else None

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._app is not None:
            self._app.extensions["orch.stop"]()
            self._app = None
        if self._manifests is not None:
            self._manifests.close()
            self._manifests = None
        self.log.detach()
        if self._own_data_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- what a test uses ----------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"https://{self.host}:{self.port}"

    @property
    def ca_file(self) -> str:
        from .. import defaults

        return self.settings.pki_file(defaults.CA_CERT)

    @property
    def client_cert(self) -> tuple[str, str]:
        from .. import defaults

        return self.settings.pki_file(defaults.ADMIN_CERT), self.settings.pki_file(defaults.ADMIN_KEY)

    @property
    def manifests(self) -> Manifests:
        if self._manifests is None:
            raise TestServerError("the test server is not running")
        return self._manifests

    def api_client(self) -> Any:
        """An official-client `ApiClient` for the admin (the `kubernetes` package must be installed)."""
        from kubernetes import config

        return config.new_client_from_config(config_file=self.kubeconfig)

    def apply(self, source: str | os.PathLike[str] | dict | list, namespace: str | None = None) -> list[dict]:
        """Server-side apply of a manifest: a YAML file or directory, YAML text, or objects."""
        return self.manifests.apply(source, namespace)

    def apply_crds(self, sources: Iterable[str | os.PathLike[str]], timeout: float = CRD_TIMEOUT) -> list[dict]:
        """Apply CRD files or directories and wait until every CRD is Established."""
        applied: list[dict] = []
        for source in sources:
            applied += self.manifests.apply(Path(source))
        for crd in applied:
            self.manifests.wait_established(crd["metadata"]["name"], timeout)
        return applied

    def fault(self, name: str | None = None, **keywords: Any) -> AbstractContextManager[ActiveFault]:
        """`with server.fault(verbs=["update"], resources=["configmaps"], error=409, times=2) as f:` a Fault
        while the block runs (deleted after it); `f.matched` is how many requests it took. Keywords: the
        match lists (verbs, resources, subresources, namespaces, names, users, groups, user_agents,
        field_managers), one action (error=CODE, delay=SECONDS, after_write=CODE, expire_after_events=N,
        close_after_events=N, conflict_once=True; reason, message, retry_after refine an error), times,
        probability and seed (app/faults/manifest.py)."""
        if not self.fault_injection:
            raise TestServerError("this test server was started with fault_injection=False")
        return active_fault(self.manifests, name, keywords)

    def create_namespace(self, prefix: str = "test-") -> str:
        return self.manifests.create_namespace(prefix)

    def delete_namespace(self, name: str) -> None:
        self.manifests.delete_namespace(name)

    def reset(self) -> None:
        """Remove every object the tests made and bring back built-in objects they deleted (CRDs given at
        start stay). Objects are removed from storage directly, with DELETED events for open watches."""
        storage = self._services().storage
        from ..storage.store import KeyExists

        listed = storage.list("/").items
        # one transaction; an object changed meanwhile (a controller's cascade) is left to the next reset
        storage.delete_many([stored for stored in listed if stored.key not in self._baseline])
        present = {stored.key for stored in listed}
        for key, data in self._baseline.items():
            if key not in present:
                try:
                    storage.create(key, _fresh(data))
                except KeyExists:
                    pass

    # -- internals -----------------------------------------------------------------------------------

    def _services(self) -> Any:
        if self._app is None:
            raise TestServerError("the test server is not running")
        return self._app.extensions["orch"]

    def _snapshot(self) -> dict[str, str]:
        return {stored.key: stored.data for stored in self._services().storage.list("/").items}

    def _wait_ready(self) -> None:
        from ..lifecycle import post_start_hooks

        deadline = time.monotonic() + READY_TIMEOUT
        hooks = post_start_hooks(self._app)
        while not hooks.finished and time.monotonic() < deadline:
            # watched in-process first: each /readyz poll (a TLS handshake, a request) took CPU from the hooks
            time.sleep(0.002)
        while True:  # then /readyz itself decides, as for any server
            status, body = self.manifests.raw_get("/readyz")
            if status == 200:
                return
            if time.monotonic() >= deadline:
                raise TestServerError(f"not ready after {READY_TIMEOUT:.0f} s; /readyz answered {status}: {body[:500]}")
            time.sleep(0.01)

    def _wait_nodes_ready(self) -> None:
        from ..controllers.simulation.cluster import simulated_label
        from ..naming import Naming

        label = simulated_label(Naming(self.api_domain))
        deadline = time.monotonic() + NODES_TIMEOUT
        ready = 0
        while time.monotonic() < deadline:
            status, body = self.manifests.raw_get(f"/api/v1/nodes?labelSelector={label}%3Dtrue")
            ready = _ready_simulated_nodes(body, label) if status == 200 else 0
            if ready >= self.simulate_nodes:
                return
            time.sleep(0.02)
        raise TestServerError(f"{ready} of {self.simulate_nodes} simulated nodes Ready after {NODES_TIMEOUT:.0f} s")


def _ready_simulated_nodes(body: str, label: str) -> int:
    """How many simulated nodes of a NodeList are Ready and schedulable (not-ready taint gone)."""
    import orjson

    count = 0
    for node in orjson.loads(body).get("items") or []:
        ready = any(
            c.get("type") == "Ready" and c.get("status") == "True" for c in node.get("status", {}).get("conditions", [])
        )
        tainted = any(t.get("key", "").endswith("/not-ready") for t in node.get("spec", {}).get("taints") or [])
        count += ready and not tainted and node["metadata"].get("labels", {}).get(label) == "true"
    return count


def _fresh(data: str) -> dict:
    """A stored object without its revision and uid-independent fields the store sets again."""
    import orjson

    obj = orjson.loads(data)
    obj.get("metadata", {}).pop("resourceVersion", None)
    return obj
