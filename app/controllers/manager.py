"""The controllers of one server process: built from `--controllers`, each behind its own Lease, started
with the first request (after the default RBAC policy is reconciled) and stopped with the app."""

from __future__ import annotations

import copy
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import AlreadyExists, Conflict, NotFound
from ..lifecycle import add_post_start_hook, stop_with_app
from .apfbootstrap import ApfConfigurationProducer
from .audit import audit_hook
from .base import Client, Context, Controller, ControllerLoop
from .bootstrapsigner import BootstrapSigner, ensure_cluster_info
from .crd import CrdController
from .csrapproving import CsrApproving
from .csrcleaner import CsrCleaner
from .csrsigning import CsrSigning
from .garbagecollector import GarbageCollector
from .lease import LeaseElector, holder_identity
from .names import parse_controllers
from .namespacedefaults import RootCaPublisher, ServiceAccountController
from .podgc import PodGarbageCollector
from .resourcequota import ResourceQuotaController
from .simulation import SIMULATION_CONTROLLERS
from .storageprotection import PvcProtection, PvProtection
from .tokencleaner import TokenCleaner

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)

#: every controller a process may run: the controller manager's, then the simulated cluster's
ALL_CONTROLLERS: tuple[type[Controller], ...] = (
    CsrSigning,
    CsrApproving,
    CsrCleaner,
    TokenCleaner,
    BootstrapSigner,
    GarbageCollector,
    ServiceAccountController,
    RootCaPublisher,
    CrdController,
    ResourceQuotaController,
    PvcProtection,
    PvProtection,
    PodGarbageCollector,
    ApfConfigurationProducer,
    *SIMULATION_CONTROLLERS,
)
BUILDERS: dict[str, type[Controller]] = {c.name: c for c in ALL_CONTROLLERS}


def simulation_controllers(settings: dict) -> tuple[str, ...]:
    """The simulated cluster's controllers, all of them when --simulate-nodes is above 0 (--controllers does not
    name them: the simulation is one switch)."""
    return tuple(c.name for c in SIMULATION_CONTROLLERS) if int(settings.get("SIMULATE_NODES") or 0) > 0 else ()


def apf_controllers(settings: dict) -> tuple[str, ...]:
    """The priority-and-fairness configuration producer, with --enable-priority-and-fairness (the reference runs it
    as an apiserver post-start hook, whatever --controllers says)."""
    return (ApfConfigurationProducer.name,) if settings.get("ENABLE_PRIORITY_AND_FAIRNESS") else ()


def lease_name(ctx: Context, controller: str) -> str:
    return f"{ctx.naming.namespace_prefix}-controller-{controller}"


class Controllers:
    """The enabled controllers of a process, each run by a ControllerLoop while it holds its Lease."""

    def __init__(
        self,
        ctx: Context,
        enabled: tuple[str, ...],
        identity: str | None = None,
        lease_seconds: int = 15,
        renew_seconds: float = 5.0,
    ) -> None:
        self.ctx = ctx
        self.identity = identity or holder_identity()
        self.controllers = [BUILDERS[name](ctx) for name in enabled]
        self.loops = [
            ControllerLoop(
                c,
                LeaseElector(c.client, lease_name(ctx, c.name), self.identity, ctx.clock, lease_seconds, renew_seconds),
                retry_seconds=renew_seconds,
            )
            for c in self.controllers
        ]

    def not_running(self) -> list[str]:
        """Controllers whose loop is not running (not started yet, or ended)."""
        return [loop.controller.name for loop in self.loops if not loop.running]

    def get(self, name: str) -> Controller:
        return next(c for c in self.controllers if c.name == name)

    def start(self) -> None:
        for loop in self.loops:
            loop.start()

    def stop(self) -> None:
        for loop in self.loops:
            loop.stopping.set()
            loop.wake()
        for loop in self.loops:
            loop.stop()


def ensure_namespaced_policy(ctx: Context) -> None:
    """The default policy's Roles and RoleBindings (system and public namespaces), added when missing."""
    from ..auth.rbac.defaults import DefaultPolicy

    policy = DefaultPolicy(ctx.naming)
    server = Client(ctx, None)
    for plural, objects in (("roles", policy.roles()), ("rolebindings", policy.role_bindings())):
        rt = ctx.kind("rbac.authorization", plural)
        for obj in objects:
            md = obj["metadata"]
            current = server.find(rt, md["namespace"], md["name"])
            field = "rules" if plural == "roles" else "subjects"
            try:
                if current is None:
                    server.create(rt, md["namespace"], copy.deepcopy(obj))
                elif (current.get("metadata") or {}).get("annotations", {}).get(
                    f"{ctx.naming.group('rbac.authorization')}/autoupdate"
                ) != "false":
                    missing = [x for x in obj.get(field) or [] if x not in (current.get(field) or [])]
                    if missing:
                        server.update(rt, md["namespace"], {**current, field: [*(current.get(field) or []), *missing]})
            except (AlreadyExists, Conflict, NotFound):
                log.info("default %s %s/%s changed meanwhile", plural, md["namespace"], md["name"])


def install_controllers(app: Flask) -> None:
    """Wire the controllers into `app`: `CONTROLLERS` (from --controllers; absent: none, as in test apps)."""
    svc = app.extensions["orch"]
    enabled = (
        parse_controllers(str(app.config.get("CONTROLLERS") or ""))
        + simulation_controllers(app.config)
        + apf_controllers(app.config)
    )
    if not enabled and not app.config.get("SERVER_URL"):
        return
    ctx = Context(
        svc.registry,
        svc.naming,
        svc.hub,
        app.extensions.get("orch.auth"),
        settings=dict(app.config),
        audit=audit_hook(app),
    )
    manager = Controllers(ctx, enabled)
    app.extensions["orch.controllers"] = manager

    def start() -> None:
        ensure_namespaced_policy(ctx)
        server_url, ca_file = app.config.get("SERVER_URL"), app.config.get("CLUSTER_CA_CERT_FILE")
        if server_url and ca_file:
            ensure_cluster_info(Client(ctx, None), server_url, Path(ca_file).read_bytes())
        if app.config.get("BACKGROUND", True):
            manager.start()

    add_post_start_hook(app, "start-orch-controllers", start)  # after rbac/bootstrap-roles: roles exist

    stop_with_app(app, manager.stop)
