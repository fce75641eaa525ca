"""create_app: the one place that knows storage, registry, auth and HTTP together."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

from flask import Flask, request

from . import defaults, features, pipeline
from . import lifecycle as post_start
from .api.errors import install_error_handlers
from .api.fanout import SocketFanout
from .api.render import LIST_MEMORY_KEY
from .api.resources import custom_group_blueprint, group_version_blueprint
from .auth.authz import parse_modes
from .context import Services
from .durations import parse_duration
from .memory import ListMemory, tune_allocator
from .naming import Naming
from .observability import install_observability
from .registry.custom_catalog import CustomCatalog
from .registry.history import retention_rules
from .registry.keys import resource_prefix
from .registry.live_namespaces import LiveNamespaces
from .registry.namespaces import NamespaceLifecycle
from .registry.service_resolver import service_resolver
from .registry.store import Registry
from .resources.crd_cel import GATE as CEL_GATE
from .resources.custom import types_from_crd
from .storage.encryption_config import load_if_present
from .storage.hub import WatchHub
from .storage.store import Compactor, PoolSize, Storage
from .versions import apply_runtime_config

DEFAULTS: dict[str, Any] = {
    "DATA_DIR": defaults.DATA_DIR,
    "DATABASE_URL": defaults.DATABASE_URL,
    "API_DOMAIN": defaults.API_DOMAIN,
    "HISTORY_WINDOW_SECONDS": parse_duration(defaults.HISTORY_WINDOW),
    "AUTHORIZATION_MODE": defaults.AUTHORIZATION_MODE,
    # how often a process looks for other processes' writes: PostgreSQL also wakes it by NOTIFY, SQLite
    # only polls (an indexed probe of the change log), so it polls more often
    "WATCH_POLL_INTERVAL": None,
    "BACKGROUND": True,  # background threads (namespace lifecycle, compaction, watch hub)
    "AGGREGATION": True,  # the aggregation layer's Local APIServices, probes and published trust
    "ADMISSION_PLUGINS": None,  # None: the default ones (app/admission/plugins.py)
    "DATABASE_POOL": (defaults.DATABASE_POOL_SIZE, defaults.THREADS + defaults.BACKGROUND_DATABASE_CONNECTIONS),
    "MAX_LIST_MEMORY": 0,  # bytes of list responses in flight in this process (0: no limit; flags set a share)
    "ENABLE_PRIORITY_AND_FAIRNESS": False,  # a bare app (tests of other parts) limits nothing; the flag's default is on
}


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Wire storage, registry, auth and HTTP. Touches no database until the first request."""

    from .api.wire import ApiRequest

    app = Flask(__name__)
    app.request_class = ApiRequest
    app.config.update(DEFAULTS)
    app.config.update(config or {})
    if not app.config["DATABASE_URL"]:
        data_dir = os.path.abspath(app.config["DATA_DIR"])
        os.makedirs(data_dir, exist_ok=True)
        app.config["DATABASE_URL"] = f"sqlite:///{data_dir}/{defaults.SQLITE_FILE}"
    parse_modes(app.config["AUTHORIZATION_MODE"])

    from .resources import add_fault_kind, build_catalog

    naming = Naming(app.config["API_DOMAIN"])
    catalog = build_catalog(naming)
    if app.config.get("FAULT_INJECTION"):
        add_fault_kind(catalog, naming)
    apply_runtime_config(catalog, app.config.get("RUNTIME_CONFIG") or (), naming)  # served versions
    retention = dict(app.config.get("HISTORY_RETENTION") or ())  # `*`: the rest's window (else --history-window)
    window = float(retention.pop("*", app.config["HISTORY_WINDOW_SECONDS"]))
    rules = retention_rules(tuple(retention.items()), catalog)
    storage = Storage(
        app.config["DATABASE_URL"],
        window,
        retention=rules,
        pool=PoolSize(*app.config["DATABASE_POOL"]),
        encryption=load_if_present(app.config.get("ENCRYPTION_PROVIDER_CONFIG"), naming.domain),
    )
    registry = Registry(storage, catalog, naming)
    poll = app.config["WATCH_POLL_INTERVAL"] or (0.05 if storage.is_sqlite else 0.25)
    hub = WatchHub(storage, poll_interval=float(poll))
    registry.hub = hub
    if app.config["BACKGROUND"]:
        namespaces = resource_prefix(catalog.known_type("", "v1", "namespaces"))
        registry.live_namespaces = LiveNamespaces(storage, hub, namespaces)
    svc = Services(
        naming=naming, catalog=catalog, storage=storage, registry=registry, hub=hub, settings=dict(app.config)
    )
    app.extensions["orch"] = svc
    tune_allocator()  # before the worker's threads start (app/memory.py)
    app.extensions[LIST_MEMORY_KEY] = ListMemory(int(app.config["MAX_LIST_MEMORY"]), defaults.LIST_MEMORY_WAIT)
    lifecycle = NamespaceLifecycle(registry, catalog, naming)
    app.extensions["orch.lifecycle"] = lifecycle
    app.extensions[features.EXTENSION_KEY] = features.FeatureGates(app.config.get("FEATURE_GATES"))

    install_error_handlers(app)
    _register_blueprints(app, svc)
    _install_startup(app, svc, lifecycle)
    observe = install_observability(app)
    _install_aggregation(app, svc)
    _install_authentication(app)
    skip_authorization = _install_authorization(app)
    _install_admission(app, svc)
    pipeline.install(
        app,
        [  # the handler chain, in the reference's order (app/pipeline.py)
            pipeline.request_info(),
            observe,
            pipeline.authenticate(lambda: app.extensions["orch.auth"]),  # per request: tests may swap either
            pipeline.impersonate(lambda: app.extensions["orch.auth"].authorizer, svc.naming),
            pipeline.priority_and_fairness(_install_priority_and_fairness(app), svc.naming),
            pipeline.authorize(lambda: app.extensions["orch.authz"], skip_authorization),
            *_fault_injection(app, svc),
            pipeline.admission_effects(),
        ],
    )
    from .controllers.manager import install_controllers

    install_controllers(app)  # after authorization: controllers start once the default policy exists
    _install_component_statuses(app, svc)
    post_start.install_autoregister_check(app, lambda: _all_group_versions_served(app, svc))
    from .storage.cli import db_cli

    app.cli.add_command(db_cli)
    from .api.upgrade import websocket_routing
    from .api.wire import go_reason_phrases

    app.wsgi_app = go_reason_phrases(websocket_routing(app.wsgi_app))  # type: ignore[method-assign,assignment]
    return app


