"""OpenAPI v3 (index + per group-version) and v2: builders, then what kubectl reads over HTTP."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson
import pytest
from orch_apiserver.api import openapi
from orch_apiserver.catalog import Catalog, ResourceType
from orch_apiserver.context import services
from orch_apiserver.naming import CLIENT_GVK_EXTENSION, Naming
from orch_apiserver.resources import build_catalog
from orch_apiserver.schema import has_schema, schema_for

from . import CERTIFICATES, sample_catalog

NAMING = Naming()
OUR_GVK = NAMING.openapi_extension("group-version-kind")
GNOSTIC_V2 = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
METHODS = ("get", "put", "post", "patch", "delete")
PRESERVE = NAMING.openapi_extension("preserve-unknown-fields")


def supports_field_validation(doc: dict[str, Any], group: str, version: str, kind: str) -> bool:
    """kubectl's check (cli-runtime query_param_verifier_v3): the first PATCH op for the GVK decides."""
    want = {"group": group, "version": version, "kind": kind}
    for item in doc["paths"].values():
        op = item.get("patch")
        if op is None or op.get(CLIENT_GVK_EXTENSION) != want:
            continue
        return any(p["name"] == "fieldValidation" and p["in"] == "query" for p in op["parameters"])
    return False


def refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"]} if isinstance(node.get("$ref"), str) else set()
        for value in node.values():
            found |= refs(value)
        return found
    if isinstance(node, list):
        return set().union(*(refs(v) for v in node)) if node else set()
    return set()


def operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, m, item[m]) for path, item in doc["paths"].items() for m in METHODS if m in item]


# ---------------------------------------------------------------------------------------------
# Builders


def test_schema_names_use_reversed_group_or_core() -> None:
    assert openapi.schema_name(NAMING, "", "v1", "ConfigMap") == "core.v1.ConfigMap"
    assert openapi.schema_name(NAMING, "apps", "v1", "Deployment") == "apps.v1.Deployment"
    assert (
        openapi.schema_name(NAMING, CERTIFICATES, "v1", "CertificateSigningRequest")
        == "io.orch.certificates.v1.CertificateSigningRequest"
    )
    assert openapi.meta_schema_name(NAMING, "ObjectMeta") == "io.orch.meta.v1.ObjectMeta"
    assert openapi.gv_path("", "v1") == "api/v1" and openapi.gv_path("apps", "v1") == "apis/apps/v1"


def test_schema_names_in_the_reference_domain_are_the_references() -> None:
    k8s = Naming("k8s.io")
    assert openapi.schema_name(k8s, "", "v1", "ConfigMap") == "io.k8s.api.core.v1.ConfigMap"
    assert openapi.schema_name(k8s, "rbac.authorization.k8s.io", "v1", "Role") == "io.k8s.api.rbac.v1.Role"
    assert openapi.schema_name(k8s, "flowcontrol.apiserver.k8s.io", "v1", "FlowSchema") == (
        "io.k8s.api.flowcontrol.v1.FlowSchema"
    )
    assert openapi.schema_name(k8s, "apiextensions.k8s.io", "v1", "CustomResourceDefinition") == (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"
    )
    assert openapi.schema_name(k8s, "apiregistration.k8s.io", "v1", "APIService") == (
        "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService"
    )
    assert openapi.meta_schema_name(k8s, "ObjectMeta") == "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    assert openapi.schema_name(k8s, "example.com", "v1", "Widget") == "com.example.v1.Widget"  # a custom group


