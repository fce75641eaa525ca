"""Discovery documents and /version: pure builders on a hand-made catalog, then over HTTP."""

from __future__ import annotations

import re

import pytest
from orch_apiserver.api import discovery
from orch_apiserver.context import services

from . import AUTHENTICATION, CERTIFICATES, sample_catalog

AGGREGATED_ACCEPT = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"


# ---------------------------------------------------------------------------------------------
# Builders


@pytest.mark.parametrize(
    ("group", "kind", "expected"),
    [
        ("", "ConfigMap", "qFsyl6wFWjQ="),
        ("", "Pod", "xPOwRZ+Yhw8="),
        ("", "Namespace", "Q3oi5N2YM8M="),
        (CERTIFICATES, "CertificateSigningRequest", "89jQaM0WrkQ="),
    ],
)
def test_storage_version_hash_matches_reference_values(group: str, kind: str, expected: str) -> None:
    assert discovery.storage_version_hash(group, "v1", kind) == expected


def test_version_info_is_all_strings_with_reference_minor() -> None:
    info = discovery.version_info()
    assert set(info) == {
        "major",
        "minor",
        "gitVersion",
        "gitCommit",
        "gitTreeState",
        "buildDate",
        "goVersion",
        "compiler",
        "platform",
    }
    assert all(isinstance(v, str) for v in info.values())
    assert (info["major"], info["minor"]) == ("1", "23")
    assert re.fullmatch(r"v1\.23\.0-orch\.\d+\.\d+\.\d+\S*", info["gitVersion"])
    assert info["gitTreeState"] == "clean" and info["compiler"] == "cpython"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", info["buildDate"])
    assert info["goVersion"].startswith("python3.") and "/" in info["platform"]


def test_api_versions_has_no_api_version_field() -> None:
    doc = discovery.api_versions(sample_catalog(), "10.0.0.1:6443")
    assert doc == {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "10.0.0.1:6443"}],
    }


def test_group_list_excludes_core_and_prefers_first_declared_version() -> None:
    doc = discovery.api_group_list(sample_catalog())
    assert doc["kind"] == "APIGroupList" and doc["apiVersion"] == "v1"
    names = [g["name"] for g in doc["groups"]]
    assert names == ["apps", "batch", CERTIFICATES, AUTHENTICATION, "rbac.authorization.orch.io"]
    batch = doc["groups"][1]
    assert batch == {
        "name": "batch",
        "versions": [
            {"groupVersion": "batch/v1", "version": "v1"},
            {"groupVersion": "batch/v1beta1", "version": "v1beta1"},
        ],
        "preferredVersion": {"groupVersion": "batch/v1", "version": "v1"},
    }


def test_api_group_document_and_unknown_group() -> None:
    catalog = sample_catalog()
    doc = discovery.api_group(catalog, "apps")
    assert doc == {
        "kind": "APIGroup",
        "apiVersion": "v1",
        "name": "apps",
        "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
        "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"},
    }
    assert discovery.api_group(catalog, "nope") is None
    assert discovery.api_group(catalog, "") is None  # the core group is served under /api


def test_core_resource_list_shape_and_order() -> None:
    doc = discovery.api_resource_list(sample_catalog(), "", "v1")
    assert doc is not None
    assert list(doc) == ["kind", "groupVersion", "resources"]  # no apiVersion for the core group
    names = [r["name"] for r in doc["resources"]]
    assert names == [
        "configmaps",
        "namespaces",
        "namespaces/finalize",
        "namespaces/status",
        "pods",
        "pods/eviction",
        "pods/log",
        "pods/status",
    ]
    by_name = {r["name"]: r for r in doc["resources"]}
    assert by_name["configmaps"] == {
        "name": "configmaps",
        "singularName": "configmap",
        "namespaced": True,
        "kind": "ConfigMap",
        "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
        "shortNames": ["cm"],
        "storageVersionHash": "qFsyl6wFWjQ=",
    }
    assert by_name["pods"]["categories"] == ["all"]
    assert by_name["namespaces"]["verbs"] == sorted(by_name["namespaces"]["verbs"])
    assert by_name["namespaces"]["namespaced"] is False
    assert by_name["namespaces/finalize"] == {
        "name": "namespaces/finalize",
        "singularName": "",
        "namespaced": False,
        "kind": "Namespace",
        "verbs": ["update"],
    }
    assert by_name["pods/eviction"] == {
        "name": "pods/eviction",
        "singularName": "",
        "namespaced": True,
        "group": "policy",
        "version": "v1",
        "kind": "Eviction",
        "verbs": ["create"],
    }
    assert by_name["pods/status"]["verbs"] == ["get", "patch", "update"]


def test_group_resource_list_has_api_version_and_scale_entry() -> None:
    doc = discovery.api_resource_list(sample_catalog(), "apps", "v1")
    assert doc is not None
    assert (doc["kind"], doc["apiVersion"], doc["groupVersion"]) == ("APIResourceList", "v1", "apps/v1")
    by_name = {r["name"]: r for r in doc["resources"]}
    assert set(by_name) == {"deployments", "deployments/scale", "deployments/status"}
    assert by_name["deployments/scale"] == {
        "name": "deployments/scale",
        "singularName": "",
        "namespaced": True,
        "group": "autoscaling",
        "version": "v1",
        "kind": "Scale",
        "verbs": ["get", "patch", "update"],
    }
    assert "group" not in by_name["deployments/status"] and "storageVersionHash" not in by_name["deployments/status"]
    assert by_name["deployments"]["singularName"] == "deployment"


