"""`orchctl fault add|list|delete` against a server with --enable-fault-injection (issue 58)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e import RunningServer, start_server

from .helpers import orchctl

FAULTS = "/apis/testing.orch.io/v1alpha1/faults"


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = start_server(
        tmp_path_factory.mktemp("orchctl-faults"),
        args=["--enable-fault-injection", "--controllers", "*,-rootcacertpublisher"],
    )
    yield running
    running.stop()


def test_add_list_and_delete(faulty: RunningServer) -> None:
    added = orchctl(
        faulty, "fault", "add", "busy", "--verb", "get", "--resource", "configmaps", "--name-match", "cm",
        "--error", "429", "--retry-after", "2", "--times", "1",
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert added.stdout.strip() == "fault/busy created"
    spec = faulty.get(f"{FAULTS}/busy").json()["spec"]
    assert spec == {
        "match": {"verbs": ["get"], "resources": ["configmaps"], "names": ["cm"]},
        "action": {"error": {"code": 429, "retryAfterSeconds": 2}},
        "times": 1,
    }
    assert faulty.session.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "cm"}}).ok
    throttled = faulty.get("/api/v1/namespaces/default/configmaps/cm")
    assert throttled.status_code == 429 and throttled.headers["Retry-After"] == "2"
    assert orchctl(faulty, "fault", "add", "slow", "--verb", "list,watch", "--delay", "10ms").returncode == 0
    listed = orchctl(faulty, "fault", "list")
    assert listed.returncode == 0, listed.stderr
    rows = [line.split() for line in listed.stdout.splitlines()]
    assert rows == [
        ["NAME", "ACTION", "TIMES", "MATCHED"],
        ["busy", "error", "429", "1", "1"],
        ["slow", "delay", "10ms", "<unset>", "0"],
    ]
    assert orchctl(faulty, "fault", "delete", "busy").stdout.strip() == 'fault "busy" deleted'
    assert orchctl(faulty, "fault", "delete", "--all").returncode == 0
    assert orchctl(faulty, "fault", "list").stdout.strip() == "No faults found."
    faulty.session.delete("/api/v1/namespaces/default/configmaps/cm")


def test_bad_input_is_the_servers_422(faulty: RunningServer) -> None:
    refused = orchctl(faulty, "fault", "add", "two", "--error", "500", "--delay", "1s")
    assert refused.returncode == 1
    assert "spec.action" in refused.stderr and "only one action" in refused.stderr
    assert orchctl(faulty, "fault", "delete").returncode == 2  # names or --all
