"""JSON -> protobuf -> JSON for a realistic object of every declared kind, and stability for the rest."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from orch_apiserver.schema import SCHEMAS, decode_object, encode_object, meta

from tests.schema.fixtures import OBJECTS

BRIEF_KINDS = {
    ("v1", "Namespace"),
    ("v1", "ConfigMap"),
    ("v1", "Secret"),
    ("v1", "ServiceAccount"),
    ("v1", "Service"),
    ("v1", "ResourceQuota"),
    ("v1", "Pod"),
    ("apps/v1", "Deployment"),
    ("batch/v1", "Job"),
    ("batch/v1", "CronJob"),
    ("policy/v1", "PodDisruptionBudget"),
    ("v1", "Status"),
}


@pytest.mark.parametrize("kind", sorted(OBJECTS))
def test_realistic_object_round_trips_exactly(kind: str) -> None:
    obj = OBJECTS[kind]
    body = encode_object(copy.deepcopy(obj))
    assert decode_object(body) == obj
    assert encode_object(decode_object(body)) == body  # deterministic


def test_every_brief_kind_and_its_list_is_declared() -> None:
    for api_version, kind in BRIEF_KINDS:
        assert (api_version, kind) in SCHEMAS
        if kind != "Status":
            assert (api_version, f"{kind}List") in SCHEMAS


def _minimal(api_version: str, kind: str) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": api_version, "kind": kind}
    metadata = SCHEMAS[api_version, kind].field("metadata")
    if metadata is not None and metadata.type is meta.ObjectMeta:
        obj["metadata"] = {"name": "x"}
    return obj


@pytest.mark.parametrize(("api_version", "kind"), sorted(SCHEMAS))
def test_every_declared_kind_is_stable(api_version: str, kind: str) -> None:
    obj = _minimal(api_version, kind)
    body = encode_object(obj)
    decoded = decode_object(body)
    assert decoded["apiVersion"] == api_version and decoded["kind"] == kind
    assert list(decoded)[:2] == ["apiVersion", "kind"]
    assert encode_object(decoded) == body
    assert decode_object(encode_object(decoded)) == decoded


def test_decoding_fills_in_what_go_json_would_print() -> None:
    decoded = decode_object(encode_object({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}))
    assert decoded == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},  # creationTimestamp is `omitzero` in the reference
        "spec": {"template": {"metadata": {}, "spec": {}}, "strategy": {}},
        "status": {},
    }


def test_zero_pointer_values_survive_and_zero_plain_values_are_dropped() -> None:
    obj = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d", "generation": 0, "namespace": ""},
        "spec": {"replicas": 0, "paused": False, "minReadySeconds": 0, "template": {}},
    }
    decoded = decode_object(encode_object(obj))
    assert decoded["metadata"] == {"name": "d"}
    assert decoded["spec"]["replicas"] == 0  # *int32: an explicit zero is data
    assert "paused" not in decoded["spec"] and "minReadySeconds" not in decoded["spec"]


def test_null_json_values_count_as_absent() -> None:
    obj = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c", "labels": None},
        "data": None,
        "immutable": None,
    }
    assert decode_object(encode_object(obj)) == {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}


def test_list_items_may_carry_type_meta() -> None:
    item = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
    decoded = decode_object(
        encode_object({"apiVersion": "v1", "kind": "ConfigMapList", "metadata": {}, "items": [item]})
    )
    assert decoded["items"] == [{"metadata": {"name": "a"}}]  # items are bare messages on the wire


def test_watch_event_round_trip() -> None:
    from orch_apiserver.schema import decode_watch_event, encode_watch_event
    from orch_apiserver.schema.envelope import MAGIC
    from orch_apiserver.schema.wire import iter_fields

    obj = OBJECTS["ConfigMap"]
    frame = encode_watch_event("MODIFIED", obj)
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    fields = list(iter_fields(frame[4:]))
    assert fields[0] == (1, 2, b"MODIFIED")
    raw_extension = {n: v for n, _, v in iter_fields(fields[1][2])}
    assert raw_extension[1] == encode_object(obj) and raw_extension[1].startswith(MAGIC)
    assert decode_watch_event(frame[4:]) == {"type": "MODIFIED", "object": obj}
