"""Decode errors and the wording clients print (issue 38 items 2 and 7), through kubectl, the official Python client
and raw HTTP, on SQLite and PostgreSQL.

Reference code read for the texts:
- apiserver pkg/endpoints/handlers/create.go, update.go, rest.go `transformDecodeError`: a decode error of a
  POST/PUT body is `errors.NewBadRequest("<Kind> in version \"<v>\" cannot be handled as a <Kind>: <err>")`;
- apimachinery pkg/runtime/error.go `NewStrictDecodingError`: `strict decoding error: ` + errors joined by ", ";
- Go encoding/json `UnmarshalTypeError`: `json: cannot unmarshal X into Go struct field T.path of type Y`;
- apimachinery pkg/util/managedfields/internal/structuredmerge.go and structured-merge-diff typed/validate.go:
  `failed to create typed patch object (<ns>/<name>; <gvk>): .spec.replicas: expected numeric (int or float), got
  string`;
- apiextensions-apiserver pkg/apiserver/validation/validation.go (kube-openapi InvalidType, int-or-string typed
  ["integer", "string"]): `Invalid value: "string": spec.replicas in body must be of type integer: "string"`;
- apiextensions-apiserver pkg/apiserver/conversion/converter.go `ConvertFieldLabel`: `field label not supported: %s`,
  metadata.namespace refused for cluster-scoped kinds;
- apiserver handlers/patch.go: a JSON patch that cannot be applied is `NewGenericServerResponse(422, ...)`, whose
  message is its own (apimachinery api/errors): the library's detail is dropped.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client, config
from kubernetes.client.exceptions import ApiException

from tests.kinds import crd_body

from . import RunningServer, poll

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
JSON_PATCH_FAILED = "the server rejected our request due to an error in our request"


def kubectl_fails(kubectl: str, server: RunningServer, cwd: Path, *args: str) -> str:
    done = subprocess.run(
        [kubectl, "--kubeconfig", str(server.kubeconfig), *args],
        cwd=cwd,
        text=True,
        capture_output=True,
        timeout=90,
        check=False,
    )
    assert done.returncode != 0, done.stdout
    return done.stderr.strip()


@pytest.fixture
def ns(k8s: RunningServer) -> Iterator[str]:
    name = f"dec-{uuid.uuid4().hex[:8]}"
    made = k8s.session.post("/api/v1/namespaces", json={"metadata": {"name": name}})
    assert made.status_code == 201, made.text
    yield name
    k8s.session.delete(f"/api/v1/namespaces/{name}")


@pytest.fixture
def api(k8s: RunningServer) -> Iterator[Any]:
    api_client = config.new_client_from_config(config_file=str(k8s.kubeconfig))
    yield api_client
    api_client.close()


def status_of(err: ApiException) -> dict:
    status = json.loads(err.body)
    assert status["code"] == err.status
    return status


def _crd(group: str, kind: str, plural: str, scope: str) -> dict:
    spec_schema = {
        "type": "object",
        "properties": {
            "secretName": {"type": "string"},
            "replicas": {"type": "integer"},
            "port": {"x-kubernetes-int-or-string": True},
        },
    }
    schema = {"type": "object", "properties": {"spec": spec_schema}}
    return crd_body(group, plural, kind, schema, scope=scope, api_domain="k8s.io")


@pytest.fixture(scope="module")
def group(k8s: RunningServer) -> str:
    """A group with a namespaced `Certificate` and a cluster-scoped `ClusterIssuer`, both served."""
    name = f"g{uuid.uuid4().hex[:8]}.example.com"
    for kind, plural, scope in (
        ("Certificate", "certificates", "Namespaced"),
        ("ClusterIssuer", "clusterissuers", "Cluster"),
    ):
        made = k8s.session.post(CRDS, json=_crd(name, kind, plural, scope))
        assert made.status_code == 201, made.text
        poll(lambda p=plural: k8s.get(f"/apis/{name}/v1/{p}").status_code == 200)
    return name


# -- item 2: decode errors are 400 BadRequest -----------------------------------------------------------------


def test_kubectl_prints_the_strict_decoding_error(kubectl: str, k8s: RunningServer, ns: str, tmp_path: Path) -> None:
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "bogus": 1, "data": {"a": "b"}}
    (tmp_path / "x.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    handled = 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"'
    for verb in ("create", "apply"):  # kubectl's default --validate=strict sends fieldValidation=Strict
        printed = kubectl_fails(kubectl, k8s, tmp_path, "-n", ns, verb, "-f", "x.yaml")
        assert printed == f'Error from server (BadRequest): error when creating "x.yaml": {handled}'
    manifest["spec"] = {"x": 1}
    (tmp_path / "x.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    printed = kubectl_fails(kubectl, k8s, tmp_path, "-n", ns, "create", "-f", "x.yaml")
    assert printed.endswith('strict decoding error: unknown field "bogus", unknown field "spec"'), printed


def test_kubectl_prints_the_type_error_of_a_built_in_kind(
    kubectl: str, k8s: RunningServer, ns: str, tmp_path: Path
) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": "3",
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "app", "image": "nginx"}]},
            },
        },
    }
    (tmp_path / "d.yaml").write_text(yaml.safe_dump(deployment))
    printed = kubectl_fails(kubectl, k8s, tmp_path, "-n", ns, "create", "-f", "d.yaml")
    assert printed == (
        'Error from server (BadRequest): error when creating "d.yaml": Deployment in version "v1" cannot be handled '
        "as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type "
        "int32"
    )
    printed = kubectl_fails(kubectl, k8s, tmp_path, "-n", ns, "apply", "--server-side", "-f", "d.yaml")
    assert printed == (
        f"Error from server (BadRequest): failed to create typed patch object ({ns}/web; apps/v1, Kind=Deployment): "
        ".spec.replicas: expected numeric (int or float), got string"
    )
    assert k8s.get(f"/apis/apps/v1/namespaces/{ns}/deployments/web").status_code == 404


def test_python_client_sees_400_for_a_strict_decoding_error(api: Any, ns: str, group: str) -> None:
    """The client's typed models refuse unknown fields; its custom-object calls send them (apiextensions'
    schemaCoercingDecoder reports pruned fields as a strict decoding error)."""
    custom = client.CustomObjectsApi(api)
    body = {"apiVersion": f"{group}/v1", "kind": "Certificate", "metadata": {"name": "c"}, "spec": {"bogus": 1, "x": 2}}
    with pytest.raises(ApiException) as caught:
        custom.create_namespaced_custom_object(group, "v1", ns, "certificates", body, field_validation="Strict")
    status = status_of(caught.value)
    assert (caught.value.status, status["reason"]) == (400, "BadRequest")
    assert status["message"] == (
        'Certificate in version "v1" cannot be handled as a Certificate: strict decoding error: '
        'unknown field "spec.bogus", unknown field "spec.x"'
    )


def test_wrong_json_types_on_the_wire(k8s: RunningServer, ns: str) -> None:
    """The Python client refuses to send these (its models check types), so raw HTTP shows them."""
    url = f"/api/v1/namespaces/{ns}/configmaps"
    created = k8s.session.post(url, json={"metadata": {"name": "cm"}, "data": {"a": 1}})
    assert created.status_code == 400
    assert created.json()["reason"] == "BadRequest"
    assert created.json()["message"] == (
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: '
        "json: cannot unmarshal number into Go struct field ConfigMap.data of type string"
    )
    made = k8s.session.post(url, json={"metadata": {"name": "cm"}, "data": {"a": "1"}})
    assert made.status_code == 201, made.text
    replaced = {**made.json(), "data": {"a": ["x"]}}
    put = k8s.session.put(f"{url}/cm?fieldValidation=Ignore", json=replaced)
    assert put.status_code == 400
    assert put.json()["message"].endswith(
        "json: cannot unmarshal array into Go struct field ConfigMap.data of type string"
    )


# -- item 7: the wording clients print ------------------------------------------------------------------------


def test_custom_kind_type_errors_are_schema_errors(api: Any, ns: str, group: str) -> None:
    custom = client.CustomObjectsApi(api)

    def refused(spec: dict) -> dict:
        body = {"apiVersion": f"{group}/v1", "kind": "Certificate", "metadata": {"name": "c"}, "spec": spec}
        with pytest.raises(ApiException) as caught:
            custom.create_namespaced_custom_object(group, "v1", ns, "certificates", body)
        assert caught.value.status == 422
        return status_of(caught.value)

    status = refused({"replicas": "3"})
    assert status["reason"] == "Invalid"
    assert status["message"] == (
        f'Certificate.{group} "c" is invalid: spec.replicas: Invalid value: "string": '
        'spec.replicas in body must be of type integer: "string"'
    )
    assert status["details"]["causes"] == [
        {
            "reason": "FieldValueTypeInvalid",
            "message": 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
            "field": "spec.replicas",
        }
    ]
    status = refused({"port": True})
    assert status["details"]["causes"][0]["message"] == (
        'Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'
    )


def test_field_selectors_of_custom_kinds(api: Any, ns: str, group: str) -> None:
    custom = client.CustomObjectsApi(api)
    with pytest.raises(ApiException) as caught:
        custom.list_namespaced_custom_object(group, "v1", ns, "certificates", field_selector="spec.secretName=x")
    assert (caught.value.status, status_of(caught.value)["reason"]) == (400, "BadRequest")
    assert status_of(caught.value)["message"] == "field label not supported: spec.secretName"
    listed = custom.list_namespaced_custom_object(
        group, "v1", ns, "certificates", field_selector=f"metadata.namespace={ns}"
    )
    assert listed["items"] == []
    with pytest.raises(ApiException) as caught:
        custom.list_cluster_custom_object(group, "v1", "clusterissuers", field_selector="metadata.namespace=default")
    assert caught.value.status == 400
    assert status_of(caught.value)["message"] == "field label not supported: metadata.namespace"
    assert (
        custom.list_cluster_custom_object(group, "v1", "clusterissuers", field_selector="metadata.name=x")["items"]
        == []
    )


def test_failed_json_patch_test(kubectl: str, k8s: RunningServer, ns: str, tmp_path: Path) -> None:
    url = f"/api/v1/namespaces/{ns}/configmaps"
    made = k8s.session.post(url, json={"metadata": {"name": "cm"}, "data": {"a": "1"}})
    assert made.status_code == 201, made.text
    patched = k8s.session.patch(
        f"{url}/cm",
        data=json.dumps([{"op": "test", "path": "/data/a", "value": "2"}]),
        headers={"Content-Type": "application/json-patch+json"},
    )
    assert patched.status_code == 422
    assert patched.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": JSON_PATCH_FAILED,
        "reason": "Invalid",
        "details": {},
        "code": 422,
    }
    printed = kubectl_fails(
        kubectl,
        k8s,
        tmp_path,
        "-n",
        ns,
        "patch",
        "configmap",
        "cm",
        "--type=json",
        "-p",
        '[{"op":"test","path":"/data/a","value":"2"}]',
    )
    assert printed == f"The request is invalid: {JSON_PATCH_FAILED}"
