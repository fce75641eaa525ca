"""Whole API objects: the (apiVersion, kind) registry, enveloped bodies and protobuf watch frames."""
from __future__ import annotations

import struct as _struct
from types import ModuleType
from typing import Any

from app.schema import apps, batch, core, core_pod, core_volume, meta, policy
from app.schema.envelope import decode_envelope, encode_envelope
from app.schema.protobuf import decode, encode
from app.schema.types import Struct
from app.schema.wire import ProtobufError

_MODULES: tuple[ModuleType, ...] = (meta, core, core_volume, core_pod, apps, batch, policy)

SCHEMAS: dict[tuple[str, str], Struct] = {
    (module.API_VERSION, kind): schema for module in _MODULES for kind, schema in module.KINDS.items()
}
# The reference registers the option kinds in every group version (e.g. DeleteOptions as apps/v1).
_IN_EVERY_VERSION: dict[str, Struct] = {"DeleteOptions": meta.DeleteOptions}


class UnknownKindError(ProtobufError):
    """No protobuf schema is declared for this (apiVersion, kind)."""


def schema_for(api_version: str, kind: str) -> Struct:
    found = SCHEMAS.get((api_version, kind)) or _IN_EVERY_VERSION.get(kind)
    if found is None:
        raise UnknownKindError(f"no protobuf schema for kind {kind!r} in {api_version!r}")
    return found


def has_schema(api_version: str, kind: str) -> bool:
    return (api_version, kind) in SCHEMAS or kind in _IN_EVERY_VERSION


def decode_object(body: bytes) -> dict[str, Any]:
    """An enveloped protobuf body -> its JSON object, `apiVersion` and `kind` first."""
    api_version, kind, raw = decode_envelope(body)
    return {"apiVersion": api_version, "kind": kind, **decode(schema_for(api_version, kind), raw)}


def encode_object(obj: dict[str, Any]) -> bytes:
    """A JSON object carrying apiVersion and kind -> the enveloped protobuf body."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not kind:
        raise ProtobufError("an object needs string apiVersion and kind to be encoded as protobuf")
    return encode_envelope(api_version, kind, encode(schema_for(api_version, kind), obj))


def encode_watch_event(event_type: str, obj: dict[str, Any]) -> bytes:
    """One frame of a protobuf watch stream: 4-byte big-endian length, then a bare WatchEvent."""
    event = encode(meta.WatchEvent, {"type": event_type, "object": obj})
    return _struct.pack(">I", len(event)) + event


def decode_watch_event(frame: bytes) -> dict[str, Any]:
    """A WatchEvent (without its length prefix) -> {"type": ..., "object": {...}}."""
    return decode(meta.WatchEvent, frame)
