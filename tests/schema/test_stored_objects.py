"""What the server stores (after its defaulting) encodes to protobuf and decodes back equal.

Objects are created through the real app, then read back as JSON: every field a strategy adds must be
declared in the kind's schema (encoding rejects undeclared fields), and the round trip may differ only
by the normalisations listed in tests/schema/equivalence.py. The HTTP-layer helpers (`encode_list`,
`encode_status`, `encode_watch_event`) are exercised on the server's own responses.
"""

from __future__ import annotations

import copy
import struct
from typing import Any

import pytest
from orch_apiserver.catalog import ResourceType
from orch_apiserver.naming import Naming
from orch_apiserver.resources import build_catalog
from orch_apiserver.schema import (
    ProtobufError,
    decode_envelope,
    decode_object,
    decode_watch_event,
    encode_list,
    encode_object,
    encode_status,
    encode_watch_event,
)

from tests.kinds import OWN_TESTS
from tests.schema.equivalence import differences
from tests.schema.fixtures_groups import GROUP_OBJECTS

NAMING = Naming()
CATALOG = build_catalog(NAMING)
KINDS = sorted((rt for rt in CATALOG if rt.plural not in OWN_TESTS), key=lambda rt: (rt.group, rt.plural))
#: fields the server refuses on create (like the reference), left out of the realistic objects here.
REFUSED_ON_CREATE = {
    "Event": ("deprecatedSource", "deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedCount")
}


def collection(rt: ResourceType, namespace: str = "default") -> str:
    base = f"/apis/{rt.group}/{rt.version}" if rt.group else f"/api/{rt.version}"
    return f"{base}/namespaces/{namespace}/{rt.plural}" if rt.namespaced else f"{base}/{rt.plural}"


