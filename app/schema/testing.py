"""testing/v1alpha1 declarations: the Fault kind (issue 58), ours alone (no reference type): field numbers are
assigned here, in declaration order, and never reused."""

from __future__ import annotations

from . import meta
from .types import BOOL, DOUBLE, INT32, INT64, STRING, Field, ListOf, Struct

_PKG = "testing/v1alpha1"
GROUP = "testing"
GROUP_IN_DOMAIN = True
VERSION = "v1alpha1"

_STRINGS = ListOf(STRING)

FaultMatch = Struct(
    _PKG,
    "FaultMatch",
    [
        Field("verbs", 1, _STRINGS),
        Field("resources", 2, _STRINGS),
        Field("subresources", 3, _STRINGS),
        Field("namespaces", 4, _STRINGS),
        Field("names", 5, _STRINGS),
        Field("users", 6, _STRINGS),
        Field("groups", 7, _STRINGS),
        Field("userAgents", 8, _STRINGS),
        Field("fieldManagers", 9, _STRINGS),
    ],
)

FaultError = Struct(
    _PKG,
    "FaultError",
    [
        Field("code", 1, INT32),
        Field("reason", 2, STRING),
        Field("message", 3, STRING),
        Field("retryAfterSeconds", 4, INT32),
    ],
)

FaultAfterWrite = Struct(_PKG, "FaultAfterWrite", [Field("error", 1, FaultError, nullable=True)])

FaultWatch = Struct(
    _PKG,
    "FaultWatch",
    [Field("expireAfterEvents", 1, INT32, nullable=True), Field("closeAfterEvents", 2, INT32, nullable=True)],
)

FaultAction = Struct(
    _PKG,
    "FaultAction",
    [
        Field("error", 1, FaultError, nullable=True),
        Field("delay", 2, STRING),
        Field("afterWrite", 3, FaultAfterWrite, nullable=True),
        Field("watch", 4, FaultWatch, nullable=True),
        Field("conflictOnce", 5, BOOL),
    ],
)

FaultSpec = Struct(
    _PKG,
    "FaultSpec",
    [
        Field("match", 1, FaultMatch, nullable=True),
        Field("action", 2, FaultAction, nullable=True),
        Field("times", 3, INT32, nullable=True),
        Field("probability", 4, DOUBLE, nullable=True),
        Field("seed", 5, INT64, nullable=True),
    ],
)

FaultStatus = Struct(_PKG, "FaultStatus", [Field("matched", 1, INT32), Field("considered", 2, INT32)])

Fault = Struct(
    _PKG,
    "Fault",
    [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, FaultSpec), Field("status", 3, FaultStatus)],
    kind=True,
)

FaultList = Struct(
    _PKG,
    "FaultList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(Fault), omitempty=False, required=True)],
    kind=True,
)

# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {"Fault": Fault, "FaultList": FaultList}
