"""/openapi/v2 as gnostic protobuf (`openapi.v2.Document`, what kubectl asks for): the encoding of the JSON
document, negotiation by Accept as the reference's kube-openapi handler, one ETag for both encodings, conditional
requests and gzip. kubectl itself reads it in tests/e2e/test_kubectl_lists.py."""

from __future__ import annotations

import gzip
import struct
from collections import defaultdict
from typing import Any

import pytest
import yaml
from orch_apiserver.api.openapi.gnostic import encode_document
from orch_apiserver.naming import CLIENT_GVK_EXTENSION
from orch_apiserver.schema.wire import iter_fields

GNOSTIC = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
GNOSTIC_AT = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"  # kubectl's spelling


def fields(data: Any) -> dict[int, list[Any]]:
    """One message: its values by field number (bytes for length-delimited ones, ints for varints)."""
    out: dict[int, list[Any]] = defaultdict(list)
    for number, _, value in iter_fields(data):
        out[number].append(value)
    return out


def named(data: bytes) -> tuple[str, bytes]:
    pair = fields(data)
    return pair[1][0].decode(), pair[2][0]


def extensions(message: dict[int, list[Any]], number: int) -> dict[str, Any]:
    """`x-` keys: NamedAny pairs whose Any carries the value as YAML text (field 2)."""
    return {name: yaml.safe_load(fields(value)[2][0]) for name, value in map(named, message[number])}


# ---------------------------------------------------------------------------------------------
# The encoding


def test_oneof_wrappers_pick_their_branch_as_gnostic_does() -> None:
    doc = {
        "swagger": "2.0",
        "info": {"title": "T", "version": "v9"},
        "paths": {
            "/things/{name}": {
                "parameters": [{"$ref": "#/parameters/pretty"}],
                "x-path-note": "kept",
                "put": {
                    "operationId": "replaceThing",
                    "parameters": [
                        {"name": "body", "in": "body", "required": True, "schema": {"$ref": "#/definitions/T"}},
                        {"name": "dryRun", "in": "query", "type": "string", "uniqueItems": True},
                        {"name": "name", "in": "path", "required": True, "type": "string"},
                    ],
                    "responses": {"200": {"description": "OK", "schema": {"$ref": "#/definitions/T"}}, "401": {}},
                },
            }
        },
        "definitions": {
            "T": {
                "type": "object",
                "required": ["spec"],
                "properties": {
                    "spec": {"type": "object", "additionalProperties": {"type": "string"}},
                    "closed": {"type": "object", "additionalProperties": False},
                    "size": {"type": "integer", "format": "int32", "maximum": 10, "minLength": 2, "default": 3},
                    "mode": {"type": "string", "enum": ["a", "b"]},
                    "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
                },
                "x-kubernetes-group-version-kind": [{"group": "", "kind": "T", "version": "v1"}],
            }
        },
    }
    document = fields(encode_document(doc))
    assert document[1] == [b"2.0"]
    assert fields(document[2][0]) == {1: [b"T"], 2: [b"v9"]}
    ((path_name, path_item),) = [named(p) for p in fields(document[8][0])[2]]
    assert path_name == "/things/{name}"
    item = fields(path_item)
    assert fields(fields(item[9][0])[2][0]) == {1: [b"#/parameters/pretty"]}  # ParametersItem.json_reference
    assert extensions(item, 10) == {"x-path-note": "kept"}
    put = fields(item[3][0])
    body, query, path = (fields(p)[1][0] for p in put[8])  # ParametersItem.parameter
    assert fields(fields(body)[1][0])[4] == [1]  # Parameter.body_parameter, required
    assert fields(fields(fields(query)[2][0])[3][0])[4] == [b"dryRun"]  # non_body -> query_parameter_sub_schema
    assert fields(fields(fields(path)[2][0])[4][0])[4] == [b"name"]  # non_body -> path_parameter_sub_schema
    responses = dict(map(named, fields(put[9][0])[1]))
    ok = fields(fields(fields(responses["200"])[1][0])[2][0])  # ResponseValue.response -> SchemaItem
    assert fields(ok[1][0])[1] == [b"#/definitions/T"]
    ((def_name, schema_bytes),) = [named(d) for d in fields(document[9][0])[1]]
    schema = fields(schema_bytes)
    assert def_name == "T" and schema[19] == [b"spec"] and fields(schema[22][0]) == {1: [b"object"]}
    assert extensions(schema, 31) == {"x-kubernetes-group-version-kind": [{"group": "", "kind": "T", "version": "v1"}]}
    props = {name: fields(value) for name, value in map(named, fields(schema[25][0])[1])}
    assert list(props) == ["spec", "closed", "size", "mode", "tags"]  # document order
    assert fields(fields(props["spec"][21][0])[1][0])[22]  # additionalProperties: a schema
    assert fields(props["closed"][21][0]) == {2: [0]}  # the false branch is written
    assert struct.unpack("<d", props["size"][7][0]) == (10.0,) and props["size"][12] == [2]
    assert yaml.safe_load(fields(props["size"][5][0])[2][0]) == 3
    assert [yaml.safe_load(fields(v)[2][0]) for v in props["mode"][20]] == ["a", "b"]
    assert fields(fields(props["tags"][23][0])[1][0])[22]  # items: one schema
    assert extensions(props["tags"], 31) == {"x-kubernetes-list-type": "set"}


