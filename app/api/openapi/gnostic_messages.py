"""gnostic's OpenAPIv2.proto as a table: for each message, its fields' numbers, kinds and JSON keys (the names
gnostic's `openapiv2.NewDocument` reads). The oneof wrappers and `Any` are encoded by hand in `gnostic`."""

from __future__ import annotations

import re
from typing import Any

STRING, BOOL, DOUBLE, INT, STRINGS, MSG, MSGS, EXT, MAP = range(9)

# (number, kind, arg): arg is the JSON key for scalars, (key, message) for MSG/MSGS, (value message, key pattern)
# for MAP (the message's own keys become Named pairs), None for EXT (the message's `x-` keys).
Field = tuple[int, int, Any]

_ALL = None
_PATH = re.compile(r"^/")
_CODE = re.compile(r"^([0-9]{3})$|^(default)$")


def _primitive(*fields: Field, ext: int) -> tuple[Field, ...]:
    """The validation keywords shared by PrimitivesItems, Header and the non-body parameter schemas."""
    return (*fields, (ext, EXT, None))


def _validations(first: int) -> tuple[Field, ...]:
    """maximum .. multipleOf, numbered from `first` (they are consecutive in each message that has them)."""
    names = (
        (DOUBLE, "maximum"),
        (BOOL, "exclusiveMaximum"),
        (DOUBLE, "minimum"),
        (BOOL, "exclusiveMinimum"),
        (INT, "maxLength"),
        (INT, "minLength"),
        (STRING, "pattern"),
        (INT, "maxItems"),
        (INT, "minItems"),
        (BOOL, "uniqueItems"),
        (MSGS, ("enum", "Any")),
        (DOUBLE, "multipleOf"),
    )
    return tuple((first + i, kind, arg) for i, (kind, arg) in enumerate(names))


def _sub_schema(allow_empty: bool) -> tuple[Field, ...]:
    """The four non-body parameter schemas; query and formData have allowEmptyValue (5), shifting the rest by one."""
    head: tuple[Field, ...] = (
        (1, BOOL, "required"),
        (2, STRING, "in"),
        (3, STRING, "description"),
        (4, STRING, "name"),
    )
    n = 5
    if allow_empty:
        head += ((5, BOOL, "allowEmptyValue"),)
        n = 6
    head += (
        (n, STRING, "type"),
        (n + 1, STRING, "format"),
        (n + 2, MSG, ("items", "PrimitivesItems")),
        (n + 3, STRING, "collectionFormat"),
        (n + 4, MSG, ("default", "Any")),
    )
    return _primitive(*head, *_validations(n + 5), ext=n + 17)


_OAUTH_SCOPES: Field = (3, MSG, ("scopes", "Oauth2Scopes"))

