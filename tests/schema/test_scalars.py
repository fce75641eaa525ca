"""Leaf codecs: varints, times, quantities, int-or-string, raw JSON."""

from __future__ import annotations

import pytest
from orch_apiserver.schema import ProtobufError, core, core_pod, decode, encode
from orch_apiserver.schema.scalars import CODECS, format_rfc3339, parse_rfc3339
from orch_apiserver.schema.types import MICRO_TIME, TIME
from orch_apiserver.schema.wire import encode_varint, iter_fields, read_varint, to_signed


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, "00"),
        (1, "01"),
        (127, "7f"),
        (128, "8001"),
        (300, "ac02"),
        (2**63 - 1, "ffffffffffffffff7f"),
        (-1, "ffffffffffffffffff01"),
        (-(2**63), "80808080808080808001"),
    ],
)
def test_varint(value: int, encoded: str) -> None:
    assert encode_varint(value).hex() == encoded
    unsigned, pos = read_varint(bytes.fromhex(encoded), 0)
    assert pos == len(encoded) // 2 and to_signed(unsigned, 64) == value


def test_int32_truncates_like_go() -> None:
    assert to_signed(2**32 + 5, 32) == 5 and to_signed(0xFFFFFFFF, 32) == -1


@pytest.mark.parametrize(
    ("text", "seconds", "nanos"),
    [
        ("1970-01-01T00:00:00Z", 0, 0),
        ("2024-05-06T07:08:09Z", 1714979289, 0),
        ("2024-05-06T09:08:09+02:00", 1714979289, 0),
        ("2024-05-06T07:08:09.5Z", 1714979289, 500_000_000),
        ("2024-05-06T07:08:09.123456789z", 1714979289, 123_456_789),
        ("1969-12-31T23:59:59Z", -1, 0),
        ("0001-01-01T00:00:00Z", -62135596800, 0),
    ],
)
def test_rfc3339(text: str, seconds: int, nanos: int) -> None:
    assert parse_rfc3339(text, "t") == (seconds, nanos)


def test_format_rfc3339() -> None:
    assert format_rfc3339(1714979289) == "2024-05-06T07:08:09Z"
    assert format_rfc3339(-1) == "1969-12-31T23:59:59Z"
    assert format_rfc3339(-62135596800 + 86400 * 365) == "0002-01-01T00:00:00Z"
    assert format_rfc3339(1714979289, 42) == "2024-05-06T07:08:09.000042Z"


def test_time_keeps_whole_seconds_and_normalises_to_utc() -> None:
    codec = CODECS[TIME]
    payload = codec.encode("2024-05-06T09:08:09.75+02:00", "t")
    assert {n: v for n, _, v in iter_fields(payload)} == {1: 1714979289, 2: 0}
    assert codec.decode(payload, "t") == "2024-05-06T07:08:09Z"
    assert codec.decode(b"", "t") is None  # Go's zero time
    assert codec.encode(None, "t") == b""


def test_time_decoder_drops_nanos_and_maps_go_zero_time_to_null() -> None:
    codec = CODECS[TIME]
    assert codec.decode(b"\x08\x01\x10\x05", "t") == "1970-01-01T00:00:01Z"
    assert codec.decode(b"\x08" + encode_varint(-62135596800), "t") is None
    assert codec.decode(b"\x08\x00\x10\x00", "t") == "1970-01-01T00:00:00Z"  # the epoch is not zero


def test_micro_time() -> None:
    codec = CODECS[MICRO_TIME]
    payload = codec.encode("2024-05-06T07:08:09.123456789Z", "t")
    assert {n: v for n, _, v in iter_fields(payload)} == {1: 1714979289, 2: 123_456_000}
    assert codec.decode(payload, "t") == "2024-05-06T07:08:09.123456Z"
    assert codec.decode(codec.encode("2024-05-06T07:08:09Z", "t"), "t") == "2024-05-06T07:08:09.000000Z"


def test_event_time_round_trip() -> None:
    event = {
        "metadata": {"name": "e"},
        "involvedObject": {},
        "source": {},
        "firstTimestamp": None,
        "lastTimestamp": None,
        "eventTime": "2024-05-06T07:08:09.250000Z",
        "reportingComponent": "",
        "reportingInstance": "",
    }
    assert decode(core.Event, encode(core.Event, event)) == event


def test_quantity_accepts_numbers_and_keeps_strings_verbatim() -> None:
    raw = encode(core_pod.ResourceRequirements, {"limits": {"cpu": 2, "memory": "1000Mi"}})
    assert decode(core_pod.ResourceRequirements, raw) == {"limits": {"cpu": "2", "memory": "1000Mi"}}


def test_int_or_string_zero_is_omitted_only_where_omitempty() -> None:
    assert decode(core.ServicePort, encode(core.ServicePort, {"port": 80})) == {"port": 80}
    probe = {"tcpSocket": {"port": 0}}
    assert decode(core_pod.Probe, encode(core_pod.Probe, probe)) == probe  # TCPSocketAction.port is not omitempty


def test_int_or_string_type_errors() -> None:
    with pytest.raises(ProtobufError, match="targetPort: expected an integer"):
        encode(core.ServicePort, {"port": 80, "targetPort": 1.5})
