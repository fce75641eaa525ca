"""Deprecated versions answer normally plus a 299 Warning; removed versions are not served; discovery shows
each group's versions by priority."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from orch_apiserver.catalog import Deprecation, ResourceType
from orch_apiserver.context import request_context
from orch_apiserver.naming import Naming
from orch_apiserver.resources import build_catalog
from orch_apiserver.schema import decode_object
from orch_apiserver.versions import deprecation_warning, is_deprecated

V1 = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
V1BETA1 = "/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets"
WARNING = (
    '299 - "policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; '
    'use policy/v1 PodDisruptionBudget"'
)
BODY = {"metadata": {"name": "d"}, "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}
TABLE = "application/json;as=Table;v=v1;g=meta.orch.io"


def test_warning_text_as_the_reference() -> None:
    rt = ResourceType("example.orch.io", "v1beta1", "Widget", "widgets", True)
    assert (
        deprecation_warning(replace(rt, deprecation=Deprecation("1.19")))
        == "example.orch.io/v1beta1 Widget is deprecated in v1.19+"
    )
    assert (
        deprecation_warning(replace(rt, deprecation=Deprecation("1.19", "1.22")))
        == "example.orch.io/v1beta1 Widget is deprecated in v1.19+, unavailable in v1.22+"
    )
    later = replace(rt, deprecation=Deprecation("1.24", "1.27"))
    assert not is_deprecated(later)  # announced for a later release than ours: no warning yet


def test_every_verb_on_a_deprecated_version_warns(client) -> None:
    responses = [
        client.post(V1BETA1, json=BODY),
        client.get(f"{V1BETA1}/d"),
        client.get(V1BETA1),
        client.get(f"{V1BETA1}?watch=true&timeoutSeconds=1"),
        client.patch(
            f"{V1BETA1}/d",
            data=json.dumps({"metadata": {"labels": {"a": "b"}}}),
            content_type="application/merge-patch+json",
        ),
        client.get(f"{V1BETA1}/d/status"),
        client.get(f"{V1BETA1}/missing"),  # errors carry it too
        client.delete(f"{V1BETA1}/d"),
    ]
    assert [r.status_code for r in responses] == [201, 200, 200, 200, 200, 200, 404, 200]
    for resp in responses:
        assert resp.headers.getlist("Warning") == [WARNING]


def test_the_stable_version_does_not_warn(client) -> None:
    assert client.post(V1, json=BODY).headers.getlist("Warning") == []
    assert client.get(V1).headers.getlist("Warning") == []


def test_request_carries_the_deprecated_api_for_metrics_and_audit(sqlite_url, tmp_path) -> None:
    from tests.conftest import admin_app

    flask_app = admin_app(sqlite_url, tmp_path)
    seen: list[object] = []

    @flask_app.after_request
    def _record(response):
        seen.append(request_context().deprecated_api)
        return response

    try:
        client = flask_app.test_client()
        client.post(V1BETA1, json=BODY)
        client.get(f"{V1BETA1}/d/status")
        client.get(V1)
    finally:
        flask_app.extensions["orch.stop"]()
    assert seen == [
        {
            "group": "policy",
            "version": "v1beta1",
            "resource": "poddisruptionbudgets",
            "subresource": "",
            "removed_release": "1.25",
        },
        {
            "group": "policy",
            "version": "v1beta1",
            "resource": "poddisruptionbudgets",
            "subresource": "status",
            "removed_release": "1.25",
        },
        None,
    ]


@pytest.mark.parametrize(
    "path",
    [
        "/apis/extensions/v1beta1/namespaces/default/deployments",
        "/apis/extensions/v1beta1/namespaces/default/ingresses",
        "/apis/extensions/v1beta1",
        "/apis/extensions",
        "/apis/apps/v1beta1/namespaces/default/deployments",
        "/apis/apps/v1beta2/namespaces/default/replicasets",
        "/apis/rbac.authorization.orch.io/v1beta1/clusterroles",
        "/apis/networking.orch.io/v1beta1/ingressclasses",
    ],
)
def test_removed_versions_are_not_served(client, path: str) -> None:
    resp = client.get(path)
    assert resp.status_code == 404
    assert resp.json["kind"] == "Status"


def test_discovery_prefers_the_highest_priority_version(client) -> None:
    group = client.get("/apis/policy").json
    assert [v["version"] for v in group["versions"]] == ["v1", "v1beta1"]
    assert group["preferredVersion"] == {"groupVersion": "policy/v1", "version": "v1"}
    listed = {g["name"]: g for g in client.get("/apis").json["groups"]}
    assert listed["policy"]["preferredVersion"]["version"] == "v1"
    for name, entry in listed.items():  # every group: versions by priority, the first preferred
        catalog = build_catalog(Naming())
        assert entry["preferredVersion"]["version"] == entry["versions"][0]["version"], name
        assert {v["version"] for v in entry["versions"]} == {rt.version for rt in catalog if rt.group == name}


def test_every_served_version_names_the_storage_version(client) -> None:
    def pdb_entry(path: str) -> dict:
        return next(r for r in client.get(path).json["resources"] if r["name"] == "poddisruptionbudgets")

    old, new = pdb_entry("/apis/policy/v1beta1"), pdb_entry("/apis/policy/v1")
    assert old["storageVersionHash"] == new["storageVersionHash"]
    assert old["kind"] == "PodDisruptionBudget" and old["shortNames"] == ["pdb"]
    names = [r["name"] for r in client.get("/apis/policy/v1beta1").json["resources"]]
    assert names == ["poddisruptionbudgets", "poddisruptionbudgets/status", "podsecuritypolicies"]  # as v1.23


def test_table_and_protobuf_in_the_deprecated_version(client) -> None:
    client.post(V1BETA1, json=BODY)
    old = client.get(V1BETA1, headers={"Accept": TABLE}).json
    new = client.get(V1, headers={"Accept": TABLE}).json
    assert [c["name"] for c in old["columnDefinitions"]] == [c["name"] for c in new["columnDefinitions"]]
    assert old["rows"][0]["cells"][0] == "d"
    encoded = client.get(f"{V1BETA1}/d", headers={"Accept": Naming().protobuf_media_type})
    assert encoded.status_code == 200
    decoded = decode_object(encoded.data)
    assert decoded["apiVersion"] == "policy/v1beta1"
    assert decoded["spec"]["selector"] == {"matchLabels": {"app": "web"}}


def test_openapi_documents_both_versions(client) -> None:
    paths = client.get("/openapi/v3").json["paths"]
    assert "apis/policy/v1" in paths and "apis/policy/v1beta1" in paths
