"""A Swagger 2.0 document (parsed JSON) as the protobuf of gnostic's `openapi.v2.Document` (OpenAPIv2.proto),
mapped as gnostic's `openapiv2.NewDocument` maps JSON: `x-` keys become `NamedAny`s whose `Any.yaml` holds the
value's YAML text, maps become repeated `Named*` pairs in document order, and the oneof wrappers (ParametersItem,
Parameter, SchemaItem, ...) pick their branch from the value. Keys the proto has no field for are skipped."""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import orjson
import yaml

from ...schema.wire import FIXED64, encode_len_field, encode_tag, encode_varint_field
from .gnostic_messages import BOOL, EXT, INT, MAP, MESSAGES, MSG, MSGS, STRING, STRINGS


def encode_document(doc: dict[str, Any]) -> bytes:
    """The serialized `openapi.v2.Document` of a Swagger 2.0 document."""
    return _Encoder().message("Document", doc)


class _Encoder:
    """One document's encoding; remembers the YAML of repeated extension values (GVKs, actions, list types)."""

    def __init__(self) -> None:
        self._yaml: dict[tuple[type, str], bytes] = {}
        self._special: dict[str, Callable[[Any], bytes]] = {
            "Any": self._any,
            "ParametersItem": self._parameters_item,
            "Parameter": self._parameter,
            "NonBodyParameter": self._non_body_parameter,
            "SchemaItem": self._schema_item,
            "ResponseValue": self._response_value,
            "AdditionalPropertiesItem": self._additional_properties,
            "SecurityDefinitionsItem": self._security_definitions_item,
            "TypeItem": _strings_message,
            "StringArray": _strings_message,
            "ItemsItem": self._items_item,
        }

    def message(self, name: str, value: Any) -> bytes:
        special = self._special.get(name)
        if special is not None:
            return special(value)
        if not isinstance(value, dict):
            return b""
        out = bytearray()
        for number, kind, arg in MESSAGES[name]:
            if kind == EXT:
                for key, item in value.items():
                    if key.startswith("x-"):
                        out += encode_len_field(number, self._named(key, "Any", item))
            elif kind == MAP:
                item_type, pattern = arg
                for key, item in value.items():
                    if pattern is None or pattern.match(key):
                        out += encode_len_field(number, self._named(key, item_type, item))
            elif kind in (MSG, MSGS):
                key, sub = arg
                item = value.get(key)
                items = [item] if kind == MSG else item if isinstance(item, list) else []
                for one in items:
                    if one is not None:
                        out += encode_len_field(number, self.message(sub, one))
            else:
                out += _scalar(number, kind, value.get(arg))
        return bytes(out)

    def _named(self, name: str, item_type: str, value: Any) -> bytes:
        head = _scalar(1, STRING, name)
        if item_type == "string":
            return head + _scalar(2, STRING, value)
        return head + encode_len_field(2, self.message(item_type, value))

    def _any(self, value: Any) -> bytes:
        """gnostic's Any: field 2 holds the value as YAML text (what kubectl's VendorExtensionToMap reads back)."""
        key = (type(value), repr(value) if not isinstance(value, (dict, list)) else _stable(value))
        found = self._yaml.get(key)
        if found is None:
            found = self._yaml[key] = encode_len_field(2, _yaml_text(value).encode())
        return found

    def _parameters_item(self, value: Any) -> bytes:
        if isinstance(value, dict) and "$ref" in value:
            return encode_len_field(2, self.message("JsonReference", value))
        return encode_len_field(1, self.message("Parameter", value))

    def _parameter(self, value: Any) -> bytes:
        if isinstance(value, dict) and value.get("in") == "body":
            return encode_len_field(1, self.message("BodyParameter", value))
        return encode_len_field(2, self.message("NonBodyParameter", value))

    def _non_body_parameter(self, value: Any) -> bytes:
        branches = {"header": 1, "formData": 2, "query": 3, "path": 4}
        where = value.get("in") if isinstance(value, dict) else None
        if where not in branches:
            return b""  # gnostic rejects such a parameter; an empty wrapper keeps the rest of the document
        sub = ("HeaderParameterSubSchema", "FormDataParameterSubSchema", "QueryParameterSubSchema")
        name = (*sub, "PathParameterSubSchema")[branches[where] - 1]
        return encode_len_field(branches[where], self.message(name, value))

    def _schema_item(self, value: Any) -> bytes:
        if isinstance(value, dict) and value.get("type") == "file":
            return encode_len_field(2, self.message("FileSchema", value))
        return encode_len_field(1, self.message("Schema", value))

    def _response_value(self, value: Any) -> bytes:
        if isinstance(value, dict) and "$ref" in value:
            return encode_len_field(2, self.message("JsonReference", value))
        return encode_len_field(1, self.message("Response", value))

    def _additional_properties(self, value: Any) -> bytes:
        if isinstance(value, bool):
            return encode_varint_field(2, int(value))  # a oneof member is written even when false
        return encode_len_field(1, self.message("Schema", value))

    def _security_definitions_item(self, value: Any) -> bytes:
        if not isinstance(value, dict):
            return b""
        kind, flow = value.get("type"), value.get("flow")
        if kind == "basic":
            return encode_len_field(1, self.message("BasicAuthenticationSecurity", value))
        if kind == "apiKey":
            return encode_len_field(2, self.message("ApiKeySecurity", value))
        flows = {"implicit": 3, "password": 4, "application": 5, "accessCode": 6}
        if kind != "oauth2" or flow not in flows:
            return b""
        name = ("Implicit", "Password", "Application", "AccessCode")[flows[flow] - 3]
        return encode_len_field(flows[flow], self.message(f"Oauth2{name}Security", value))

    def _items_item(self, value: Any) -> bytes:
        schemas = value if isinstance(value, list) else [value]
        return b"".join(encode_len_field(1, self.message("Schema", s)) for s in schemas if isinstance(s, dict))


def _scalar(number: int, kind: int, value: Any) -> bytes:
    """A proto3 scalar field; zero values are left out, as proto3 does."""
    if kind == STRING:
        return encode_len_field(number, value.encode()) if isinstance(value, str) and value else b""
    if kind == BOOL:
        return encode_varint_field(number, 1) if value is True else b""
    if kind == STRINGS:
        items = value if isinstance(value, list) else []
        return b"".join(encode_len_field(number, s.encode()) for s in items if isinstance(s, str))
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value == 0:
        return b""
    if kind == INT:
        return encode_varint_field(number, value) if isinstance(value, int) else b""
    return encode_tag(number, FIXED64) + struct.pack("<d", float(value))


def _strings_message(value: Any) -> bytes:
    """TypeItem and StringArray: field 1, one string or a list of them."""
    return _scalar(1, STRINGS, [value] if isinstance(value, str) else value)


def _stable(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _yaml_text(value: Any) -> str:
    text = yaml.dump(
        value, Dumper=_Dumper, default_flow_style=False, sort_keys=False, allow_unicode=True, width=1 << 20
    )
    return text[: -len("...\n")] if text.endswith("\n...\n") else text  # a lone scalar needs no document end