def _create(client, rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """The object as stored and read back; for a create-only kind (a review), the create response."""
    # a local access review is created in the namespace it asks about (the server checks they match)
    asked = ((obj.get("spec") or {}).get("resourceAttributes") or {}).get("namespace")
    created = client.post(
        collection(rt, asked) if rt.kind == "LocalSubjectAccessReview" and asked else collection(rt), json=obj
    )
    assert created.status_code == 201, created.get_json()
    if "get" not in rt.verbs:
        return created.get_json()
    got = client.get(f"{collection(rt)}/{obj['metadata']['name']}")
    assert got.status_code == 200
    return got.get_json()


def _round_trip(stored: dict[str, Any]) -> dict[str, Any]:
    try:
        body = encode_object(stored, NAMING)
    except ProtobufError as exc:  # a field the strategy's defaulting added is not in the schema
        pytest.fail(f"the stored {stored.get('kind')} does not encode: {exc}")
    decoded = decode_object(body, NAMING)
    assert differences(stored, decoded) == []
    assert encode_object(decoded, NAMING) == body
    return decoded


@pytest.mark.parametrize("rt", KINDS, ids=lambda rt: rt.group_resource)
def test_stored_example_encodes_and_decodes_back(client, rt: ResourceType) -> None:
    body = copy.deepcopy(rt.example)
    body.update({"apiVersion": rt.group_version, "kind": rt.kind, "metadata": {"name": "stored"}})
    stored = _create(client, rt, body)
    _round_trip(stored)

    if "list" not in rt.verbs:  # create-only: nothing to list, and the reference declares no <Kind>List
        return
    listed = client.get(collection(rt)).get_json()
    decoded_list = decode_object(encode_list(listed, NAMING), NAMING)
    assert (decoded_list["apiVersion"], decoded_list["kind"]) == (rt.group_version, rt.list_kind)
    assert decoded_list["metadata"]["resourceVersion"] == listed["metadata"]["resourceVersion"]
    assert [i["metadata"]["name"] for i in decoded_list["items"]] == [i["metadata"]["name"] for i in listed["items"]]

    frame = encode_watch_event("ADDED", stored, NAMING)
    assert struct.unpack(">I", frame[:4])[0] == len(frame) - 4
    event = decode_watch_event(frame[4:], NAMING)
    assert event["type"] == "ADDED" and differences(stored, event["object"]) == []


@pytest.mark.parametrize("rt", KINDS, ids=lambda rt: rt.group_resource)
def test_a_decoded_protobuf_object_is_accepted_on_create(client, rt: ResourceType) -> None:
    """The canonical decoded form (zero values spelled out) passes the strategy's validation."""
    body = copy.deepcopy(rt.example)
    body.update({"apiVersion": rt.group_version, "kind": rt.kind, "metadata": {"name": "from-protobuf"}})
    canonical = decode_object(encode_object(body, NAMING), NAMING)
    _round_trip(_create(client, rt, canonical))


SCALED = [rt for rt in KINDS if any(sub.kind == "Scale" for sub in rt.subresources)]


@pytest.mark.parametrize("rt", SCALED, ids=lambda rt: rt.group_resource)
def test_scale_views_encode(client, rt: ResourceType) -> None:
    body = copy.deepcopy(rt.example)
    body.update({"apiVersion": rt.group_version, "kind": rt.kind, "metadata": {"name": "scaled"}})
    _create(client, rt, body)
    scale = client.get(f"{collection(rt)}/scaled/scale").get_json()
    assert decode_envelope(encode_object(scale, NAMING))[:2] == ("autoscaling/v1", "Scale")
    _round_trip(scale)


def test_token_request_response_encodes(client) -> None:
    """POST serviceaccounts/<name>/token answers a TokenRequest of the authentication group."""
    sa = CATALOG.lookup("", "v1", "serviceaccounts")
    assert sa is not None and sa.subresource("token") is not None
    _create(client, sa, {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "builder"}})
    api_version = f"{NAMING.group('authentication')}/v1"
    response = client.post(
        f"{collection(sa)}/builder/token",
        json={
            "apiVersion": api_version,
            "kind": "TokenRequest",
            "spec": {"audiences": ["vault"], "expirationSeconds": 3600},
        },
    )
    assert response.status_code == 201, response.get_json()
    token_request = response.get_json()
    assert decode_envelope(encode_object(token_request, NAMING))[:2] == (api_version, "TokenRequest")
    decoded = _round_trip(token_request)
    assert decoded["status"]["token"] == token_request["status"]["token"]
    assert decoded["spec"]["expirationSeconds"] == 3600


def _kind_of(obj: dict[str, Any]) -> ResourceType | None:
    return next((rt for rt in CATALOG if (rt.group_version, rt.kind) == (obj["apiVersion"], obj["kind"])), None)


@pytest.mark.parametrize("key", sorted(k for k, o in GROUP_OBJECTS.items() if _kind_of(o)))
def test_stored_realistic_object_encodes(client, key: str) -> None:
    obj = copy.deepcopy(GROUP_OBJECTS[key])
    rt = _kind_of(obj)
    assert rt is not None
    obj.pop("status", None)
    for name in REFUSED_ON_CREATE.get(rt.kind, ()):
        obj.pop(name, None)
    obj["metadata"] = {k: v for k, v in obj["metadata"].items() if k in ("name", "labels", "annotations")}
    _round_trip(_create(client, rt, obj))


def test_error_status_encodes(client) -> None:
    response = client.get("/api/v1/namespaces/default/configmaps/missing")
    assert response.status_code == 404
    status = response.get_json()
    body = encode_status(status)
    assert decode_envelope(body)[:2] == ("v1", "Status")
    assert decode_object(body) == status


def test_invalid_status_with_causes_encodes(client) -> None:
    rt = CATALOG.lookup("", "v1", "configmaps")
    assert rt is not None
    response = client.post(
        collection(rt), json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "Bad/Name"}}
    )
    assert response.status_code == 422
    status = response.get_json()
    assert status["details"]["causes"]
    without_type_meta = {k: v for k, v in status.items() if k not in ("apiVersion", "kind")}
    assert decode_object(encode_status(without_type_meta)) == status
