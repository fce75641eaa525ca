"""What operators chart and grep: /metrics families of a real server (parsed with prometheus-client's own parser),
the shipped Grafana dashboard's queries against them, and the per-request log line."""

from __future__ import annotations

import json
import re
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from . import REPO_ROOT, RunningServer, poll, start_server

DASHBOARD = REPO_ROOT / "docs" / "grafana-dashboard.json"
PROMQL_WORDS = {"sum", "by", "rate", "histogram_quantile", "max", "topk", "le", "without", "on", "irate"}
EXPECTED = {
    "apiserver_request_total",
    "apiserver_request_duration_seconds",
    "apiserver_longrunning_requests",
    "apiserver_storage_objects",
    "apiserver_current_inflight_requests",
    "apiserver_response_sizes",
    "apiserver_storage_request_duration_seconds",
    "apiserver_storage_db_connections",
    "apiserver_audit_event_total",
    "process_cpu_seconds_total",
    "process_resident_memory_bytes",
    "process_open_fds",
    "process_start_time_seconds",
    "python_info",
    "apiserver_registered_watchers",
    "apiserver_watch_events_total",
    "apiserver_watch_events_sizes",
    "apiserver_tls_handshake_errors_total",
}


def _families(server: RunningServer) -> dict[str, object]:
    response = server.get("/metrics")
    assert response.status_code == 200
    families = {}
    for family in text_string_to_metric_families(response.text):
        families[family.name] = family
        # the parser drops _total from counter names; dashboards use the exported sample names
        for sample in family.samples:
            families.setdefault(re.sub(r"_(bucket|sum|count)$", "", sample.name), family)
    return families


