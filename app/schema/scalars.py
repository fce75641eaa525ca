"""JSON value <-> protobuf wire value for each leaf type of the DSL (`app.schema.types.Scalar`)."""

from __future__ import annotations

import base64
import calendar
import json
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from . import types as t
from .envelope import MAGIC
from .wire import (
    FIXED64,
    LEN,
    VARINT,
    ProtobufError,
    encode_len_field,
    encode_varint_field,
    iter_fields,
    to_signed,
)

WireValue = int | bytes


@dataclass(frozen=True)
class ScalarCodec:
    wire_type: int
    encode: Callable[[Any, str], WireValue]  # (JSON value, path) -> varint or payload bytes
    decode: Callable[[WireValue, str], Any]  # (wire value, path) -> JSON value
    zero: Any  # JSON form of Go's zero value, used for absent non-pointer fields
    struct_like: bool = False  # a Go struct: its JSON is written even when zero, omitempty or not


def _fail(path: str, expected: str, value: Any) -> ProtobufError:
    return ProtobufError(f"{path}: expected {expected}, got {json.dumps(value, default=repr)[:80]}")


def _int_encoder(bits: int) -> Callable[[Any, str], WireValue]:
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def encode(value: Any, path: str) -> WireValue:
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # JSON has one number type; 3.0 is an integer
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(path, "an integer", value)
        if not low <= value <= high:
            raise ProtobufError(f"{path}: {value} does not fit in int{bits}")
        return value

    return encode


def _encode_string(value: Any, path: str) -> WireValue:
    if not isinstance(value, str):
        raise _fail(path, "a string", value)
    return value.encode()


def _decode_string(value: WireValue, path: str) -> str:
    assert isinstance(value, bytes)
    return value.decode("utf-8", "replace")  # Go's JSON encoder also substitutes U+FFFD


def _encode_bool(value: Any, path: str) -> WireValue:
    if not isinstance(value, bool):
        raise _fail(path, "a boolean", value)
    return int(value)


def _encode_double(value: Any, path: str) -> WireValue:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _fail(path, "a number", value)
    return struct.pack("<d", float(value))


def _decode_double(value: WireValue, path: str) -> float:
    assert isinstance(value, bytes)
    return struct.unpack("<d", value)[0]


def _encode_bytes(value: Any, path: str) -> WireValue:
    if not isinstance(value, str):
        raise _fail(path, "a base64 string", value)
    try:
        return base64.b64decode(value.replace("\r", "").replace("\n", ""), validate=True)  # as Go's decoder
    except ValueError as exc:  # binascii.Error, or a character outside ASCII
        raise ProtobufError(f"{path}: invalid base64: {exc}") from None


def _decode_bytes(value: WireValue, path: str) -> str:
    assert isinstance(value, bytes)
    return base64.b64encode(value).decode()


def _message_fields(payload: WireValue, path: str, expected: dict[int, int]) -> dict[int, WireValue]:
    """The fields of a small fixed message (number -> wire type), rejecting anything else."""
    assert isinstance(payload, bytes)
    out: dict[int, WireValue] = {}
    for number, wire_type, value in iter_fields(payload):
        if expected.get(number) != wire_type:
            raise ProtobufError(f"{path}: unexpected field {number} (wire type {wire_type})")
        out[number] = value
    return out


def _encode_quantity(value: Any, path: str) -> WireValue:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise _fail(path, "a quantity string", value)
    return encode_len_field(1, str(value).encode())  # numbers are accepted like Go's UnmarshalJSON


def _decode_quantity(payload: WireValue, path: str) -> str:
    fields = _message_fields(payload, path, {1: LEN})
    return _decode_string(fields.get(1, b"0"), path) or "0"  # Go parses "" as the zero quantity


def _encode_int_or_string(value: Any, path: str) -> WireValue:
    if isinstance(value, str):
        return encode_varint_field(1, 1) + encode_varint_field(2, 0) + encode_len_field(3, value.encode())
    number = _int_encoder(32)(value, path)
    assert isinstance(number, int)
    return encode_varint_field(1, 0) + encode_varint_field(2, number) + encode_len_field(3, b"")


def _decode_int_or_string(payload: WireValue, path: str) -> int | str:
    fields = _message_fields(payload, path, {1: VARINT, 2: VARINT, 3: LEN})
    if fields.get(1, 0) == 1:
        return _decode_string(fields.get(3, b""), path)
    value = fields.get(2, 0)
    assert isinstance(value, int)
    return to_signed(value, 32)


_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$"
)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_GO_ZERO_TIME = -62135596800  # 0001-01-01T00:00:00Z, Go's zero time.Time (marshalled as null)


def parse_rfc3339(value: Any, path: str) -> tuple[int, int]:
    """(Unix seconds, nanoseconds) of an RFC 3339 timestamp."""
    m = _RFC3339.match(value) if isinstance(value, str) else None
    if m is None:
        raise _fail(path, "an RFC 3339 time", value)
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    try:
        datetime(year, month, day, hour, minute, second)
    except ValueError as exc:
        raise ProtobufError(f"{path}: invalid time {value!r}: {exc}") from None
    seconds = calendar.timegm((year, month, day, hour, minute, second))
    if m.group(8):
        offset = (int(m.group(9)) * 60 + int(m.group(10))) * 60
        seconds -= offset if m.group(8) == "+" else -offset
    return seconds, int((m.group(7) or "0").ljust(9, "0"))


