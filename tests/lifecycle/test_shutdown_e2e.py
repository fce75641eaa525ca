"""A real SIGTERM to the real server: readiness fails at once, serving goes on for --shutdown-delay-duration,
then open watches end cleanly and the process exits 0."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest
import requests

from tests.e2e import RunningServer, poll, start_server, stop_process

DELAY = "6s"  # long enough for the checks made during the delay on a busy machine
POLL_LIMIT = 30.0


def _poll_status(server: RunningServer, path: str, code: int) -> requests.Response:
    deadline = time.monotonic() + POLL_LIMIT
    while time.monotonic() < deadline:
        resp = _fresh_get(server, path)
        if resp.status_code == code:
            return resp
        time.sleep(0.05)
    raise AssertionError(f"{path} did not answer {code}")


@pytest.fixture
def delayed_server(tmp_path: Path):
    running = start_server(tmp_path, ["--workers", "2", "--shutdown-delay-duration", DELAY])
    yield running
    stop_process(running.process)


def _fresh_get(server: RunningServer, path: str) -> requests.Response:
    with server.new_session() as session:  # a new connection: any worker may answer
        return session.get(path, timeout=10)


def test_sigterm_fails_readiness_serves_through_the_delay_then_ends_watches_and_exits_0(delayed_server) -> None:
    server = delayed_server
    assert "[+]poststarthook/rbac/bootstrap-roles ok" in _fresh_get(server, "/readyz?verbose").text
    # both workers booted (their post-start hooks count on /livez): ready on several fresh connections in a row
    poll(lambda: all(_fresh_get(server, "/readyz").status_code == 200 for _ in range(6)), timeout=POLL_LIMIT)
    watch = server.new_session().get("/api/v1/namespaces?watch=true", stream=True, timeout=60)
    assert watch.status_code == 200
    lines = watch.iter_lines()
    assert b'"type":"ADDED"' in next(lines)  # the watch is established and streaming

    server.process.send_signal(signal.SIGTERM)

    ready = _poll_status(server, "/readyz?verbose", 500)
    assert "[-]shutdown failed: reason withheld\n" in ready.text
    for _ in range(4):  # both workers see the flag, and keep serving meanwhile
        assert _fresh_get(server, "/readyz").status_code == 500
        assert _fresh_get(server, "/livez").status_code == 200
        assert _fresh_get(server, "/api/v1/namespaces/default").status_code == 200
    assert server.process.poll() is None

    rest = list(lines)  # ends with the stream's terminating chunk: a reset would raise here
    assert all(b'"type":"ERROR"' not in line for line in rest)
    assert server.process.wait(timeout=POLL_LIMIT) == 0
