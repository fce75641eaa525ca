"""fieldValidation driven by the typed schemas: unknown, duplicate and mistyped fields on POST/PUT/PATCH."""

from __future__ import annotations

import copy

import orjson
import pytest
from orch_apiserver.api import fieldvalidation
from orch_apiserver.api.fieldvalidation.duplicates import json_duplicates, yaml_duplicates
from orch_apiserver.naming import Naming
from orch_apiserver.resources import build_catalog
from orch_apiserver.schema import encode_object, schema_for
from orch_apiserver.schema.scalars import json_kind

from tests.kinds import OWN_TESTS

DEPLOY = "/apis/apps/v1/namespaces/default/deployments"
CM = "/api/v1/namespaces/default/configmaps"
JSON = {"Content-Type": "application/json"}
MERGE = {"Content-Type": "application/merge-patch+json"}
JSON_PATCH = {"Content-Type": "application/json-patch+json"}
SMP = {"Content-Type": "application/strategic-merge-patch+json"}
DEPLOYMENT = schema_for("apps/v1", "Deployment")


def deployment(name: str = "web") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "app", "image": "nginx:1.21"}]},
            },
        },
    }


def with_unknown(name: str = "web") -> dict:
    obj = deployment(name)
    obj["spec"]["template"]["spec"]["containers"][0]["imagee"] = "typo"
    obj["spec"]["bogus"] = {"deep": 1}
    return obj


UNKNOWN_PATHS = ["spec.bogus", "spec.template.spec.containers[0].imagee"]


def warnings(resp) -> list[str]:
    return resp.headers.get_all("Warning")


def stored_container(client, name: str = "web") -> dict:
    return client.get(f"{DEPLOY}/{name}").get_json()["spec"]["template"]["spec"]["containers"][0]


# ---------------------------------------------------------------------------------------------
# The walk


def test_unknown_fields_at_any_depth_are_found_and_dropped() -> None:
    checked = fieldvalidation.walk(DEPLOYMENT, with_unknown(), [])
    assert sorted(f.text for f in checked.findings) == [f'unknown field "{p}"' for p in UNKNOWN_PATHS]
    assert checked.obj == deployment() and not checked.errors


def test_duplicate_keys_carry_full_paths_and_unknown_wins() -> None:
    body = (
        b'{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a","name":"b"},'
        b'"spec":{"replicas":1,"replicas":2,"zzz":1,"zzz":2,"template":{"spec":{"containers":'
        b'[{"name":"c","imagePullPolicy":"Always","imagePullPolicy":"Never"}]}}}}'
    )
    assert json_duplicates(body) == [
        "metadata.name",
        "spec.replicas",
        "spec.zzz",
        "spec.template.spec.containers[0].imagePullPolicy",
    ]
    checked = fieldvalidation.check_object(DEPLOYMENT, orjson.loads(body), body, "application/json")
    assert [f.text for f in checked.findings] == [
        'duplicate field "metadata.name"',
        'duplicate field "spec.replicas"',
        'unknown field "spec.zzz"',
        'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
    ]
    assert checked.obj["spec"]["replicas"] == 2  # the last value wins, as in the reference


def test_yaml_duplicates_and_protobuf_bodies() -> None:
    text = b"metadata:\n  name: a\n  labels:\n    x: '1'\n    x: '2'\nspec:\n  replicas: 1\n  replicas: 2\n"
    assert yaml_duplicates(text) == ["metadata.labels.x", "spec.replicas"]
    assert (
        fieldvalidation.check_object(DEPLOYMENT, {"spec": {"nope": 1}}, b"", "application/vnd.orch.protobuf").findings
        == []
    )


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (("spec", "replicas"), "two", "integer"),
        (("spec", "paused"), "yes", "boolean"),
        (("spec", "template", "spec", "containers"), {"name": "x"}, "array"),
        (("spec", "selector"), ["a"], "object"),
        (("spec", "template", "metadata", "labels", "app"), 1, "string"),
    ],
)
def test_type_errors_name_the_expected_type(path: tuple[str, ...], value: object, expected: str) -> None:
    obj = deployment()
    node = obj
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    checked = fieldvalidation.walk(DEPLOYMENT, obj, [])
    [error] = checked.errors
    dotted = ".".join(path)
    assert error.reason == "FieldValueTypeInvalid" and error.field == dotted
    got = json_kind(value)
    assert str(error) == f'{dotted}: Invalid value: "{got}": {dotted} in body must be of type {expected}: "{got}"'


def test_int32_range_and_time_format_are_checked() -> None:
    obj = deployment()
    obj["spec"]["replicas"] = 1 << 40
    obj["metadata"]["creationTimestamp"] = "yesterday"
    fields = {e.field: e.reason for e in fieldvalidation.walk(DEPLOYMENT, obj, []).errors}
    assert fields == {"spec.replicas": "FieldValueInvalid", "metadata.creationTimestamp": "FieldValueInvalid"}


