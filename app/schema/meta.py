"""meta/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from .types import BOOL, FIELDS_V1, INT32, INT64, OBJECT, STRING, TIME, Field, ListOf, MapOf, Struct

_PKG = "meta/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = ""
GROUP_IN_DOMAIN = False
VERSION = "v1"


ShardInfo = Struct(_PKG, "ShardInfo", [Field("selector", 1, STRING, omitempty=False, required=True)])

ListMeta = Struct(
    _PKG,
    "ListMeta",
    [
        Field("selfLink", 1, STRING),
        Field("resourceVersion", 2, STRING),
        Field("continue", 3, STRING),
        Field("remainingItemCount", 4, INT64, nullable=True),
        Field("shardInfo", 5, ShardInfo, nullable=True),
    ],
)

StatusCause = Struct(
    _PKG, "StatusCause", [Field("reason", 1, STRING), Field("message", 2, STRING), Field("field", 3, STRING)]
)

StatusDetails = Struct(
    _PKG,
    "StatusDetails",
    [
        Field("name", 1, STRING),
        Field("group", 2, STRING),
        Field("kind", 3, STRING),
        Field("uid", 6, STRING),
        Field("causes", 4, ListOf(StatusCause), list_type="atomic"),
        Field("retryAfterSeconds", 5, INT32),
    ],
)

Status = Struct(
    _PKG,
    "Status",
    [
        Field("metadata", 1, ListMeta),
        Field("status", 2, STRING),
        Field("message", 3, STRING),
        Field("reason", 4, STRING),
        Field("details", 5, StatusDetails, nullable=True),
        Field("code", 6, INT32),
    ],
    kind=True,
)

Preconditions = Struct(
    _PKG, "Preconditions", [Field("uid", 1, STRING, nullable=True), Field("resourceVersion", 2, STRING, nullable=True)]
)

DeleteOptions = Struct(
    _PKG,
    "DeleteOptions",
    [
        Field("gracePeriodSeconds", 1, INT64, nullable=True),
        Field("preconditions", 2, Preconditions, nullable=True),
        Field("orphanDependents", 3, BOOL, nullable=True),
        Field("propagationPolicy", 4, STRING, nullable=True),
        Field("dryRun", 5, ListOf(STRING), list_type="atomic"),
        Field("ignoreStoreReadErrorWithClusterBreakingPotential", 6, BOOL, nullable=True),
    ],
    kind=True,
)

WatchEvent = Struct(
    _PKG,
    "WatchEvent",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("object", 2, OBJECT, omitempty=False, required=True),
    ],
)

OwnerReference = Struct(
    _PKG,
    "OwnerReference",
    [
        Field("apiVersion", 5, STRING, omitempty=False, required=True),
        Field("kind", 1, STRING, omitempty=False, required=True),
        Field("name", 3, STRING, omitempty=False, required=True),
        Field("uid", 4, STRING, omitempty=False, required=True),
        Field("controller", 6, BOOL, nullable=True),
        Field("blockOwnerDeletion", 7, BOOL, nullable=True),
    ],
    struct_type="atomic",
)

ManagedFieldsEntry = Struct(
    _PKG,
    "ManagedFieldsEntry",
    [
        Field("manager", 1, STRING),
        Field("operation", 2, STRING),
        Field("apiVersion", 3, STRING),
        Field("time", 4, TIME, nullable=True),
        Field("fieldsType", 6, STRING),
        Field("fieldsV1", 7, FIELDS_V1, nullable=True),
        Field("subresource", 8, STRING),
    ],
)

ObjectMeta = Struct(
    _PKG,
    "ObjectMeta",
    [
        Field("name", 1, STRING),
        Field("generateName", 2, STRING),
        Field("namespace", 3, STRING),
        Field("selfLink", 4, STRING),
        Field("uid", 5, STRING),
        Field("resourceVersion", 6, STRING),
        Field("generation", 7, INT64),
        Field("creationTimestamp", 8, TIME, omitzero=True),
        Field("deletionTimestamp", 9, TIME, nullable=True),
        Field("deletionGracePeriodSeconds", 10, INT64, nullable=True),
        Field("labels", 11, MapOf(STRING)),
        Field("annotations", 12, MapOf(STRING)),
        Field(
            "ownerReferences",
            13,
            ListOf(OwnerReference),
            list_type="map",
            list_map_keys=("uid",),
            patch_strategy="merge",
            patch_merge_key="uid",
        ),
        Field("finalizers", 14, ListOf(STRING), list_type="set", patch_strategy="merge"),
        Field("managedFields", 17, ListOf(ManagedFieldsEntry), list_type="atomic"),
    ],
)

Condition = Struct(
    _PKG,
    "Condition",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("status", 2, STRING, omitempty=False, required=True),
        Field("observedGeneration", 3, INT64),
        Field("lastTransitionTime", 4, TIME, omitempty=False, required=True),
        Field("reason", 5, STRING, omitempty=False, required=True),
        Field("message", 6, STRING, omitempty=False, required=True),
    ],
)

LabelSelectorRequirement = Struct(
    _PKG,
    "LabelSelectorRequirement",
    [
        Field("key", 1, STRING, omitempty=False, required=True),
        Field("operator", 2, STRING, omitempty=False, required=True),
        Field("values", 3, ListOf(STRING), list_type="atomic"),
    ],
)

LabelSelector = Struct(
    _PKG,
    "LabelSelector",
    [
        Field("matchLabels", 1, MapOf(STRING)),
        Field("matchExpressions", 2, ListOf(LabelSelectorRequirement), list_type="atomic"),
    ],
    struct_type="atomic",
)

FieldSelectorRequirement = Struct(
    _PKG,
    "FieldSelectorRequirement",
    [
        Field("key", 1, STRING, omitempty=False, required=True),
        Field("operator", 2, STRING, omitempty=False, required=True),
        Field("values", 3, ListOf(STRING), list_type="atomic"),
    ],
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {"Status": Status, "DeleteOptions": DeleteOptions}
