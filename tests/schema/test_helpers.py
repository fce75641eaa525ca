"""The helpers the HTTP layer calls: list bodies, Status bodies and watch frames, for any naming."""

from __future__ import annotations

import pytest
from orch_apiserver.naming import Naming
from orch_apiserver.schema import (
    ProtobufError,
    UnknownKindError,
    decode_envelope,
    decode_object,
    decode_watch_event,
    encode_list,
    encode_object,
    encode_status,
    encode_watch_event,
)
from orch_apiserver.schema.wire import iter_fields

OTHER = Naming("example.net")
LEASES = "coordination.example.net/v1"


def _lease(name: str, *, type_meta: bool = False) -> dict:
    obj: dict = {"metadata": {"name": name, "namespace": "ns", "resourceVersion": "5"}, "spec": {"holderIdentity": "a"}}
    return {"apiVersion": LEASES, "kind": "Lease", **obj} if type_meta else obj


def test_encode_list_for_a_renamed_group() -> None:
    listed = {
        "apiVersion": LEASES,
        "kind": "LeaseList",
        "metadata": {"resourceVersion": "9", "continue": "tok", "remainingItemCount": 0},
        "items": [_lease("a", type_meta=True), _lease("b")],
    }
    body = encode_list(listed, OTHER)
    assert decode_envelope(body)[:2] == (LEASES, "LeaseList")
    decoded = decode_object(body, OTHER)
    assert decoded["metadata"] == {"resourceVersion": "9", "continue": "tok", "remainingItemCount": 0}
    assert decoded["items"] == [_lease("a"), _lease("b")]  # items are bare messages: no typeMeta


def test_encode_list_of_nothing() -> None:
    decoded = decode_object(
        encode_list({"apiVersion": "v1", "kind": "PodList", "metadata": {"resourceVersion": "1"}, "items": []})
    )
    assert decoded == {"apiVersion": "v1", "kind": "PodList", "metadata": {"resourceVersion": "1"}}


@pytest.mark.parametrize(
    ("listed", "message"),
    [
        ({"apiVersion": "v1", "kind": "Pod", "metadata": {}}, "<Kind>List"),
        ({"apiVersion": "v1", "kind": "PodList", "items": {}}, "items"),
        ({"apiVersion": "v1", "kind": "PodList", "items": [{"kind": "ConfigMap"}]}, "items[0]"),
        ({"apiVersion": "v1", "kind": "PodList", "items": [{"apiVersion": "apps/v1", "kind": "Pod"}]}, "items[0]"),
        ({"apiVersion": "v1", "kind": "PodList", "metadata": {"selfLinkz": ""}}, "metadata.selfLinkz"),
    ],
)
def test_encode_list_rejects_what_is_not_a_list(listed: dict, message: str) -> None:
    with pytest.raises(ProtobufError, match=message.replace("[", r"\[").replace("]", r"\]")):
        encode_list(listed)


def test_encode_list_needs_the_naming_of_the_group() -> None:
    with pytest.raises(UnknownKindError):
        encode_list({"apiVersion": LEASES, "kind": "LeaseList", "items": []})


def test_encode_status_always_says_v1_status() -> None:
    status = {
        "apiVersion": "v1",
        "kind": "Status",
        "metadata": {},
        "status": "Failure",
        "message": "gone",
        "reason": "Expired",
        "code": 410,
    }
    assert encode_status({k: v for k, v in status.items() if k not in ("apiVersion", "kind")}) == encode_status(status)
    assert decode_object(encode_status(status)) == status
    assert decode_envelope(encode_status({**status, "apiVersion": "meta/v1"}))[:2] == ("v1", "Status")
    with pytest.raises(ProtobufError, match="unknown field"):
        encode_status({**status, "oops": 1})


def test_watch_frames_for_a_renamed_group_and_an_error() -> None:
    lease = _lease("a", type_meta=True)
    frame = encode_watch_event("MODIFIED", lease, OTHER)
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    (_, _, event_type), (_, _, raw_extension) = list(iter_fields(frame[4:]))
    assert event_type == b"MODIFIED"
    assert list(iter_fields(raw_extension)) == [(1, 2, encode_object(lease, OTHER))]
    assert decode_watch_event(frame[4:], OTHER) == {"type": "MODIFIED", "object": lease}
    with pytest.raises(UnknownKindError):
        encode_watch_event("MODIFIED", lease)  # the default naming does not serve that group

    status = {
        "apiVersion": "v1",
        "kind": "Status",
        "metadata": {},
        "status": "Failure",
        "reason": "Expired",
        "message": "too old resource version: 1 (5)",
        "code": 410,
    }
    error = encode_watch_event("ERROR", status, OTHER)
    assert decode_watch_event(error[4:]) == {"type": "ERROR", "object": status}


def test_a_watch_event_without_an_object_is_rejected() -> None:
    with pytest.raises(ProtobufError, match="no embedded object"):
        decode_watch_event(b"\x0a\x05ADDED")
