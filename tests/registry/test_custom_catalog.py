"""The live catalog catches up with the store before a worker says a custom kind or group is not served.

The apps here run no background threads, so their catalogs never hear of a CRD by themselves: whatever they
serve, they learnt on a miss (a worker whose informer lags behind the one that saw the CRD Established)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from orch_apiserver.context import services
from orch_apiserver.registry.custom_catalog import CustomCatalog
from orch_apiserver.resources.custom import types_from_crd

from tests.conftest import admin_app, wait_for

GROUP = "gadgets.example.com"
CRDS = "/apis/apiextensions.orch.io/v1/customresourcedefinitions"
NAME = f"gadgets.{GROUP}"


def crd() -> dict:
    schema = {"type": "object", "properties": {"spec": {"type": "object", "x-orch-preserve-unknown-fields": True}}}
    return {
        "apiVersion": "apiextensions.orch.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": NAME},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": "gadgets", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}],
        },
    }


def establish(client: Any) -> None:
    """What the CRD controller writes once the names are accepted."""
    made = client.post(CRDS, json=crd())
    assert made.status_code == 201, made.get_json()
    body = made.get_json()
    body["status"] = {
        "acceptedNames": {"plural": "gadgets", "kind": "Gadget"},
        "conditions": [{"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "ok"}],
    }
    put = client.put(f"{CRDS}/{NAME}/status", json=body)
    assert put.status_code == 200, put.get_json()


def test_a_worker_that_never_heard_of_an_established_crd_serves_it(database_url: str, tmp_path: Path) -> None:
    app = admin_app(database_url, tmp_path, BACKGROUND=False)
    try:
        client = app.test_client()
        gadgets = f"/apis/{GROUP}/v1/namespaces/default/gadgets"
        assert client.get(gadgets).status_code == 404  # no such kind yet: still the route's 404
        establish(client)
        made = client.post(gadgets, json={"apiVersion": f"{GROUP}/v1", "kind": "Gadget", "metadata": {"name": "g"}})
        assert made.status_code == 201, made.get_json()
        assert client.get(f"{gadgets}/g").status_code == 200
    finally:
        app.extensions["orch.stop"]()


def test_discovery_lists_an_established_crd_the_worker_never_heard_of(database_url: str, tmp_path: Path) -> None:
    app = admin_app(database_url, tmp_path, BACKGROUND=False)
    try:
        client = app.test_client()
        establish(client)
        assert client.get(f"/apis/{GROUP}/v1").get_json()["resources"][0]["name"] == "gadgets"
        assert client.get(f"/apis/{GROUP}").get_json()["preferredVersion"]["version"] == "v1"
        assert GROUP in [g["name"] for g in client.get("/apis").get_json()["groups"]]
    finally:
        app.extensions["orch.stop"]()


def test_an_established_crd_shows_in_the_group_list_first(database_url: str, tmp_path: Path) -> None:
    app = admin_app(database_url, tmp_path, BACKGROUND=False)
    try:
        client = app.test_client()
        establish(client)
        assert GROUP in [g["name"] for g in client.get("/apis").get_json()["groups"]]
    finally:
        app.extensions["orch.stop"]()


def test_requests_that_miss_together_share_one_catch_up(database_url: str, tmp_path: Path) -> None:
    """A 404 storm is no storm of store reads: requests that miss while a round runs share the next one."""
    app = admin_app(database_url, tmp_path, BACKGROUND=False)
    try:
        with app.app_context():
            svc = services()
            crds = svc.catalog.known_type("apiextensions.orch.io", "v1", "customresourcedefinitions")
            live = CustomCatalog(svc.registry, svc.hub, crds, lambda obj: types_from_crd(obj, svc.naming))
            storage, reads, release = svc.storage, [], threading.Event()
            real = storage.current_revision

            def counted() -> int:
                reads.append(threading.current_thread().name)
                release.wait(10)  # the first round holds until every other request is waiting for it
                return real()

            storage.current_revision = counted  # type: ignore[method-assign]
            try:
                first = threading.Thread(target=live.catch_up)
                first.start()
                wait_for(lambda: reads)
                others = [threading.Thread(target=live.catch_up) for _ in range(12)]
                for thread in others:
                    thread.start()
                wait_for(lambda: live.waiting == len(others))
                release.set()
                for thread in [first, *others]:
                    thread.join(10)
            finally:
                del storage.current_revision
            assert len(reads) == 2  # the one running when they came, and the one they shared
    finally:
        app.extensions["orch.stop"]()
