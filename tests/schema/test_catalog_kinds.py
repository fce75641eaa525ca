"""Every kind the catalog serves has a typed schema, keyed by its apiVersion as served for a Naming."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from orch_apiserver.catalog import ResourceType, Subresource
from orch_apiserver.naming import Naming
from orch_apiserver.resources import build_catalog
from orch_apiserver.schema import (
    SCHEMAS,
    UnknownKindError,
    certificates,
    coordination,
    decode,
    decode_envelope,
    decode_object,
    encode,
    encode_object,
    has_schema,
    schema_for,
    schemas_for,
    served_api_version,
)
from orch_apiserver.schema.types import STRING, ListOf, MapOf

from tests.schema.equivalence import differences
from tests.schema.fixtures_groups import GROUP_OBJECTS

NAMING = Naming()
OTHER = Naming("example.net")
KINDS = sorted(build_catalog(NAMING), key=lambda rt: (rt.group, rt.plural))


def _sub_api_version(rt: ResourceType, sub: Subresource) -> str:
    group = rt.group if sub.group is None else sub.group
    version = sub.version or rt.version
    return f"{group}/{version}" if group else version


SUBRESOURCE_KINDS = sorted(
    {(_sub_api_version(rt, sub), sub.kind) for rt in KINDS for sub in rt.subresources if sub.kind}
)


def _served_kinds(rt: ResourceType) -> tuple[str, ...]:
    """The kind, and its `<Kind>List` when the resource can be listed (create-only reviews have none)."""
    return (rt.kind, rt.list_kind) if "list" in rt.verbs else (rt.kind,)


@pytest.mark.parametrize("naming", [NAMING, OTHER], ids=lambda n: n.domain)
def test_every_served_kind_and_its_list_has_a_schema(naming: Naming) -> None:
    schemas = schemas_for(naming)
    missing = [
        (rt.group_version, kind)
        for rt in build_catalog(naming)
        for kind in _served_kinds(rt)
        if (rt.group_version, kind) not in schemas
    ]
    assert not missing
    for rt in build_catalog(naming):
        assert has_schema(rt.group_version, rt.kind, naming)
        assert schema_for(rt.group_version, rt.kind, naming).name == rt.kind


def test_every_subresource_kind_has_a_schema() -> None:
    assert ("autoscaling/v1", "Scale") in SUBRESOURCE_KINDS
    for api_version, kind in SUBRESOURCE_KINDS:
        assert has_schema(api_version, kind), (api_version, kind)


def test_the_registry_follows_the_naming_domain() -> None:
    lease = coordination.KINDS["Lease"]
    assert schemas_for(NAMING) is SCHEMAS and schemas_for(Naming()) is SCHEMAS  # cached per domain
    assert SCHEMAS[(f"{NAMING.group('coordination')}/v1", "Lease")] is lease
    assert schemas_for(OTHER)[("coordination.example.net/v1", "Lease")] is lease
    assert ("coordination.example.net/v1", "Lease") not in SCHEMAS
    assert served_api_version(coordination, OTHER) == "coordination.example.net/v1"
    assert served_api_version(certificates) == f"{NAMING.group('certificates')}/v1"
    # groups outside the domain, and the core group, are spelled the same for every naming
    for key in [("v1", "Pod"), ("apps/v1", "Deployment"), ("autoscaling/v1", "Scale"), ("v1", "Status")]:
        assert schemas_for(OTHER)[key] is SCHEMAS[key]
    assert len(schemas_for(OTHER)) == len(SCHEMAS)
    with pytest.raises(TypeError):
        SCHEMAS[("v1", "Widget")] = lease  # type: ignore[index]  # read-only


def _filled(rt: ResourceType) -> dict[str, Any]:
    obj = copy.deepcopy(rt.example)
    metadata = {"name": "example", **({"namespace": "default"} if rt.namespaced else {})}
    obj.update({"apiVersion": rt.group_version, "kind": rt.kind, "metadata": metadata})
    return obj


@pytest.mark.parametrize("rt", KINDS, ids=lambda rt: rt.group_resource)
def test_every_catalog_example_round_trips(rt: ResourceType) -> None:
    obj = _filled(rt)
    body = encode_object(obj, NAMING)
    assert decode_envelope(body)[:2] == (rt.group_version, rt.kind)
    decoded = decode_object(body, NAMING)
    assert differences(obj, decoded) == []
    assert encode_object(decoded, NAMING) == body  # the decoded form is canonical


@pytest.mark.parametrize("key", sorted(GROUP_OBJECTS))
def test_realistic_object_round_trips_exactly(key: str) -> None:
    obj = GROUP_OBJECTS[key]
    body = encode_object(copy.deepcopy(obj))
    assert decode_object(body) == obj
    assert encode_object(decode_object(body)) == body


def test_realistic_objects_cover_every_new_group_kind() -> None:
    kinds = {(o["apiVersion"], o["kind"]) for o in GROUP_OBJECTS.values()}
    for rt in KINDS:
        if rt.group not in ("", "apps", "batch", "policy"):
            assert (rt.group_version, rt.kind) in kinds, rt.kind
    assert ("autoscaling/v1", "Scale") in kinds


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


# ObjectMeta{name: "n"} as Go writes it: name, then every non-pointer field empty.
META_N = h("0a 01 6e  12 00  1a 00  22 00  2a 00  32 00  38 00  42 00")


def test_lease_golden_bytes_carry_the_served_api_version() -> None:
    obj = {
        "apiVersion": "coordination.orch.io/v1",
        "kind": "Lease",
        "metadata": {"name": "n"},
        "spec": {"holderIdentity": "h", "leaseDurationSeconds": 15},
    }
    expected = (
        b"k8s\x00"
        + h("0a 20")
        + h("0a 17")
        + b"coordination.orch.io/v1"
        + h("12 05")
        + b"Lease"  # typeMeta
        + h("12 1a")  # raw, 26 bytes:
        + h("0a 11")
        + META_N  # metadata
        + h("12 05")
        + h("0a 01")
        + b"h"
        + h("10 0f")  # spec{holderIdentity "h", leaseDurationSeconds 15}
        + h("1a 00 22 00")  # contentEncoding "", contentType ""
    )
    assert encode_object(obj) == expected == encode_object(obj, NAMING)
    assert decode_object(expected) == obj
    other = {**obj, "apiVersion": "coordination.example.net/v1"}
    assert b"coordination.example.net/v1" in encode_object(other, OTHER)
    with pytest.raises(UnknownKindError):
        encode_object(other)  # not served under the default domain
    with pytest.raises(UnknownKindError):
        decode_object(expected, OTHER)


def test_extra_values_are_wrapped_string_lists() -> None:
    spec = certificates.CertificateSigningRequestSpec
    extra = spec.field("extra")
    assert extra is not None and extra.type == MapOf(ListOf(STRING, wrapped=True)) and not extra.repeated
    raw = encode(spec, {"request": "", "signerName": "s", "extra": {"b": [], "a": ["x", "y"]}})
    # map entries {1: key, 2: ExtraValue{1: items...}}, sorted by key; an empty list is an empty message
    assert (
        h("32 0b 0a 01")
        + b"a"
        + h("12 06 0a 01")
        + b"x"
        + h("0a 01")
        + b"y"
        + h("32 05 0a 01")
        + b"b"
        + h("12 00")
        + h("3a 01")
        + b"s"  # signerName (field 7) follows the map
    ) in raw
    assert decode(spec, raw)["extra"] == {"a": ["x", "y"], "b": []}
    entry_without_value = h("32 03 0a 01") + b"k"
    assert decode(spec, entry_without_value)["extra"] == {"k": []}