def _fault_injection(app: Flask, svc: Services) -> list[pipeline.Step]:
    """The chain's faults step, with --enable-fault-injection only (the Fault kind is served then only)."""
    if not app.config.get("FAULT_INJECTION"):
        return []
    from .faults import Injector
    from .resources.testing import PLURAL, VERSION, fault_group

    return [pipeline.faults(Injector(svc.registry, svc.catalog.known_type(fault_group(svc.naming), VERSION, PLURAL)))]


def _register_blueprints(app: Flask, svc: Services) -> None:
    from .api import discovery, health, openapi

    for bp in (discovery.bp, openapi.bp, health.bp):
        app.register_blueprint(bp)
    for group, versions in svc.catalog.group_versions().items():
        for version in versions:
            app.register_blueprint(group_version_blueprint(group, version))
    app.register_blueprint(custom_group_blueprint())  # the live catalog's groups, after the fixed ones


def _install_component_statuses(app: Flask, svc: Services) -> None:
    """What `kubectl get componentstatuses` reports: the store (a revision read) and the in-server controllers."""
    probes = svc.catalog.known_type("", "v1", "componentstatuses").strategy.probes  # type: ignore[attr-defined]

    def storage() -> tuple[bool, str, str]:
        try:
            svc.storage.current_revision()
        except Exception:  # noqa: BLE001 - reported as unhealthy, without the driver's words
            return False, "", "the database does not answer"
        return True, "ok", ""

    probes["storage-0"] = storage
    controllers = app.extensions.get("orch.controllers")
    if controllers is not None:

        def controller_manager() -> tuple[bool, str, str]:
            stopped = controllers.not_running()
            return (False, "", "not running: " + ", ".join(stopped)) if stopped else (True, "ok", "")

        probes["controller-manager"] = controller_manager


