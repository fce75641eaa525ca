"""rbac/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import meta
from .types import STRING, Field, ListOf, Struct

_PKG = "rbac/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "rbac.authorization"
GROUP_IN_DOMAIN = True
VERSION = "v1"


PolicyRule = Struct(
    _PKG,
    "PolicyRule",
    [
        Field("verbs", 1, ListOf(STRING), omitempty=False, required=True, list_type="atomic"),
        Field("apiGroups", 2, ListOf(STRING), list_type="atomic"),
        Field("resources", 3, ListOf(STRING), list_type="atomic"),
        Field("resourceNames", 4, ListOf(STRING), list_type="atomic"),
        Field("nonResourceURLs", 5, ListOf(STRING), list_type="atomic"),
    ],
)

Role = Struct(
    _PKG,
    "Role",
    [Field("metadata", 1, meta.ObjectMeta), Field("rules", 2, ListOf(PolicyRule), omitempty=False, list_type="atomic")],
    kind=True,
)

RoleList = Struct(
    _PKG,
    "RoleList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(Role), omitempty=False, required=True)],
    kind=True,
)

Subject = Struct(
    _PKG,
    "Subject",
    [
        Field("kind", 1, STRING, omitempty=False, required=True),
        Field("apiGroup", 2, STRING),
        Field("name", 3, STRING, omitempty=False, required=True),
        Field("namespace", 4, STRING),
    ],
    struct_type="atomic",
)

RoleRef = Struct(
    _PKG,
    "RoleRef",
    [
        Field("apiGroup", 1, STRING, omitempty=False),
        Field("kind", 2, STRING, omitempty=False, required=True),
        Field("name", 3, STRING, omitempty=False, required=True),
    ],
    struct_type="atomic",
)

RoleBinding = Struct(
    _PKG,
    "RoleBinding",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("subjects", 2, ListOf(Subject), list_type="atomic"),
        Field("roleRef", 3, RoleRef, omitempty=False, required=True),
    ],
    kind=True,
)

RoleBindingList = Struct(
    _PKG,
    "RoleBindingList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(RoleBinding), omitempty=False, required=True)],
    kind=True,
)

AggregationRule = Struct(
    _PKG, "AggregationRule", [Field("clusterRoleSelectors", 1, ListOf(meta.LabelSelector), list_type="atomic")]
)

ClusterRole = Struct(
    _PKG,
    "ClusterRole",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("rules", 2, ListOf(PolicyRule), omitempty=False, list_type="atomic"),
        Field("aggregationRule", 3, AggregationRule, nullable=True),
    ],
    kind=True,
)

ClusterRoleList = Struct(
    _PKG,
    "ClusterRoleList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(ClusterRole), omitempty=False, required=True)],
    kind=True,
)

ClusterRoleBinding = Struct(
    _PKG,
    "ClusterRoleBinding",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("subjects", 2, ListOf(Subject), list_type="atomic"),
        Field("roleRef", 3, RoleRef, omitempty=False, required=True),
    ],
    kind=True,
)

ClusterRoleBindingList = Struct(
    _PKG,
    "ClusterRoleBindingList",
    [
        Field("metadata", 1, meta.ListMeta),
        Field("items", 2, ListOf(ClusterRoleBinding), omitempty=False, required=True),
    ],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {
    "Role": Role,
    "RoleList": RoleList,
    "RoleBinding": RoleBinding,
    "RoleBindingList": RoleBindingList,
    "ClusterRole": ClusterRole,
    "ClusterRoleList": ClusterRoleList,
    "ClusterRoleBinding": ClusterRoleBinding,
    "ClusterRoleBindingList": ClusterRoleBindingList,
}