def test_v3_core_document_has_reference_path_shapes_and_operation_ids() -> None:
    doc = openapi.build_v3_document(sample_catalog(), NAMING, "", "v1")
    assert doc is not None and doc["openapi"] == "3.0.0"
    paths = doc["paths"]
    coll, item = "/api/v1/namespaces/{namespace}/configmaps", "/api/v1/namespaces/{namespace}/configmaps/{name}"
    assert {m: paths[coll][m]["operationId"] for m in METHODS if m in paths[coll]} == {
        "get": "listCoreV1NamespacedConfigMap",
        "post": "createCoreV1NamespacedConfigMap",
        "delete": "deleteCoreV1CollectionNamespacedConfigMap",
    }
    assert {m: paths[item][m]["operationId"] for m in METHODS if m in paths[item]} == {
        "get": "readCoreV1NamespacedConfigMap",
        "put": "replaceCoreV1NamespacedConfigMap",
        "patch": "patchCoreV1NamespacedConfigMap",
        "delete": "deleteCoreV1NamespacedConfigMap",
    }
    assert paths["/api/v1/configmaps"]["get"]["operationId"] == "listCoreV1ConfigMapForAllNamespaces"
    assert paths["/api/v1/namespaces/{name}"]["patch"]["operationId"] == "patchCoreV1Namespace"
    assert paths["/api/v1/namespaces/{name}/finalize"]["put"]["operationId"] == "replaceCoreV1NamespaceFinalize"
    assert "/api/v1/namespaces/{namespace}/pods/{name}/eviction" in paths
    assert paths["/api/v1/namespaces/{namespace}/pods/{name}/eviction"]["post"][CLIENT_GVK_EXTENSION] == {
        "group": "policy",
        "version": "v1",
        "kind": "Eviction",
    }
    path_params = {p["name"]: p for p in paths[item]["parameters"]}
    assert path_params["name"]["in"] == "path" and path_params["name"]["required"] is True
    assert path_params["namespace"]["in"] == "path"
    patch = paths[item]["patch"]
    assert {p["name"] for p in patch["parameters"]} == {"dryRun", "fieldManager", "fieldValidation", "force", "pretty"}
    assert all(p["in"] == "query" for p in patch["parameters"])
    assert patch[OUR_GVK] == patch[CLIENT_GVK_EXTENSION] == {"group": "", "version": "v1", "kind": "ConfigMap"}
    content = patch["requestBody"]["content"]
    assert {"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"} <= set(
        content
    )
    smp = "application/strategic-merge-patch+json" in content
    assert smp == openapi.ADVERTISE_STRATEGIC_MERGE_PATCH
    listing = paths[coll]["get"]
    assert {"labelSelector", "fieldSelector", "limit", "continue", "watch", "resourceVersion", "timeoutSeconds"} <= {
        p["name"] for p in listing["parameters"]
    }


def test_every_kind_and_subresource_patch_declares_field_validation() -> None:
    catalog = sample_catalog()
    for group, versions in catalog.group_versions().items():
        for version in versions:
            doc = openapi.build_v3_document(catalog, NAMING, group, version)
            assert doc is not None
            for rt in catalog.resources(group, version):
                if "patch" in rt.verbs:
                    assert supports_field_validation(doc, rt.group, rt.version, rt.kind), rt.kind
            for _, method, op in operations(doc):
                assert op["operationId"] and op[OUR_GVK] == op[CLIENT_GVK_EXTENSION]
                if method == "patch":
                    assert any(p["name"] == "fieldValidation" and p["in"] == "query" for p in op["parameters"])


def test_scale_subresource_carries_autoscaling_gvk_and_schema() -> None:
    doc = openapi.build_v3_document(sample_catalog(), NAMING, "apps", "v1")
    assert doc is not None
    scale = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]
    assert scale["patch"]["operationId"] == "patchAppsV1NamespacedDeploymentScale"
    assert scale["patch"][CLIENT_GVK_EXTENSION] == {"group": "autoscaling", "version": "v1", "kind": "Scale"}
    assert scale["get"]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/autoscaling.v1.Scale"
    }
    schemas = doc["components"]["schemas"]
    assert schemas["autoscaling.v1.Scale"][CLIENT_GVK_EXTENSION] == [
        {"group": "autoscaling", "version": "v1", "kind": "Scale"}
    ]
    status = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status"]
    assert status["patch"][CLIENT_GVK_EXTENSION]["kind"] == "Deployment"


