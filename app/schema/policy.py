"""policy/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import meta
from .types import INT32, INT64, INT_OR_STRING, STRING, TIME, Field, ListOf, MapOf, Struct

_PKG = "policy/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "policy"
GROUP_IN_DOMAIN = False
VERSION = "v1"


PodDisruptionBudgetSpec = Struct(
    _PKG,
    "PodDisruptionBudgetSpec",
    [
        Field("minAvailable", 1, INT_OR_STRING, nullable=True),
        Field("selector", 2, meta.LabelSelector, nullable=True, patch_strategy="replace"),
        Field("maxUnavailable", 3, INT_OR_STRING, nullable=True),
        Field("unhealthyPodEvictionPolicy", 4, STRING, nullable=True),
    ],
)

PodDisruptionBudgetStatus = Struct(
    _PKG,
    "PodDisruptionBudgetStatus",
    [
        Field("observedGeneration", 1, INT64),
        Field("disruptedPods", 2, MapOf(TIME)),
        Field("disruptionsAllowed", 3, INT32, omitempty=False),
        Field("currentHealthy", 4, INT32, omitempty=False),
        Field("desiredHealthy", 5, INT32, omitempty=False),
        Field("expectedPods", 6, INT32, omitempty=False),
        Field(
            "conditions",
            7,
            ListOf(meta.Condition),
            list_type="map",
            list_map_keys=("type",),
            patch_strategy="merge",
            patch_merge_key="type",
        ),
    ],
)

PodDisruptionBudget = Struct(
    _PKG,
    "PodDisruptionBudget",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, PodDisruptionBudgetSpec),
        Field("status", 3, PodDisruptionBudgetStatus),
    ],
    kind=True,
)

PodDisruptionBudgetList = Struct(
    _PKG,
    "PodDisruptionBudgetList",
    [
        Field("metadata", 1, meta.ListMeta),
        Field("items", 2, ListOf(PodDisruptionBudget), omitempty=False, required=True),
    ],
    kind=True,
)

Eviction = Struct(
    _PKG,
    "Eviction",
    [Field("metadata", 1, meta.ObjectMeta), Field("deleteOptions", 2, meta.DeleteOptions, nullable=True)],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {
    "PodDisruptionBudget": PodDisruptionBudget,
    "PodDisruptionBudgetList": PodDisruptionBudgetList,
    "Eviction": Eviction,
}
