"""policy/v1beta1 declarations: field names and numbers as the reference's v0.24.9 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import core_pod, meta
from .types import BOOL, INT32, INT64, INT_OR_STRING, STRING, TIME, Field, ListOf, MapOf, Struct

_PKG = "policy/v1beta1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "policy"
GROUP_IN_DOMAIN = False
VERSION = "v1beta1"


PodDisruptionBudgetSpec = Struct(
    _PKG,
    "PodDisruptionBudgetSpec",
    [
        Field("minAvailable", 1, INT_OR_STRING, nullable=True),
        Field("selector", 2, meta.LabelSelector, nullable=True),
        Field("maxUnavailable", 3, INT_OR_STRING, nullable=True),
    ],
)

PodDisruptionBudgetStatus = Struct(
    _PKG,
    "PodDisruptionBudgetStatus",
    [
        Field("observedGeneration", 1, INT64),
        Field("disruptedPods", 2, MapOf(TIME)),
        Field("disruptionsAllowed", 3, INT32, omitempty=False, required=True),
        Field("currentHealthy", 4, INT32, omitempty=False, required=True),
        Field("desiredHealthy", 5, INT32, omitempty=False, required=True),
        Field("expectedPods", 6, INT32, omitempty=False, required=True),
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

HostPortRange = Struct(
    _PKG,
    "HostPortRange",
    [Field("min", 1, INT32, omitempty=False, required=True), Field("max", 2, INT32, omitempty=False, required=True)],
)

SELinuxStrategyOptions = Struct(
    _PKG,
    "SELinuxStrategyOptions",
    [
        Field("rule", 1, STRING, omitempty=False, required=True),
        Field("seLinuxOptions", 2, core_pod.SELinuxOptions, nullable=True),
    ],
)

IDRange = Struct(
    _PKG,
    "IDRange",
    [Field("min", 1, INT64, omitempty=False, required=True), Field("max", 2, INT64, omitempty=False, required=True)],
)

RunAsUserStrategyOptions = Struct(
    _PKG,
    "RunAsUserStrategyOptions",
    [Field("rule", 1, STRING, omitempty=False, required=True), Field("ranges", 2, ListOf(IDRange))],
)

RunAsGroupStrategyOptions = Struct(
    _PKG,
    "RunAsGroupStrategyOptions",
    [Field("rule", 1, STRING, omitempty=False, required=True), Field("ranges", 2, ListOf(IDRange))],
)

SupplementalGroupsStrategyOptions = Struct(
    _PKG, "SupplementalGroupsStrategyOptions", [Field("rule", 1, STRING), Field("ranges", 2, ListOf(IDRange))]
)

FSGroupStrategyOptions = Struct(
    _PKG, "FSGroupStrategyOptions", [Field("rule", 1, STRING), Field("ranges", 2, ListOf(IDRange))]
)

AllowedHostPath = Struct(_PKG, "AllowedHostPath", [Field("pathPrefix", 1, STRING), Field("readOnly", 2, BOOL)])

AllowedFlexVolume = Struct(_PKG, "AllowedFlexVolume", [Field("driver", 1, STRING, omitempty=False, required=True)])

AllowedCSIDriver = Struct(_PKG, "AllowedCSIDriver", [Field("name", 1, STRING, omitempty=False, required=True)])

RuntimeClassStrategyOptions = Struct(
    _PKG,
    "RuntimeClassStrategyOptions",
    [
        Field("allowedRuntimeClassNames", 1, ListOf(STRING), omitempty=False, required=True),
        Field("defaultRuntimeClassName", 2, STRING, nullable=True),
    ],
)

PodSecurityPolicySpec = Struct(
    _PKG,
    "PodSecurityPolicySpec",
    [
        Field("privileged", 1, BOOL),
        Field("defaultAddCapabilities", 2, ListOf(STRING)),
        Field("requiredDropCapabilities", 3, ListOf(STRING)),
        Field("allowedCapabilities", 4, ListOf(STRING)),
        Field("volumes", 5, ListOf(STRING)),
        Field("hostNetwork", 6, BOOL),
        Field("hostPorts", 7, ListOf(HostPortRange)),
        Field("hostPID", 8, BOOL),
        Field("hostIPC", 9, BOOL),
        Field("seLinux", 10, SELinuxStrategyOptions, omitempty=False, required=True),
        Field("runAsUser", 11, RunAsUserStrategyOptions, omitempty=False, required=True),
        Field("runAsGroup", 22, RunAsGroupStrategyOptions, nullable=True),
        Field("supplementalGroups", 12, SupplementalGroupsStrategyOptions, omitempty=False, required=True),
        Field("fsGroup", 13, FSGroupStrategyOptions, omitempty=False, required=True),
        Field("readOnlyRootFilesystem", 14, BOOL),
        Field("defaultAllowPrivilegeEscalation", 15, BOOL, nullable=True),
        Field("allowPrivilegeEscalation", 16, BOOL, nullable=True),
        Field("allowedHostPaths", 17, ListOf(AllowedHostPath)),
        Field("allowedFlexVolumes", 18, ListOf(AllowedFlexVolume)),
        Field("allowedCSIDrivers", 23, ListOf(AllowedCSIDriver)),
        Field("allowedUnsafeSysctls", 19, ListOf(STRING)),
        Field("forbiddenSysctls", 20, ListOf(STRING)),
        Field("allowedProcMountTypes", 21, ListOf(STRING)),
        Field("runtimeClass", 24, RuntimeClassStrategyOptions, nullable=True),
    ],
)

PodSecurityPolicy = Struct(
    _PKG,
    "PodSecurityPolicy",
    [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, PodSecurityPolicySpec)],
    kind=True,
)

PodSecurityPolicyList = Struct(
    _PKG,
    "PodSecurityPolicyList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(PodSecurityPolicy), omitempty=False, required=True)],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {
    "PodDisruptionBudget": PodDisruptionBudget,
    "PodDisruptionBudgetList": PodDisruptionBudgetList,
    "Eviction": Eviction,
    "PodSecurityPolicy": PodSecurityPolicy,
    "PodSecurityPolicyList": PodSecurityPolicyList,
}
