"""apiextensions/v1 declarations: field names and numbers as the reference's v0.23.0 generated.proto of
k8s.io/apiextensions-apiserver (pkg/apis/apiextensions/v1), written by hand (codegen reads k8s.io/api only).

`openAPIV3Schema` (JSONSchemaProps, a recursive message) is declared as an embedded JSON value, so these
kinds are served as JSON and YAML only: PROTOBUF is False and the server answers protobuf requests for them
as for custom resources (406 unless JSON is acceptable too)."""

from __future__ import annotations

from . import meta
from .types import BOOL, BYTES, INT32, RAW_EXTENSION, STRING, TIME, Field, ListOf, Struct

_PKG = "apiextensions/v1"
GROUP = "apiextensions"
GROUP_IN_DOMAIN = True
VERSION = "v1"
#: JSONSchemaProps is not declared field by field: no protobuf encoding for this group
PROTOBUF = False


CustomResourceColumnDefinition = Struct(
    _PKG,
    "CustomResourceColumnDefinition",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("type", 2, STRING, omitempty=False, required=True),
        Field("format", 3, STRING),
        Field("description", 4, STRING),
        Field("priority", 5, INT32),
        Field("jsonPath", 6, STRING, omitempty=False, required=True),
    ],
)

ServiceReference = Struct(
    _PKG,
    "ServiceReference",
    [
        Field("namespace", 1, STRING, omitempty=False, required=True),
        Field("name", 2, STRING, omitempty=False, required=True),
        Field("path", 3, STRING, nullable=True),
        Field("port", 4, INT32, nullable=True),
    ],
)

WebhookClientConfig = Struct(
    _PKG,
    "WebhookClientConfig",
    [
        Field("url", 3, STRING, nullable=True),
        Field("service", 1, ServiceReference, nullable=True),
        Field("caBundle", 2, BYTES),
    ],
)

WebhookConversion = Struct(
    _PKG,
    "WebhookConversion",
    [
        Field("clientConfig", 2, WebhookClientConfig, nullable=True),
        Field("conversionReviewVersions", 3, ListOf(STRING), omitempty=False, required=True, list_type="atomic"),
    ],
)

CustomResourceConversion = Struct(
    _PKG,
    "CustomResourceConversion",
    [
        Field("strategy", 1, STRING, omitempty=False, required=True),
        Field("webhook", 2, WebhookConversion, nullable=True),
    ],
)

CustomResourceDefinitionNames = Struct(
    _PKG,
    "CustomResourceDefinitionNames",
    [
        Field("plural", 1, STRING, omitempty=False, required=True),
        Field("singular", 2, STRING),
        Field("shortNames", 3, ListOf(STRING), list_type="atomic"),
        Field("kind", 4, STRING, omitempty=False, required=True),
        Field("listKind", 5, STRING),
        Field("categories", 6, ListOf(STRING), list_type="atomic"),
    ],
)

CustomResourceValidation = Struct(
    _PKG, "CustomResourceValidation", [Field("openAPIV3Schema", 1, RAW_EXTENSION, nullable=True)]
)

CustomResourceSubresourceStatus = Struct(_PKG, "CustomResourceSubresourceStatus", [])

CustomResourceSubresourceScale = Struct(
    _PKG,
    "CustomResourceSubresourceScale",
    [
        Field("specReplicasPath", 1, STRING, omitempty=False, required=True),
        Field("statusReplicasPath", 2, STRING, omitempty=False, required=True),
        Field("labelSelectorPath", 3, STRING, nullable=True),
    ],
)

CustomResourceSubresources = Struct(
    _PKG,
    "CustomResourceSubresources",
    [
        Field("status", 1, CustomResourceSubresourceStatus, nullable=True),
        Field("scale", 2, CustomResourceSubresourceScale, nullable=True),
    ],
)

CustomResourceDefinitionVersion = Struct(
    _PKG,
    "CustomResourceDefinitionVersion",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("served", 2, BOOL, omitempty=False, required=True),
        Field("storage", 3, BOOL, omitempty=False, required=True),
        Field("deprecated", 7, BOOL),
        Field("deprecationWarning", 8, STRING, nullable=True),
        Field("schema", 4, CustomResourceValidation, nullable=True),
        Field("subresources", 5, CustomResourceSubresources, nullable=True),
        Field("additionalPrinterColumns", 6, ListOf(CustomResourceColumnDefinition), list_type="atomic"),
    ],
)

CustomResourceDefinitionSpec = Struct(
    _PKG,
    "CustomResourceDefinitionSpec",
    [
        Field("group", 1, STRING, omitempty=False, required=True),
        Field("names", 3, CustomResourceDefinitionNames, omitempty=False, required=True),
        Field("scope", 4, STRING, omitempty=False, required=True),
        Field(
            "versions", 7, ListOf(CustomResourceDefinitionVersion), omitempty=False, required=True, list_type="atomic"
        ),
        Field("conversion", 9, CustomResourceConversion, nullable=True),
        Field("preserveUnknownFields", 10, BOOL),
    ],
)

CustomResourceDefinitionCondition = Struct(
    _PKG,
    "CustomResourceDefinitionCondition",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("status", 2, STRING, omitempty=False, required=True),
        Field("lastTransitionTime", 3, TIME),
        Field("reason", 4, STRING),
        Field("message", 5, STRING),
    ],
)

CustomResourceDefinitionStatus = Struct(
    _PKG,
    "CustomResourceDefinitionStatus",
    [
        Field("conditions", 1, ListOf(CustomResourceDefinitionCondition), list_type="map", list_map_keys=("type",)),
        Field("acceptedNames", 2, CustomResourceDefinitionNames, omitempty=False),
        Field("storedVersions", 3, ListOf(STRING), omitempty=False, list_type="atomic"),
    ],
)

CustomResourceDefinition = Struct(
    _PKG,
    "CustomResourceDefinition",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, CustomResourceDefinitionSpec, omitempty=False, required=True),
        Field("status", 3, CustomResourceDefinitionStatus),
    ],
    kind=True,
)

CustomResourceDefinitionList = Struct(
    _PKG,
    "CustomResourceDefinitionList",
    [
        Field("metadata", 1, meta.ListMeta),
        Field("items", 2, ListOf(CustomResourceDefinition), omitempty=False, required=True),
    ],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {
    "CustomResourceDefinition": CustomResourceDefinition,
    "CustomResourceDefinitionList": CustomResourceDefinitionList,
}
