"""Typed API schemas (one declaration per type) and the protobuf representation built on them.

Every function taking `naming` (an `app.naming.Naming`) uses it to spell the served apiVersion of
groups under the API domain (`coordination.orch.io/v1`); without it the default `Naming()` is used.

Public entry points:
    schemas_for(naming) -> {(apiVersion, kind): Struct}   every declared top-level kind, as served
    has_schema(api_version, kind, naming=None) / schema_for(api_version, kind, naming=None)
    decode_object(body, naming=None) / encode_object(obj, naming=None)
                                           enveloped protobuf body <-> JSON object (with apiVersion/kind)
    encode_list(list_obj, naming=None)     a <Kind>List response body
    encode_status(status)                  a meta/v1 Status body (typeMeta v1/Status)
    encode_watch_event(type, obj, naming=None) / decode_watch_event(frame, naming=None)
                                           one length-prefixed frame of a protobuf watch stream
    decode(struct, raw) / encode(struct, obj)  bare protobuf message <-> JSON object
    decode_envelope(body) / encode_envelope(api_version, kind, raw)
    ProtobufError (a ValueError), UnknownKindError (a ProtobufError)
"""

from __future__ import annotations

from .envelope import MAGIC, decode_envelope, encode_envelope
from .objects import (
    SCHEMAS,
    UnknownKindError,
    decode_object,
    decode_watch_event,
    encode_list,
    encode_object,
    encode_status,
    encode_watch_event,
    has_schema,
    protobuf_available,
    schema_for,
    schemas_for,
    served_api_version,
)
from .protobuf import decode, encode
from .wire import ProtobufError

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
    "encode_list",
    "encode_object",
    "encode_status",
    "encode_watch_event",
    "has_schema",
    "protobuf_available",
    "schema_for",
    "schemas_for",
    "served_api_version",
]
