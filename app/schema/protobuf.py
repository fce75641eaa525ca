"""Schema-driven protobuf codec: a declared `Struct` <-> the JSON dict the reference would produce.

Encoding follows Go's generated (gogo) marshallers byte for byte: fields in number order, non-pointer
fields always written (zero values included), pointer fields only when set, map entries sorted by key.
Decoding yields what Go's encoding/json would print for the decoded struct: pointer fields only when
present, zero scalars dropped where the json tag says `omitempty`, non-pointer structs always present
(`{}`), except that empty lists/maps are left out instead of being written as `null`.
A wrapped list (`ListOf(..., wrapped=True)`, a Go named slice such as ExtraValue) is one message
`{1: repeated item}` on the wire and a plain array in JSON.
"""

from __future__ import annotations

from typing import Any

from .scalars import CODECS
from .types import BYTES, ListOf, MapOf, Scalar, Struct, TypeSpec
from .wire import (
    FIXED64,
    LEN,
    VARINT,
    WIRE_TYPE_NAMES,
    ProtobufError,
    encode_len_field,
    encode_tag,
    encode_varint,
    iter_fields,
    iter_packed_varints,
)

_TYPE_META_KEYS = ("apiVersion", "kind")


def encode(struct: Struct, obj: dict[str, Any]) -> bytes:
    """The protobuf encoding of `obj` (a JSON object of type `struct`); unknown JSON fields raise."""
    return _encode_struct(struct, obj, "", check=True)


def decode(struct: Struct, raw: bytes) -> dict[str, Any]:
    """The JSON object for protobuf bytes of type `struct`; unknown field numbers raise."""
    return _decode_struct(struct, bytes(raw), struct.name)


# --- encoding ---------------------------------------------------------------------------------


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _check_keys(struct: Struct, obj: dict[str, Any], path: str) -> None:
    for key in obj:
        if key not in struct.json_fields and not (struct.kind and key in _TYPE_META_KEYS):
            raise ProtobufError(f'unknown field "{_join(path, key)}" for {struct.qualname}')


def _encode_struct(struct: Struct, obj: Any, path: str, *, check: bool) -> bytes:
    if not isinstance(obj, dict):
        raise ProtobufError(f"{path or struct.name}: expected an object for {struct.qualname}")
    if check:
        _check_keys(struct, obj, path)
    out = bytearray()
    for f in struct.wire_fields:
        if f.inline:  # the embedded struct's JSON keys live in this very object
            assert isinstance(f.type, Struct)
            out += encode_len_field(f.number, _encode_struct(f.type, obj, path, check=False))
            continue
        fpath = _join(path, f.name)
        value = obj.get(f.name)
        if f.repeated:
            assert isinstance(f.type, ListOf)
            if value is None:
                continue
            if not isinstance(value, list):
                raise ProtobufError(f"{fpath}: expected a list")
            for i, item in enumerate(value):
                out += _encode_value(f.number, f.type.item, item, f"{fpath}[{i}]")
        elif isinstance(f.type, MapOf):
            if value is None:
                continue
            if not isinstance(value, dict):
                raise ProtobufError(f"{fpath}: expected an object")
            for key in sorted(value):  # Go sorts map keys (bytewise == code point order)
                entry = _encode_entry(f.type.value, key, value[key], f"{fpath}[{key}]")
                out += encode_len_field(f.number, entry)
        else:
            if value is None:
                if f.nullable:
                    continue
                value = _zero_json(f.type, fpath)
            out += _encode_value(f.number, f.type, value, fpath)
    return bytes(out)


def _encode_value(number: int, spec: TypeSpec, value: Any, path: str) -> bytes:
    if isinstance(spec, Struct):
        return encode_len_field(number, _encode_struct(spec, value, path, check=True))
    if isinstance(spec, ListOf) and spec.wrapped:  # one message {1: repeated item}
        if not isinstance(value, list):
            raise ProtobufError(f"{path}: expected a list")
        items = b"".join(_encode_value(1, spec.item, item, f"{path}[{i}]") for i, item in enumerate(value))
        return encode_len_field(number, items)
    if not isinstance(spec, Scalar):
        raise ProtobufError(f"{path}: nested lists and maps have no protobuf form")
    codec = CODECS[spec]
    wire = codec.encode(value, path)
    if codec.wire_type == VARINT:
        assert isinstance(wire, int)
        return encode_tag(number, VARINT) + encode_varint(wire)
    assert isinstance(wire, bytes)
    if codec.wire_type == LEN:
        return encode_len_field(number, wire)
    return encode_tag(number, codec.wire_type) + wire


def _encode_entry(spec: TypeSpec, key: Any, value: Any, path: str) -> bytes:
    if not isinstance(key, str):
        raise ProtobufError(f"{path}: map keys must be strings")
    out = encode_len_field(1, key.encode())
    if value is None:
        if spec == BYTES:
            return out  # Go leaves out a nil []byte value
        value = _zero_json(spec, path)
    return out + _encode_value(2, spec, value, path)


# --- decoding ---------------------------------------------------------------------------------


