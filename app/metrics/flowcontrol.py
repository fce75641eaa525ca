"""API Priority and Fairness metrics, named and labelled as the reference's (pkg/util/flowcontrol/metrics):
dispatched and rejected requests (counters), requests in queues and executing now (gauges summed over live
workers)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import child, multiprocess_enabled

if TYPE_CHECKING:
    from . import ServerMetrics

LABELS = ("priority_level", "flow_schema")


@dataclass
class FlowcontrolMetrics:
    dispatched: Any
    rejected: Any
    inqueue: Any
    executing: Any

    def dispatched_one(self, level: str, schema: str) -> None:
        child(self.dispatched, level, schema).inc()

    def rejected_one(self, level: str, schema: str, reason: str) -> None:
        child(self.rejected, level, schema, reason).inc()

    def inqueue_delta(self, level: str, schema: str, delta: int) -> None:
        child(self.inqueue, level, schema).inc(delta)

    def executing_delta(self, level: str, schema: str, delta: int) -> None:
        child(self.executing, level, schema).inc(delta)


def build_flowcontrol_metrics(server: ServerMetrics) -> FlowcontrolMetrics:
    from prometheus_client import Counter, Gauge

    families = None if multiprocess_enabled() else server.registry  # multiprocess: the scrape merges the files
    return FlowcontrolMetrics(
        Counter(
            "apiserver_flowcontrol_dispatched_requests_total",
            "Number of requests executed by API Priority and Fairness subsystem",
            LABELS,
            registry=families,
        ),
        Counter(
            "apiserver_flowcontrol_rejected_requests_total",
            "Number of requests rejected by API Priority and Fairness subsystem",
            (*LABELS, "reason"),
            registry=families,
        ),
        Gauge(
            "apiserver_flowcontrol_current_inqueue_requests",
            "Number of requests currently pending in queues of the API Priority and Fairness subsystem",
            LABELS,
            registry=families,
            multiprocess_mode="livesum",
        ),
        Gauge(
            "apiserver_flowcontrol_current_executing_requests",
            "Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API "
            "Priority and Fairness subsystem",
            LABELS,
            registry=families,
            multiprocess_mode="livesum",
        ),
    )
