"""csrcleaner and tokencleaner, driven by the injectable clock."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from orch_apiserver.controllers.base import Context
from orch_apiserver.controllers.csrcleaner import CsrCleaner
from orch_apiserver.controllers.csrsigning import CsrSigning
from orch_apiserver.controllers.tokencleaner import TokenCleaner

from tests.controllers import CSRS, NAMING, condition, csr_body
from tests.controllers.conftest import FakeClock


def names(client: Any) -> set[str]:
    return {o["metadata"]["name"] for o in client.get(CSRS).json["items"]}


def decide(client: Any, name: str, kind: str) -> None:
    created = client.post(CSRS, json=csr_body(name)).json
    response = client.put(
        f"{CSRS}/{name}/{'status' if kind == 'Failed' else 'approval'}",
        json={**created, "status": {"conditions": [condition(kind)]}},
    )
    assert response.status_code == 200, response.json


def test_decided_requests_go_after_an_hour_pending_after_a_day(cclient: Any, ctx: Context, clock: FakeClock) -> None:
    for kind in ("Approved", "Denied", "Failed"):
        decide(cclient, kind.lower(), kind)
    assert cclient.post(CSRS, json=csr_body("pending")).status_code == 201
    cleaner = CsrCleaner(ctx)
    clock.advance(minutes=59)
    cleaner.sync()
    assert names(cclient) == {"approved", "denied", "failed", "pending"}
    clock.advance(minutes=2)
    cleaner.sync()
    assert names(cclient) == {"pending"}
    clock.advance(hours=22)
    cleaner.sync()
    assert names(cclient) == {"pending"}
    clock.advance(hours=1)
    cleaner.sync()
    assert names(cclient) == set()


def test_a_request_goes_when_its_certificate_expired(cclient: Any, ctx: Context, clock: FakeClock) -> None:
    created = cclient.post(CSRS, json=csr_body("short", expirationSeconds=600)).json
    cclient.put(f"{CSRS}/short/approval", json={**created, "status": {"conditions": [condition("Approved")]}})
    CsrSigning(ctx).sync()
    assert cclient.get(f"{CSRS}/short").json["status"]["certificate"]
    cleaner = CsrCleaner(ctx)
    clock.advance(minutes=9)
    cleaner.sync()
    assert names(cclient) == {"short"}
    clock.advance(minutes=2)
    cleaner.sync()
    assert names(cclient) == set()


def token_secret(client: Any, token_id: str, expiration: datetime | None, **extra: str) -> None:
    data = {"token-id": token_id, "token-secret": "0123456789abcdef", **extra}
    if expiration is not None:
        data["expiration"] = expiration.strftime("%Y-%m-%dT%H:%M:%SZ")
    body = {
        "metadata": {"name": f"bootstrap-token-{token_id}"},
        "type": NAMING.group("bootstrap") + "/token",
        "stringData": data,
    }
    response = client.post(f"/api/v1/namespaces/{NAMING.system_namespace}/secrets", json=body)
    assert response.status_code == 201, response.json


def secrets(client: Any) -> set[str]:
    listed = client.get(f"/api/v1/namespaces/{NAMING.system_namespace}/secrets").json["items"]
    return {o["metadata"]["name"] for o in listed}


def test_tokencleaner_deletes_expired_bootstrap_tokens(cclient: Any, ctx: Context, clock: FakeClock) -> None:
    token_secret(cclient, "aaaaaa", clock.now + timedelta(hours=1))
    token_secret(cclient, "bbbbbb", None)
    other = {
        "metadata": {"name": "bootstrap-token-cccccc"},
        "stringData": {"expiration": "2000-01-01T00:00:00Z"},
    }  # not of the bootstrap type
    assert cclient.post(f"/api/v1/namespaces/{NAMING.system_namespace}/secrets", json=other).status_code == 201
    cleaner = TokenCleaner(ctx)
    cleaner.sync()
    assert {"bootstrap-token-aaaaaa", "bootstrap-token-bbbbbb", "bootstrap-token-cccccc"} <= secrets(cclient)
    clock.advance(hours=1, seconds=1)
    cleaner.sync()
    left = secrets(cclient)
    assert "bootstrap-token-aaaaaa" not in left
    assert {"bootstrap-token-bbbbbb", "bootstrap-token-cccccc"} <= left