def test_virtual_kind_has_no_storage_version_hash_and_cluster_scope() -> None:
    doc = discovery.api_resource_list(sample_catalog(), AUTHENTICATION, "v1")
    assert doc is not None
    assert doc["resources"] == [
        {
            "name": "tokenreviews",
            "singularName": "tokenreview",
            "namespaced": False,
            "kind": "TokenReview",
            "verbs": ["create"],
        }
    ]


def test_unknown_group_version_is_none() -> None:
    catalog = sample_catalog()
    assert discovery.api_resource_list(catalog, "apps", "v2") is None
    assert discovery.api_resource_list(catalog, "", "v2") is None


# ---------------------------------------------------------------------------------------------
# HTTP


def _catalog(app):
    with app.app_context():
        return services().catalog


def test_version_endpoint(client) -> None:
    resp = client.get("/version?timeout=32s")
    assert resp.status_code == 200
    assert resp.headers["Content-Type"] == "application/json"
    assert resp.headers["Cache-Control"] == "no-cache, private"
    assert resp.get_json() == discovery.version_info()


def test_api_lists_v1_with_request_address(client) -> None:
    resp = client.get("/api?timeout=32s", headers={"Accept": AGGREGATED_ACCEPT, "Host": "example.test:6443"})
    assert resp.status_code == 200
    assert resp.headers["Content-Type"] == "application/json"  # legacy: clients fall back on this
    assert resp.headers["Cache-Control"] == "no-cache, private"
    assert resp.get_json() == {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "example.test:6443"}],
    }


def test_api_adds_the_port_when_the_host_header_has_none(client) -> None:
    doc = client.get("/api", headers={"Host": "example.test"}).get_json()
    assert re.fullmatch(r"example\.test:\d+", doc["serverAddressByClientCIDRs"][0]["serverAddress"])


def test_apis_and_every_group_and_group_version_resolve(app, client) -> None:
    catalog = _catalog(app)
    doc = client.get("/apis?timeout=32s", headers={"Accept": AGGREGATED_ACCEPT}).get_json()
    assert doc["kind"] == "APIGroupList" and doc["apiVersion"] == "v1"
    served = {g: vs for g, vs in catalog.group_versions().items() if g}
    assert [g["name"] for g in doc["groups"]] == list(served)
    for group in doc["groups"]:
        assert group["preferredVersion"] in group["versions"]
        single = client.get(f"/apis/{group['name']}?timeout=32s")
        assert single.status_code == 200
        assert single.get_json() == {"kind": "APIGroup", "apiVersion": "v1", **group}
        for gv in group["versions"]:
            listing = client.get(f"/apis/{gv['groupVersion']}?timeout=32s")
            assert listing.status_code == 200
            assert listing.headers["Cache-Control"] == "no-cache, private"
            body = listing.get_json()
            assert body["apiVersion"] == "v1" and body["groupVersion"] == gv["groupVersion"]
            assert body["resources"], "an advertised group-version must list resources"


def test_every_catalog_resource_is_discoverable(app, client) -> None:
    catalog = _catalog(app)
    for rt in catalog:
        path = f"/apis/{rt.group}/{rt.version}" if rt.group else f"/api/{rt.version}"
        by_name = {r["name"]: r for r in client.get(path).get_json()["resources"]}
        entry = by_name[rt.plural]
        assert entry["kind"] == rt.kind and entry["namespaced"] == rt.namespaced
        assert entry["singularName"], "kr8s and friends need a singular name"
        assert entry["verbs"] == sorted(rt.verbs)
        for sub in rt.subresources:
            sub_entry = by_name[f"{rt.plural}/{sub.name}"]
            assert sub_entry["singularName"] == "" and sub_entry["verbs"] == sorted(sub.verbs)
            assert sub_entry["namespaced"] == rt.namespaced


def test_core_resource_list_over_http(client) -> None:
    resp = client.get("/api/v1?timeout=32s", headers={"Accept": AGGREGATED_ACCEPT})
    assert resp.status_code == 200
    body = resp.get_json()
    assert "apiVersion" not in body and body["kind"] == "APIResourceList" and body["groupVersion"] == "v1"
    names = [r["name"] for r in body["resources"]]
    assert names == sorted(names)
    configmaps = next(r for r in body["resources"] if r["name"] == "configmaps")
    assert configmaps["storageVersionHash"] == "qFsyl6wFWjQ="
    assert configmaps["verbs"] == ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


@pytest.mark.parametrize("path", ["/apis/nope.example.com", "/apis/nope.example.com/v1", "/api/v2", "/apis/apps/v0"])
def test_unknown_group_or_version_is_status_404(client, path: str) -> None:
    resp = client.get(path)
    assert resp.status_code == 404
    body = resp.get_json()
    assert body["kind"] == "Status" and body["reason"] == "NotFound" and body["code"] == 404


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        # client-go 1.26+: the aggregated list in v2, then v2beta1, then the legacy document
        (
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
            "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json",
            "v2",
        ),
        ("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", "v2beta1"),
        # protobuf first: not served here, the JSON list next is
        (
            "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
            "v2",
        ),
        # a plain type preferred, by order or by q: the legacy document
        ("application/json,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", None),
        ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.5,application/json", None),
        # another domain's group, an unknown version, a Table: the legacy document
        ("application/json;g=apidiscovery.orch.io;v=v2;as=APIGroupDiscoveryList", None),
        ("application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList", None),
        ("application/json;g=meta.k8s.io;v=v1;as=Table", None),
        (None, None),
    ],
)
def test_aggregated_discovery_is_what_the_accept_header_prefers(accept: str | None, expected: str | None) -> None:
    from orch_apiserver.api.discovery_aggregated import negotiated_version
    from orch_apiserver.naming import Naming

    assert negotiated_version(accept, Naming("k8s.io")) == expected
