"""The declaration DSL: one typed schema per API type, as plain data.

A `Struct` is an ordered tuple of `Field`s; each field carries its JSON name, its protobuf field
number, its value type and the reference's markers (required, list/map/struct merge metadata).
Nothing here knows about a wire format, so the same declarations can later drive OpenAPI, strict
field validation, strategic merge patch and apply.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Literal, Union


@dataclass(frozen=True)
class Scalar:
    """A leaf value; `name` selects the codec (see `app.schema.scalars`)."""

    name: str

    def __repr__(self) -> str:
        return self.name.upper().replace("-", "_")


STRING = Scalar("string")
INT32 = Scalar("int32")
INT64 = Scalar("int64")
BOOL = Scalar("bool")
DOUBLE = Scalar("double")
BYTES = Scalar("bytes")  # JSON: standard base64 string
QUANTITY = Scalar("quantity")  # resource.Quantity; proto {1: string}; JSON: string
INT_OR_STRING = Scalar("int-or-string")  # intstr.IntOrString; proto {1: type, 2: intVal, 3: strVal}
TIME = Scalar("time")  # metav1.Time; proto {1: seconds, 2: nanos}; JSON RFC3339 seconds
MICRO_TIME = Scalar("micro-time")  # metav1.MicroTime; JSON RFC3339 with microseconds
FIELDS_V1 = Scalar("fields-v1")  # metav1.FieldsV1; proto {1: raw JSON}; JSON: the embedded object
RAW_EXTENSION = Scalar("raw-extension")  # runtime.RawExtension; proto {1: raw}; JSON: embedded value
OBJECT = Scalar("object")  # a whole API object inside RawExtension, encoded with the envelope

SCALARS: tuple[Scalar, ...] = (
    STRING,
    INT32,
    INT64,
    BOOL,
    DOUBLE,
    BYTES,
    QUANTITY,
    INT_OR_STRING,
    TIME,
    MICRO_TIME,
    FIELDS_V1,
    RAW_EXTENSION,
    OBJECT,
)


@dataclass(frozen=True)
class ListOf:
    """A JSON array; protobuf `repeated`.

    `wrapped` marks a Go named slice type (e.g. certificates' `ExtraValue []string`): its JSON is still
    a plain array, but on the wire it is one message `{1: repeated item}`, so it can be a map value.
    """

    item: TypeSpec
    wrapped: bool = False


@dataclass(frozen=True)
class MapOf:
    """A JSON object with string keys; protobuf map (repeated entry {1: key, 2: value})."""

    value: TypeSpec


TypeSpec = Union[Scalar, "Struct", ListOf, MapOf]
ListType = Literal["atomic", "set", "map"]


@dataclass(frozen=True)
class Field:
    name: str  # JSON name; for an inline field, the protobuf name (it has no JSON key of its own)
    number: int
    type: TypeSpec
    nullable: bool = False  # Go pointer (or []byte): on the wire and in JSON only when set
    omitempty: bool = True  # Go json tag `omitempty`: a zero scalar is left out of JSON
    omitzero: bool = False  # Go json tag `omitzero`: a zero struct is left out of JSON
    inline: bool = False  # a struct whose JSON fields are embedded in the parent's JSON object
    required: bool = False
    list_type: ListType | None = None
    list_map_keys: tuple[str, ...] = ()
    map_type: Literal["atomic", "granular"] | None = None
    patch_strategy: str | None = None  # e.g. "merge", "retainKeys", "merge,retainKeys"
    patch_merge_key: str | None = None

    @property
    def repeated(self) -> bool:
        """A protobuf `repeated` field (a wrapped list is a single message field)."""
        return isinstance(self.type, ListOf) and not self.type.wrapped


class Struct:
    """An API type: JSON object <-> protobuf message. `kind=True` types also carry apiVersion/kind."""

    def __init__(
        self,
        package: str,
        name: str,
        fields: Iterable[Field],
        *,
        kind: bool = False,
        struct_type: Literal["atomic", "granular"] | None = None,
    ) -> None:
        self.package = package  # e.g. "core/v1", "meta/v1"
        self.name = name  # the reference's Go/protobuf type name, e.g. "PodSpec"
        self.fields: tuple[Field, ...] = tuple(fields)  # declaration order = the reference's JSON order
        self.wire_fields: tuple[Field, ...] = tuple(sorted(self.fields, key=lambda f: f.number))
        self.kind = kind
        self.struct_type = struct_type
        numbers = [f.number for f in self.fields]
        if len(set(numbers)) != len(numbers):
            raise ValueError(f"{self.qualname}: duplicate field number")

    def __repr__(self) -> str:
        return f"Struct({self.qualname})"

    @property
    def qualname(self) -> str:
        return f"{self.package}.{self.name}"

    @cached_property
    def by_number(self) -> dict[int, Field]:
        return {f.number: f for f in self.fields}

    @cached_property
    def json_fields(self) -> dict[str, tuple[Field, ...]]:
        """Every JSON key this type accepts -> the field path reaching it (inline fields flattened)."""
        out: dict[str, tuple[Field, ...]] = {}
        for f in self.fields:
            if f.inline:
                assert isinstance(f.type, Struct), f"{self.qualname}.{f.name}: inline needs a struct"
                for key, path in f.type.json_fields.items():
                    out[key] = (f, *path)
            else:
                out[f.name] = (f,)
        return out

    def field(self, json_name: str) -> Field | None:
        """The field behind a JSON key (the innermost one for inline-embedded keys)."""
        path = self.json_fields.get(json_name)
        return path[-1] if path else None

    def walk(self) -> Iterator[Struct]:
        """This struct and every struct it reaches, each once."""
        seen: set[int] = set()
        stack: list[Struct] = [self]
        while stack:
            s = stack.pop()
            if id(s) in seen:
                continue
            seen.add(id(s))
            yield s
            for f in s.fields:
                t = f.type
                while isinstance(t, (ListOf, MapOf)):
                    t = t.item if isinstance(t, ListOf) else t.value
                if isinstance(t, Struct):
                    stack.append(t)
