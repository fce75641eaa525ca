"""Server-side apply of a large real-world CRD (argo-cd's ApplicationSet, schema depth ~35) over HTTP on both stores:
re-applying it unchanged is a no-op, and neither that nor writes that leave its schema alone convert the schema
into a typed declaration again (issue 38 item 8: once per CRD generation, not per request or per status write)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from orch_apiserver.controllers.base import Context
from orch_apiserver.controllers.crd import CrdController
from orch_apiserver.resources import crd_typed

from tests.conftest import admin_app, wait_for

INSTALL = Path(__file__).parents[1] / "e2e" / "data" / "argo-cd" / "install.yaml"
NAME = "applicationsets.argoproj.io"
CRD_URL = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{NAME}"
SETS = "/apis/argoproj.io/v1alpha1/namespaces/default/applicationsets"
APPLY = {"Content-Type": "application/apply-patch+yaml"}
APPSET = {
    "apiVersion": "argoproj.io/v1alpha1",
    "kind": "ApplicationSet",
    "metadata": {"name": "guestbook", "namespace": "default"},
    "spec": {
        "generators": [{"list": {"elements": [{"cluster": "in-cluster", "url": "https://kubernetes.default.svc"}]}}],
        "template": {
            "metadata": {"name": "{{cluster}}-guestbook"},
            "spec": {
                "project": "default",
                "source": {"repoURL": "https://example.test/apps.git", "path": "guestbook", "targetRevision": "HEAD"},
                "destination": {"server": "{{url}}", "namespace": "guestbook"},
            },
        },
    },
}


def _crd() -> dict:
    return next(
        doc
        for doc in yaml.safe_load_all(INSTALL.read_text())
        if doc and doc.get("kind") == "CustomResourceDefinition" and doc["metadata"]["name"] == NAME
    )


@pytest.fixture
def k8s_app(database_url: str, tmp_path: Path):
    """The reference's domain: the manifest names apiextensions.k8s.io."""
    flask_app = admin_app(database_url, tmp_path, API_DOMAIN="k8s.io")
    yield flask_app
    flask_app.extensions["orch.stop"]()


def _apply(client, url: str, obj: dict, manager: str = "kubectl"):
    """As `kubectl apply --server-side` sends it: the object as JSON, which is YAML too."""
    return client.patch(f"{url}?fieldManager={manager}", data=json.dumps(obj), headers=APPLY)


def _establish(flask_app) -> None:
    """Test apps run no controllers: one pass of the crd controller accepts the names, then the kind is served."""
    svc = flask_app.extensions["orch"]
    CrdController(Context(svc.registry, svc.naming, svc.hub, settings=dict(flask_app.config))).sync()
    wait_for(lambda: flask_app.test_client().get(SETS).status_code == 200)


def test_a_no_op_apply_of_a_deep_crd_converts_its_schema_once_per_generation(k8s_app) -> None:
    client, crd = k8s_app.test_client(), _crd()
    before = crd_typed.stats["builds"]
    created = _apply(client, CRD_URL, crd)
    assert created.status_code == 201, created.get_json()
    _establish(k8s_app)
    live = client.get(CRD_URL).get_json()

    for _ in range(2):
        again = _apply(client, CRD_URL, crd)
        assert again.status_code == 200, again.get_json()
        assert again.get_json()["metadata"]["resourceVersion"] == live["metadata"]["resourceVersion"]
        assert again.get_json()["metadata"]["managedFields"] == live["metadata"]["managedFields"]
    labelled = _apply(client, CRD_URL, {**crd, "metadata": {**crd["metadata"], "labels": {"team": "a"}}})
    assert labelled.status_code == 200, labelled.get_json()
    assert labelled.get_json()["metadata"]["generation"] == 1  # a new text for the catalog, the same schema
    for _ in range(2):
        applied = _apply(client, f"{SETS}/guestbook", APPSET, manager="argocd")
        assert applied.status_code in (200, 201), applied.get_json()
    assert client.get(f"{SETS}/guestbook").get_json()["spec"]["template"]["spec"]["project"] == "default"
    wait_for(lambda: client.get(SETS).status_code == 200)  # the catalog has caught up with the labelled CRD
    assert crd_typed.stats["builds"] - before <= 1  # one served version, one generation (0: built by an earlier test)

    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    schema["properties"]["spec"]["properties"]["note"] = {"type": "string"}
    changed = _apply(client, CRD_URL, crd)
    assert changed.status_code == 200 and changed.get_json()["metadata"]["generation"] == 2
    noted = {**APPSET, "spec": {**APPSET["spec"], "note": "x"}}
    wait_for(lambda: _apply(client, f"{SETS}/guestbook", noted, manager="argocd").status_code == 200)
    assert client.get(f"{SETS}/guestbook").get_json()["spec"]["note"] == "x"  # the new schema serves it
    assert crd_typed.stats["builds"] - before <= 2
