"""Whole API objects: the (apiVersion, kind) registry, enveloped bodies, lists, statuses and watch frames.

The registry is keyed by the apiVersion as *served*, so it depends on the API domain: a group under
the domain (coordination, rbac.authorization, ...) is spelled through `Naming.group`, e.g.
`coordination.orch.io/v1` for the default naming. Every function takes an optional `naming`; without
one the default `Naming()` is used.
"""

from __future__ import annotations

import struct as _struct
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType, ModuleType
from typing import Any

from ..naming import Naming
from . import (
    admissionregistration,
    apiextensions,
    apiregistration,
    apps,
    authentication,
    authorization,
    autoscaling,
    autoscaling_v2,
    autoscaling_v2beta1,
    autoscaling_v2beta2,
    batch,
    batch_v1beta1,
    certificates,
    coordination,
    core,
    core_options,
    core_pod,
    core_volume,
    discovery,
    discovery_v1beta1,
    events,
    events_v1beta1,
    flowcontrol,
    flowcontrol_v1beta1,
    flowcontrol_v1beta2,
    meta,
    networking,
    node,
    node_v1beta1,
    policy,
    policy_v1beta1,
    rbac,
    scalars,
    scheduling,
    storage,
    storage_v1beta1,
    testing,
)
from .envelope import decode_envelope, encode_envelope
from .protobuf import decode, encode
from .types import Struct
from .wire import LEN, ProtobufError, encode_len_field, iter_fields

#: every declaration module; those with KINDS contribute top-level kinds to the registry.
MODULES: tuple[ModuleType, ...] = (
    meta,
    core,
    core_volume,
    core_pod,
    core_options,
    apps,
    batch,
    policy,
    autoscaling,
    coordination,
    events,
    certificates,
    rbac,
    networking,
    discovery,
    scheduling,
    storage,
    node,
    authentication,
    authorization,
    flowcontrol,
    admissionregistration,
    apiextensions,
    apiregistration,
    testing,  # the Fault kind (served only with --enable-fault-injection)
    # older served versions of the groups above
    policy_v1beta1,
    events_v1beta1,
    batch_v1beta1,
    autoscaling_v2,
    autoscaling_v2beta1,
    autoscaling_v2beta2,
    discovery_v1beta1,
    node_v1beta1,
    flowcontrol_v1beta1,
    flowcontrol_v1beta2,
    storage_v1beta1,
)
DEFAULT_NAMING = Naming()
# The reference registers the option kinds in every group version (e.g. DeleteOptions as apps/v1).
_IN_EVERY_VERSION: dict[str, Struct] = {"DeleteOptions": meta.DeleteOptions}
#: the apiVersion of `Status` (meta/v1 kinds are served in the core group version).
STATUS_API_VERSION = "v1"

Schemas = Mapping[tuple[str, str], Struct]


class UnknownKindError(ProtobufError):
    """No protobuf schema is declared for this (apiVersion, kind)."""


def served_api_version(module: ModuleType, naming: Naming | None = None) -> str:
    """The apiVersion a declaration module's kinds are served under, e.g. `coordination.orch.io/v1`."""
    group: str = module.GROUP
    if module.GROUP_IN_DOMAIN:
        group = (naming or DEFAULT_NAMING).group(group)
    return f"{group}/{module.VERSION}" if group else module.VERSION


@lru_cache(maxsize=16)
def _schemas(domain: str) -> Schemas:
    naming = Naming(domain)
    table: dict[tuple[str, str], Struct] = {}
    for module in MODULES:
        api_version = served_api_version(module, naming)
        for kind, schema in module.KINDS.items():
            if (api_version, kind) in table:
                raise AssertionError(f"kind {kind} of {api_version} is declared twice")
            table[(api_version, kind)] = schema
    return MappingProxyType(table)


def schemas_for(naming: Naming | None = None) -> Schemas:
    """(served apiVersion, kind) -> schema for every declared top-level kind (read-only, cached per domain)."""
    return _schemas((naming or DEFAULT_NAMING).domain)


#: the registry for the default naming.
SCHEMAS: Schemas = schemas_for(DEFAULT_NAMING)


def schema_for(api_version: str, kind: str, naming: Naming | None = None) -> Struct:
    found = schemas_for(naming).get((api_version, kind)) or _IN_EVERY_VERSION.get(kind)
    if found is None:
        raise UnknownKindError(f"no protobuf schema for kind {kind!r} in {api_version!r}")
    return found


def has_schema(api_version: str, kind: str, naming: Naming | None = None) -> bool:
    return (api_version, kind) in schemas_for(naming) or kind in _IN_EVERY_VERSION


@lru_cache(maxsize=16)
def _json_only(domain: str) -> frozenset[tuple[str, str]]:
    naming = Naming(domain)
    return frozenset(
        (served_api_version(module, naming), kind)
        for module in MODULES
        if not getattr(module, "PROTOBUF", True)
        for kind in getattr(module, "KINDS", {})
    )