# ---------------------------------------------------------------------------------------------
# POST / PUT over HTTP


def test_strict_rejects_unknown_fields_as_a_decode_error(client) -> None:
    # create.go: a strict decoding error goes through transformDecodeError, errors.NewBadRequest (no causes)
    resp = client.post(f"{DEPLOY}?fieldValidation=Strict", json=with_unknown())
    assert resp.status_code == 400
    status = resp.get_json()
    assert status["reason"] == "BadRequest" and "details" not in status
    assert status["message"] == (
        'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: '
        'unknown field "spec.bogus", unknown field "spec.template.spec.containers[0].imagee"'
    )
    assert client.get(f"{DEPLOY}/web").status_code == 404


@pytest.mark.parametrize("mode", ["Warn", None])
def test_warn_is_the_default_and_drops_unknown_fields(client, mode: str | None) -> None:
    url = f"{DEPLOY}?fieldValidation={mode}" if mode else DEPLOY
    resp = client.post(url, json=with_unknown())
    assert resp.status_code == 201
    assert sorted(warnings(resp)) == [f'299 - "unknown field \\"{p}\\""' for p in UNKNOWN_PATHS]
    assert "bogus" not in resp.get_json()["spec"]
    assert "imagee" not in stored_container(client)


def test_ignore_drops_unknown_fields_silently(client) -> None:
    resp = client.post(f"{DEPLOY}?fieldValidation=Ignore", json=with_unknown())
    assert resp.status_code == 201 and warnings(resp) == []
    assert "imagee" not in stored_container(client)


@pytest.mark.parametrize("mode", ["Strict", "Warn", "Ignore"])
def test_wrong_type_is_a_400_decode_error_in_every_mode(client, mode: str) -> None:
    # Go's UnmarshalTypeError: innermost struct, the JSON field names from the root, the Go type; it wins over
    # the unknown field (the decoder fails before it reports strict errors)
    obj = with_unknown()
    obj["spec"]["replicas"] = "two"
    resp = client.post(f"{DEPLOY}?fieldValidation={mode}", json=obj)
    assert resp.status_code == 400
    status = resp.get_json()
    assert status["reason"] == "BadRequest"
    assert status["message"] == (
        'Deployment in version "v1" cannot be handled as a Deployment: '
        "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"
    )


@pytest.mark.parametrize(
    ("where", "value", "text"),
    [
        (
            ("spec", "template", "spec", "containers", 0, "ports"),
            [{"containerPort": "80"}],
            "string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32",
        ),
        (("spec", "replicas"), 1.5, "number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32"),
        (("spec", "paused"), "yes", "string into Go struct field DeploymentSpec.spec.paused of type bool"),
        (
            ("spec", "replicas"),
            1 << 40,
            "number 1099511627776 into Go struct field DeploymentSpec.spec.replicas of type int32",
        ),
        (
            ("spec", "selector"),
            "app=web",
            "string into Go struct field DeploymentSpec.spec.selector of type v1.LabelSelector",
        ),
        (("metadata", "labels"), {"a": 1}, "number into Go struct field ObjectMeta.metadata.labels of type string"),
        (
            ("spec", "template", "spec", "containers"),
            {},
            "object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container",
        ),
    ],
)
def test_wrong_type_texts_follow_go(client, where: tuple, value: object, text: str) -> None:
    obj = deployment()
    parent = obj
    for key in where[:-1]:
        parent = parent[key]
    parent[where[-1]] = value
    resp = client.post(DEPLOY, json=obj)
    assert resp.status_code == 400
    assert resp.get_json()["message"] == (
        f'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal {text}'
    )


@pytest.mark.parametrize(
    ("mode", "code", "headers"),
    [("Strict", 400, []), ("Warn", 201, ['299 - "duplicate field \\"spec.replicas\\""']), ("Ignore", 201, [])],
)
def test_duplicate_fields_per_mode(client, mode: str, code: int, headers: list[str]) -> None:
    text = orjson.dumps(deployment()).replace(b'"replicas":2', b'"replicas":1,"replicas":3')
    resp = client.post(f"{DEPLOY}?fieldValidation={mode}", data=text, headers=JSON)
    assert resp.status_code == code and warnings(resp) == headers
    if mode == "Strict":
        assert resp.get_json()["message"] == (
            'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: '
            'duplicate field "spec.replicas"'
        )
    else:
        assert resp.get_json()["spec"]["replicas"] == 3


YAML_BODY = b"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx
        imagee: typo
