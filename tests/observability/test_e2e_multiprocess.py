"""The real server with two gunicorn workers: /metrics adds up every worker's counts; audit lines from both."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.e2e import RunningServer, start_server
from tests.observability.helpers import value

pytestmark = pytest.mark.e2e

POLICY = "apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    data_dir = tmp_path_factory.mktemp("orch-metrics")
    policy = data_dir / "policy.yaml"
    policy.write_text(POLICY)
    running = start_server(
        data_dir,
        ["--workers", "2", "--audit-policy-file", str(policy), "--audit-log-path", str(data_dir / "audit.log")],
    )
    yield running
    running.stop()


def _scrape(server: RunningServer) -> str:
    response = server.get("/metrics")
    assert response.status_code == 200
    return response.text


def _poll(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.05)


def test_counts_add_up_across_workers(two_workers: RunningServer):
    sent = 24
    for _ in range(sent):  # a new connection each: either worker may take it
        response = requests.get(
            two_workers.url + "/api/v1/namespaces/default/serviceaccounts",
            verify=str(two_workers.ca_file),
            cert=two_workers.client_cert,
            headers={"Connection": "close"},
            timeout=30,
        )
        assert response.status_code == 200
    for _ in range(4):  # whichever worker answers the scrape, the total is the same
        text = _scrape(two_workers)
        assert value(text, "apiserver_request_total", verb="LIST", resource="serviceaccounts", code="200") == sent


def test_anonymous_cannot_scrape(two_workers: RunningServer):
    assert two_workers.new_session(cert=None).get("/metrics").status_code == 403


def test_open_watch_shows_in_the_gauge_until_it_ends(two_workers: RunningServer):
    def open_watches() -> float:
        return value(_scrape(two_workers), "apiserver_longrunning_requests", verb="WATCH", resource="configmaps")

    session = two_workers.new_session()
    watch = session.get("/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=60", stream=True)
    try:
        assert watch.status_code == 200
        _poll(lambda: open_watches() == 1)
    finally:
        watch.close()
        session.close()
    _poll(lambda: open_watches() == 0)


def test_audit_lines_of_both_workers_are_whole_events(two_workers: RunningServer):
    ids = []
    for _ in range(10):
        response = requests.get(
            two_workers.url + "/api/v1/namespaces",
            verify=str(two_workers.ca_file),
            cert=two_workers.client_cert,
            headers={"Connection": "close"},
            timeout=30,
        )
        ids.append(response.headers["Audit-Id"])
    log_path = Path(two_workers.data_dir) / "audit.log"
    events = [json.loads(line) for line in log_path.read_text().splitlines()]
    for audit_id in ids:
        stages = [e["stage"] for e in events if e["auditID"] == audit_id]
        assert stages == ["RequestReceived", "ResponseComplete"]