def _dashboard_metrics() -> set[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    names = set()
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            expr = re.sub(r"\{[^}]*\}", "", target["expr"])  # label matchers name labels, not metrics
            expr = re.sub(r"\[[^]]*\]", "", expr)
            for word in re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*", expr):
                if word not in PROMQL_WORDS and not word.startswith("$") and "_" in word and word != "request_kind":
                    names.add(re.sub(r"_(bucket|sum|count)$", "", word))
    return names - {"histogram_quantile"}


def test_metrics_operators_chart_are_exported(server: RunningServer):
    created = server.session.post(
        "/api/v1/namespaces/default/configmaps", json={"metadata": {"generateName": "metrics-"}}
    )
    assert created.status_code == 201
    assert server.get("/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1").status_code == 200
    families = _families(server)
    assert set(families) >= EXPECTED, sorted(EXPECTED - set(families))
    storage = {
        (s.labels["operation"], s.labels["type"])
        for s in families["apiserver_storage_request_duration_seconds"].samples
        if s.name.endswith("_count")
    }
    assert ("create", "configmaps") in storage
    sizes = families["apiserver_response_sizes"]
    assert any(s.labels.get("verb") == "POST" or s.labels.get("verb") == "CREATE" for s in sizes.samples)
    rss = next(s.value for s in families["process_resident_memory_bytes"].samples)
    assert rss > 50 * 1024 * 1024  # master and worker together, not one idle stub


def test_every_dashboard_query_names_an_exported_metric(server: RunningServer):
    wanted = _dashboard_metrics()
    assert "apiserver_request_total" in wanted and len(wanted) >= 10  # the parser found the queries
    # series appear once something happened: a deprecated API requested, a watch open during the scrape
    assert server.get("/apis/batch/v1beta1/cronjobs").status_code == 200
    with server.session.get("/api/v1/configmaps?watch=1&timeoutSeconds=5", stream=True) as watch:
        assert watch.status_code == 200
        exported = set(_families(server))
    # a storage error cannot be caused on purpose here: that one family is checked as declared
    declared_only = {"apiserver_storage_request_errors_total"}
    assert declared_only <= _declared_families()
    missing = wanted - exported - declared_only
    assert not missing, f"the dashboard charts metrics the server does not export: {sorted(missing)}"


def _declared_families() -> set[str]:
    from orch_apiserver.metrics import build_metrics

    metrics = build_metrics()
    return {
        f"{m._name}_total" if m._type == "counter" else m._name
        for m in (metrics.storage_errors, metrics.storage_duration, metrics.request_total)
    }


def test_one_log_line_per_request_and_the_flag_that_stops_it(server: RunningServer, tmp_path: Path):
    path = "/api/v1/namespaces/default/configmaps?labelSelector=log-line-check"
    assert server.get(path).status_code == 200

    def logged() -> str:  # written in batches, within a fraction of a second
        return next(
            (ln for ln in server.log().splitlines() if "log-line-check" in ln and "orch_apiserver.httplog" in ln), ""
        )

    line = poll(logged, timeout=10)
    assert 'verb=LIST URI="' + path + '"' in line and 'user="admin"' in line and "resp=200" in line, line
    assert re.search(r"latency=\d+\.\d{3}ms", line)
    quiet = start_server(tmp_path / "quiet", args=["--request-log", "false"])
    try:
        assert quiet.get(path).status_code == 200
        assert "orch_apiserver.httplog" not in quiet.log()
    finally:
        quiet.stop()


@pytest.mark.parametrize("kind", ["readOnly", "mutating"])
def test_inflight_gauge_returns_to_zero(server: RunningServer, kind: str):
    families = _families(server)
    samples = {s.labels["request_kind"]: s.value for s in families["apiserver_current_inflight_requests"].samples}
    # the scrape itself is the one read-only request in flight
    assert samples.get(kind, 0) == (1 if kind == "readOnly" else 0)


def _value(families: dict[str, object], name: str, **labels: str) -> float:
    family: Any = families.get(name)
    if family is None:  # a labelled family has no samples before its first use
        return 0.0
    return sum(
        s.value
        for s in family.samples
        if s.name in (name, f"{name}_total") and all(s.labels.get(k) == v for k, v in labels.items())
    )


def test_watchers_and_watch_events_are_counted(tmp_path: Path):
    quiet = start_server(tmp_path / "watch-metrics", ["--workers", "2"])  # counts summed over both workers
    try:
        before = _families(quiet)
        watch = quiet.new_session().get("/api/v1/namespaces/default/configmaps?watch=1", stream=True, timeout=60)
        lines = watch.iter_lines()
        for i in range(3):
            assert (
                quiet.session.post(
                    "/api/v1/namespaces/default/configmaps", json={"metadata": {"name": f"watched-{i}"}}
                ).status_code
                == 201
            )
            assert b'"type":"ADDED"' in next(lines)
        during = _families(quiet)
        kind = {"group": "", "version": "v1", "kind": "ConfigMap"}
        assert _value(during, "apiserver_registered_watchers", **kind) == 1
        sent = _value(during, "apiserver_watch_events", **kind) - _value(before, "apiserver_watch_events", **kind)
        assert sent >= 3
        sizes: Any = during["apiserver_watch_events_sizes"]
        assert any(
            s.name.endswith("_count") and s.labels.get("kind") == "ConfigMap" and s.value >= 3 for s in sizes.samples
        )
        watch.close()
        deadline = time.monotonic() + 20
        while _value(_families(quiet), "apiserver_registered_watchers", **kind) != 0:
            assert time.monotonic() < deadline, "the watcher gauge never went back to 0"
            time.sleep(0.1)
        with socket.create_connection(("127.0.0.1", quiet.port), timeout=10) as plain:
            plain.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n")  # no TLS: the handshake fails
            plain.recv(1024)
        deadline = time.monotonic() + 20
        while _value(_families(quiet), "apiserver_tls_handshake_errors") < 1:
            assert time.monotonic() < deadline, "the failed handshake was not counted"
            time.sleep(0.1)
    finally:
        quiet.stop()