def test_kind_schemas_are_typed_and_carry_gvk_lists() -> None:
    doc = openapi.build_v3_document(sample_catalog(), NAMING, "", "v1")
    assert doc is not None
    schemas = doc["components"]["schemas"]
    cm = schemas["core.v1.ConfigMap"]
    assert cm["type"] == "object" and PRESERVE not in cm
    assert cm[OUR_GVK] == cm[CLIENT_GVK_EXTENSION] == [{"group": "", "version": "v1", "kind": "ConfigMap"}]
    assert cm["properties"]["metadata"]["allOf"] == [{"$ref": "#/components/schemas/io.orch.meta.v1.ObjectMeta"}]
    assert cm["properties"]["data"] == {
        "type": "object",
        "additionalProperties": {"type": "string"},
        "description": "The data, by key.",
    }
    assert cm["properties"]["binaryData"]["additionalProperties"] == {"type": "string", "format": "byte"}
    assert cm["properties"]["immutable"]["type"] == "boolean"
    assert schemas["core.v1.ConfigMapList"][CLIENT_GVK_EXTENSION][0]["kind"] == "ConfigMapList"
    meta = schemas["io.orch.meta.v1.ObjectMeta"]["properties"]
    assert {
        "name",
        "namespace",
        "labels",
        "annotations",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "finalizers",
        "ownerReferences",
        "managedFields",
    } <= set(meta)
    role = openapi.build_v3_document(sample_catalog(), NAMING, "rbac.authorization.orch.io", "v1")
    assert role is not None
    rules = role["components"]["schemas"]["io.orch.authorization.rbac.v1.Role"]["properties"]["rules"]
    assert rules["type"] == "array" and rules["items"] == {
        "$ref": "#/components/schemas/io.orch.authorization.rbac.v1.PolicyRule"
    }
    assert (
        role["paths"]["/apis/rbac.authorization.orch.io/v1/namespaces/{namespace}/roles/{name}"]["get"]["operationId"]
        == "readRbacAuthorizationV1NamespacedRole"
    )


def test_kinds_without_a_declaration_stay_permissive() -> None:
    undeclared = Catalog([ResourceType("batch", "v2alpha1", "CronJob", "cronjobs", True)])  # no schema for v2alpha1
    doc = openapi.build_v3_document(undeclared, NAMING, "batch", "v2alpha1")
    assert doc is not None
    cron = doc["components"]["schemas"]["batch.v2alpha1.CronJob"]
    assert cron[PRESERVE] is True and cron["properties"]["spec"][PRESERVE] is True
    assert cron[CLIENT_GVK_EXTENSION] == [{"group": "batch", "version": "v2alpha1", "kind": "CronJob"}]


def test_every_reference_resolves_in_v3_and_v2() -> None:
    catalog = sample_catalog()
    for group, versions in catalog.group_versions().items():
        for version in versions:
            doc = openapi.build_v3_document(catalog, NAMING, group, version)
            assert doc is not None
            names = {f"#/components/schemas/{n}" for n in doc["components"]["schemas"]}
            assert refs(doc) <= names
    v2 = openapi.build_v2_document(catalog, NAMING)
    assert refs(v2) <= {f"#/definitions/{n}" for n in v2["definitions"]}


def test_v2_document_has_definitions_and_paths_for_every_kind() -> None:
    catalog = sample_catalog()
    v2 = openapi.build_v2_document(catalog, NAMING)
    assert v2["swagger"] == "2.0"
    for rt in catalog:
        definition = v2["definitions"][openapi.schema_name(NAMING, rt.group, rt.version, rt.kind)]
        assert definition[CLIENT_GVK_EXTENSION] == [{"group": rt.group, "version": rt.version, "kind": rt.kind}]
    v3_paths: set[str] = set()
    for group, versions in catalog.group_versions().items():
        for version in versions:
            doc = openapi.build_v3_document(catalog, NAMING, group, version)
            assert doc is not None
            v3_paths |= set(doc["paths"])
    assert set(v2["paths"]) == v3_paths
    patch = v2["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"]
    assert "application/merge-patch+json" in patch["consumes"]
    assert patch["parameters"][0] == {
        "name": "body",
        "in": "body",
        "required": True,
        "schema": {"$ref": "#/definitions/io.orch.meta.v1.Patch"},
    }
    assert patch[CLIENT_GVK_EXTENSION] == {"group": "", "version": "v1", "kind": "ConfigMap"}


def test_virtual_kind_has_only_a_create_operation() -> None:
    doc = openapi.build_v3_document(sample_catalog(), NAMING, "authentication.orch.io", "v1")
    assert doc is not None
    assert list(doc["paths"]) == ["/apis/authentication.orch.io/v1/tokenreviews"]
    assert list(doc["paths"]["/apis/authentication.orch.io/v1/tokenreviews"]) == ["post"]