def _all_group_versions_served(app: Flask, svc: Services) -> bool:
    """Every built-in group version has its routes (custom ones are served by the live catalog's catch-all)."""
    rules = {rule.rule for rule in app.url_map.iter_rules()}
    return all(
        (f"/apis/{rt.group}/{rt.version}" if rt.group else f"/api/{rt.version}") + "/<path:rest>" in rules
        for rt in svc.catalog
        if rt.custom is None
    )


def _install_startup(app: Flask, svc: Services, lifecycle: NamespaceLifecycle) -> None:
    """System namespaces and background threads start as post-start hooks: at worker boot, or with the
    first request of a process nobody booted (app/lifecycle.py)."""
    post_start.install(app)

    def start_background() -> None:
        if app.config["BACKGROUND"]:
            custom_catalog.start()
            lifecycle.start()
            compactor.start()
            svc.hub.start()
            if endpoints is not None:
                endpoints.start()

    # the reference's names: its bootstrap controller makes the system namespaces
    post_start.add_post_start_hook(app, "bootstrap-controller", lifecycle.bootstrap)
    post_start.add_post_start_hook(app, "generic-apiserver-start-informers", start_background)

    def stop() -> None:
        """Stop the background threads and close connections (tests, graceful shutdown)."""
        post_start.post_start_hooks(app).stopping.set()
        lifecycle.stop()
        custom_catalog.stop()
        if endpoints is not None:
            endpoints.stop()
        compactor.stop()
        fanout.stop()
        svc.hub.stop()
        svc.storage.dispose()

    compactor = Compactor(svc.storage)
    resolve = service_resolver(svc.registry)
    cel = app.extensions[features.EXTENSION_KEY].enabled(CEL_GATE)
    custom_catalog = CustomCatalog(
        svc.registry,
        svc.hub,
        svc.catalog.known_type(svc.naming.group("apiextensions"), "v1", "customresourcedefinitions"),
        lambda crd: types_from_crd(crd, svc.naming, resolve, cel=cel),
    )
    endpoints = None
    if app.config.get("ENDPOINT_ADDRESS") and app.config.get("SECURE_PORT"):
        from .registry.apiserver_endpoints import ApiserverEndpoints

        endpoints = ApiserverEndpoints(
            svc.registry,
            svc.catalog,
            svc.naming,
            app.config["ENDPOINT_ADDRESS"],
            int(app.config["SECURE_PORT"]),
            float(app.config.get("ENDPOINT_LEASE_DURATION") or 15.0),
        )
    fanout = SocketFanout()  # started by the first watch served from a real socket
    app.extensions["orch.fanout"] = fanout
    app.extensions["orch.stop"] = stop


def _install_aggregation(app: Flask, svc: Services) -> None:
    """The aggregation layer: every process follows the APIServices, keeps the Local ones and probes the
    extension servers; the front proxy's trust is published for extension servers to read."""

    from .api.aggregation import EXTENSION_KEY
    from .controllers import aggregation as agg
    from .metrics.aggregation import UnavailableAPIServicesCollector
    from .observability import observability

    cert = (app.config.get("PROXY_CLIENT_CERT_FILE"), app.config.get("PROXY_CLIENT_KEY_FILE"))
    usable = cert[0] and cert[1] and os.path.exists(cert[0]) and os.path.exists(cert[1])
    aggregation = agg.Aggregation(
        svc.registry,
        svc.naming,
        service_resolver(svc.registry),
        (str(cert[0]), str(cert[1])) if usable else None,
    )
    app.extensions[EXTENSION_KEY] = aggregation
    observability(app).metrics.add_collector(UnavailableAPIServicesCollector(aggregation.states))
    if not app.config["AGGREGATION"]:
        return  # tests of other parts: no Local APIServices, no ConfigMap written at start
    # the reference's hook names
    post_start.add_post_start_hook(
        app,
        "start-cluster-authentication-info-controller",
        lambda: agg.publish_authentication_info(svc.registry, svc.naming, agg.authentication_info(dict(app.config))),
    )
    if app.config["BACKGROUND"]:
        post_start.add_post_start_hook(app, "apiservice-registration-controller", aggregation.start)
    post_start.stop_with_app(app, aggregation.stop)


