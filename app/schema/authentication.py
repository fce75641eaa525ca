"""authentication/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import meta
from .types import BOOL, INT64, STRING, TIME, Field, ListOf, MapOf, Struct

_PKG = "authentication/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "authentication"
GROUP_IN_DOMAIN = True
VERSION = "v1"


TokenReviewSpec = Struct(
    _PKG,
    "TokenReviewSpec",
    [Field("token", 1, STRING, required=True), Field("audiences", 2, ListOf(STRING), list_type="atomic")],
)

UserInfo = Struct(
    _PKG,
    "UserInfo",
    [
        Field("username", 1, STRING),
        Field("uid", 2, STRING),
        Field("groups", 3, ListOf(STRING), list_type="atomic"),
        Field("extra", 4, MapOf(ListOf(STRING, wrapped=True))),
    ],
)

TokenReviewStatus = Struct(
    _PKG,
    "TokenReviewStatus",
    [
        Field("authenticated", 1, BOOL),
        Field("user", 2, UserInfo),
        Field("audiences", 4, ListOf(STRING), list_type="atomic"),
        Field("error", 3, STRING),
    ],
)

TokenReview = Struct(
    _PKG,
    "TokenReview",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, TokenReviewSpec, omitempty=False, required=True),
        Field("status", 3, TokenReviewStatus),
    ],
    kind=True,
)

SelfSubjectReviewStatus = Struct(_PKG, "SelfSubjectReviewStatus", [Field("userInfo", 1, UserInfo)])

SelfSubjectReview = Struct(
    _PKG,
    "SelfSubjectReview",
    [Field("metadata", 1, meta.ObjectMeta), Field("status", 2, SelfSubjectReviewStatus)],
    kind=True,
)

BoundObjectReference = Struct(
    _PKG,
    "BoundObjectReference",
    [Field("kind", 1, STRING), Field("apiVersion", 2, STRING), Field("name", 3, STRING), Field("uid", 4, STRING)],
)

TokenRequestSpec = Struct(
    _PKG,
    "TokenRequestSpec",
    [
        Field("audiences", 1, ListOf(STRING), omitempty=False, list_type="atomic"),
        Field("expirationSeconds", 4, INT64, nullable=True, omitempty=False),
        Field("boundObjectRef", 3, BoundObjectReference, nullable=True, omitempty=False),
    ],
)

TokenRequestStatus = Struct(
    _PKG,
    "TokenRequestStatus",
    [Field("token", 1, STRING, omitempty=False), Field("expirationTimestamp", 2, TIME, omitempty=False)],
)

TokenRequest = Struct(
    _PKG,
    "TokenRequest",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, TokenRequestSpec, omitempty=False),
        Field("status", 3, TokenRequestStatus),
    ],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {
    "TokenReview": TokenReview,
    "SelfSubjectReview": SelfSubjectReview,
    "TokenRequest": TokenRequest,
}