# ---------------------------------------------------------------------------------------------
# HTTP, on both stores


@pytest.mark.parametrize("accept", [GNOSTIC_AT, GNOSTIC, f"application/json;q=0.5, {GNOSTIC_AT}"])
def test_gnostic_protobuf_is_served_with_the_json_document_s_etag(any_client, accept: str) -> None:
    as_json = any_client.get("/openapi/v2")
    resp = any_client.get("/openapi/v2", headers={"Accept": accept})
    assert resp.status_code == 200 and resp.headers["Content-Type"] == GNOSTIC
    assert resp.headers["ETag"] == as_json.headers["ETag"]
    assert resp.headers["Last-Modified"] == as_json.headers["Last-Modified"]
    assert "Accept" in resp.headers["Vary"] and resp.headers["Cache-Control"] == "no-cache, private"
    doc = as_json.get_json()
    document = fields(resp.data)
    assert document[1] == [b"2.0"]
    definitions = dict(map(named, fields(document[9][0])[1]))
    assert list(definitions) == list(doc["definitions"])
    assert [named(p)[0] for p in fields(document[8][0])[2]] == list(doc["paths"])
    for name in ("core.v1.ConfigMap", "apps.v1.Deployment"):
        gvk = extensions(fields(definitions[name]), 31)[CLIENT_GVK_EXTENSION]
        assert gvk == doc["definitions"][name][CLIENT_GVK_EXTENSION]


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        ("", "application/json"),
        ("*/*", "application/json"),
        ("application/*", "application/json"),
        (f"{GNOSTIC_AT};q=0.5, application/json;q=0.9", "application/json"),
        (f"*/*, {GNOSTIC}", GNOSTIC),  # the exact type before the wildcard
        (f"application/json;q=0, {GNOSTIC_AT}", GNOSTIC),
    ],
)
def test_accept_is_negotiated_as_the_reference_does(any_client, accept: str, expected: str) -> None:
    resp = any_client.get("/openapi/v2", headers={"Accept": accept} if accept else {})
    assert resp.status_code == 200 and resp.headers["Content-Type"] == expected


def test_unacceptable_types_get_a_406_status(any_client) -> None:
    resp = any_client.get("/openapi/v2", headers={"Accept": "text/html, application/xml"})
    assert resp.status_code == 406
    status = resp.get_json()
    assert status["kind"] == "Status" and status["reason"] == "NotAcceptable"
    assert GNOSTIC in status["message"]


@pytest.mark.parametrize("accept", ["application/json", GNOSTIC_AT])
def test_conditional_requests_answer_304(any_client, accept: str) -> None:
    first = any_client.get("/openapi/v2", headers={"Accept": accept})
    etag, modified = first.headers["ETag"], first.headers["Last-Modified"]
    for headers in ({"If-None-Match": etag}, {"If-None-Match": f"W/{etag}"}, {"If-Modified-Since": modified}):
        again = any_client.get("/openapi/v2", headers={"Accept": accept, **headers})
        assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == etag
    stale = {"If-None-Match": '"other"', "If-Modified-Since": modified}  # the ETag decides when both are sent
    assert any_client.get("/openapi/v2", headers={"Accept": accept, **stale}).status_code == 200
    older = {"If-Modified-Since": "Mon, 01 Jan 2001 00:00:00 GMT"}
    assert any_client.get("/openapi/v2", headers={"Accept": accept, **older}).status_code == 200


@pytest.mark.parametrize("accept", ["application/json", GNOSTIC_AT])
def test_gzip_when_the_client_accepts_it(any_client, accept: str) -> None:
    plain = any_client.get("/openapi/v2", headers={"Accept": accept})
    assert "Content-Encoding" not in plain.headers
    packed = any_client.get("/openapi/v2", headers={"Accept": accept, "Accept-Encoding": "gzip, deflate"})
    assert packed.status_code == 200 and packed.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["Vary"] and packed.headers["ETag"] == plain.headers["ETag"]
    assert gzip.decompress(packed.data) == plain.data
    refused = any_client.get("/openapi/v2", headers={"Accept": accept, "Accept-Encoding": "gzip;q=0"})
    assert "Content-Encoding" not in refused.headers and refused.data == plain.data