def _install_authentication(app: Flask) -> None:
    """The authenticators and the legacy service-account token controller (started with the process)."""
    from .auth.legacy_tokens import TokenController, TokenSecrets
    from .auth.setup import build_authentication

    svc: Services = app.extensions["orch"]
    auth = build_authentication(app.config, svc.registry, svc.naming, svc.hub if app.config["BACKGROUND"] else None)
    app.extensions["orch.auth"] = auth
    controller = TokenController(TokenSecrets(svc.registry, auth.issuer, auth.names, lambda: auth.ca_pem))
    if app.config["BACKGROUND"]:  # fills legacy service-account token secrets
        post_start.add_post_start_hook(app, "start-legacy-token-tracking-controller", controller.start)
    post_start.stop_with_app(app, controller.stop)


def _install_authorization(app: Flask) -> Callable[[], bool]:
    """The chain of --authorization-mode; with RBAC, the default policy reconciled at start and aggregated
    ClusterRoles kept in sync by the process. Returns when a request may skip authorization."""
    from .auth.node import NodeAuthorizer
    from .auth.rbac import escalation
    from .auth.rbac.aggregation import ClusterRoleAggregation, as_server
    from .auth.rbac.reconcile import Reconciler

    svc: Services = app.extensions["orch"]
    authorizer = app.extensions["orch.auth"].authorizer
    app.extensions["orch.authz"] = authorizer
    rbac_on = "RBAC" in parse_modes(app.config["AUTHORIZATION_MODE"])
    resolver = next((a.resolver for a in authorizer.authorizers if hasattr(a, "resolver")), None)
    if resolver is not None:
        escalation.install(svc.catalog, escalation.EscalationCheck(authorizer, resolver, svc.naming))
    for graph in (a.graph for a in authorizer.authorizers if isinstance(a, NodeAuthorizer)):
        post_start.stop_with_app(app, graph.close)  # the Node authorizer's graph stops following
    reconciler = Reconciler(svc.registry)
    if rbac_on:  # the default policy is in place before any request is authorized
        post_start.add_post_start_hook(app, "rbac/bootstrap-roles", lambda: as_server(reconciler.reconcile))
        if app.config["BACKGROUND"]:
            rt = svc.catalog.known_type(svc.naming.group("rbac.authorization"), "v1", "clusterroles")
            aggregation = ClusterRoleAggregation(svc.registry, reconciler, rt)
            post_start.add_post_start_hook(app, "start-clusterrole-aggregation", aggregation.start)
            post_start.stop_with_app(app, aggregation.stop)

    policy_exists = not rbac_on

    def probe_before_policy() -> bool:
        """Until the default policy exists, health probes pass as that policy would let them (it grants them
        to everyone): a starting server answers liveness instead of 403."""
        nonlocal policy_exists
        if policy_exists:
            return False
        if post_start.post_start_hooks(app).done("rbac/bootstrap-roles"):
            policy_exists = True  # for good: nothing asked after it exists
            return False
        return request.method == "GET" and _is_health_path(request.path)

    return probe_before_policy


def _install_priority_and_fairness(app: Flask) -> Callable[[], Any]:
    """This worker's API Priority and Fairness (app/flowcontrol), when enabled; what the pipeline step asks for."""
    from . import flowcontrol
    from .observability import observability

    flowcontrol.install(app, observability(app).metrics)
    return lambda: app.extensions.get(flowcontrol.EXTENSION_KEY)


def _install_admission(app: Flask, svc: Services) -> None:
    """The registry's admission chain (what it leaves on a request is the pipeline's `admission effects`)."""
    from .admission.plugins import build_chain, enabled_plugins
    from .observability import EXTENSION_KEY

    names = app.config["ADMISSION_PLUGINS"]
    names = enabled_plugins() if names is None else names
    metrics = app.extensions[EXTENSION_KEY].metrics
    svc.registry.admission = build_chain(
        names,
        svc.registry,
        svc.naming,
        svc.hub if app.config["BACKGROUND"] else None,
        service_resolver(svc.registry),
        metrics,
    )


def _is_health_path(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in post_start.HEALTH_PATHS)


logging.getLogger(__name__).addHandler(logging.NullHandler())
