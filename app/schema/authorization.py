"""authorization/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import meta
from .types import BOOL, STRING, Field, ListOf, MapOf, Struct

_PKG = "authorization/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "authorization"
GROUP_IN_DOMAIN = True
VERSION = "v1"


FieldSelectorAttributes = Struct(
    _PKG,
    "FieldSelectorAttributes",
    [
        Field("rawSelector", 1, STRING),
        Field("requirements", 2, ListOf(meta.FieldSelectorRequirement), list_type="atomic"),
    ],
)

LabelSelectorAttributes = Struct(
    _PKG,
    "LabelSelectorAttributes",
    [
        Field("rawSelector", 1, STRING),
        Field("requirements", 2, ListOf(meta.LabelSelectorRequirement), list_type="atomic"),
    ],
)

ResourceAttributes = Struct(
    _PKG,
    "ResourceAttributes",
    [
        Field("namespace", 1, STRING),
        Field("verb", 2, STRING),
        Field("group", 3, STRING),
        Field("version", 4, STRING),
        Field("resource", 5, STRING),
        Field("subresource", 6, STRING),
        Field("name", 7, STRING),
        Field("fieldSelector", 8, FieldSelectorAttributes, nullable=True),
        Field("labelSelector", 9, LabelSelectorAttributes, nullable=True),
    ],
)

NonResourceAttributes = Struct(_PKG, "NonResourceAttributes", [Field("path", 1, STRING), Field("verb", 2, STRING)])

SubjectAccessReviewSpec = Struct(
    _PKG,
    "SubjectAccessReviewSpec",
    [
        Field("resourceAttributes", 1, ResourceAttributes, nullable=True),
        Field("nonResourceAttributes", 2, NonResourceAttributes, nullable=True),
        Field("user", 3, STRING),
        Field("groups", 4, ListOf(STRING), list_type="atomic"),
        Field("extra", 5, MapOf(ListOf(STRING, wrapped=True))),
        Field("uid", 6, STRING),
    ],
)

SubjectAccessReviewStatus = Struct(
    _PKG,
    "SubjectAccessReviewStatus",
    [
        Field("allowed", 1, BOOL, omitempty=False, required=True),
        Field("denied", 4, BOOL),
        Field("reason", 2, STRING),
        Field("evaluationError", 3, STRING),
    ],
)

SubjectAccessReview = Struct(
    _PKG,
    "SubjectAccessReview",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, SubjectAccessReviewSpec, omitempty=False, required=True),
        Field("status", 3, SubjectAccessReviewStatus),
    ],
    kind=True,
)

SelfSubjectAccessReviewSpec = Struct(
    _PKG,
    "SelfSubjectAccessReviewSpec",
    [
        Field("resourceAttributes", 1, ResourceAttributes, nullable=True),
        Field("nonResourceAttributes", 2, NonResourceAttributes, nullable=True),
    ],
)

SelfSubjectAccessReview = Struct(
    _PKG,
    "SelfSubjectAccessReview",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, SelfSubjectAccessReviewSpec, omitempty=False, required=True),
        Field("status", 3, SubjectAccessReviewStatus),
    ],
    kind=True,
)

LocalSubjectAccessReview = Struct(
    _PKG,
    "LocalSubjectAccessReview",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, SubjectAccessReviewSpec, omitempty=False, required=True),
        Field("status", 3, SubjectAccessReviewStatus),
    ],
    kind=True,
)

SelfSubjectRulesReviewSpec = Struct(_PKG, "SelfSubjectRulesReviewSpec", [Field("namespace", 1, STRING)])

ResourceRule = Struct(
    _PKG,
    "ResourceRule",
    [
        Field("verbs", 1, ListOf(STRING), omitempty=False, required=True, list_type="atomic"),
        Field("apiGroups", 2, ListOf(STRING), list_type="atomic"),
        Field("resources", 3, ListOf(STRING), list_type="atomic"),
        Field("resourceNames", 4, ListOf(STRING), list_type="atomic"),
    ],
)

NonResourceRule = Struct(
    _PKG,
    "NonResourceRule",
    [
        Field("verbs", 1, ListOf(STRING), omitempty=False, required=True, list_type="atomic"),
        Field("nonResourceURLs", 2, ListOf(STRING), list_type="atomic"),
    ],
)

SubjectRulesReviewStatus = Struct(
    _PKG,
    "SubjectRulesReviewStatus",
    [
        Field("resourceRules", 1, ListOf(ResourceRule), omitempty=False, required=True, list_type="atomic"),
        Field("nonResourceRules", 2, ListOf(NonResourceRule), omitempty=False, required=True, list_type="atomic"),
        Field("incomplete", 3, BOOL, omitempty=False, required=True),
        Field("evaluationError", 4, STRING),
    ],
)

SelfSubjectRulesReview = Struct(
    _PKG,
    "SelfSubjectRulesReview",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, SelfSubjectRulesReviewSpec, omitempty=False, required=True),
        Field("status", 3, SubjectRulesReviewStatus),
    ],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {
    "SubjectAccessReview": SubjectAccessReview,
    "SelfSubjectAccessReview": SelfSubjectAccessReview,
    "LocalSubjectAccessReview": LocalSubjectAccessReview,
    "SelfSubjectRulesReview": SelfSubjectRulesReview,
}