def test_index_hashes_are_stable_digests_of_the_documents() -> None:
    catalog = sample_catalog()
    built = openapi.v3_documents(catalog, NAMING)
    assert built.index is not None
    index = orjson.loads(built.index.body)
    assert set(index["paths"]) == {
        "api/v1",
        "apis/apps/v1",
        "apis/batch/v1",
        "apis/batch/v1beta1",
        f"apis/{CERTIFICATES}/v1",
        "apis/authentication.orch.io/v1",
        "apis/rbac.authorization.orch.io/v1",
    }
    doc = openapi.build_v3_document(catalog, NAMING, "", "v1")
    assert doc is not None
    digest = openapi.document_hash(openapi.encode_document(doc))
    assert index["paths"]["api/v1"] == {"serverRelativeURL": f"/openapi/v3/api/v1?hash={digest}"}
    assert openapi.v3_documents(sample_catalog(), NAMING).v3["api/v1"].hash == digest  # a fresh build agrees
    assert openapi.v3_documents(catalog, NAMING) is built  # cached while the catalog is unchanged


# ---------------------------------------------------------------------------------------------
# Typed schemas of the real catalog, derived from the declarations


REAL = build_catalog(NAMING)
EXT = NAMING.openapi_extension


def _api_version(group: str, version: str) -> str:
    return f"{group}/{version}" if group else version


@pytest.fixture(scope="module")
def v3_docs() -> dict[str, dict[str, Any]]:
    out = {}
    for group, versions in REAL.group_versions().items():
        for version in versions:
            doc = openapi.build_v3_document(REAL, NAMING, group, version)
            assert doc is not None
            out[openapi.gv_path(group, version)] = doc
    return out


@pytest.fixture(scope="module")
def v2_doc() -> dict[str, Any]:
    return openapi.build_v2_document(REAL, NAMING)


def _kind_schemas(rt, v3_docs, v2_doc) -> list[dict[str, Any]]:
    name = openapi.schema_name(NAMING, rt.group, rt.version, rt.kind)
    return [v3_docs[openapi.gv_path(rt.group, rt.version)]["components"]["schemas"][name], v2_doc["definitions"][name]]


@pytest.mark.parametrize("rt", list(REAL), ids=lambda rt: rt.group_resource)
def test_every_kind_has_a_schema_with_its_gvk_in_v3_and_v2(rt, v3_docs, v2_doc) -> None:
    want = [{"group": rt.group, "version": rt.version, "kind": rt.kind}]
    typed = has_schema(_api_version(rt.group, rt.version), rt.kind, NAMING)
    for schema in _kind_schemas(rt, v3_docs, v2_doc):
        assert schema[OUR_GVK] == schema[CLIENT_GVK_EXTENSION] == want
        assert {"apiVersion", "kind", "metadata"} <= set(schema["properties"])
        assert (PRESERVE not in schema) == typed, rt.kind
        if typed:
            struct = schema_for(_api_version(rt.group, rt.version), rt.kind, NAMING)
            assert set(struct.json_fields) <= set(schema["properties"])


def _declared_markers(field) -> dict[str, Any]:
    pairs = {
        "list-type": field.list_type,
        "list-map-keys": list(field.list_map_keys) or None,
        "map-type": field.map_type,
        "patch-strategy": field.patch_strategy,
        "patch-merge-key": field.patch_merge_key,
    }
    return {EXT(k): v for k, v in pairs.items() if v}


@pytest.mark.parametrize(
    "rt",
    [rt for rt in REAL if has_schema(_api_version(rt.group, rt.version), rt.kind, NAMING)],
    ids=lambda rt: rt.group_resource,
)
def test_every_reachable_struct_carries_the_declared_markers(rt, v3_docs, v2_doc) -> None:
    kind = schema_for(_api_version(rt.group, rt.version), rt.kind, NAMING)
    for schemas in (v3_docs[openapi.gv_path(rt.group, rt.version)]["components"]["schemas"], v2_doc["definitions"]):
        embedded = {id(f.type) for s in kind.walk() for f in s.fields if f.inline}
        for struct in kind.walk():
            name = openapi.struct_name(NAMING, struct)
            if id(struct) in embedded and name not in schemas:
                continue  # only ever inlined: its fields live in the embedding struct's schema
            schema = schemas[name]
            assert schema["type"] == "object"
            if struct.struct_type:
                assert schema[EXT("map-type")] == struct.struct_type
            required = [k for k, path in struct.json_fields.items() if path[-1].required]
            assert schema.get("required", []) == required, struct
            for key, path in struct.json_fields.items():
                prop = schema["properties"][key]
                markers = _declared_markers(path[-1])
                assert {k: prop[k] for k in markers} == markers, (struct, key)
                assert not any(k.startswith("x-") and k not in markers for k in prop), (struct, key)


