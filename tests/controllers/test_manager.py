"""--controllers parsing, and leader election: one Lease per controller, one holder on a shared store, a
successor once the lease expires (driven by the clock)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver.controllers.base import Context
from orch_apiserver.controllers.manager import Controllers
from orch_apiserver.controllers.names import parse_controllers

from tests.conftest import admin_app
from tests.controllers import NAMING
from tests.controllers.conftest import FakeClock

LEASES = f"/apis/{NAMING.group('coordination')}/v1/namespaces/{NAMING.system_namespace}/leases"


NAMESPACED = (
    "garbagecollector",
    "serviceaccount",
    "rootcacertpublisher",
    "crd",
    "resourcequota",
    "pvc-protection",
    "pv-protection",
    "podgc",
)


@pytest.mark.parametrize(
    ("text", "enabled"),
    [
        ("*", ("csrsigning", "csrapproving", "csrcleaner", "bootstrapsigner", *NAMESPACED)),
        (
            "*,tokencleaner",
            ("csrsigning", "csrapproving", "csrcleaner", "tokencleaner", "bootstrapsigner", *NAMESPACED),
        ),
        ("*,-csrapproving", ("csrsigning", "csrcleaner", "bootstrapsigner", *NAMESPACED)),
        (
            "*,-garbagecollector,-rootcacertpublisher",
            (
                "csrsigning",
                "csrapproving",
                "csrcleaner",
                "bootstrapsigner",
                "serviceaccount",
                "crd",
                "resourcequota",
                "pvc-protection",
                "pv-protection",
                "podgc",
            ),
        ),
        ("csrsigning", ("csrsigning",)),
        ("", ()),
    ],
)
def test_controllers_flag(text: str, enabled: tuple[str, ...]) -> None:
    assert parse_controllers(text) == enabled


def test_unknown_controller_fails_start_with_exit_2() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "orch_apiserver.cli", "--controllers", "*,nosuch"],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).parents[2],
    )
    assert result.returncode == 2
    assert "'nosuch' is not a known controller" in result.stderr


def manager(app: Any, clock: FakeClock, identity: str) -> Controllers:
    svc = app.extensions["orch"]
    ctx = Context(
        svc.registry, svc.naming, svc.hub, app.extensions["orch.auth"], clock=clock, settings=dict(app.config)
    )
    return Controllers(ctx, ("csrsigning", "bootstrapsigner"), identity=identity, lease_seconds=15)


def test_one_holder_per_controller_and_takeover_after_expiry(
    database_url: str, tmp_path: Path, clock: FakeClock
) -> None:
    first_app = admin_app(database_url, tmp_path / "a")
    second_app = admin_app(database_url, tmp_path / "b")  # another process on the same database
    try:
        client = first_app.test_client()
        assert client.get("/api").status_code == 200  # reconciles the default policy
        from orch_apiserver.controllers.manager import ensure_namespaced_policy

        one, two = manager(first_app, clock, "one"), manager(second_app, clock, "two")
        ensure_namespaced_policy(one.ctx)
        for a, b in zip(one.loops, two.loops, strict=True):
            assert a.elector.try_acquire_or_renew()
            assert not b.elector.try_acquire_or_renew()
        leases = {o["metadata"]["name"]: o["spec"] for o in client.get(LEASES).json["items"]}
        assert {n: s["holderIdentity"] for n, s in leases.items()} == {
            "orch-controller-csrsigning": "one",
            "orch-controller-bootstrapsigner": "one",
        }
        clock.advance(seconds=10)
        assert one.loops[0].elector.try_acquire_or_renew()  # renewed: still one's
        clock.advance(seconds=10)
        assert not two.loops[0].elector.try_acquire_or_renew()
        assert two.loops[1].elector.try_acquire_or_renew()  # bootstrapsigner's lease was not renewed
        clock.advance(seconds=16)
        assert two.loops[0].elector.try_acquire_or_renew()  # one stopped renewing: two takes over
        assert not one.loops[0].elector.try_acquire_or_renew()
        spec = client.get(f"{LEASES}/orch-controller-csrsigning").json["spec"]
        assert spec["holderIdentity"] == "two" and spec["leaseTransitions"] == 1
        two.loops[0].elector.release()
        assert one.loops[0].elector.try_acquire_or_renew()  # a released lease is free at once
    finally:
        first_app.extensions["orch.stop"]()
        second_app.extensions["orch.stop"]()


def poll(check: Any, timeout: float = 20.0) -> Any:
    import time

    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def test_running_controllers_sign_requests_and_cluster_info(sqlite_url: str, tmp_path: Path) -> None:
    from tests.controllers import CSRS, condition, csr_body

    app = admin_app(sqlite_url, tmp_path, CONTROLLERS="*", SERVER_URL="https://127.0.0.1:6443")
    try:
        client = app.test_client()
        created = client.post(CSRS, json=csr_body("live")).json
        client.put(f"{CSRS}/live/approval", json={**created, "status": {"conditions": [condition("Approved")]}})
        assert poll(lambda: (client.get(f"{CSRS}/live").json.get("status") or {}).get("certificate"))
        info = client.get(f"/api/v1/namespaces/{NAMING.public_namespace}/configmaps/cluster-info")
        assert info.status_code == 200 and "https://127.0.0.1:6443" in info.json["data"]["kubeconfig"]
        holders = poll(lambda: {o["spec"].get("holderIdentity") for o in client.get(LEASES).json["items"]})
        assert len(holders) == 1 and app.extensions["orch.controllers"].identity in holders
    finally:
        app.extensions["orch.stop"]()


def test_controllers_writes_are_audited_as_their_service_account(sqlite_url: str, tmp_path: Path) -> None:
    import json

    from tests.controllers import CSRS, condition, csr_body

    policy, log_path = tmp_path / "policy.yaml", tmp_path / "audit.log"
    policy.write_text(f"apiVersion: {NAMING.group('audit')}/v1\nkind: Policy\nrules:\n- level: Metadata\n")
    app = admin_app(
        sqlite_url,
        tmp_path,
        CONTROLLERS="csrsigning",
        SERVER_URL="https://127.0.0.1:6443",
        AUDIT_LOG_PATH=str(log_path),
        AUDIT_POLICY_FILE=str(policy),
    )
    signer = f"system:serviceaccount:{NAMING.system_namespace}:certificate-controller"

    def signer_events() -> list[dict]:
        lines = log_path.read_text().splitlines() if log_path.exists() else []
        return [
            e
            for e in map(json.loads, lines)
            if e["user"]["username"] == signer
            and e.get("objectRef", {}).get("resource") == "certificatesigningrequests"
        ]

    try:
        client = app.test_client()
        created = client.post(CSRS, json=csr_body("audited")).json
        client.put(f"{CSRS}/audited/approval", json={**created, "status": {"conditions": [condition("Approved")]}})
        [event] = poll(signer_events)
        assert (event["verb"], event["objectRef"]["subresource"], event["responseStatus"]["code"]) == (
            "update",
            "status",
            200,
        )
        assert event["requestURI"] == f"{CSRS}/audited/status"
    finally:
        app.extensions["orch.stop"]()


def test_a_holder_writes_its_lease_at_most_once_per_renew_interval(
    sqlite_url: str, tmp_path: Path, clock: FakeClock
) -> None:
    """Loops wake on every watched change; the lease must not be rewritten at each wake-up."""
    app = admin_app(sqlite_url, tmp_path)
    try:
        client = app.test_client()
        assert client.get("/api").status_code == 200
        from orch_apiserver.controllers.manager import ensure_namespaced_policy

        controllers = manager(app, clock, "one")
        ensure_namespaced_policy(controllers.ctx)  # the controllers' roles on leases
        elector = controllers.loops[0].elector
        assert elector.try_acquire_or_renew()
        written = client.get(f"{LEASES}/orch-controller-csrsigning").json["metadata"]["resourceVersion"]
        for _ in range(5):
            clock.advance(seconds=0.5)
            assert elector.try_acquire_or_renew()
        assert client.get(f"{LEASES}/orch-controller-csrsigning").json["metadata"]["resourceVersion"] == written
        clock.advance(seconds=5)
        assert elector.try_acquire_or_renew()
        renewed = client.get(f"{LEASES}/orch-controller-csrsigning").json
        assert renewed["metadata"]["resourceVersion"] != written
        assert renewed["spec"]["renewTime"].startswith(clock.now.strftime("%Y-%m-%dT%H:%M:%S"))
    finally:
        app.extensions["orch.stop"]()
