"""apiregistration/v1 declarations: field names and numbers as the reference's v0.23.0 generated.proto of
k8s.io/kube-aggregator (pkg/apis/apiregistration/v1), written by hand (codegen reads k8s.io/api only)."""

from __future__ import annotations

from . import meta
from .types import BOOL, BYTES, INT32, STRING, TIME, Field, ListOf, Struct

_PKG = "apiregistration/v1"
GROUP = "apiregistration"
GROUP_IN_DOMAIN = True
VERSION = "v1"


ServiceReference = Struct(
    _PKG,
    "ServiceReference",
    [Field("namespace", 1, STRING), Field("name", 2, STRING), Field("port", 3, INT32, nullable=True)],
)

APIServiceSpec = Struct(
    _PKG,
    "APIServiceSpec",
    [
        Field("service", 1, ServiceReference, nullable=True),
        Field("group", 2, STRING),
        Field("version", 3, STRING),
        Field("insecureSkipTLSVerify", 4, BOOL),
        Field("caBundle", 5, BYTES),
        Field("groupPriorityMinimum", 7, INT32, omitempty=False, required=True),
        Field("versionPriority", 8, INT32, omitempty=False, required=True),
    ],
)

APIServiceCondition = Struct(
    _PKG,
    "APIServiceCondition",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("status", 2, STRING, omitempty=False, required=True),
        Field("lastTransitionTime", 3, TIME),
        Field("reason", 4, STRING),
        Field("message", 5, STRING),
    ],
)

APIServiceStatus = Struct(
    _PKG,
    "APIServiceStatus",
    [Field("conditions", 1, ListOf(APIServiceCondition), list_type="map", list_map_keys=("type",))],
)

APIService = Struct(
    _PKG,
    "APIService",
    [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, APIServiceSpec), Field("status", 3, APIServiceStatus)],
    kind=True,
)

APIServiceList = Struct(
    _PKG,
    "APIServiceList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(APIService), omitempty=False, required=True)],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {"APIService": APIService, "APIServiceList": APIServiceList}
