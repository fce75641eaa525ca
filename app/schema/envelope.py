"""The protobuf envelope: 4 magic bytes, then `runtime.Unknown{typeMeta{apiVersion, kind}, raw, ...}`.

message Unknown { TypeMeta typeMeta = 1; bytes raw = 2; string contentEncoding = 3; string contentType = 4; }
message TypeMeta { string apiVersion = 1; string kind = 2; }
"""

from __future__ import annotations

from .wire import LEN, ProtobufError, encode_len_field, iter_fields

MAGIC = b"k8s\x00"


def encode_envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    """Field order and the always-present empty strings match what Go's generated marshaller writes."""
    type_meta = encode_len_field(1, api_version.encode()) + encode_len_field(2, kind.encode())
    unknown = (
        encode_len_field(1, type_meta) + encode_len_field(2, raw) + encode_len_field(3, b"") + encode_len_field(4, b"")
    )
    return MAGIC + unknown


def _strings(payload: bytes, what: str, names: dict[int, str]) -> dict[int, bytes]:
    out: dict[int, bytes] = {}
    for number, wire_type, value in iter_fields(payload):
        if number not in names:
            raise ProtobufError(f"{what}: unknown field number {number}")
        if wire_type != LEN:
            raise ProtobufError(f"{what}.{names[number]}: wrong wire type {wire_type}")
        assert isinstance(value, bytes)
        out[number] = value
    return out


def decode_envelope(body: bytes) -> tuple[str, str, bytes]:
    """(apiVersion, kind, raw) of an enveloped body; raw is the object's own protobuf encoding."""
    if not body.startswith(MAGIC):
        raise ProtobufError("protobuf body does not start with the envelope prefix 6b 38 73 00")
    unknown = _strings(body[len(MAGIC) :], "Unknown", {1: "typeMeta", 2: "raw", 3: "contentEncoding", 4: "contentType"})
    type_meta = _strings(unknown.get(1, b""), "Unknown.typeMeta", {1: "apiVersion", 2: "kind"})
    api_version = type_meta.get(1, b"").decode("utf-8", "replace")
    kind = type_meta.get(2, b"").decode("utf-8", "replace")
    if unknown.get(3):
        raise ProtobufError(f"unsupported envelope contentEncoding {unknown[3].decode(errors='replace')!r}")
    content_type = unknown.get(4, b"").decode("utf-8", "replace")
    if content_type and not content_type.split(";")[0].strip().endswith(".protobuf"):  # "" means protobuf
        raise ProtobufError(f"unsupported envelope contentType {content_type!r}")
    return api_version, kind, unknown.get(2, b"")
