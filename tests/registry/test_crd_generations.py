"""What a worker keeps per CRD (issue 38 item 10): one generation of its kinds. A write that changes only the CRD's
status keeps the served kinds as they are, a spec change replaces them, and a deleted CRD's kinds, strategies and
OpenAPI documents are released (weak references die) instead of piling up in caches."""

from __future__ import annotations

import gc
import uuid
import weakref
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver.api.openapi import cache
from orch_apiserver.catalog import ResourceType
from orch_apiserver.context import services

from tests.conftest import admin_app

GROUP = "memory.example.com"
CRDS = "/apis/apiextensions.orch.io/v1/customresourcedefinitions"
NAME = f"widgets.{GROUP}"
WIDGETS = f"/apis/{GROUP}/v1/namespaces/default/widgets"


def crd(max_size: int = 10) -> dict:
    schema = {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"size": {"type": "integer", "maximum": max_size}}}},
    }
    return {
        "apiVersion": "apiextensions.orch.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": NAME},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}],
        },
    }


def set_status(client: Any, message: str) -> None:
    """What the CRD controller writes once the names are accepted (a new message: a status-only change)."""
    body = client.get(f"{CRDS}/{NAME}").get_json()
    body["status"] = {
        "acceptedNames": {"plural": "widgets", "kind": "Widget"},
        "conditions": [{"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": message}],
    }
    put = client.put(f"{CRDS}/{NAME}/status", json=body)
    assert put.status_code == 200, put.get_json()


def served(app: Any) -> ResourceType | None:
    """The worker's kind after it caught up with the store (what the next request would be served by)."""
    with app.app_context():
        svc = services()
        svc.catalog.catch_up()
        return svc.catalog.lookup(GROUP, "v1", "widgets")


def widget(size: int) -> dict:
    return {"apiVersion": f"{GROUP}/v1", "kind": "Widget", "metadata": {"name": f"w{size}"}, "spec": {"size": size}}


def delete_crd(client: Any) -> None:
    assert client.delete(f"{CRDS}/{NAME}").status_code == 200
    left = client.get(f"{CRDS}/{NAME}")
    if left.status_code == 200:  # no CRD controller runs here: drop its finalizer as the controller would
        body = left.get_json()
        body["metadata"]["finalizers"] = []
        assert client.put(f"{CRDS}/{NAME}", json=body).status_code == 200
    assert client.get(f"{CRDS}/{NAME}").status_code == 404


def read_documents(client: Any) -> None:
    assert client.get("/openapi/v2").status_code == 200
    assert client.get("/openapi/v2", headers={"Accept-Encoding": "gzip"}).status_code == 200
    assert client.get("/openapi/v3").status_code == 200


def test_status_writes_keep_the_kinds_and_a_spec_change_replaces_them(database_url: str, tmp_path: Path) -> None:
    app = admin_app(database_url, tmp_path, BACKGROUND=False)
    try:
        client = app.test_client()
        assert client.post(CRDS, json=crd()).status_code == 201
        set_status(client, "first")
        first = served(app)
        assert first is not None
        assert client.post(WIDGETS, json=widget(3)).status_code == 201
        set_status(client, "second")
        set_status(client, "third")
        assert served(app) is first  # the same kinds: nothing rebuilt for a condition's message

        body = client.get(f"{CRDS}/{NAME}").get_json()
        body["spec"] = crd(max_size=20)["spec"]
        assert client.put(f"{CRDS}/{NAME}", json=body).status_code == 200
        old = weakref.ref(first)
        second = served(app)
        assert second is not None and second is not first
        del first
        assert client.post(WIDGETS, json=widget(15)).status_code == 201  # the new schema is the one served
        read_documents(client)
        gc.collect()
        assert old() is None  # one generation kept
    finally:
        app.extensions["orch.stop"]()


def test_a_deleted_crd_releases_its_kinds_and_documents(database_url: str, tmp_path: Path) -> None:
    app = admin_app(database_url, tmp_path, BACKGROUND=False)
    try:
        client = app.test_client()
        assert client.post(CRDS, json=crd()).status_code == 201
        set_status(client, "established")
        assert client.post(WIDGETS, json=widget(3)).status_code == 201
        patched = client.patch(
            f"{WIDGETS}/w3",
            json={"spec": {"size": 4}},
            headers={"Content-Type": "application/merge-patch+json"},
        )
        assert patched.status_code == 200, patched.get_json()
        read_documents(client)
        assert client.get(f"/openapi/v3/apis/{GROUP}/v1").status_code == 200
        rt = served(app)
        assert rt is not None
        gone = [weakref.ref(rt), weakref.ref(rt.strategy)]
        with app.app_context():
            v3 = cache.v3_documents(services().catalog, services().naming).v3
            gone.append(weakref.ref(v3[f"apis/{GROUP}/v1"]))
            core = v3["api/v1"]
        del rt, v3

        assert client.delete(f"{WIDGETS}/w3").status_code == 200
        delete_crd(client)
        assert served(app) is None
        assert client.get(WIDGETS).status_code == 404
        read_documents(client)
        assert client.get(f"/openapi/v3/apis/{GROUP}/v1").status_code == 404
        with app.app_context():
            # the built-in group versions' documents were not rebuilt for a custom group's change
            assert cache.v3_documents(services().catalog, services().naming).v3["api/v1"] is core
        gc.collect()
        assert [ref() for ref in gone] == [None] * 3
    finally:
        app.extensions["orch.stop"]()


@pytest.mark.parametrize(
    "written",
    [
        False,
        pytest.param(
            True,
            marks=pytest.mark.xfail(
                strict=True,
                reason="app/apply's LRU caches (zero_object, _struct_children: 1024 entries; node_for: 4096) hold the "
                "declarations of kinds whose objects were written until other kinds evict them",
            ),
        ),
    ],
)
def test_a_deleted_crd_releases_its_typed_declaration(database_url: str, tmp_path: Path, written: bool) -> None:
    app = admin_app(database_url, tmp_path, BACKGROUND=False)
    try:
        client = app.test_client()
        # a schema no other test of this process served: declarations are shared between equal schemas
        assert client.post(CRDS, json=crd(max_size=uuid.uuid4().int % 10**9)).status_code == 201
        set_status(client, "established")
        assert client.get(WIDGETS).status_code == 200
        if written:
            assert client.post(WIDGETS, json=widget(3)).status_code == 201
            assert client.delete(f"{WIDGETS}/w3").status_code == 200
        rt = served(app)
        assert rt is not None and rt.custom is not None
        typed = weakref.ref(rt.custom.typed)
        del rt
        delete_crd(client)
        assert served(app) is None
        gc.collect()
        assert typed() is None
    finally:
        app.extensions["orch.stop"]()