def _decode_struct(struct: Struct, data: bytes, path: str) -> dict[str, Any]:
    present: dict[int, Any] = {}
    for number, wire_type, value in iter_fields(data):
        f = struct.by_number.get(number)
        if f is None:
            raise ProtobufError(f"{path}: unknown field number {number} for {struct.qualname}")
        fpath = f"{path}.{f.name}"
        if f.repeated:
            assert isinstance(f.type, ListOf)
            items = present.setdefault(number, [])
            items.extend(_decode_repeated(f.type.item, wire_type, value, fpath, len(items)))
        elif isinstance(f.type, MapOf):
            key, entry = _decode_entry(f.type.value, wire_type, value, fpath)
            present.setdefault(number, {})[key] = entry
        else:
            present[number] = _decode_value(f.type, wire_type, value, fpath)  # last one wins
    out: dict[str, Any] = {}
    for f in struct.fields:
        if f.inline:
            assert isinstance(f.type, Struct)
            out.update(present.get(f.number) or _decode_struct(f.type, b"", path))
        elif isinstance(f.type, (ListOf, MapOf)):  # empty ones are left out (not written as null)
            if present.get(f.number):
                out[f.name] = present[f.number]
        elif f.number in present and f.nullable:
            out[f.name] = present[f.number]
        elif not f.nullable:
            value = present[f.number] if f.number in present else _zero_json(f.type, f"{path}.{f.name}")
            if _written(f.type, value, omitempty=f.omitempty, omitzero=f.omitzero):
                out[f.name] = value
    return out


def _zero_json(spec: TypeSpec, path: str) -> Any:
    """Go's zero value as JSON (what an absent non-pointer field decodes to)."""
    if isinstance(spec, Struct):
        return _decode_struct(spec, b"", path)
    if isinstance(spec, Scalar):
        return CODECS[spec].zero
    return [] if isinstance(spec, ListOf) else {}


def _written(spec: TypeSpec, value: Any, *, omitempty: bool, omitzero: bool) -> bool:
    """Whether Go's encoding/json writes a non-pointer field holding `value`."""
    if isinstance(spec, Struct):
        return not (omitzero and value == _zero_json(spec, ""))
    assert isinstance(spec, Scalar)
    codec = CODECS[spec]
    is_zero = value == codec.zero and type(value) is type(codec.zero)
    return not is_zero or not (omitzero if codec.struct_like else omitempty)


def _wire_check(spec: Struct | Scalar, wire_type: int, path: str) -> None:
    expected = LEN if isinstance(spec, Struct) else CODECS[spec].wire_type
    if wire_type != expected:
        raise ProtobufError(
            f"{path}: got wire type {WIRE_TYPE_NAMES.get(wire_type, wire_type)}, expected {WIRE_TYPE_NAMES[expected]}"
        )


def _decode_value(spec: TypeSpec, wire_type: int, value: int | bytes, path: str) -> Any:
    if isinstance(spec, ListOf) and spec.wrapped:
        if wire_type != LEN:
            raise ProtobufError(
                f"{path}: got wire type {WIRE_TYPE_NAMES.get(wire_type, wire_type)}, expected {WIRE_TYPE_NAMES[LEN]}"
            )
        assert isinstance(value, bytes)
        items: list[Any] = []
        for number, item_wire, item in iter_fields(value):
            if number != 1:
                raise ProtobufError(f"{path}: unexpected field {number} in a list message")
            items.extend(_decode_repeated(spec.item, item_wire, item, path, len(items)))
        return items
    if isinstance(spec, (ListOf, MapOf)):
        raise ProtobufError(f"{path}: nested lists and maps have no protobuf form")
    _wire_check(spec, wire_type, path)
    if isinstance(spec, Struct):
        assert isinstance(value, bytes)
        return _decode_struct(spec, value, path)
    return CODECS[spec].decode(value, path)


def _decode_repeated(spec: TypeSpec, wire_type: int, value: int | bytes, path: str, start: int) -> list[Any]:
    packable = isinstance(spec, Scalar) and CODECS[spec].wire_type in (VARINT, FIXED64)
    if packable and wire_type == LEN:  # a packed run of numbers (proto3 style; Go's proto2 never writes it)
        assert isinstance(value, bytes) and isinstance(spec, Scalar)
        codec = CODECS[spec]
        if codec.wire_type == VARINT:
            return [codec.decode(v, f"{path}[{start + i}]") for i, v in enumerate(iter_packed_varints(value))]
        if len(value) % 8:
            raise ProtobufError(f"{path}: packed fixed64 run of {len(value)} bytes")
        return [codec.decode(value[i : i + 8], path) for i in range(0, len(value), 8)]
    return [_decode_value(spec, wire_type, value, f"{path}[{start}]")]


def _decode_entry(spec: TypeSpec, wire_type: int, value: int | bytes, path: str) -> tuple[str, Any]:
    if wire_type != LEN:
        raise ProtobufError(f"{path}: map entry with wire type {WIRE_TYPE_NAMES.get(wire_type, wire_type)}")
    assert isinstance(value, bytes)
    key: str = ""
    entry: Any = None
    entry_wire = LEN
    has_value = False
    for number, entry_wire_type, item in iter_fields(value):
        if number == 1 and entry_wire_type == LEN:
            assert isinstance(item, bytes)
            key = item.decode("utf-8", "replace")
        elif number == 2:
            entry, has_value = item, True
            entry_wire = entry_wire_type
        else:
            raise ProtobufError(f"{path}: unexpected field {number} in a map entry")
    epath = f"{path}[{key}]"
    if not has_value:
        return key, _zero_json(spec, epath)
    return key, _decode_value(spec, entry_wire, entry, epath)
