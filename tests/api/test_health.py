"""Health endpoints: the check registry and report format, then /healthz, /livez, /readyz over HTTP."""

from __future__ import annotations

import pytest
from orch_apiserver import health
from orch_apiserver.api.health import run_checks
from orch_apiserver.context import services

TEXT = "text/plain; charset=utf-8"
BOOT = (
    "[+]poststarthook/bootstrap-controller ok\n[+]poststarthook/generic-apiserver-start-informers ok\n"
    "[+]poststarthook/start-legacy-token-tracking-controller ok\n"
    "[+]poststarthook/rbac/bootstrap-roles ok\n[+]poststarthook/start-clusterrole-aggregation ok\n"
    "[+]autoregister-completion ok\n"
)  # app/lifecycle.py; the process's loops start with it, never from a request


def _fail() -> None:
    raise RuntimeError("database is gone")


# ---------------------------------------------------------------------------------------------
# Registry and report lines


def test_default_registry_order() -> None:
    registry = health.default_registry()
    assert [c.name for c in registry.checks("livez")] == ["ping", "log", "store"]
    assert [c.name for c in registry.checks("healthz")] == ["ping", "log", "store"]
    assert [c.name for c in registry.checks("readyz")] == ["ping", "log", "store", "shutdown"]


def test_added_checks_run_before_shutdown_and_replace_by_name() -> None:
    registry = health.default_registry()
    registry.add("poststarthook/rbac/bootstrap-roles", lambda: None)
    assert [c.name for c in registry.checks("readyz")][-2:] == ["poststarthook/rbac/bootstrap-roles", "shutdown"]
    registry.add("log", _fail, endpoints=("livez",))
    assert registry.find("livez", "log").run is _fail  # type: ignore[union-attr]
    assert registry.find("readyz", "log").run is health.log  # type: ignore[union-attr]
    assert registry.find("livez", "shutdown") is None


def test_run_checks_lines_for_pass_fail_exclude_and_unknown_excludes() -> None:
    checks = [
        health.HealthCheck("ping", lambda: None),
        health.HealthCheck("store", _fail),
        health.HealthCheck("log", lambda: None),
    ]
    lines, healthy = run_checks(checks, ["log", "zeta", "alpha"])
    assert not healthy
    assert lines == [
        "[+]ping ok",
        "[-]store failed: reason withheld",
        "[+]log excluded: ok",
        'warn: some health checks cannot be excluded: no matches for "alpha","zeta"',
    ]
    lines, healthy = run_checks(checks, ["store"])
    assert healthy and lines[1] == "[+]store excluded: ok"


# ---------------------------------------------------------------------------------------------
# HTTP


@pytest.mark.parametrize("endpoint", ["healthz", "livez", "readyz"])
def test_plain_ok(client, endpoint: str) -> None:
    resp = client.get(f"/{endpoint}")
    assert resp.status_code == 200 and resp.data == b"ok"
    assert resp.headers["Content-Type"] == TEXT
    assert resp.headers["X-Content-Type-Options"] == "nosniff"


def test_verbose_readyz_lists_checks_in_order(client) -> None:
    resp = client.get("/readyz?verbose")
    assert resp.status_code == 200
    assert resp.data.decode() == (
        "[+]ping ok\n[+]log ok\n[+]store ok\n" + BOOT + "[+]shutdown ok\nreadyz check passed\n"
    )


def test_verbose_livez_with_value_and_no_shutdown_check(client) -> None:
    body = client.get("/livez?verbose=false").data.decode()
    assert body == "[+]ping ok\n[+]log ok\n[+]store ok\n" + BOOT + "livez check passed\n"


def test_exclude_is_repeatable_and_warns_about_unknown_names(client) -> None:
    resp = client.get("/healthz?verbose&exclude=log&exclude=etcd&exclude=store")
    assert resp.status_code == 200
    assert resp.data.decode() == (
        "[+]ping ok\n[+]log excluded: ok\n[+]store excluded: ok\n"
        + BOOT
        + 'warn: some health checks cannot be excluded: no matches for "etcd"\n'
        "healthz check passed\n"
    )
    assert client.get("/livez?exclude=shutdown").data == b"ok"  # a warning alone is no failure


def test_failing_store_fails_every_endpoint_verbosely(app, client, monkeypatch) -> None:
    with app.app_context():
        monkeypatch.setattr(services().storage, "ping", _fail)
    for endpoint in ("healthz", "livez", "readyz"):
        resp = client.get(f"/{endpoint}")
        assert resp.status_code == 500
        assert resp.headers["Content-Type"] == TEXT
        body = resp.data.decode()
        assert "[-]store failed: reason withheld\n" in body and "database is gone" not in body
        assert body.endswith(f"{endpoint} check failed\n")
    excluded = client.get("/readyz?exclude=store")
    assert excluded.status_code == 200 and excluded.data == b"ok"
    single = client.get("/livez/store")
    assert single.status_code == 500
    assert single.data.decode() == "internal server error: database is gone\n"


def test_shutdown_fails_readiness_only(app, client) -> None:
    with app.app_context():
        services().shutting_down = True
    try:
        ready = client.get("/readyz")
        assert ready.status_code == 500
        assert ready.data.decode().endswith("[-]shutdown failed: reason withheld\nreadyz check failed\n")
        assert client.get("/livez").status_code == 200
        assert client.get("/readyz/shutdown").status_code == 500
    finally:
        with app.app_context():
            services().shutting_down = False


@pytest.mark.parametrize("path", ["/livez/ping", "/readyz/log", "/healthz/store", "/readyz/shutdown"])
def test_individual_checks(client, path: str) -> None:
    resp = client.get(path)
    assert resp.status_code == 200 and resp.data == b"ok"
    assert resp.headers["Content-Type"] == TEXT


@pytest.mark.parametrize("path", ["/livez/nope", "/livez/shutdown", "/healthz/poststarthook/missing"])
def test_unknown_individual_check_is_404(client, path: str) -> None:
    assert client.get(path).status_code == 404


def test_registered_hook_is_reported_and_individually_addressable(app, client) -> None:
    health.health_registry(app).add("poststarthook/demo", lambda: None)
    body = client.get("/readyz?verbose").data.decode()
    assert "[+]poststarthook/demo ok\n[+]shutdown ok\n" in body
    assert client.get("/livez/poststarthook/demo").data == b"ok"
