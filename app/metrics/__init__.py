"""Prometheus metrics of the API server, named, labelled and bucketed as the reference's
(k8s.io/apiserver pkg/endpoints/metrics and pkg/storage metrics).

Several gunicorn workers serve one port, so a scrape that reaches one worker must report every worker's
counts: with PROMETHEUS_MULTIPROC_DIR set (the CLI and config/gunicorn.py set it before workers fork)
prometheus-client keeps each worker's values in mmap files and a scrape merges them. Without it (the
Flask test client) every app has its own in-memory registry.

prometheus_client is imported lazily: the arbiter imports this package before the variable is set, and
the value class is chosen from the environment.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

COMPONENT = "apiserver"
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
# text format 0.0.4 (what the reference serves; prometheus-client's newest default is 1.0.0)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
#: app.extensions key of the app's ServerMetrics (set where the app is wired, read by GET /metrics)
EXTENSION_KEY = "orch.metrics"

REQUEST_BUCKETS = (
    0.005,
    0.025,
    0.05,
    0.1,
    0.2,
    0.4,
    0.6,
    0.8,
    1.0,
    1.25,
    1.5,
    2,
    3,
    4,
    5,
    6,
    8,
    10,
    15,
    20,
    30,
    45,
    60,
)
REQUEST_LABELS = ("verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code")
TERMINATION_LABELS = ("verb", "group", "version", "resource", "subresource", "scope", "component", "code")
LATENCY_LABELS = ("verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component")
LONGRUNNING_LABELS = ("verb", "group", "version", "resource", "subresource", "scope", "component")
DEPRECATED_LABELS = ("group", "version", "resource", "subresource", "removed_release")
SIZE_LABELS = ("verb", "group", "version", "resource", "subresource", "scope", "component")
SIZE_BUCKETS = tuple(1000.0 * 10**i for i in range(8))  # 1 kB .. 10 GB, as the reference
WATCH_LABELS = ("group", "version", "kind")
WATCH_EVENT_SIZE_BUCKETS = tuple(1024.0 * 2**i for i in range(8))  # 1 KiB .. 128 KiB, as the reference
ADMISSION_BUCKETS = (0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25)  # the reference's admission buckets
#: the reference's transformation buckets: 5 us doubling to ~40 s
TRANSFORMATION_BUCKETS = tuple(5e-6 * 2**i for i in range(24))
STORAGE_BUCKETS = (
    0.005,
    0.025,
    0.05,
    0.1,
    0.2,
    0.4,
    0.6,
    0.8,
    1.0,
    1.25,
    1.5,
    2,
    3,
    4,
    5,
    6,
    8,
    10,
    15,
    20,
    30,
    45,
    60,
)


def multiprocess_enabled() -> bool:
    return bool(os.environ.get(MULTIPROC_ENV))


def _use_multiprocess_values() -> None:
    """Pick prometheus-client's value class for the apps built from now on: mmap-backed when the variable is set
    (it may come after the library's first import), else in-memory values private to each app's registry."""
    from prometheus_client import values

    if multiprocess_enabled():
        if values.ValueClass is values.MutexValue:
            values.ValueClass = values.MultiProcessValue()
    else:
        values.ValueClass = values.MutexValue


def _forget_live_gauges_at_exit() -> None:
    """A worker's open-watch gauge must not outlive it; gunicorn's child_exit does this too where configured."""
    import atexit

    pid = os.getpid()

    def _mark_dead() -> None:
        if os.getpid() == pid and multiprocess_enabled():
            from prometheus_client import multiprocess

            multiprocess.mark_process_dead(pid)

    atexit.register(_mark_dead)


@dataclass
class ServerMetrics:
    """The metric families of one app, and the registry a scrape of this process renders."""

    request_total: Any
    request_duration: Any
    longrunning: Any
    deprecated: Any
    registry: Any  # single-process: holds the families; multiprocess: collects the workers' files
    extra_collectors: list[Any]
    inflight: Any = None
    response_sizes: Any = None
    storage_duration: Any = None
    storage_errors: Any = None
    db_connections: Any = None
    audit_events: Any = None
    registered_watchers: Any = None
    watch_events: Any = None
    watch_event_sizes: Any = None
    tls_handshake_errors: Any = None
    request_terminations: Any = None
    admission_controller_duration: Any = None
    admission_webhook_duration: Any = None
    transformation_operations: Any = None
    transformation_duration: Any = None

    def add_collector(self, collector: Any) -> None:
        """A collector computed at scrape time (storage objects), outside the multiprocess files."""
        self.extra_collectors.append(collector)
        self.registry.register(collector)

    def render(self) -> bytes:
        from prometheus_client import generate_latest

        if multiprocess_enabled():
            # a fresh merge per scrape: files of workers that started since are picked up
            from prometheus_client import CollectorRegistry, multiprocess

            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)
            for collector in self.extra_collectors:
                registry.register(collector)
            return generate_latest(registry)
        return generate_latest(self.registry)


def build_metrics() -> ServerMetrics:
    from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

    _use_multiprocess_values()
    multi = multiprocess_enabled()
    if multi:
        _forget_live_gauges_at_exit()
    registry = CollectorRegistry()
    families = None if multi else registry  # multiprocess: values live in files, the scrape merges them
    request_total = Counter(
        "apiserver_request_total",
        "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, "
        "component, and HTTP response code.",
        REQUEST_LABELS,
        registry=families,
    )
    request_duration = Histogram(
        "apiserver_request_duration_seconds",
        "Response latency distribution in seconds for each verb, dry run value, group, version, resource, "
        "subresource, scope and component.",
        LATENCY_LABELS,
        buckets=REQUEST_BUCKETS,
        registry=families,
    )
    longrunning = Gauge(
        "apiserver_longrunning_requests",
        "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope "
        "and component. Not all requests are tracked this way.",
        LONGRUNNING_LABELS,
        registry=families,
        multiprocess_mode="livesum",
    )
    deprecated = Gauge(
        "apiserver_requested_deprecated_apis",
        "Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, "
        "subresource, and removed_release.",
        DEPRECATED_LABELS,
        registry=families,
        multiprocess_mode="max",
    )
    inflight = Gauge(
        "apiserver_current_inflight_requests",
        "Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
        ("request_kind",),
        registry=families,
        multiprocess_mode="livesum",
    )
    response_sizes = Histogram(
        "apiserver_response_sizes",
        "Response size distribution in bytes for each group, version, verb, resource, "
        "subresource, scope and component.",
        SIZE_LABELS,
        buckets=SIZE_BUCKETS,
        registry=families,
    )
    # the reference's etcd_request_duration_seconds / etcd_request_errors_total, named for what we have: SQL
    storage_duration = Histogram(
        "apiserver_storage_request_duration_seconds",
        "Storage (SQL database) request latency in seconds for each operation and object type.",
        ("operation", "type"),
        buckets=STORAGE_BUCKETS,
        registry=families,
    )
    storage_errors = Counter(
        "apiserver_storage_request_errors_total",
        "Storage (SQL database) requests that failed with a database error, for each operation and object type.",
        ("operation", "type"),
        registry=families,
    )
    transformation_operations = Counter(
        "apiserver_storage_transformation_operations_total",
        "Total number of transformations. Successful transformation will have a status 'OK' and a varied status "
        "string when the transformation fails.",
        ("transformation_type", "transformer_prefix", "status"),
        registry=families,
    )
    transformation_duration = Histogram(
        "apiserver_storage_transformation_duration_seconds",
        "Latencies in seconds of value transformation operations.",
        ("transformation_type", "transformer_prefix"),
        buckets=TRANSFORMATION_BUCKETS,
        registry=families,
    )
    db_connections = Gauge(
        "apiserver_storage_db_connections",
        "Database connections of the storage pools, by state (in_use, idle).",
        ("state",),
        registry=families,
        multiprocess_mode="livesum",
    )
    audit_events = Counter(
        "apiserver_audit_event_total",
        "Counter of audit events generated and sent to the audit backend.",
        registry=families,
    )
    registered_watchers = Gauge(
        "apiserver_registered_watchers",
        "Number of currently registered watchers for a given resources",
        WATCH_LABELS,
        registry=families,
        multiprocess_mode="livesum",
    )
    watch_events = Counter(
        "apiserver_watch_events_total", "Number of events sent in watch clients", WATCH_LABELS, registry=families
    )
    watch_event_sizes = Histogram(
        "apiserver_watch_events_sizes",
        "Watch event size distribution in bytes",
        WATCH_LABELS,
        buckets=WATCH_EVENT_SIZE_BUCKETS,
        registry=families,
    )
    tls_handshake_errors = Counter(
        "apiserver_tls_handshake_errors_total",
        "Number of requests dropped with 'TLS handshake error from' error",
        registry=families,
    )
    request_terminations = Counter(
        "apiserver_request_terminations_total",
        "Number of requests which apiserver terminated in self-defense.",
        TERMINATION_LABELS,
        registry=families,
    )
    admission_labels = ("name", "type", "operation", "rejected")
    admission_controller_duration = Histogram(
        "apiserver_admission_controller_admission_duration_seconds",
        "Admission controller latency histogram in seconds, identified by name and broken out for each operation "
        "and API resource and type (validate or admit).",
        admission_labels,
        buckets=ADMISSION_BUCKETS,
        registry=families,
    )
    admission_webhook_duration = Histogram(
        "apiserver_admission_webhook_admission_duration_seconds",
        "Admission webhook latency histogram in seconds, identified by name and broken out for each operation and "
        "API resource and type (validate or admit).",
        admission_labels,
        buckets=ADMISSION_BUCKETS,
        registry=families,
    )
    metrics = ServerMetrics(
        request_total,
        request_duration,
        longrunning,
        deprecated,
        registry,
        [],
        inflight,
        response_sizes,
        storage_duration,
        storage_errors,
        db_connections,
        audit_events,
        registered_watchers,
        watch_events,
        watch_event_sizes,
        tls_handshake_errors,
        request_terminations,
        admission_controller_duration,
        admission_webhook_duration,
    )
    metrics.transformation_operations, metrics.transformation_duration = (
        transformation_operations,
        transformation_duration,
    )
    from .process import ServerProcessCollector

    metrics.add_collector(ServerProcessCollector(multi))
    return metrics


def observe_many(histogram: Any, amount: float, times: int) -> None:
    """`times` observations of the same `amount` at the cost of one (each observation is a locked write to a
    shared file in multiprocess mode: ~7 us, too much once per event per watcher)."""
    buckets, bounds, total = (getattr(histogram, name, None) for name in ("_buckets", "_upper_bounds", "_sum"))
    if buckets is None or bounds is None or total is None:  # not the client's layout we know: one at a time
        for _ in range(times):
            histogram.observe(amount)
        return
    total.inc(amount * times)
    for bucket, bound in zip(buckets, bounds):
        if amount <= bound:
            bucket.inc(times)
            break


def child(metric: Any, *values: str) -> Any:
    """`metric.labels(*values)`, kept on the metric: the client checks the values and takes a lock on every
    call (~5 us, a few times a request). Values are positional, in the metric's label order."""
    kept = metric.__dict__.get("_orch_children")
    if kept is None:
        kept = metric.__dict__.setdefault("_orch_children", {})
    found = kept.get(values)
    if found is None:
        found = kept.setdefault(values, metric.labels(*values))
    return found
