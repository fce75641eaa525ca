"""The Fault kind served by an app with FAULT_INJECTION (--enable-fault-injection), on SQLite and PostgreSQL:
a kind like every other (lifecycle, table, discovery, OpenAPI), and `times` counted in the store, so two apps
(two workers or replicas) sharing it fire a `times: 1` Fault once in all."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from orch_apiserver.faults.manifest import fault_manifest

from tests.conftest import _shutdown, admin_app

GROUP = "testing.orch.io"
FAULTS = f"/apis/{GROUP}/v1alpha1/faults"
MERGE = {"Content-Type": "application/merge-patch+json"}


@pytest.fixture
def apps(database_url: str, tmp_path: Path) -> Iterator[list[Any]]:
    made = [admin_app(database_url, tmp_path / str(i), FAULT_INJECTION=True) for i in range(2)]
    yield made
    for app in made:
        _shutdown(app)


def add(client: Any, name: str, **keywords: Any) -> dict:
    made = client.post(FAULTS, json=fault_manifest(name, f"{GROUP}/v1alpha1", **keywords))
    assert made.status_code == 201, made.get_json()
    return made.get_json()


def test_a_kind_like_every_other(apps: list[Any]) -> None:
    client = apps[0].test_client()
    made = client.post(
        FAULTS,
        json={**fault_manifest("slow", f"{GROUP}/v1alpha1", delay="0s"), "status": {"matched": 7}},
    )
    assert made.status_code == 201
    assert made.get_json()["status"] == {"matched": 0}  # the server counts, not the client
    patched = client.patch(f"{FAULTS}/slow", data=orjson.dumps({"spec": {"times": 3}}), headers=MERGE)
    assert patched.status_code == 200 and patched.get_json()["spec"]["times"] == 3
    assert [i["metadata"]["name"] for i in client.get(FAULTS).get_json()["items"]] == ["slow"]
    table = client.get(FAULTS, headers={"Accept": "application/json;as=Table;v=v1;g=meta.orch.io"}).get_json()
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Action", "Times", "Matched", "Age"]
    assert table["rows"][0]["cells"][:4] == ["slow", "delay 0s", "3", 0]
    resources = client.get(f"/apis/{GROUP}/v1alpha1").get_json()["resources"]
    fault = next(r for r in resources if r["name"] == "faults")
    assert fault["kind"] == "Fault" and fault["namespaced"] is False
    assert {r["name"] for r in resources} == {"faults", "faults/status"}
    spec = client.get(f"/openapi/v3/apis/{GROUP}/v1alpha1").get_json()
    schemas = spec["components"]["schemas"]
    action = next(v for k, v in schemas.items() if k.endswith("v1alpha1.FaultAction"))
    assert set(action["properties"]) == {"error", "delay", "afterWrite", "watch", "conflictOnce"}
    assert client.delete(f"{FAULTS}/slow").status_code == 200


def test_times_one_fires_once_across_two_apps_on_one_store(apps: list[Any]) -> None:
    first, second = (app.test_client() for app in apps)
    assert first.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "shared"}}).status_code == 201
    add(first, "once", names=["shared"], verbs=["get"], error=503, times=1)
    path = "/api/v1/namespaces/default/configmaps/shared"

    def get(i: int) -> int:
        with apps[i % 2].test_client() as client:
            return int(client.get(path).status_code)

    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        codes = list(pool.map(get, range(24)))
    assert codes.count(503) == 1 and codes.count(200) == 23
    assert second.get(f"{FAULTS}/once").get_json()["status"]["matched"] == 1


def test_after_write_on_a_patch_stores_it(apps: list[Any]) -> None:
    client = apps[0].test_client()
    assert client.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "cm"}}).status_code == 201
    add(client, "lost", verbs=["patch"], after_write=504, times=1)
    lost = client.patch(
        "/api/v1/namespaces/default/configmaps/cm", data=orjson.dumps({"data": {"k": "v"}}), headers=MERGE
    )
    assert lost.status_code == 504 and lost.headers["X-Orch-Fault"] == "lost"
    assert lost.get_json()["reason"] == "Timeout" and lost.headers["Retry-After"] == "1"
    assert client.get("/api/v1/namespaces/default/configmaps/cm").get_json()["data"] == {"k": "v"}


def test_a_request_authorization_refuses_meets_no_fault(apps: list[Any]) -> None:
    """Faults come after authorization: an anonymous request is refused as ever, and no Fault counts it."""
    from flask.testing import FlaskClient

    admin = apps[0].test_client()
    add(admin, "everything", error=500)
    anonymous = FlaskClient(apps[0])
    refused = anonymous.get("/api/v1/namespaces/default/configmaps")
    assert refused.status_code in (401, 403) and "X-Orch-Fault" not in refused.headers
    assert admin.get(f"{FAULTS}/everything").get_json()["status"]["matched"] == 0
    assert admin.delete(f"{FAULTS}/everything").status_code == 200  # requests on Faults are never matched