"""


def test_yaml_bodies_are_checked_like_json(client) -> None:
    resp = client.post(DEPLOY, data=YAML_BODY, headers={"Content-Type": "application/yaml"})
    assert resp.status_code == 201
    assert warnings(resp) == [
        '299 - "duplicate field \\"spec.replicas\\""',
        '299 - "unknown field \\"spec.template.spec.containers[0].imagee\\""',
    ]
    assert resp.get_json()["spec"]["replicas"] == 2 and "imagee" not in stored_container(client)


def test_protobuf_bodies_are_accepted_without_findings(client) -> None:
    body = encode_object({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "pb"}, "data": {"a": "b"}})
    resp = client.post(
        f"{CM}?fieldValidation=Strict", data=body, headers={"Content-Type": Naming().protobuf_media_type}
    )
    assert resp.status_code == 201 and warnings(resp) == []


def test_put_applies_the_same_rules(client) -> None:
    created = client.post(DEPLOY, json=deployment()).get_json()
    changed = copy.deepcopy(created)
    changed["spec"]["template"]["spec"]["containers"][0]["imagee"] = "typo"
    strict = client.put(f"{DEPLOY}/web?fieldValidation=Strict", json=changed)
    assert strict.status_code == 400
    assert strict.get_json()["message"].endswith('unknown field "spec.template.spec.containers[0].imagee"')
    warned = client.put(f"{DEPLOY}/web", json=changed)
    assert warned.status_code == 200
    assert warnings(warned) == ['299 - "unknown field \\"spec.template.spec.containers[0].imagee\\""']
    assert "imagee" not in stored_container(client)


def test_scale_subresource_is_checked_against_its_own_kind(client) -> None:
    client.post(DEPLOY, json=deployment())
    scale = client.get(f"{DEPLOY}/web/scale").get_json()
    scale["spec"]["replicaz"] = 3
    resp = client.put(f"{DEPLOY}/web/scale?fieldValidation=Strict", json=scale)
    assert resp.status_code == 400
    assert resp.get_json()["message"].startswith('Scale in version "v1" cannot be handled as a Scale')


# ---------------------------------------------------------------------------------------------
# PATCH


def merge_with_unknown() -> bytes:
    return orjson.dumps(
        {
            "spec": {
                "bogus": 1,
                "template": {"spec": {"containers": [{"name": "app", "image": "nginx:1.22", "imagee": "typo"}]}},
            }
        }
    )


def test_strict_merge_patch_reports_what_the_patch_introduced(client) -> None:
    client.post(DEPLOY, json=deployment())
    resp = client.patch(f"{DEPLOY}/web?fieldValidation=Strict", data=merge_with_unknown(), headers=MERGE)
    assert resp.status_code == 422
    assert sorted(c["field"] for c in resp.get_json()["details"]["causes"]) == UNKNOWN_PATHS
    assert stored_container(client)["image"] == "nginx:1.21"  # nothing was written


@pytest.mark.parametrize(
    ("mode", "expected"), [("Warn", [f'299 - "unknown field \\"{p}\\""' for p in UNKNOWN_PATHS]), ("Ignore", [])]
)
def test_merge_patch_drops_unknown_fields(client, mode: str, expected: list[str]) -> None:
    client.post(DEPLOY, json=deployment())
    resp = client.patch(f"{DEPLOY}/web?fieldValidation={mode}", data=merge_with_unknown(), headers=MERGE)
    assert resp.status_code == 200 and sorted(warnings(resp)) == expected
    stored = client.get(f"{DEPLOY}/web").get_json()
    assert "bogus" not in stored["spec"]
    container = stored["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "nginx:1.22" and "imagee" not in container


def test_json_patch_unknown_leaf_and_unknown_fields_inside_values(client) -> None:
    client.post(DEPLOY, json=deployment())
    ops = [
        {"op": "add", "path": "/spec/template/spec/containers/0/imagee", "value": "typo"},
        {
            "op": "add",
            "path": "/spec/template/spec/containers/-",
            "value": {"name": "side", "image": "busybox", "colour": "blue"},
        },
        {"op": "replace", "path": "/spec/replicas", "value": 4},
    ]
    resp = client.patch(f"{DEPLOY}/web", data=orjson.dumps(ops), headers=JSON_PATCH)
    assert resp.status_code == 200
    assert sorted(warnings(resp)) == [
        '299 - "unknown field \\"spec.template.spec.containers[0].imagee\\""',
        '299 - "unknown field \\"spec.template.spec.containers[1].colour\\""',
    ]
    stored = client.get(f"{DEPLOY}/web").get_json()
    containers = stored["spec"]["template"]["spec"]["containers"]
    assert stored["spec"]["replicas"] == 4
    assert [c["name"] for c in containers] == ["app", "side"]
    assert all("imagee" not in c and "colour" not in c for c in containers)


def test_patch_type_errors_are_422_in_every_mode(client) -> None:
    client.post(DEPLOY, json=deployment())
    for mode in ("Strict", "Warn", "Ignore"):
        resp = client.patch(
            f"{DEPLOY}/web?fieldValidation={mode}", data=orjson.dumps({"spec": {"replicas": "many"}}), headers=MERGE
        )
        assert resp.status_code == 422
        assert resp.get_json()["details"]["causes"][0]["reason"] == "FieldValueTypeInvalid"
    assert client.get(f"{DEPLOY}/web").get_json()["spec"]["replicas"] == 2


def test_merge_patch_duplicates_warn_with_their_path(client) -> None:
    client.post(DEPLOY, json=deployment())
    resp = client.patch(f"{DEPLOY}/web", data=b'{"spec":{"replicas":3,"replicas":4}}', headers=MERGE)
    assert resp.status_code == 200
    assert warnings(resp) == ['299 - "duplicate field \\"spec.replicas\\""']
    strict = client.patch(
        f"{DEPLOY}/web?fieldValidation=Strict", data=b'{"spec":{"paused":true,"paused":false}}', headers=MERGE
    )
    assert strict.status_code == 422


def test_strategic_merge_patch_keeps_directives_and_drops_unknown_fields(client) -> None:
    client.post(DEPLOY, json=deployment())
    patch = {
        "spec": {
            "template": {
                "spec": {
                    "$setElementOrder/containers": [{"name": "app"}],
                    "containers": [{"name": "app", "imagee": "typo", "image": "nginx:1.23"}],
                }
            }
        }
    }
    resp = client.patch(f"{DEPLOY}/web", data=orjson.dumps(patch), headers=SMP)
    assert resp.status_code == 200, resp.get_json()
    assert warnings(resp) == ['299 - "unknown field \\"spec.template.spec.containers[0].imagee\\""']
    assert stored_container(client)["image"] == "nginx:1.23" and "imagee" not in stored_container(client)


def test_patch_directive_is_validated(client) -> None:
    client.post(DEPLOY, json=deployment())
    resp = client.patch(f"{DEPLOY}/web?fieldValidation=Loose", data=b"{}", headers=MERGE)
    assert resp.status_code == 400


# ---------------------------------------------------------------------------------------------
# What the server writes reads back cleanly: no schema gaps for server-populated fields


STORED_KINDS = [rt for rt in build_catalog(Naming()) if not rt.virtual and rt.plural not in OWN_TESTS]


def _collection(rt) -> str:
    base = f"/apis/{rt.group}/{rt.version}" if rt.group else f"/api/{rt.version}"
    return f"{base}/namespaces/default/{rt.plural}" if rt.namespaced else f"{base}/{rt.plural}"


@pytest.mark.parametrize("rt", STORED_KINDS, ids=lambda rt: rt.group_resource)
def test_every_kind_round_trips_under_strict(client, rt) -> None:
    url = _collection(rt)
    obj = dict(copy.deepcopy(rt.example), apiVersion=rt.group_version, kind=rt.kind, metadata={"name": "rt"})
    created = client.post(f"{url}?fieldValidation=Strict", json=obj)
    assert created.status_code == 201, created.get_json()
    # a deprecated version warns about itself, never about a field
    assert [w for w in warnings(created) if "is deprecated in" not in w] == []
    again = client.put(f"{url}/rt?fieldValidation=Strict", json=created.get_json())
    assert again.status_code == 200, again.get_json()
    if rt.subresource("status") is not None:
        view = client.get(f"{url}/rt/status").get_json()
        status = client.put(f"{url}/rt/status?fieldValidation=Strict", json=view)
        assert status.status_code == 200, status.get_json()


@pytest.mark.parametrize(
    ("path", "value", "text"),
    [
        # types with their own UnmarshalJSON answer in their own words, without the field
        (
            ("spec", "template", "spec", "containers", 0, "resources"),
            {"limits": {"cpu": True}},
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
        (
            ("spec", "strategy"),
            {"rollingUpdate": {"maxSurge": True}},
            "json: cannot unmarshal bool into Go value of type int32",
        ),
        (("metadata", "creationTimestamp"), 5, "json: cannot unmarshal number into Go value of type string"),
        (
            ("metadata", "creationTimestamp"),
            "yesterday",
            'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
        ),
    ],
)
def test_decode_errors_of_types_with_their_own_decoder(path: tuple, value: object, text: str) -> None:
    obj = deployment()
    node = obj
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    assert fieldvalidation.walk(DEPLOYMENT, obj, []).decode_errors == [text]


def test_bad_base64_is_a_decode_error(client) -> None:
    resp = client.post("/api/v1/namespaces/default/secrets", json={"metadata": {"name": "s"}, "data": {"k": "ab$c"}})
    assert resp.status_code == 400
    assert resp.get_json()["message"] == (
        'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 2'
    )