def test_reference_markers_on_well_known_fields(v3_docs, v2_doc) -> None:
    core = v3_docs["api/v1"]["components"]["schemas"]
    containers = core["core.v1.PodSpec"]["properties"]["containers"]
    assert containers == {
        "description": "The containers of the pod; at least one.",
        "type": "array",
        "items": {"$ref": "#/components/schemas/core.v1.Container"},
        EXT("list-type"): "map",
        EXT("list-map-keys"): ["name"],
        EXT("patch-strategy"): "merge",
        EXT("patch-merge-key"): "name",
    }
    assert "containers" in core["core.v1.PodSpec"]["required"]
    assert core["core.v1.Container"]["properties"]["ports"][EXT("list-map-keys")] == ["containerPort", "protocol"]
    assert core["core.v1.PodSpec"]["properties"]["volumes"][EXT("patch-strategy")] == "merge,retainKeys"
    meta = core["io.orch.meta.v1.ObjectMeta"]["properties"]
    assert meta["finalizers"][EXT("list-type")] == "set" and meta["finalizers"][EXT("patch-strategy")] == "merge"
    assert meta["ownerReferences"][EXT("list-map-keys")] == ["uid"]
    assert meta["ownerReferences"][EXT("patch-merge-key")] == "uid"
    assert meta["generation"] == {
        "type": "integer",
        "format": "int64",
        "description": "Sequence number of the desired state.",
    }
    assert meta["creationTimestamp"]["allOf"] == [{"$ref": "#/components/schemas/io.orch.meta.v1.Time"}]
    assert core["io.orch.meta.v1.Time"]["type"] == "string" and core["io.orch.meta.v1.Time"]["format"] == "date-time"
    limits = core["core.v1.ResourceRequirements"]["properties"]["limits"]
    assert limits["additionalProperties"] == {"$ref": "#/components/schemas/io.orch.api.resource.Quantity"}
    apps = v3_docs["apis/apps/v1"]["components"]["schemas"]
    spec = apps["apps.v1.DeploymentSpec"]["properties"]
    assert spec["replicas"] == {
        "type": "integer",
        "format": "int32",
        "description": "The number of desired pods; defaults to 1.",
    }
    assert spec["strategy"] == {
        "description": "How pods are replaced by new ones: RollingUpdate or Recreate.",
        "allOf": [{"$ref": "#/components/schemas/apps.v1.DeploymentStrategy"}],
        "default": {},
        EXT("patch-strategy"): "retainKeys",
    }
    surge = apps["apps.v1.RollingUpdateDeployment"]["properties"]["maxSurge"]
    assert surge["allOf"] == [
        {"$ref": "#/components/schemas/io.orch.util.intstr.IntOrString"}
    ]  # a sibling: its description
    int_or_string = apps["io.orch.util.intstr.IntOrString"]
    assert int_or_string["format"] == "int-or-string" and int_or_string[EXT("int-or-string")] is True
    assert apps["io.orch.meta.v1.LabelSelector"][EXT("map-type")] == "atomic"
    # v2 keeps a reference's siblings next to it and models the leaf types as strings
    v2 = v2_doc["definitions"]
    assert v2["apps.v1.DeploymentSpec"]["properties"]["strategy"] == {
        "description": "How pods are replaced by new ones: RollingUpdate or Recreate.",
        "$ref": "#/definitions/apps.v1.DeploymentStrategy",
        "default": {},
        EXT("patch-strategy"): "retainKeys",
    }
    assert v2["core.v1.PodSpec"]["properties"]["containers"][EXT("patch-merge-key")] == "name"
    assert v2["io.orch.api.resource.Quantity"]["type"] == "string"
    assert v2["io.orch.util.intstr.IntOrString"] == {
        "description": "An int32 or a string.",
        "type": "string",
        "format": "int-or-string",
        EXT("int-or-string"): True,
    }


