"""core/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import core_volume, meta
from .types import BOOL, INT32, INT64, INT_OR_STRING, QUANTITY, STRING, Field, ListOf, MapOf, Struct

_PKG = "core/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = ""
GROUP_IN_DOMAIN = False
VERSION = "v1"


ContainerPort = Struct(
    _PKG,
    "ContainerPort",
    [
        Field("name", 1, STRING),
        Field("hostPort", 2, INT32),
        Field("containerPort", 3, INT32, omitempty=False, required=True),
        Field("protocol", 4, STRING),
        Field("hostIP", 5, STRING),
    ],
)

ConfigMapEnvSource = Struct(
    _PKG,
    "ConfigMapEnvSource",
    [
        Field("localObjectReference", 1, core_volume.LocalObjectReference, inline=True),
        Field("optional", 2, BOOL, nullable=True),
    ],
)

SecretEnvSource = Struct(
    _PKG,
    "SecretEnvSource",
    [
        Field("localObjectReference", 1, core_volume.LocalObjectReference, inline=True),
        Field("optional", 2, BOOL, nullable=True),
    ],
)

EnvFromSource = Struct(
    _PKG,
    "EnvFromSource",
    [
        Field("prefix", 1, STRING),
        Field("configMapRef", 2, ConfigMapEnvSource, nullable=True),
        Field("secretRef", 3, SecretEnvSource, nullable=True),
    ],
)

ConfigMapKeySelector = Struct(
    _PKG,
    "ConfigMapKeySelector",
    [
        Field("localObjectReference", 1, core_volume.LocalObjectReference, inline=True),
        Field("key", 2, STRING, omitempty=False, required=True),
        Field("optional", 3, BOOL, nullable=True),
    ],
    struct_type="atomic",
)

SecretKeySelector = Struct(
    _PKG,
    "SecretKeySelector",
    [
        Field("localObjectReference", 1, core_volume.LocalObjectReference, inline=True),
        Field("key", 2, STRING, omitempty=False, required=True),
        Field("optional", 3, BOOL, nullable=True),
    ],
    struct_type="atomic",
)

FileKeySelector = Struct(
    _PKG,
    "FileKeySelector",
    [
        Field("volumeName", 1, STRING, omitempty=False, required=True),
        Field("path", 2, STRING, omitempty=False, required=True),
        Field("key", 3, STRING, omitempty=False, required=True),
        Field("optional", 4, BOOL, nullable=True),
    ],
    struct_type="atomic",
)

EnvVarSource = Struct(
    _PKG,
    "EnvVarSource",
    [
        Field("fieldRef", 1, core_volume.ObjectFieldSelector, nullable=True),
        Field("resourceFieldRef", 2, core_volume.ResourceFieldSelector, nullable=True),
        Field("configMapKeyRef", 3, ConfigMapKeySelector, nullable=True),
        Field("secretKeyRef", 4, SecretKeySelector, nullable=True),
        Field("fileKeyRef", 5, FileKeySelector, nullable=True),
    ],
)

EnvVar = Struct(
    _PKG,
    "EnvVar",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("value", 2, STRING),
        Field("valueFrom", 3, EnvVarSource, nullable=True),
    ],
)

ResourceClaim = Struct(
    _PKG, "ResourceClaim", [Field("name", 1, STRING, omitempty=False, required=True), Field("request", 2, STRING)]
)

ResourceRequirements = Struct(
    _PKG,
    "ResourceRequirements",
    [
        Field("limits", 1, MapOf(QUANTITY)),
        Field("requests", 2, MapOf(QUANTITY)),
        Field("claims", 3, ListOf(ResourceClaim), list_type="map", list_map_keys=("name",)),
    ],
)

ContainerResizePolicy = Struct(
    _PKG,
    "ContainerResizePolicy",
    [
        Field("resourceName", 1, STRING, omitempty=False, required=True),
        Field("restartPolicy", 2, STRING, omitempty=False, required=True),
    ],
)

ContainerRestartRuleOnExitCodes = Struct(
    _PKG,
    "ContainerRestartRuleOnExitCodes",
    [Field("operator", 1, STRING, required=True), Field("values", 2, ListOf(INT32), list_type="set")],
)

ContainerRestartRule = Struct(
    _PKG,
    "ContainerRestartRule",
    [Field("action", 1, STRING, required=True), Field("exitCodes", 2, ContainerRestartRuleOnExitCodes, nullable=True)],
)

VolumeMount = Struct(
    _PKG,
    "VolumeMount",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("readOnly", 2, BOOL),
        Field("recursiveReadOnly", 7, STRING, nullable=True),
        Field("mountPath", 3, STRING, omitempty=False, required=True),
        Field("subPath", 4, STRING),
        Field("mountPropagation", 5, STRING, nullable=True),
        Field("subPathExpr", 6, STRING),
    ],
)

VolumeDevice = Struct(
    _PKG,
    "VolumeDevice",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("devicePath", 2, STRING, omitempty=False, required=True),
    ],
)

ExecAction = Struct(_PKG, "ExecAction", [Field("command", 1, ListOf(STRING), list_type="atomic")])

HTTPHeader = Struct(
    _PKG,
    "HTTPHeader",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("value", 2, STRING, omitempty=False, required=True),
    ],
)

HTTPGetAction = Struct(
    _PKG,
    "HTTPGetAction",
    [
        Field("path", 1, STRING),
        Field("port", 2, INT_OR_STRING, omitempty=False, required=True),
        Field("host", 3, STRING),
        Field("scheme", 4, STRING),
        Field("httpHeaders", 5, ListOf(HTTPHeader), list_type="atomic"),
    ],
)

TCPSocketAction = Struct(
    _PKG, "TCPSocketAction", [Field("port", 1, INT_OR_STRING, omitempty=False, required=True), Field("host", 2, STRING)]
)

GRPCAction = Struct(
    _PKG,
    "GRPCAction",
    [
        Field("port", 1, INT32, omitempty=False, required=True),
        Field("service", 2, STRING, nullable=True, omitempty=False),
    ],
)

ProbeHandler = Struct(
    _PKG,
    "ProbeHandler",
    [
        Field("exec", 1, ExecAction, nullable=True),
        Field("httpGet", 2, HTTPGetAction, nullable=True),
        Field("tcpSocket", 3, TCPSocketAction, nullable=True),
        Field("grpc", 4, GRPCAction, nullable=True),
    ],
)

Probe = Struct(
    _PKG,
    "Probe",
    [
        Field("handler", 1, ProbeHandler, inline=True),
        Field("initialDelaySeconds", 2, INT32),
        Field("timeoutSeconds", 3, INT32),
        Field("periodSeconds", 4, INT32),
        Field("successThreshold", 5, INT32),
        Field("failureThreshold", 6, INT32),
        Field("terminationGracePeriodSeconds", 7, INT64, nullable=True),
    ],
)

SleepAction = Struct(_PKG, "SleepAction", [Field("seconds", 1, INT64, omitempty=False, required=True)])

LifecycleHandler = Struct(
    _PKG,
    "LifecycleHandler",
    [
        Field("exec", 1, ExecAction, nullable=True),
        Field("httpGet", 2, HTTPGetAction, nullable=True),
        Field("tcpSocket", 3, TCPSocketAction, nullable=True),
        Field("sleep", 4, SleepAction, nullable=True),
    ],
)

Lifecycle = Struct(
    _PKG,
    "Lifecycle",
    [
        Field("postStart", 1, LifecycleHandler, nullable=True),
        Field("preStop", 2, LifecycleHandler, nullable=True),
        Field("stopSignal", 3, STRING, nullable=True),
    ],
)

Capabilities = Struct(
    _PKG,
    "Capabilities",
    [Field("add", 1, ListOf(STRING), list_type="atomic"), Field("drop", 2, ListOf(STRING), list_type="atomic")],
)

SELinuxOptions = Struct(
    _PKG,
    "SELinuxOptions",
    [Field("user", 1, STRING), Field("role", 2, STRING), Field("type", 3, STRING), Field("level", 4, STRING)],
)

WindowsSecurityContextOptions = Struct(
    _PKG,
    "WindowsSecurityContextOptions",
    [
        Field("gmsaCredentialSpecName", 1, STRING, nullable=True),
        Field("gmsaCredentialSpec", 2, STRING, nullable=True),
        Field("runAsUserName", 3, STRING, nullable=True),
        Field("hostProcess", 4, BOOL, nullable=True),
    ],
)

SeccompProfile = Struct(
    _PKG,
    "SeccompProfile",
    [Field("type", 1, STRING, omitempty=False, required=True), Field("localhostProfile", 2, STRING, nullable=True)],
)

AppArmorProfile = Struct(
    _PKG,
    "AppArmorProfile",
    [Field("type", 1, STRING, omitempty=False, required=True), Field("localhostProfile", 2, STRING, nullable=True)],
)

SecurityContext = Struct(
    _PKG,
    "SecurityContext",
    [
        Field("capabilities", 1, Capabilities, nullable=True),
        Field("privileged", 2, BOOL, nullable=True),
        Field("seLinuxOptions", 3, SELinuxOptions, nullable=True),
        Field("windowsOptions", 10, WindowsSecurityContextOptions, nullable=True),
        Field("runAsUser", 4, INT64, nullable=True),
        Field("runAsGroup", 8, INT64, nullable=True),
        Field("runAsNonRoot", 5, BOOL, nullable=True),
        Field("readOnlyRootFilesystem", 6, BOOL, nullable=True),
        Field("allowPrivilegeEscalation", 7, BOOL, nullable=True),
        Field("procMount", 9, STRING, nullable=True),
        Field("seccompProfile", 11, SeccompProfile, nullable=True),
        Field("appArmorProfile", 12, AppArmorProfile, nullable=True),
    ],
)

Container = Struct(
    _PKG,
    "Container",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("image", 2, STRING),
        Field("command", 3, ListOf(STRING), list_type="atomic"),
        Field("args", 4, ListOf(STRING), list_type="atomic"),
        Field("workingDir", 5, STRING),
        Field(
            "ports",
            6,
            ListOf(ContainerPort),
            list_type="map",
            list_map_keys=("containerPort", "protocol"),
            patch_strategy="merge",
            patch_merge_key="containerPort",
        ),
        Field("envFrom", 19, ListOf(EnvFromSource), list_type="atomic"),
        Field(
            "env",
            7,
            ListOf(EnvVar),
            list_type="map",
            list_map_keys=("name",),
            patch_strategy="merge",
            patch_merge_key="name",
        ),
        Field("resources", 8, ResourceRequirements),
        Field("resizePolicy", 23, ListOf(ContainerResizePolicy), list_type="atomic"),
        Field("restartPolicy", 24, STRING, nullable=True),
        Field("restartPolicyRules", 25, ListOf(ContainerRestartRule), list_type="atomic"),
        Field(
            "volumeMounts",
            9,
            ListOf(VolumeMount),
            list_type="map",
            list_map_keys=("mountPath",),
            patch_strategy="merge",
            patch_merge_key="mountPath",
        ),
        Field(
            "volumeDevices",
            21,
            ListOf(VolumeDevice),
            list_type="map",
            list_map_keys=("devicePath",),
            patch_strategy="merge",
            patch_merge_key="devicePath",
        ),
        Field("livenessProbe", 10, Probe, nullable=True),
        Field("readinessProbe", 11, Probe, nullable=True),
        Field("startupProbe", 22, Probe, nullable=True),
        Field("lifecycle", 12, Lifecycle, nullable=True),
        Field("terminationMessagePath", 13, STRING),
        Field("terminationMessagePolicy", 20, STRING),
        Field("imagePullPolicy", 14, STRING),
        Field("securityContext", 15, SecurityContext, nullable=True),
        Field("stdin", 16, BOOL),
        Field("stdinOnce", 17, BOOL),
        Field("tty", 18, BOOL),
    ],
)

EphemeralContainerCommon = Struct(
    _PKG,
    "EphemeralContainerCommon",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("image", 2, STRING),
        Field("command", 3, ListOf(STRING), list_type="atomic"),
        Field("args", 4, ListOf(STRING), list_type="atomic"),
        Field("workingDir", 5, STRING),
        Field(
            "ports",
            6,
            ListOf(ContainerPort),
            list_type="map",
            list_map_keys=("containerPort", "protocol"),
            patch_strategy="merge",
            patch_merge_key="containerPort",
        ),
        Field("envFrom", 19, ListOf(EnvFromSource), list_type="atomic"),
        Field(
            "env",
            7,
            ListOf(EnvVar),
            list_type="map",
            list_map_keys=("name",),
            patch_strategy="merge",
            patch_merge_key="name",
        ),
        Field("resources", 8, ResourceRequirements),
        Field("resizePolicy", 23, ListOf(ContainerResizePolicy), list_type="atomic"),
        Field("restartPolicy", 24, STRING, nullable=True),
        Field("restartPolicyRules", 25, ListOf(ContainerRestartRule), list_type="atomic"),
        Field(
            "volumeMounts",
            9,
            ListOf(VolumeMount),
            list_type="map",
            list_map_keys=("mountPath",),
            patch_strategy="merge",
            patch_merge_key="mountPath",
        ),
        Field(
            "volumeDevices",
            21,
            ListOf(VolumeDevice),
            list_type="map",
            list_map_keys=("devicePath",),
            patch_strategy="merge",
            patch_merge_key="devicePath",
        ),
        Field("livenessProbe", 10, Probe, nullable=True),
        Field("readinessProbe", 11, Probe, nullable=True),
        Field("startupProbe", 22, Probe, nullable=True),
        Field("lifecycle", 12, Lifecycle, nullable=True),
        Field("terminationMessagePath", 13, STRING),
        Field("terminationMessagePolicy", 20, STRING),
        Field("imagePullPolicy", 14, STRING),
        Field("securityContext", 15, SecurityContext, nullable=True),
        Field("stdin", 16, BOOL),
        Field("stdinOnce", 17, BOOL),
        Field("tty", 18, BOOL),
    ],
)

EphemeralContainer = Struct(
    _PKG,
    "EphemeralContainer",
    [
        Field("ephemeralContainerCommon", 1, EphemeralContainerCommon, inline=True),
        Field("targetContainerName", 2, STRING),
    ],
)

Sysctl = Struct(
    _PKG,
    "Sysctl",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("value", 2, STRING, omitempty=False, required=True),
    ],
)

PodSecurityContext = Struct(
    _PKG,
    "PodSecurityContext",
    [
        Field("seLinuxOptions", 1, SELinuxOptions, nullable=True),
        Field("windowsOptions", 8, WindowsSecurityContextOptions, nullable=True),
        Field("runAsUser", 2, INT64, nullable=True),
        Field("runAsGroup", 6, INT64, nullable=True),
        Field("runAsNonRoot", 3, BOOL, nullable=True),
        Field("supplementalGroups", 4, ListOf(INT64), list_type="atomic"),
        Field("supplementalGroupsPolicy", 12, STRING, nullable=True),
        Field("fsGroup", 5, INT64, nullable=True),
        Field("sysctls", 7, ListOf(Sysctl), list_type="atomic"),
        Field("fsGroupChangePolicy", 9, STRING, nullable=True),
        Field("seccompProfile", 10, SeccompProfile, nullable=True),
        Field("appArmorProfile", 11, AppArmorProfile, nullable=True),
        Field("seLinuxChangePolicy", 13, STRING, nullable=True),
    ],
)

PreferredSchedulingTerm = Struct(
    _PKG,
    "PreferredSchedulingTerm",
    [
        Field("weight", 1, INT32, omitempty=False, required=True),
        Field("preference", 2, core_volume.NodeSelectorTerm, omitempty=False, required=True),
    ],
)

NodeAffinity = Struct(
    _PKG,
    "NodeAffinity",
    [
        Field("requiredDuringSchedulingIgnoredDuringExecution", 1, core_volume.NodeSelector, nullable=True),
        Field(
            "preferredDuringSchedulingIgnoredDuringExecution", 2, ListOf(PreferredSchedulingTerm), list_type="atomic"
        ),
    ],
)

PodAffinityTerm = Struct(
    _PKG,
    "PodAffinityTerm",
    [
        Field("labelSelector", 1, meta.LabelSelector, nullable=True),
        Field("namespaces", 2, ListOf(STRING), list_type="atomic"),
        Field("topologyKey", 3, STRING, omitempty=False, required=True),
        Field("namespaceSelector", 4, meta.LabelSelector, nullable=True),
        Field("matchLabelKeys", 5, ListOf(STRING), list_type="atomic"),
        Field("mismatchLabelKeys", 6, ListOf(STRING), list_type="atomic"),
    ],
)

WeightedPodAffinityTerm = Struct(
    _PKG,
    "WeightedPodAffinityTerm",
    [
        Field("weight", 1, INT32, omitempty=False, required=True),
        Field("podAffinityTerm", 2, PodAffinityTerm, omitempty=False, required=True),
    ],
)

PodAffinity = Struct(
    _PKG,
    "PodAffinity",
    [
        Field("requiredDuringSchedulingIgnoredDuringExecution", 1, ListOf(PodAffinityTerm), list_type="atomic"),
        Field(
            "preferredDuringSchedulingIgnoredDuringExecution", 2, ListOf(WeightedPodAffinityTerm), list_type="atomic"
        ),
    ],
)

PodAntiAffinity = Struct(
    _PKG,
    "PodAntiAffinity",
    [
        Field("requiredDuringSchedulingIgnoredDuringExecution", 1, ListOf(PodAffinityTerm), list_type="atomic"),
        Field(
            "preferredDuringSchedulingIgnoredDuringExecution", 2, ListOf(WeightedPodAffinityTerm), list_type="atomic"
        ),
    ],
)

Affinity = Struct(
    _PKG,
    "Affinity",
    [
        Field("nodeAffinity", 1, NodeAffinity, nullable=True),
        Field("podAffinity", 2, PodAffinity, nullable=True),
        Field("podAntiAffinity", 3, PodAntiAffinity, nullable=True),
    ],
)

Toleration = Struct(
    _PKG,
    "Toleration",
    [
        Field("key", 1, STRING),
        Field("operator", 2, STRING),
        Field("value", 3, STRING),
        Field("effect", 4, STRING),
        Field("tolerationSeconds", 5, INT64, nullable=True),
    ],
)

HostAlias = Struct(
    _PKG,
    "HostAlias",
    [Field("ip", 1, STRING, omitempty=False, required=True), Field("hostnames", 2, ListOf(STRING), list_type="atomic")],
)

PodDNSConfigOption = Struct(
    _PKG, "PodDNSConfigOption", [Field("name", 1, STRING), Field("value", 2, STRING, nullable=True)]
)

PodDNSConfig = Struct(
    _PKG,
    "PodDNSConfig",
    [
        Field("nameservers", 1, ListOf(STRING), list_type="atomic"),
        Field("searches", 2, ListOf(STRING), list_type="atomic"),
        Field("options", 3, ListOf(PodDNSConfigOption), list_type="atomic"),
    ],
)

PodReadinessGate = Struct(_PKG, "PodReadinessGate", [Field("conditionType", 1, STRING, omitempty=False, required=True)])

TopologySpreadConstraint = Struct(
    _PKG,
    "TopologySpreadConstraint",
    [
        Field("maxSkew", 1, INT32, omitempty=False, required=True),
        Field("topologyKey", 2, STRING, omitempty=False, required=True),
        Field("whenUnsatisfiable", 3, STRING, omitempty=False, required=True),
        Field("labelSelector", 4, meta.LabelSelector, nullable=True),
        Field("minDomains", 5, INT32, nullable=True),
        Field("nodeAffinityPolicy", 6, STRING, nullable=True),
        Field("nodeTaintsPolicy", 7, STRING, nullable=True),
        Field("matchLabelKeys", 8, ListOf(STRING), list_type="atomic"),
    ],
)

PodOS = Struct(_PKG, "PodOS", [Field("name", 1, STRING, omitempty=False, required=True)])

PodSchedulingGate = Struct(_PKG, "PodSchedulingGate", [Field("name", 1, STRING, omitempty=False, required=True)])

PodResourceClaim = Struct(
    _PKG,
    "PodResourceClaim",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("resourceClaimName", 3, STRING, nullable=True),
        Field("resourceClaimTemplateName", 4, STRING, nullable=True),
    ],
)

PodSchedulingGroup = Struct(_PKG, "PodSchedulingGroup", [Field("podGroupName", 1, STRING, nullable=True)])

PodSpec = Struct(
    _PKG,
    "PodSpec",
    [
        Field(
            "volumes",
            1,
            ListOf(core_volume.Volume),
            list_type="map",
            list_map_keys=("name",),
            patch_strategy="merge,retainKeys",
            patch_merge_key="name",
        ),
        Field(
            "initContainers",
            20,
            ListOf(Container),
            list_type="map",
            list_map_keys=("name",),
            patch_strategy="merge",
            patch_merge_key="name",
        ),
        Field(
            "containers",
            2,
            ListOf(Container),
            omitempty=False,
            required=True,
            list_type="map",
            list_map_keys=("name",),
            patch_strategy="merge",
            patch_merge_key="name",
        ),
        Field(
            "ephemeralContainers",
            34,
            ListOf(EphemeralContainer),
            list_type="map",
            list_map_keys=("name",),
            patch_strategy="merge",
            patch_merge_key="name",
        ),
        Field("restartPolicy", 3, STRING),
        Field("terminationGracePeriodSeconds", 4, INT64, nullable=True),
        Field("activeDeadlineSeconds", 5, INT64, nullable=True),
        Field("dnsPolicy", 6, STRING),
        Field("nodeSelector", 7, MapOf(STRING), map_type="atomic"),
        Field("serviceAccountName", 8, STRING),
        Field("serviceAccount", 9, STRING),
        Field("automountServiceAccountToken", 21, BOOL, nullable=True),
        Field("nodeName", 10, STRING),
        Field("hostNetwork", 11, BOOL),
        Field("hostPID", 12, BOOL),
        Field("hostIPC", 13, BOOL),
        Field("shareProcessNamespace", 27, BOOL, nullable=True),
        Field("securityContext", 14, PodSecurityContext, nullable=True),
        Field(
            "imagePullSecrets",
            15,
            ListOf(core_volume.LocalObjectReference),
            list_type="map",
            list_map_keys=("name",),
            patch_strategy="merge",
            patch_merge_key="name",
        ),
        Field("hostname", 16, STRING),
        Field("subdomain", 17, STRING),
        Field("affinity", 18, Affinity, nullable=True),
        Field("schedulerName", 19, STRING),
        Field("tolerations", 22, ListOf(Toleration), list_type="atomic"),
        Field(
            "hostAliases",
            23,
            ListOf(HostAlias),
            list_type="map",
            list_map_keys=("ip",),
            patch_strategy="merge",
            patch_merge_key="ip",
        ),
        Field("priorityClassName", 24, STRING),
        Field("priority", 25, INT32, nullable=True),
        Field("dnsConfig", 26, PodDNSConfig, nullable=True),
        Field("readinessGates", 28, ListOf(PodReadinessGate), list_type="atomic"),
        Field("runtimeClassName", 29, STRING, nullable=True),
        Field("enableServiceLinks", 30, BOOL, nullable=True),
        Field("preemptionPolicy", 31, STRING, nullable=True),
        Field("overhead", 32, MapOf(QUANTITY)),
        Field(
            "topologySpreadConstraints",
            33,
            ListOf(TopologySpreadConstraint),
            list_type="map",
            list_map_keys=("topologyKey", "whenUnsatisfiable"),
            patch_strategy="merge",
            patch_merge_key="topologyKey",
        ),
        Field("setHostnameAsFQDN", 35, BOOL, nullable=True),
        Field("os", 36, PodOS, nullable=True),
        Field("hostUsers", 37, BOOL, nullable=True),
        Field(
            "schedulingGates",
            38,
            ListOf(PodSchedulingGate),
            list_type="map",
            list_map_keys=("name",),
            patch_strategy="merge",
            patch_merge_key="name",
        ),
        Field(
            "resourceClaims",
            39,
            ListOf(PodResourceClaim),
            list_type="map",
            list_map_keys=("name",),
            patch_strategy="merge,retainKeys",
            patch_merge_key="name",
        ),
        Field("resources", 40, ResourceRequirements, nullable=True),
        Field("hostnameOverride", 41, STRING, nullable=True),
        Field("schedulingGroup", 43, PodSchedulingGroup, nullable=True),
    ],
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {}