def protobuf_available(api_version: str, kind: str, naming: Naming | None = None) -> bool:
    """Whether the kind is declared well enough to be served as protobuf (every declared kind but the
    JSON-only ones, such as CustomResourceDefinition)."""
    return has_schema(api_version, kind, naming) and (api_version, kind) not in _json_only(
        (naming or DEFAULT_NAMING).domain
    )


def decode_object(body: bytes, naming: Naming | None = None) -> dict[str, Any]:
    """An enveloped protobuf body -> its JSON object, `apiVersion` and `kind` first.

    Raises UnknownKindError when the envelope names a kind not served under `naming`'s domain.
    """
    api_version, kind, raw = decode_envelope(body)
    return {"apiVersion": api_version, "kind": kind, **decode(schema_for(api_version, kind, naming), raw)}


def encode_object(obj: dict[str, Any], naming: Naming | None = None) -> bytes:
    """A JSON object carrying apiVersion and kind -> the enveloped protobuf body.

    The envelope's typeMeta holds `obj`'s apiVersion and kind exactly as given (the served spelling).
    Raises ProtobufError for a field the schema does not declare or a value of the wrong type.
    """
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not kind:
        raise ProtobufError("an object needs string apiVersion and kind to be encoded as protobuf")
    return encode_envelope(api_version, kind, encode(schema_for(api_version, kind, naming), obj))


def encode_list(list_obj: dict[str, Any], naming: Naming | None = None) -> bytes:
    """A `<Kind>List` response -> the enveloped protobuf body.

    `list_obj` is {"apiVersion", "kind": "<Kind>List", "metadata": {resourceVersion, continue,
    remainingItemCount}, "items": [...]}. Items are bare messages on the wire, so an apiVersion/kind
    inside an item is accepted and dropped (it must match the list's item kind when present).
    """
    api_version, kind = list_obj.get("apiVersion"), list_obj.get("kind")
    if not isinstance(kind, str) or not kind.endswith("List"):
        raise ProtobufError(f"encode_list needs a <Kind>List object, got kind {kind!r}")
    items = list_obj.get("items")
    if items is not None and not isinstance(items, list):
        raise ProtobufError("items: expected a list")
    item_kind = kind[: -len("List")]
    for i, item in enumerate(items or ()):
        if isinstance(item, dict) and item.get("kind", item_kind) != item_kind:
            raise ProtobufError(f"items[{i}]: kind {item.get('kind')!r} in a {kind}")
        if isinstance(item, dict) and item.get("apiVersion", api_version) != api_version:
            raise ProtobufError(f"items[{i}]: apiVersion {item.get('apiVersion')!r} in a {api_version} list")
    return encode_object(list_obj, naming)


def encode_status(status: dict[str, Any]) -> bytes:
    """A meta/v1 `Status` (an error or success body) -> the enveloped protobuf body, typeMeta `v1`/`Status`.

    `status` may carry apiVersion/kind or not; they are set to v1/Status either way.
    """
    return encode_object({**status, "apiVersion": STATUS_API_VERSION, "kind": "Status"})


def encode_watch_event(event_type: str, obj: dict[str, Any], naming: Naming | None = None) -> bytes:
    """One frame of a protobuf watch stream: 4-byte big-endian length, then a bare `WatchEvent`.

    WatchEvent{1: type, 2: RawExtension{1: raw}}, where raw is `obj` encoded with the envelope
    (`obj` carries apiVersion and kind; for an ERROR event it is a Status).
    """
    raw_extension = encode_len_field(1, encode_object(obj, naming))
    event = encode_len_field(1, event_type.encode()) + encode_len_field(2, raw_extension)
    return _struct.pack(">I", len(event)) + event


def decode_watch_event(frame: bytes, naming: Naming | None = None) -> dict[str, Any]:
    """A WatchEvent (without its length prefix) -> {"type": ..., "object": {...}}."""
    event_type = ""
    raw = b""
    for number, wire_type, value in iter_fields(frame):
        if wire_type != LEN or number not in (1, 2):
            raise ProtobufError(f"WatchEvent: unexpected field {number} (wire type {wire_type})")
        assert isinstance(value, bytes)
        if number == 1:
            event_type = value.decode("utf-8", "replace")
            continue
        for inner, inner_wire, inner_value in iter_fields(value):
            if inner != 1 or inner_wire != LEN:
                raise ProtobufError(f"WatchEvent.object: unexpected field {inner} (wire type {inner_wire})")
            assert isinstance(inner_value, bytes)
            raw = inner_value
    if not raw:
        raise ProtobufError("WatchEvent.object: no embedded object")
    return {"type": event_type, "object": decode_object(raw, naming)}


scalars.EMBEDDED.encode = encode_object
scalars.EMBEDDED.decode = decode_object