def test_real_documents_resolve_every_reference(v3_docs, v2_doc) -> None:
    for doc in v3_docs.values():
        assert refs(doc) <= {f"#/components/schemas/{n}" for n in doc["components"]["schemas"]}
    assert refs(v2_doc) <= {f"#/definitions/{n}" for n in v2_doc["definitions"]}


def test_strategic_merge_patch_stays_unadvertised(v3_docs) -> None:
    for doc in v3_docs.values():
        for _, method, op in operations(doc):
            if method == "patch":
                assert "application/strategic-merge-patch+json" not in op["requestBody"]["content"]
                assert not any("x-kubernetes-patch" in key for key in orjson.dumps(doc).decode().split('"'))


# ---------------------------------------------------------------------------------------------
# HTTP


def _index(client) -> dict[str, Any]:
    resp = client.get("/openapi/v3")
    assert resp.status_code == 200 and resp.headers["Content-Type"] == "application/json"
    return resp.get_json()


def test_index_links_resolve_and_declare_field_validation_for_every_kind(app, client) -> None:
    with app.app_context():
        catalog = services().catalog
    index = _index(client)
    for rt in catalog:
        key = openapi.gv_path(rt.group, rt.version)
        assert key in index["paths"], key
        url = index["paths"][key]["serverRelativeURL"]
        resp = client.get(url, headers={"Accept": "application/json"})
        assert resp.status_code == 200, url
        assert resp.headers["Cache-Control"] == "public, immutable"
        assert resp.headers["ETag"] == f'"{parse_qs(urlsplit(url).query)["hash"][0]}"'
        doc = resp.get_json()
        if "patch" in rt.verbs:
            assert supports_field_validation(doc, rt.group, rt.version, rt.kind), rt.kind
        kinds = [s[CLIENT_GVK_EXTENSION] for s in doc["components"]["schemas"].values() if CLIENT_GVK_EXTENSION in s]
        assert [{"group": rt.group, "version": rt.version, "kind": rt.kind}] in kinds


def test_document_without_hash_is_not_cached_and_supports_if_none_match(client) -> None:
    url = _index(client)["paths"]["api/v1"]["serverRelativeURL"]
    plain = client.get("/openapi/v3/api/v1")
    assert plain.status_code == 200 and plain.headers["Cache-Control"] == "no-cache, private"
    again = client.get(url, headers={"If-None-Match": plain.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""


def test_stale_hash_redirects_to_the_current_document(client) -> None:
    url = _index(client)["paths"]["api/v1"]["serverRelativeURL"]
    resp = client.get("/openapi/v3/api/v1?hash=DEADBEEF")
    assert resp.status_code == 301 and resp.headers["Location"].endswith(url)


def test_unknown_group_version_document_is_404(client) -> None:
    assert client.get("/openapi/v3/apis/nope.example.com/v1").status_code == 404


def test_v2_is_json_unless_gnostic_protobuf_comes_first(client) -> None:
    resp = client.get("/openapi/v2")
    assert resp.status_code == 200 and resp.headers["Content-Type"] == "application/json"
    doc = resp.get_json()
    assert doc["swagger"] == "2.0" and doc["definitions"]
    assert resp.headers["ETag"].startswith('"')
    refused = client.get("/openapi/v2", headers={"Accept": "text/html"})
    assert refused.status_code == 406
    status = refused.get_json()
    assert status["kind"] == "Status" and status["reason"] == "NotAcceptable" and status["code"] == 406
    mixed = client.get("/openapi/v2", headers={"Accept": f"application/json, {GNOSTIC_V2}"})
    assert mixed.status_code == 200 and mixed.get_json()["swagger"] == "2.0"  # test_openapi_v2_protobuf: the rest


@pytest.mark.parametrize("path", ["/openapi/v3", "/openapi/v2"])
def test_if_none_match_gives_304(client, path: str) -> None:
    etag = client.get(path).headers["ETag"]
    assert client.get(path, headers={"If-None-Match": etag}).status_code == 304
