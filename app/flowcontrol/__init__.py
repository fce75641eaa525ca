"""API Priority and Fairness (the reference's pkg/util/flowcontrol and its filter): every request, once its user
is known, is classified by the FlowSchemas to a priority level and a flow, then runs on one of the level's seats,
waits in one of its queues, or gets 429. See docs/flowcontrol.md.

- `dispatcher`: the configuration digest, classification, seats and the worker's share of them;
- `queueset`: one level's queues (shuffle sharding, fair queuing);
- `matching`: FlowSchema rules and flow distinguishers.
The bootstrap objects and their upkeep are a controller's (app/controllers/apfbootstrap.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..admission.source import ConfigurationSource
from .dispatcher import PriorityAndFairness, RequestRejected, Seat, WorkerShare

if TYPE_CHECKING:
    from flask import Flask

    from ..metrics import ServerMetrics
    from ..metrics.flowcontrol import FlowcontrolMetrics
    from ..registry.store import Registry
    from ..storage.hub import WatchHub

__all__ = ["EXTENSION_KEY", "PriorityAndFairness", "RequestRejected", "Seat", "WorkerShare", "build", "install"]


def build(
    registry: Registry, hub: WatchHub | None, share: WorkerShare, metrics: FlowcontrolMetrics | None
) -> PriorityAndFairness:
    """This worker's APF, following the configuration objects through the store (as admission follows its own)."""
    group = registry.naming.group("flowcontrol.apiserver")
    sources = [
        ConfigurationSource(registry, registry.catalog.known_type(group, "v1", plural), lambda obj: [obj], hub)
        for plural in ("flowschemas", "prioritylevelconfigurations")
    ]
    apf = PriorityAndFairness(registry.naming, sources[0].current, sources[1].current, share, metrics)
    apf.closers += [source.stop for source in sources]
    return apf


#: app.extensions key of this worker's PriorityAndFairness (absent with --enable-priority-and-fairness=false)
EXTENSION_KEY = "orch.apf"


def install(app: Flask, server_metrics: ServerMetrics) -> None:
    """With ENABLE_PRIORITY_AND_FAIRNESS: this worker's APF, from APF_WORKER_SHARE (the two in-flight limits,
    workers, threads, waiting threads or None; a bare app counts as one worker of the default threads)."""
    if not app.config.get("ENABLE_PRIORITY_AND_FAIRNESS"):
        return
    from .. import defaults
    from ..context import Services
    from ..lifecycle import stop_with_app
    from ..metrics.flowcontrol import build_flowcontrol_metrics

    readonly, mutating, workers, threads, waiting = app.config.get("APF_WORKER_SHARE") or (
        defaults.MAX_REQUESTS_INFLIGHT,
        defaults.MAX_MUTATING_REQUESTS_INFLIGHT,
        1,
        defaults.THREADS,
        None,
    )
    svc: Services = app.extensions["orch"]
    hub = svc.hub if app.config.get("BACKGROUND", True) else None
    apf = build(svc.registry, hub, WorkerShare.of(readonly, mutating, workers, threads, waiting), None)
    apf.metrics = build_flowcontrol_metrics(server_metrics)
    app.extensions[EXTENSION_KEY] = apf
    stop_with_app(app, apf.stop)
