"""certificates/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import meta
from .types import BYTES, INT32, STRING, TIME, Field, ListOf, MapOf, Struct

_PKG = "certificates/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "certificates"
GROUP_IN_DOMAIN = True
VERSION = "v1"


CertificateSigningRequestSpec = Struct(
    _PKG,
    "CertificateSigningRequestSpec",
    [
        Field("request", 1, BYTES, nullable=True, omitempty=False, required=True),
        Field("signerName", 7, STRING, omitempty=False, required=True),
        Field("expirationSeconds", 8, INT32, nullable=True),
        Field("usages", 5, ListOf(STRING), list_type="atomic"),
        Field("username", 2, STRING),
        Field("uid", 3, STRING),
        Field("groups", 4, ListOf(STRING), list_type="atomic"),
        Field("extra", 6, MapOf(ListOf(STRING, wrapped=True))),
    ],
)

CertificateSigningRequestCondition = Struct(
    _PKG,
    "CertificateSigningRequestCondition",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("status", 6, STRING, omitempty=False, required=True),
        Field("reason", 2, STRING),
        Field("message", 3, STRING),
        Field("lastUpdateTime", 4, TIME),
        Field("lastTransitionTime", 5, TIME),
    ],
)

CertificateSigningRequestStatus = Struct(
    _PKG,
    "CertificateSigningRequestStatus",
    [
        Field("conditions", 1, ListOf(CertificateSigningRequestCondition), list_type="map", list_map_keys=("type",)),
        Field("certificate", 2, BYTES, nullable=True),
    ],
)

CertificateSigningRequest = Struct(
    _PKG,
    "CertificateSigningRequest",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, CertificateSigningRequestSpec, omitempty=False, required=True),
        Field("status", 3, CertificateSigningRequestStatus),
    ],
    kind=True,
)

CertificateSigningRequestList = Struct(
    _PKG,
    "CertificateSigningRequestList",
    [
        Field("metadata", 1, meta.ListMeta),
        Field("items", 2, ListOf(CertificateSigningRequest), omitempty=False, required=True),
    ],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {
    "CertificateSigningRequest": CertificateSigningRequest,
    "CertificateSigningRequestList": CertificateSigningRequestList,
}