def format_rfc3339(seconds: int, micros: int | None = None) -> str:
    d = _EPOCH + timedelta(seconds=seconds)
    text = f"{d.year:04d}-{d.month:02d}-{d.day:02d}T{d.hour:02d}:{d.minute:02d}:{d.second:02d}"
    return f"{text}.{micros:06d}Z" if micros is not None else f"{text}Z"


def _time_encoder(micro: bool) -> Callable[[Any, str], WireValue]:
    def encode(value: Any, path: str) -> WireValue:
        if value is None:
            return b""  # Go writes a zero time as an empty message
        seconds, nanos = parse_rfc3339(value, path)
        # metav1.Time keeps whole seconds only; MicroTime keeps microseconds
        nanos = nanos - nanos % 1000 if micro else 0
        return encode_varint_field(1, seconds) + encode_varint_field(2, nanos)

    return encode


def _time_decoder(micro: bool) -> Callable[[WireValue, str], Any]:
    def decode(payload: WireValue, path: str) -> str | None:
        fields = _message_fields(payload, path, {1: VARINT, 2: VARINT})
        if not fields:
            return None
        seconds = to_signed(int(fields.get(1, 0)), 64)
        nanos = to_signed(int(fields.get(2, 0)), 32)
        if seconds == _GO_ZERO_TIME and (nanos == 0 or not micro):
            return None
        if not micro:
            return format_rfc3339(seconds)
        seconds += nanos // 1_000_000_000
        return format_rfc3339(seconds, (nanos % 1_000_000_000) // 1000)

    return decode


class EmbeddedObjects:
    """How a RawExtension's embedded protobuf object is written and read. app/schema/objects.py installs its
    codec when it loads (app/schema/__init__.py loads it first); it imports this module through the protobuf
    codec, so importing it from here would be a circle."""

    encode: Callable[[dict], bytes]
    decode: Callable[[bytes], Any]


EMBEDDED = EmbeddedObjects()


def _raw_encoder(envelope: bool) -> Callable[[Any, str], WireValue]:
    def encode(value: Any, path: str) -> WireValue:
        if value is None:
            return b""
        if envelope:
            if not isinstance(value, dict):
                raise _fail(path, "an object", value)
            # the default naming's registry; objects.encode_watch_event builds watch frames for any naming
            return encode_len_field(1, EMBEDDED.encode(value))
        return encode_len_field(1, json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())

    return encode


def _decode_raw(payload: WireValue, path: str) -> Any:
    raw = _message_fields(payload, path, {1: LEN}).get(1)
    if raw is None:
        return None
    assert isinstance(raw, bytes)
    if raw.startswith(MAGIC):
        return EMBEDDED.decode(raw)
    try:
        return json.loads(raw) if raw else None
    except ValueError as exc:
        raise ProtobufError(f"{path}: embedded raw value is neither protobuf nor JSON: {exc}") from None


def _encode_fields_v1(value: Any, path: str) -> WireValue:
    if value is not None and not isinstance(value, dict):
        raise _fail(path, "an object", value)
    return _raw_encoder(False)(value, path)


CODECS: dict[t.Scalar, ScalarCodec] = {
    t.STRING: ScalarCodec(LEN, _encode_string, _decode_string, ""),
    t.INT32: ScalarCodec(VARINT, _int_encoder(32), lambda v, p: to_signed(int(v), 32), 0),
    t.INT64: ScalarCodec(VARINT, _int_encoder(64), lambda v, p: to_signed(int(v), 64), 0),
    t.BOOL: ScalarCodec(VARINT, _encode_bool, lambda v, p: v != 0, False),
    t.DOUBLE: ScalarCodec(FIXED64, _encode_double, _decode_double, 0.0),
    t.BYTES: ScalarCodec(LEN, _encode_bytes, _decode_bytes, ""),
    t.QUANTITY: ScalarCodec(LEN, _encode_quantity, _decode_quantity, "0", struct_like=True),
    # Go writes a zero IntOrString as 0; we treat it like a zero scalar so omitempty drops it.
    t.INT_OR_STRING: ScalarCodec(LEN, _encode_int_or_string, _decode_int_or_string, 0),
    t.TIME: ScalarCodec(LEN, _time_encoder(False), _time_decoder(False), None, struct_like=True),
    t.MICRO_TIME: ScalarCodec(LEN, _time_encoder(True), _time_decoder(True), None, struct_like=True),
    t.FIELDS_V1: ScalarCodec(LEN, _encode_fields_v1, _decode_raw, None, struct_like=True),
    t.RAW_EXTENSION: ScalarCodec(LEN, _raw_encoder(False), _decode_raw, None, struct_like=True),
    t.OBJECT: ScalarCodec(LEN, _raw_encoder(True), _decode_raw, None, struct_like=True),
}
assert set(CODECS) == set(t.SCALARS), "every DSL scalar needs a codec"


def json_kind(value: Any) -> str:
    """A decoded JSON value's kind in the schema validator's words: boolean, integer, number, string, array, object
    or null (bool tested before int: Python's True is an int). Go's spellings of the same kinds map from these."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"