MESSAGES: dict[str, tuple[Field, ...]] = {
    "Document": (
        (1, STRING, "swagger"),
        (2, MSG, ("info", "Info")),
        (3, STRING, "host"),
        (4, STRING, "basePath"),
        (5, STRINGS, "schemes"),
        (6, STRINGS, "consumes"),
        (7, STRINGS, "produces"),
        (8, MSG, ("paths", "Paths")),
        (9, MSG, ("definitions", "Definitions")),
        (10, MSG, ("parameters", "ParameterDefinitions")),
        (11, MSG, ("responses", "ResponseDefinitions")),
        (12, MSGS, ("security", "SecurityRequirement")),
        (13, MSG, ("securityDefinitions", "SecurityDefinitions")),
        (14, MSGS, ("tags", "Tag")),
        (15, MSG, ("externalDocs", "ExternalDocs")),
        (16, EXT, None),
    ),
    "Info": (
        (1, STRING, "title"),
        (2, STRING, "version"),
        (3, STRING, "description"),
        (4, STRING, "termsOfService"),
        (5, MSG, ("contact", "Contact")),
        (6, MSG, ("license", "License")),
        (7, EXT, None),
    ),
    "Contact": ((1, STRING, "name"), (2, STRING, "url"), (3, STRING, "email"), (4, EXT, None)),
    "License": ((1, STRING, "name"), (2, STRING, "url"), (3, EXT, None)),
    "ExternalDocs": ((1, STRING, "description"), (2, STRING, "url"), (3, EXT, None)),
    "Tag": (
        (1, STRING, "name"),
        (2, STRING, "description"),
        (3, MSG, ("externalDocs", "ExternalDocs")),
        (4, EXT, None),
    ),
    "Xml": (
        (1, STRING, "name"),
        (2, STRING, "namespace"),
        (3, STRING, "prefix"),
        (4, BOOL, "attribute"),
        (5, BOOL, "wrapped"),
        (6, EXT, None),
    ),
    "Paths": ((1, EXT, None), (2, MAP, ("PathItem", _PATH))),
    "PathItem": (
        (1, STRING, "$ref"),
        (2, MSG, ("get", "Operation")),
        (3, MSG, ("put", "Operation")),
        (4, MSG, ("post", "Operation")),
        (5, MSG, ("delete", "Operation")),
        (6, MSG, ("options", "Operation")),
        (7, MSG, ("head", "Operation")),
        (8, MSG, ("patch", "Operation")),
        (9, MSGS, ("parameters", "ParametersItem")),
        (10, EXT, None),
    ),
    "Operation": (
        (1, STRINGS, "tags"),
        (2, STRING, "summary"),
        (3, STRING, "description"),
        (4, MSG, ("externalDocs", "ExternalDocs")),
        (5, STRING, "operationId"),
        (6, STRINGS, "produces"),
        (7, STRINGS, "consumes"),
        (8, MSGS, ("parameters", "ParametersItem")),
        (9, MSG, ("responses", "Responses")),
        (10, STRINGS, "schemes"),
        (11, BOOL, "deprecated"),
        (12, MSGS, ("security", "SecurityRequirement")),
        (13, EXT, None),
    ),
    "Responses": ((1, MAP, ("ResponseValue", _CODE)), (2, EXT, None)),
    "Response": (
        (1, STRING, "description"),
        (2, MSG, ("schema", "SchemaItem")),
        (3, MSG, ("headers", "Headers")),
        (4, MSG, ("examples", "Examples")),
        (5, EXT, None),
    ),
    "JsonReference": ((1, STRING, "$ref"), (2, STRING, "description")),
    "BodyParameter": (
        (1, STRING, "description"),
        (2, STRING, "name"),
        (3, STRING, "in"),
        (4, BOOL, "required"),
        (5, MSG, ("schema", "Schema")),
        (6, EXT, None),
    ),
    "HeaderParameterSubSchema": _sub_schema(allow_empty=False),
    "FormDataParameterSubSchema": _sub_schema(allow_empty=True),
    "QueryParameterSubSchema": _sub_schema(allow_empty=True),
    "PathParameterSubSchema": _sub_schema(allow_empty=False),
    "PrimitivesItems": _primitive(
        (1, STRING, "type"),
        (2, STRING, "format"),
        (3, MSG, ("items", "PrimitivesItems")),
        (4, STRING, "collectionFormat"),
        (5, MSG, ("default", "Any")),
        *_validations(6),
        ext=18,
    ),
    "Header": _primitive(
        (1, STRING, "type"),
        (2, STRING, "format"),
        (3, MSG, ("items", "PrimitivesItems")),
        (4, STRING, "collectionFormat"),
        (5, MSG, ("default", "Any")),
        *_validations(6),
        (18, STRING, "description"),
        ext=19,
    ),
    "Schema": (
        (1, STRING, "$ref"),
        (2, STRING, "format"),
        (3, STRING, "title"),
        (4, STRING, "description"),
        (5, MSG, ("default", "Any")),
        (6, DOUBLE, "multipleOf"),
        (7, DOUBLE, "maximum"),
        (8, BOOL, "exclusiveMaximum"),
        (9, DOUBLE, "minimum"),
        (10, BOOL, "exclusiveMinimum"),
        (11, INT, "maxLength"),
        (12, INT, "minLength"),
        (13, STRING, "pattern"),
        (14, INT, "maxItems"),
        (15, INT, "minItems"),
        (16, BOOL, "uniqueItems"),
        (17, INT, "maxProperties"),
        (18, INT, "minProperties"),
        (19, STRINGS, "required"),
        (20, MSGS, ("enum", "Any")),
        (21, MSG, ("additionalProperties", "AdditionalPropertiesItem")),
        (22, MSG, ("type", "TypeItem")),
        (23, MSG, ("items", "ItemsItem")),
        (24, MSGS, ("allOf", "Schema")),
        (25, MSG, ("properties", "Properties")),
        (26, STRING, "discriminator"),
        (27, BOOL, "readOnly"),
        (28, MSG, ("xml", "Xml")),
        (29, MSG, ("externalDocs", "ExternalDocs")),
        (30, MSG, ("example", "Any")),
        (31, EXT, None),
    ),
    "FileSchema": (
        (1, STRING, "format"),
        (2, STRING, "title"),
        (3, STRING, "description"),
        (4, MSG, ("default", "Any")),
        (5, STRINGS, "required"),
        (6, STRING, "type"),
        (7, BOOL, "readOnly"),
        (8, MSG, ("externalDocs", "ExternalDocs")),
        (9, MSG, ("example", "Any")),
        (10, EXT, None),
    ),
    "ApiKeySecurity": (
        (1, STRING, "type"),
        (2, STRING, "name"),
        (3, STRING, "in"),
        (4, STRING, "description"),
        (5, EXT, None),
    ),
    "BasicAuthenticationSecurity": ((1, STRING, "type"), (2, STRING, "description"), (3, EXT, None)),
    "Oauth2ImplicitSecurity": (
        (1, STRING, "type"),
        (2, STRING, "flow"),
        _OAUTH_SCOPES,
        (4, STRING, "authorizationUrl"),
        (5, STRING, "description"),
        (6, EXT, None),
    ),
    "Oauth2PasswordSecurity": (
        (1, STRING, "type"),
        (2, STRING, "flow"),
        _OAUTH_SCOPES,
        (4, STRING, "tokenUrl"),
        (5, STRING, "description"),
        (6, EXT, None),
    ),
    "Oauth2ApplicationSecurity": (
        (1, STRING, "type"),
        (2, STRING, "flow"),
        _OAUTH_SCOPES,
        (4, STRING, "tokenUrl"),
        (5, STRING, "description"),
        (6, EXT, None),
    ),
    "Oauth2AccessCodeSecurity": (
        (1, STRING, "type"),
        (2, STRING, "flow"),
        _OAUTH_SCOPES,
        (4, STRING, "authorizationUrl"),
        (5, STRING, "tokenUrl"),
        (6, STRING, "description"),
        (7, EXT, None),
    ),
    # maps: every key of the value is one Named pair
    "Definitions": ((1, MAP, ("Schema", _ALL)),),
    "Properties": ((1, MAP, ("Schema", _ALL)),),
    "ParameterDefinitions": ((1, MAP, ("Parameter", _ALL)),),
    "ResponseDefinitions": ((1, MAP, ("Response", _ALL)),),
    "SecurityDefinitions": ((1, MAP, ("SecurityDefinitionsItem", _ALL)),),
    "SecurityRequirement": ((1, MAP, ("StringArray", _ALL)),),
    "Headers": ((1, MAP, ("Header", _ALL)),),
    "Examples": ((1, MAP, ("Any", _ALL)),),
    "Default": ((1, MAP, ("Any", _ALL)),),
    "Oauth2Scopes": ((1, MAP, ("string", _ALL)),),
}
