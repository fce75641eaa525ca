"""Bad input never loses data silently: unknown field numbers, unknown JSON fields and type errors raise."""

from __future__ import annotations

import pytest
from orch_apiserver.schema import (
    ProtobufError,
    UnknownKindError,
    core,
    core_volume,
    decode,
    decode_object,
    encode,
    encode_envelope,
    encode_object,
    meta,
)
from orch_apiserver.schema.wire import encode_varint


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def test_protobuf_error_is_a_value_error() -> None:
    assert issubclass(ProtobufError, ValueError)
    assert issubclass(UnknownKindError, ProtobufError)


def test_unknown_top_level_field_number() -> None:
    with pytest.raises(ProtobufError, match=r"ConfigMap: unknown field number 99 for core/v1\.ConfigMap"):
        decode(core.ConfigMap, h("0a 00") + encode_varint(99 << 3) + b"\x01")


def test_unknown_nested_field_number_names_the_path() -> None:
    raw = h("0a 03") + bytes([15 << 3 | 2, 1]) + b"x"  # ObjectMeta field 15 (the removed clusterName)
    with pytest.raises(ProtobufError, match=r"ConfigMap\.metadata: unknown field number 15 for meta/v1\.ObjectMeta"):
        decode(core.ConfigMap, raw)


def test_unknown_field_inside_an_enveloped_body() -> None:
    body = encode_envelope("v1", "ConfigMap", h("0a 00 2a 00"))  # field 5 is not declared
    with pytest.raises(ProtobufError, match="unknown field number 5"):
        decode_object(body)


def test_wrong_wire_type() -> None:
    with pytest.raises(ProtobufError, match=r"ConfigMap\.metadata: got wire type varint, expected length-delimited"):
        decode(core.ConfigMap, h("08 01"))
    with pytest.raises(ProtobufError, match="immutable: got wire type length-delimited"):
        decode(core.ConfigMap, h("22 00"))


@pytest.mark.parametrize(
    "raw",
    [h("0a"), h("0a 05 0a 01"), h("0a ff ff ff ff ff ff ff ff ff ff 01"), h("0b"), h("00 00")],
    ids=["truncated-length", "past-end", "long-varint", "group", "field-zero"],
)
def test_malformed_bytes(raw: bytes) -> None:
    with pytest.raises(ProtobufError):
        decode(core.ConfigMap, raw)


def test_bad_embedded_messages() -> None:
    with pytest.raises(ProtobufError, match="unexpected field 2"):
        decode(core.ServicePort, h("22 02 12 00"))  # IntOrString has no field 2 of wire type LEN
    with pytest.raises(ProtobufError, match="unexpected field 3 in a map entry"):
        decode(core.ConfigMap, h("12 02 1a 00"))


def test_unknown_json_field() -> None:
    with pytest.raises(ProtobufError, match=r'unknown field "metadata\.bogus" for meta/v1\.ObjectMeta'):
        encode(core.ConfigMap, {"metadata": {"name": "c", "bogus": 1}})
    with pytest.raises(ProtobufError, match=r'unknown field "spec\.containers\[0\]\.imageName"'):
        encode(core.Pod, {"spec": {"containers": [{"name": "c", "imageName": "x"}]}})


def test_unknown_json_field_next_to_inline_fields() -> None:
    encode(core_volume.Volume, {"name": "v", "configMap": {"name": "c"}})  # inline keys are known
    with pytest.raises(ProtobufError, match=r'unknown field "nope"'):
        encode(core_volume.Volume, {"name": "v", "emptyDir": {}, "nope": 1})


def test_type_meta_only_on_kinds() -> None:
    encode(core.ConfigMap, {"apiVersion": "v1", "kind": "ConfigMap"})
    with pytest.raises(ProtobufError, match='unknown field "kind"'):
        encode(meta.ObjectMeta, {"kind": "ConfigMap"})


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"data": {"a": 1}}, r"data\[a\]: expected a string"),
        ({"data": ["a"]}, "data: expected an object"),
        ({"immutable": "yes"}, "immutable: expected a boolean"),
        ({"binaryData": {"b": "not base64!"}}, r"binaryData\[b\]: invalid base64"),
        ({"metadata": {"generation": 1.5}}, "metadata.generation: expected an integer"),
        ({"metadata": {"generation": True}}, "metadata.generation: expected an integer"),
        ({"metadata": {"finalizers": "x"}}, "metadata.finalizers: expected a list"),
        ({"metadata": {"creationTimestamp": "yesterday"}}, "expected an RFC 3339 time"),
        ({"metadata": {"creationTimestamp": "2024-02-30T00:00:00Z"}}, "invalid time"),
        ({"metadata": "x"}, "metadata: expected an object"),
    ],
)
def test_json_type_errors(obj: dict, message: str) -> None:
    with pytest.raises(ProtobufError, match=message):
        encode(core.ConfigMap, obj)


def test_int32_range() -> None:
    encode(core.ServicePort, {"port": 2**31 - 1})
    with pytest.raises(ProtobufError, match="does not fit in int32"):
        encode(core.ServicePort, {"port": 2**31})


def test_unknown_kind() -> None:
    with pytest.raises(UnknownKindError, match="no protobuf schema for kind 'Widget' in 'example.com/v1'"):
        encode_object({"apiVersion": "example.com/v1", "kind": "Widget"})
    with pytest.raises(UnknownKindError):
        decode_object(encode_envelope("v1", "Widget", b""))
    with pytest.raises(ProtobufError, match="needs string apiVersion and kind"):
        encode_object({"kind": "ConfigMap"})
