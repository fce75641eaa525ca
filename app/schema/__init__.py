"""Typed API schemas (one declaration per type) and the protobuf representation built on them.

Public entry points:
    decode_object(body) / encode_object(obj)   enveloped protobuf body <-> JSON object (with apiVersion/kind)
    has_schema(api_version, kind) / schema_for(api_version, kind)
    decode(struct, raw) / encode(struct, obj)  bare protobuf message <-> JSON object
    decode_envelope(body) / encode_envelope(api_version, kind, raw)
    encode_watch_event(type, obj)              one length-prefixed frame of a protobuf watch stream
    ProtobufError (a ValueError), UnknownKindError (a ProtobufError)
"""
from __future__ import annotations

from app.schema.envelope import MAGIC, decode_envelope, encode_envelope
from app.schema.objects import (
    SCHEMAS,
    UnknownKindError,
    decode_object,
    decode_watch_event,
    encode_object,
    encode_watch_event,
    has_schema,
    schema_for,
)
from app.schema.protobuf import decode, encode
from app.schema.wire import ProtobufError

__all__ = [
    "MAGIC",
    "SCHEMAS",
    "ProtobufError",
    "UnknownKindError",
    "decode",
    "decode_envelope",
    "decode_object",
    "decode_watch_event",
    "encode",
    "encode_envelope",
    "encode_object",
    "encode_watch_event",
    "has_schema",
    "schema_for",
]
