"""Protobuf wire primitives: varints, tags, length-delimited and fixed-width fields (no schema)."""

from __future__ import annotations

from collections.abc import Iterator

VARINT = 0
FIXED64 = 1
LEN = 2
FIXED32 = 5
WIRE_TYPE_NAMES = {VARINT: "varint", FIXED64: "fixed64", LEN: "length-delimited", FIXED32: "fixed32"}

_U64 = 1 << 64


class ProtobufError(ValueError):
    """A body that is not valid for the declared schema (or an object the schema cannot encode)."""


def encode_varint(value: int) -> bytes:
    """Base-128 varint; negative numbers as 64-bit two's complement (10 bytes), as Go does for int32 too."""
    if value < 0:
        value += _U64
    if not 0 <= value < _U64:
        raise ProtobufError(f"integer {value} does not fit in 64 bits")
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def encode_tag(number: int, wire_type: int) -> bytes:
    return encode_varint((number << 3) | wire_type)


def encode_len_field(number: int, payload: bytes) -> bytes:
    return encode_tag(number, LEN) + encode_varint(len(payload)) + payload


def encode_varint_field(number: int, value: int) -> bytes:
    return encode_tag(number, VARINT) + encode_varint(value)


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """(value as unsigned 64-bit, next position)."""
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ProtobufError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            break
        shift += 7
        if shift >= 64:
            raise ProtobufError("varint longer than 10 bytes")
    if result >= _U64:
        raise ProtobufError("varint overflows 64 bits")
    return result, pos


def to_signed(value: int, bits: int) -> int:
    """Reinterpret an unsigned varint as Go's intN (int32 fields truncate, like a Go conversion)."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def iter_fields(data: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """(field number, wire type, value): an int for varints, the raw bytes for the other wire types."""
    pos, end = 0, len(data)
    while pos < end:
        key, pos = read_varint(data, pos)
        number, wire_type = key >> 3, key & 7
        if number == 0:
            raise ProtobufError("illegal field number 0")
        if wire_type == VARINT:
            value, pos = read_varint(data, pos)
            yield number, wire_type, value
            continue
        if wire_type == LEN:
            size, pos = read_varint(data, pos)
        elif wire_type == FIXED64:
            size = 8
        elif wire_type == FIXED32:
            size = 4
        else:  # 3/4 are the deprecated groups, 6/7 do not exist
            raise ProtobufError(f"unsupported wire type {wire_type} for field {number}")
        if pos + size > end:
            raise ProtobufError(f"field {number} runs past the end of its message")
        yield number, wire_type, data[pos : pos + size]
        pos += size


def iter_packed_varints(data: bytes) -> Iterator[int]:
    pos = 0
    while pos < len(data):
        value, pos = read_varint(data, pos)
        yield value
