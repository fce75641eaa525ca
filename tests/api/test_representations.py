"""Content negotiation: Table, protobuf (our media type), fallbacks and 406, on lists, objects and watches."""

from __future__ import annotations

import struct

import orjson
from orch_apiserver.naming import Naming
from orch_apiserver.schema import decode_object, decode_watch_event

CM = "/api/v1/namespaces/default/configmaps"
PB = Naming().protobuf_media_type
TABLE = "application/json;as=Table;v=v1;g=meta.orch.io"


def cm(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"a": "1", "b": "2"}}


def test_table_list_and_get(client) -> None:
    client.post(CM, json=cm("a"))
    table = client.get(CM, headers={"Accept": TABLE}).get_json()
    assert table["kind"] == "Table" and table["apiVersion"] == "meta.orch.io/v1"
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Data", "Age"]
    assert table["rows"][0]["cells"][:2] == ["a", 2]
    assert table["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    assert table["metadata"]["resourceVersion"]
    one = client.get(f"{CM}/a?includeObject=None", headers={"Accept": TABLE}).get_json()
    assert len(one["rows"]) == 1 and one["rows"][0].get("object") is None
    assert client.get(f"{CM}/a?includeObject=Sometimes", headers={"Accept": TABLE}).status_code == 400


def test_default_table_for_kinds_without_a_printer(client) -> None:
    url = "/apis/rbac.authorization.orch.io/v1/clusterroles"
    client.post(
        url,
        json={
            "apiVersion": "rbac.authorization.orch.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": "r"},
            "rules": [],
        },
    )
    table = client.get(url, headers={"Accept": TABLE}).get_json()
    assert [(c["name"], c["type"]) for c in table["columnDefinitions"]] == [("Name", "string"), ("Created At", "date")]


def test_table_in_a_group_we_do_not_serve_falls_back(client) -> None:
    stock = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
    resp = client.get(CM, headers={"Accept": stock})
    assert resp.status_code == 200 and resp.get_json()["kind"] == "ConfigMapList"
    only = client.get(CM, headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
    assert only.status_code == 406 and only.get_json()["reason"] == "NotAcceptable"


def test_protobuf_get_and_list(client) -> None:
    made = client.post(CM, json=cm("a")).get_json()
    resp = client.get(f"{CM}/a", headers={"Accept": PB})
    assert resp.status_code == 200 and resp.headers["Content-Type"] == PB
    assert resp.data[:4] == b"k8s\x00"
    assert decode_object(resp.data) == made
    listed = client.get(CM, headers={"Accept": f"{PB}, application/json"})
    assert listed.headers["Content-Type"] == PB
    decoded = decode_object(listed.data)
    assert decoded["kind"] == "ConfigMapList" and decoded["items"][0]["metadata"]["name"] == "a"


def test_protobuf_request_body_and_status_errors(client) -> None:
    from orch_apiserver.schema import encode_object

    body = encode_object(cm("p"))
    resp = client.post(CM, data=body, headers={"Content-Type": PB, "Accept": PB})
    assert resp.status_code == 201 and decode_object(resp.data)["metadata"]["name"] == "p"
    missing = client.get(f"{CM}/nope", headers={"Accept": PB})
    assert missing.status_code == 404 and missing.headers["Content-Type"] == PB
    status = decode_object(missing.data)
    assert status["kind"] == "Status" and status["reason"] == "NotFound" and status["code"] == 404
    garbage = client.post(CM, data=b"k8s\x00\xff\xff", headers={"Content-Type": PB})
    assert garbage.status_code == 400


def test_protobuf_watch_frames(client) -> None:
    client.post(CM, json=cm("a"))
    resp = client.get(f"{CM}?watch=1&timeoutSeconds=1", headers={"Accept": f"{PB};stream=watch"}, buffered=False)
    assert resp.headers["Content-Type"] == f"{PB};stream=watch"
    data = b"".join(resp.response)
    (length,) = struct.unpack(">I", data[:4])
    event = decode_watch_event(data[4 : 4 + length])
    assert event["type"] == "ADDED" and event["object"]["metadata"]["name"] == "a"


def test_table_watch_sends_column_definitions_once(client, app) -> None:
    client.post(CM, json=cm("a"))
    client.post(CM, json=cm("b"))
    resp = client.get(f"{CM}?watch=1&timeoutSeconds=1", headers={"Accept": TABLE}, buffered=False)
    lines = [orjson.loads(x) for x in b"".join(resp.response).splitlines() if x]
    assert [e["type"] for e in lines] == ["ADDED", "ADDED"]
    assert lines[0]["object"]["kind"] == "Table" and lines[0]["object"]["columnDefinitions"]
    assert not lines[1]["object"]["columnDefinitions"]
    assert lines[1]["object"]["rows"][0]["cells"][0] == "b"


def test_yaml_watch_is_not_acceptable(client) -> None:
    resp = client.get(f"{CM}?watch=1&timeoutSeconds=1", headers={"Accept": "application/yaml"})
    assert resp.status_code == 406
