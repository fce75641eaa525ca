"""flowcontrol/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import meta
from .types import BOOL, INT32, STRING, TIME, Field, ListOf, Struct

_PKG = "flowcontrol/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "flowcontrol.apiserver"
GROUP_IN_DOMAIN = True
VERSION = "v1"


PriorityLevelConfigurationReference = Struct(
    _PKG, "PriorityLevelConfigurationReference", [Field("name", 1, STRING, omitempty=False, required=True)]
)

FlowDistinguisherMethod = Struct(
    _PKG, "FlowDistinguisherMethod", [Field("type", 1, STRING, omitempty=False, required=True)]
)

UserSubject = Struct(_PKG, "UserSubject", [Field("name", 1, STRING, omitempty=False, required=True)])

GroupSubject = Struct(_PKG, "GroupSubject", [Field("name", 1, STRING, omitempty=False, required=True)])

ServiceAccountSubject = Struct(
    _PKG,
    "ServiceAccountSubject",
    [
        Field("namespace", 1, STRING, omitempty=False, required=True),
        Field("name", 2, STRING, omitempty=False, required=True),
    ],
)

Subject = Struct(
    _PKG,
    "Subject",
    [
        Field("kind", 1, STRING, omitempty=False, required=True),
        Field("user", 2, UserSubject, nullable=True),
        Field("group", 3, GroupSubject, nullable=True),
        Field("serviceAccount", 4, ServiceAccountSubject, nullable=True),
    ],
)

ResourcePolicyRule = Struct(
    _PKG,
    "ResourcePolicyRule",
    [
        Field("verbs", 1, ListOf(STRING), omitempty=False, required=True, list_type="set"),
        Field("apiGroups", 2, ListOf(STRING), omitempty=False, required=True, list_type="set"),
        Field("resources", 3, ListOf(STRING), omitempty=False, required=True, list_type="set"),
        Field("clusterScope", 4, BOOL),
        Field("namespaces", 5, ListOf(STRING), omitempty=False, list_type="set"),
    ],
)

NonResourcePolicyRule = Struct(
    _PKG,
    "NonResourcePolicyRule",
    [
        Field("verbs", 1, ListOf(STRING), omitempty=False, required=True, list_type="set"),
        Field("nonResourceURLs", 6, ListOf(STRING), omitempty=False, required=True, list_type="set"),
    ],
)

PolicyRulesWithSubjects = Struct(
    _PKG,
    "PolicyRulesWithSubjects",
    [
        Field("subjects", 1, ListOf(Subject), omitempty=False, required=True, list_type="atomic"),
        Field("resourceRules", 2, ListOf(ResourcePolicyRule), list_type="atomic"),
        Field("nonResourceRules", 3, ListOf(NonResourcePolicyRule), list_type="atomic"),
    ],
)

FlowSchemaSpec = Struct(
    _PKG,
    "FlowSchemaSpec",
    [
        Field("priorityLevelConfiguration", 1, PriorityLevelConfigurationReference, omitempty=False, required=True),
        Field("matchingPrecedence", 2, INT32, omitempty=False),
        Field("distinguisherMethod", 3, FlowDistinguisherMethod, nullable=True),
        Field("rules", 4, ListOf(PolicyRulesWithSubjects), list_type="atomic"),
    ],
)

FlowSchemaCondition = Struct(
    _PKG,
    "FlowSchemaCondition",
    [
        Field("type", 1, STRING),
        Field("status", 2, STRING),
        Field("lastTransitionTime", 3, TIME),
        Field("reason", 4, STRING),
        Field("message", 5, STRING),
    ],
)

FlowSchemaStatus = Struct(
    _PKG,
    "FlowSchemaStatus",
    [
        Field(
            "conditions",
            1,
            ListOf(FlowSchemaCondition),
            list_type="map",
            list_map_keys=("type",),
            patch_strategy="merge",
            patch_merge_key="type",
        )
    ],
)

FlowSchema = Struct(
    _PKG,
    "FlowSchema",
    [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, FlowSchemaSpec), Field("status", 3, FlowSchemaStatus)],
    kind=True,
)

FlowSchemaList = Struct(
    _PKG,
    "FlowSchemaList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(FlowSchema), omitempty=False, required=True)],
    kind=True,
)

QueuingConfiguration = Struct(
    _PKG,
    "QueuingConfiguration",
    [
        Field("queues", 1, INT32, omitempty=False),
        Field("handSize", 2, INT32, omitempty=False),
        Field("queueLengthLimit", 3, INT32, omitempty=False),
    ],
)

LimitResponse = Struct(
    _PKG,
    "LimitResponse",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("queuing", 2, QueuingConfiguration, nullable=True),
    ],
)

LimitedPriorityLevelConfiguration = Struct(
    _PKG,
    "LimitedPriorityLevelConfiguration",
    [
        Field("nominalConcurrencyShares", 1, INT32, nullable=True, omitempty=False),
        Field("limitResponse", 2, LimitResponse),
        Field("lendablePercent", 3, INT32, nullable=True),
        Field("borrowingLimitPercent", 4, INT32, nullable=True),
    ],
)

ExemptPriorityLevelConfiguration = Struct(
    _PKG,
    "ExemptPriorityLevelConfiguration",
    [Field("nominalConcurrencyShares", 1, INT32, nullable=True), Field("lendablePercent", 2, INT32, nullable=True)],
)

PriorityLevelConfigurationSpec = Struct(
    _PKG,
    "PriorityLevelConfigurationSpec",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("limited", 2, LimitedPriorityLevelConfiguration, nullable=True),
        Field("exempt", 3, ExemptPriorityLevelConfiguration, nullable=True),
    ],
)

PriorityLevelConfigurationCondition = Struct(
    _PKG,
    "PriorityLevelConfigurationCondition",
    [
        Field("type", 1, STRING),
        Field("status", 2, STRING),
        Field("lastTransitionTime", 3, TIME),
        Field("reason", 4, STRING),
        Field("message", 5, STRING),
    ],
)

PriorityLevelConfigurationStatus = Struct(
    _PKG,
    "PriorityLevelConfigurationStatus",
    [
        Field(
            "conditions",
            1,
            ListOf(PriorityLevelConfigurationCondition),
            list_type="map",
            list_map_keys=("type",),
            patch_strategy="merge",
            patch_merge_key="type",
        )
    ],
)

PriorityLevelConfiguration = Struct(
    _PKG,
    "PriorityLevelConfiguration",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, PriorityLevelConfigurationSpec),
        Field("status", 3, PriorityLevelConfigurationStatus),
    ],
    kind=True,
)

PriorityLevelConfigurationList = Struct(
    _PKG,
    "PriorityLevelConfigurationList",
    [
        Field("metadata", 1, meta.ListMeta),
        Field("items", 2, ListOf(PriorityLevelConfiguration), omitempty=False, required=True),
    ],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {
    "FlowSchema": FlowSchema,
    "FlowSchemaList": FlowSchemaList,
    "PriorityLevelConfiguration": PriorityLevelConfiguration,
    "PriorityLevelConfigurationList": PriorityLevelConfigurationList,
}
