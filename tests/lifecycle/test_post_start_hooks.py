"""Post-start hooks as health checks, the livez grace period, and the shared shutdown flag (in-process)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from orch_apiserver.lifecycle import ShutdownSignal, add_post_start_hook, begin_drain, post_start_hooks

from tests.conftest import admin_app, make_app

POLL_LIMIT = 30.0
BUILT_IN = [
    "poststarthook/bootstrap-controller",
    "poststarthook/generic-apiserver-start-informers",
    "poststarthook/start-legacy-token-tracking-controller",
    "poststarthook/rbac/bootstrap-roles",
    "poststarthook/start-clusterrole-aggregation",
    "autoregister-completion",
]  # the process's loops start with it (a hook each), never from a request


def _poll_status(client, path: str, code: int) -> None:
    deadline = time.monotonic() + POLL_LIMIT
    while client.get(path).status_code != code:
        assert time.monotonic() < deadline, f"{path} never answered {code}"
        time.sleep(0.02)


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    event = threading.Event()
    yield event
    event.set()  # never leave a hook thread blocked


def _app(sqlite_url: str, tmp_path: Path, **config: object) -> Flask:
    return admin_app(sqlite_url, tmp_path, **config)


@pytest.fixture
def booting(sqlite_url: str, tmp_path: Path, gate: threading.Event) -> Iterator[Flask]:
    """An app whose hooks were started at boot (as a gunicorn worker does) and whose last hook waits on `gate`."""
    flask_app = _app(sqlite_url, tmp_path)
    add_post_start_hook(flask_app, "demo", gate.wait)
    post_start_hooks(flask_app).start()
    yield flask_app
    gate.set()
    post_start_hooks(flask_app).stopping.set()
    flask_app.extensions["orch.stop"]()


def test_built_in_hooks_listed_on_every_endpoint_and_individually(client) -> None:
    for endpoint in ("livez", "readyz", "healthz"):
        body = client.get(f"/{endpoint}?verbose").data.decode()
        assert [
            line[3:-3]
            for line in body.splitlines()
            if line.startswith("[+]") and ("poststarthook" in line or "autoregister" in line)
        ] == BUILT_IN
    for name in BUILT_IN:
        resp = client.get(f"/readyz/{name}")
        assert resp.status_code == 200 and resp.data == b"ok"


def test_unfinished_hook_fails_readiness_until_done(booting: Flask, gate: threading.Event) -> None:
    client = booting.test_client()
    _poll_status(client, "/readyz/poststarthook/rbac/bootstrap-roles", 200)  # the hooks before it finish
    resp = client.get("/readyz?verbose")
    assert resp.status_code == 500
    body = resp.data.decode()
    assert "[-]poststarthook/demo failed: reason withheld\n" in body
    assert "[+]poststarthook/rbac/bootstrap-roles ok\n" in body
    single = client.get("/readyz/poststarthook/demo")
    assert single.status_code == 500 and single.data == b"internal server error: not finished\n"
    assert client.get("/healthz").status_code == 500
    assert client.get("/livez").status_code == 500  # no grace period by default
    gate.set()
    _poll_status(client, "/readyz", 200)
    assert client.get("/livez/poststarthook/demo").data == b"ok"


def test_livez_grace_period_hides_unfinished_hooks_until_it_passes(
    sqlite_url: str, tmp_path: Path, gate: threading.Event
) -> None:
    flask_app = _app(sqlite_url, tmp_path, LIVEZ_GRACE_PERIOD=60.0)
    hooks = post_start_hooks(flask_app)
    now = [1000.0]
    hooks.clock, hooks.grace_starts = (lambda: now[0]), 1000.0
    add_post_start_hook(flask_app, "demo", gate.wait)
    hooks.start()
    client = flask_app.test_client()
    try:
        live = client.get("/livez?verbose")
        assert live.status_code == 200 and "[+]poststarthook/demo ok\n" in live.data.decode()
        assert client.get("/readyz").status_code == 500  # readiness never uses the grace
        now[0] += 59.0
        assert client.get("/livez").status_code == 200
        now[0] += 1.0
        late = client.get("/livez?verbose")
        assert late.status_code == 500 and "[-]poststarthook/demo failed: reason withheld\n" in late.data.decode()
        gate.set()
        _poll_status(client, "/livez", 200)
    finally:
        gate.set()
        hooks.stopping.set()
        flask_app.extensions["orch.stop"]()


def test_first_request_runs_hooks_once_when_nobody_started_them(sqlite_url: str, tmp_path: Path) -> None:
    flask_app = _app(sqlite_url, tmp_path)
    calls: list[str] = []
    add_post_start_hook(flask_app, "count", lambda: calls.append("run"))
    client = flask_app.test_client()
    try:
        system = flask_app.extensions["orch"].naming.system_namespace
        assert client.get(f"/api/v1/namespaces/{system}").status_code == 200  # the bootstrap ran first
        assert client.get("/readyz").status_code == 200
        assert calls == ["run"]
    finally:
        flask_app.extensions["orch.stop"]()


def test_failed_hook_is_retried_in_the_background(sqlite_url: str, tmp_path: Path) -> None:
    flask_app = _app(sqlite_url, tmp_path)
    attempts: list[int] = []

    def flaky() -> None:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("not yet")

    add_post_start_hook(flask_app, "flaky", flaky)
    post_start_hooks(flask_app).start()
    client = flask_app.test_client()
    try:
        _poll_status(client, "/readyz", 200)
        assert len(attempts) == 2
    finally:
        post_start_hooks(flask_app).stopping.set()
        flask_app.extensions["orch.stop"]()


def test_hook_names_are_unique(app) -> None:
    with pytest.raises(ValueError, match="already registered"):
        add_post_start_hook(app, "bootstrap-controller", lambda: None)


def test_shared_shutdown_signal_fails_readiness_only(sqlite_url: str, tmp_path: Path) -> None:
    signal = ShutdownSignal()
    flask_app = _app(sqlite_url, tmp_path, SHUTDOWN_SIGNAL=signal)
    client = flask_app.test_client()
    try:
        assert client.get("/readyz").status_code == 200
        signal.set()  # what the serving master does on SIGTERM
        ready = client.get("/readyz")
        assert ready.status_code == 500
        assert ready.data.decode().endswith("[-]shutdown failed: reason withheld\nreadyz check failed\n")
        assert client.get("/livez").status_code == 200
        assert client.get("/api/v1/namespaces/default").status_code == 200
    finally:
        flask_app.extensions["orch.stop"]()


def test_drain_ends_open_watches_and_fails_readiness(app, client) -> None:
    watch = client.get("/api/v1/namespaces?watch=true", buffered=False)
    assert watch.status_code == 200
    chunks = iter(watch.response)
    while b"ADDED" not in next(chunks):
        pass
    with app.app_context():
        begin_drain(app)
    rest = b"".join(chunks)  # the stream ends instead of running to its timeout
    assert b'"type":"ERROR"' not in rest
    watch.close()
    assert client.get("/readyz").status_code == 500


def test_probes_answer_anonymous_callers_before_the_default_policy_exists(
    sqlite_url: str, tmp_path: Path, gate: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A starting server's liveness is not a 403: the policy being written grants probes to everyone."""
    from orch_apiserver.auth.rbac.reconcile import Reconciler

    reconcile = Reconciler.reconcile
    monkeypatch.setattr(Reconciler, "reconcile", lambda self: (gate.wait(), reconcile(self))[1])
    flask_app = make_app(sqlite_url, tmp_path, LIVEZ_GRACE_PERIOD=60.0)  # a plain client: anonymous
    post_start_hooks(flask_app).start()
    try:
        client = flask_app.test_client()
        assert client.get("/livez").status_code == 200  # within the grace period
        resp = client.get("/readyz?verbose")
        assert resp.status_code == 500 and "[-]poststarthook/rbac/bootstrap-roles failed" in resp.data.decode()
        gate.set()
        _poll_status(client, "/readyz", 200)  # now through the reconciled policy (public-info-viewer)
        assert client.get("/metrics").status_code == 403
        assert client.get("/api/v1/namespaces").status_code == 403
    finally:
        gate.set()
        post_start_hooks(flask_app).stopping.set()
        flask_app.extensions["orch.stop"]()
