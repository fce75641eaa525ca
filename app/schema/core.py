"""core/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import core_pod, core_volume, meta
from .types import (
    BOOL,
    BYTES,
    INT32,
    INT64,
    INT_OR_STRING,
    MICRO_TIME,
    QUANTITY,
    STRING,
    TIME,
    Field,
    ListOf,
    MapOf,
    Struct,
)

_PKG = "core/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = ""
GROUP_IN_DOMAIN = False
VERSION = "v1"


NamespaceSpec = Struct(_PKG, "NamespaceSpec", [Field("finalizers", 1, ListOf(STRING), list_type="atomic")])

NamespaceCondition = Struct(
    _PKG,
    "NamespaceCondition",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("status", 2, STRING, omitempty=False, required=True),
        Field("lastTransitionTime", 4, TIME),
        Field("reason", 5, STRING),
        Field("message", 6, STRING),
    ],
)

NamespaceStatus = Struct(
    _PKG,
    "NamespaceStatus",
    [
        Field("phase", 1, STRING),
        Field(
            "conditions",
            2,
            ListOf(NamespaceCondition),
            list_type="map",
            list_map_keys=("type",),
            patch_strategy="merge",
            patch_merge_key="type",
        ),
    ],
)

Namespace = Struct(
    _PKG,
    "Namespace",
    [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, NamespaceSpec), Field("status", 3, NamespaceStatus)],
    kind=True,
)

NamespaceList = Struct(
    _PKG,
    "NamespaceList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(Namespace), omitempty=False, required=True)],
    kind=True,
)

ConfigMap = Struct(
    _PKG,
    "ConfigMap",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("immutable", 4, BOOL, nullable=True),
        Field("data", 2, MapOf(STRING)),
        Field("binaryData", 3, MapOf(BYTES)),
    ],
    kind=True,
)

ConfigMapList = Struct(
    _PKG,
    "ConfigMapList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(ConfigMap), omitempty=False, required=True)],
    kind=True,
)

Secret = Struct(
    _PKG,
    "Secret",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("immutable", 5, BOOL, nullable=True),
        Field("data", 2, MapOf(BYTES)),
        Field("stringData", 4, MapOf(STRING)),
        Field("type", 3, STRING),
    ],
    kind=True,
)

SecretList = Struct(
    _PKG,
    "SecretList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(Secret), omitempty=False, required=True)],
    kind=True,
)

ServiceAccount = Struct(
    _PKG,
    "ServiceAccount",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field(
            "secrets",
            2,
            ListOf(core_volume.ObjectReference),
            list_type="map",
            list_map_keys=("name",),
            patch_strategy="merge",
            patch_merge_key="name",
        ),
        Field("imagePullSecrets", 3, ListOf(core_volume.LocalObjectReference), list_type="atomic"),
        Field("automountServiceAccountToken", 4, BOOL, nullable=True),
    ],
    kind=True,
)

ServiceAccountList = Struct(
    _PKG,
    "ServiceAccountList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(ServiceAccount), omitempty=False, required=True)],
    kind=True,
)

ServicePort = Struct(
    _PKG,
    "ServicePort",
    [
        Field("name", 1, STRING),
        Field("protocol", 2, STRING),
        Field("appProtocol", 6, STRING, nullable=True),
        Field("port", 3, INT32, omitempty=False, required=True),
        Field("targetPort", 4, INT_OR_STRING),
        Field("nodePort", 5, INT32),
    ],
)

ClientIPConfig = Struct(_PKG, "ClientIPConfig", [Field("timeoutSeconds", 1, INT32, nullable=True)])

SessionAffinityConfig = Struct(_PKG, "SessionAffinityConfig", [Field("clientIP", 1, ClientIPConfig, nullable=True)])

ServiceSpec = Struct(
    _PKG,
    "ServiceSpec",
    [
        Field(
            "ports",
            1,
            ListOf(ServicePort),
            list_type="map",
            list_map_keys=("port", "protocol"),
            patch_strategy="merge",
            patch_merge_key="port",
        ),
        Field("selector", 2, MapOf(STRING), map_type="atomic"),
        Field("clusterIP", 3, STRING),
        Field("clusterIPs", 18, ListOf(STRING), list_type="atomic"),
        Field("type", 4, STRING),
        Field("externalIPs", 5, ListOf(STRING), list_type="atomic"),
        Field("sessionAffinity", 7, STRING),
        Field("loadBalancerIP", 8, STRING),
        Field("loadBalancerSourceRanges", 9, ListOf(STRING), list_type="atomic"),
        Field("externalName", 10, STRING),
        Field("externalTrafficPolicy", 11, STRING),
        Field("healthCheckNodePort", 12, INT32),
        Field("publishNotReadyAddresses", 13, BOOL),
        Field("sessionAffinityConfig", 14, SessionAffinityConfig, nullable=True),
        Field("ipFamilies", 19, ListOf(STRING), list_type="atomic"),
        Field("ipFamilyPolicy", 17, STRING, nullable=True),
        Field("allocateLoadBalancerNodePorts", 20, BOOL, nullable=True),
        Field("loadBalancerClass", 21, STRING, nullable=True),
        Field("internalTrafficPolicy", 22, STRING, nullable=True),
        Field("trafficDistribution", 23, STRING, nullable=True),
    ],
)

PortStatus = Struct(
    _PKG,
    "PortStatus",
    [
        Field("port", 1, INT32, omitempty=False, required=True),
        Field("protocol", 2, STRING, omitempty=False, required=True),
        Field("error", 3, STRING, nullable=True),
    ],
)

LoadBalancerIngress = Struct(
    _PKG,
    "LoadBalancerIngress",
    [
        Field("ip", 1, STRING),
        Field("hostname", 2, STRING),
        Field("ipMode", 3, STRING, nullable=True),
        Field("ports", 4, ListOf(PortStatus), list_type="atomic"),
    ],
)

LoadBalancerStatus = Struct(
    _PKG, "LoadBalancerStatus", [Field("ingress", 1, ListOf(LoadBalancerIngress), list_type="atomic")]
)

ServiceStatus = Struct(
    _PKG,
    "ServiceStatus",
    [
        Field("loadBalancer", 1, LoadBalancerStatus),
        Field(
            "conditions",
            2,
            ListOf(meta.Condition),
            list_type="map",
            list_map_keys=("type",),
            patch_strategy="merge",
            patch_merge_key="type",
        ),
    ],
)

Service = Struct(
    _PKG,
    "Service",
    [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, ServiceSpec), Field("status", 3, ServiceStatus)],
    kind=True,
)

ServiceList = Struct(
    _PKG,
    "ServiceList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(Service), omitempty=False, required=True)],
    kind=True,
)

ScopedResourceSelectorRequirement = Struct(
    _PKG,
    "ScopedResourceSelectorRequirement",
    [
        Field("scopeName", 1, STRING, omitempty=False, required=True),
        Field("operator", 2, STRING, omitempty=False, required=True),
        Field("values", 3, ListOf(STRING), list_type="atomic"),
    ],
)

ScopeSelector = Struct(
    _PKG,
    "ScopeSelector",
    [Field("matchExpressions", 1, ListOf(ScopedResourceSelectorRequirement), list_type="atomic")],
    struct_type="atomic",
)

ResourceQuotaSpec = Struct(
    _PKG,
    "ResourceQuotaSpec",
    [
        Field("hard", 1, MapOf(QUANTITY)),
        Field("scopes", 2, ListOf(STRING), list_type="atomic"),
        Field("scopeSelector", 3, ScopeSelector, nullable=True),
    ],
)

ResourceQuotaStatus = Struct(
    _PKG, "ResourceQuotaStatus", [Field("hard", 1, MapOf(QUANTITY)), Field("used", 2, MapOf(QUANTITY))]
)

ResourceQuota = Struct(
    _PKG,
    "ResourceQuota",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, ResourceQuotaSpec),
        Field("status", 3, ResourceQuotaStatus),
    ],
    kind=True,
)

ResourceQuotaList = Struct(
    _PKG,
    "ResourceQuotaList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(ResourceQuota), omitempty=False, required=True)],
    kind=True,
)

PodCondition = Struct(
    _PKG,
    "PodCondition",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("observedGeneration", 7, INT64),
        Field("status", 2, STRING, omitempty=False, required=True),
        Field("lastProbeTime", 3, TIME),
        Field("lastTransitionTime", 4, TIME),
        Field("reason", 5, STRING),
        Field("message", 6, STRING),
    ],
)

HostIP = Struct(_PKG, "HostIP", [Field("ip", 1, STRING, omitempty=False, required=True)])

PodIP = Struct(_PKG, "PodIP", [Field("ip", 1, STRING, omitempty=False, required=True)])

ContainerStateWaiting = Struct(_PKG, "ContainerStateWaiting", [Field("reason", 1, STRING), Field("message", 2, STRING)])

ContainerStateRunning = Struct(_PKG, "ContainerStateRunning", [Field("startedAt", 1, TIME)])

ContainerStateTerminated = Struct(
    _PKG,
    "ContainerStateTerminated",
    [
        Field("exitCode", 1, INT32, omitempty=False, required=True),
        Field("signal", 2, INT32),
        Field("reason", 3, STRING),
        Field("message", 4, STRING),
        Field("startedAt", 5, TIME),
        Field("finishedAt", 6, TIME),
        Field("containerID", 7, STRING),
    ],
)

ContainerState = Struct(
    _PKG,
    "ContainerState",
    [
        Field("waiting", 1, ContainerStateWaiting, nullable=True),
        Field("running", 2, ContainerStateRunning, nullable=True),
        Field("terminated", 3, ContainerStateTerminated, nullable=True),
    ],
)

ImageVolumeStatus = Struct(_PKG, "ImageVolumeStatus", [Field("imageRef", 1, STRING, required=True)])

VolumeStatus = Struct(_PKG, "VolumeStatus", [Field("image", 1, ImageVolumeStatus, nullable=True)])

VolumeMountStatus = Struct(
    _PKG,
    "VolumeMountStatus",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("mountPath", 2, STRING, omitempty=False, required=True),
        Field("readOnly", 3, BOOL),
        Field("recursiveReadOnly", 4, STRING, nullable=True),
        Field("volumeStatus", 5, VolumeStatus, nullable=True),
    ],
)

LinuxContainerUser = Struct(
    _PKG,
    "LinuxContainerUser",
    [
        Field("uid", 1, INT64, omitempty=False, required=True),
        Field("gid", 2, INT64, omitempty=False, required=True),
        Field("supplementalGroups", 3, ListOf(INT64), list_type="atomic"),
    ],
)

ContainerUser = Struct(_PKG, "ContainerUser", [Field("linux", 1, LinuxContainerUser, nullable=True)])

ResourceHealth = Struct(
    _PKG,
    "ResourceHealth",
    [
        Field("resourceID", 1, STRING, omitempty=False, required=True),
        Field("health", 2, STRING),
        Field("message", 6, STRING, nullable=True),
    ],
)

ResourceStatus = Struct(
    _PKG,
    "ResourceStatus",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("resources", 2, ListOf(ResourceHealth), list_type="map", list_map_keys=("resourceID",)),
    ],
)

ContainerStatus = Struct(
    _PKG,
    "ContainerStatus",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("state", 2, ContainerState),
        Field("lastState", 3, ContainerState),
        Field("ready", 4, BOOL, omitempty=False, required=True),
        Field("restartCount", 5, INT32, omitempty=False, required=True),
        Field("image", 6, STRING, omitempty=False, required=True),
        Field("imageID", 7, STRING, omitempty=False, required=True),
        Field("containerID", 8, STRING),
        Field("started", 9, BOOL, nullable=True),
        Field("allocatedResources", 10, MapOf(QUANTITY)),
        Field("resources", 11, core_pod.ResourceRequirements, nullable=True),
        Field(
            "volumeMounts",
            12,
            ListOf(VolumeMountStatus),
            list_type="map",
            list_map_keys=("mountPath",),
            patch_strategy="merge",
            patch_merge_key="mountPath",
        ),
        Field("user", 13, ContainerUser, nullable=True),
        Field(
            "allocatedResourcesStatus",
            14,
            ListOf(ResourceStatus),
            list_type="map",
            list_map_keys=("name",),
            patch_strategy="merge",
            patch_merge_key="name",
        ),
        Field("stopSignal", 15, STRING, nullable=True),
    ],
)

PodResourceClaimStatus = Struct(
    _PKG,
    "PodResourceClaimStatus",
    [Field("name", 1, STRING, omitempty=False, required=True), Field("resourceClaimName", 2, STRING, nullable=True)],
)

ContainerExtendedResourceRequest = Struct(
    _PKG,
    "ContainerExtendedResourceRequest",
    [
        Field("containerName", 1, STRING, omitempty=False, required=True),
        Field("resourceName", 2, STRING, omitempty=False, required=True),
        Field("requestName", 3, STRING, omitempty=False, required=True),
    ],
)

PodExtendedResourceClaimStatus = Struct(
    _PKG,
    "PodExtendedResourceClaimStatus",
    [
        Field(
            "requestMappings",
            1,
            ListOf(ContainerExtendedResourceRequest),
            omitempty=False,
            required=True,
            list_type="atomic",
        ),
        Field("resourceClaimName", 2, STRING, omitempty=False, required=True),
    ],
)

NodeAllocatableResourceClaimStatus = Struct(
    _PKG,
    "NodeAllocatableResourceClaimStatus",
    [
        Field("resourceClaimName", 1, STRING, omitempty=False, required=True),
        Field("containers", 2, ListOf(STRING), list_type="set"),
        Field("resources", 3, MapOf(QUANTITY), omitempty=False, required=True),
    ],
)

PodStatus = Struct(
    _PKG,
    "PodStatus",
    [
        Field("observedGeneration", 17, INT64),
        Field("phase", 1, STRING),
        Field(
            "conditions",
            2,
            ListOf(PodCondition),
            list_type="map",
            list_map_keys=("type",),
            patch_strategy="merge",
            patch_merge_key="type",
        ),
        Field("message", 3, STRING),
        Field("reason", 4, STRING),
        Field("nominatedNodeName", 11, STRING),
        Field("hostIP", 5, STRING),
        Field("hostIPs", 16, ListOf(HostIP), list_type="atomic", patch_strategy="merge", patch_merge_key="ip"),
        Field("podIP", 6, STRING),
        Field(
            "podIPs",
            12,
            ListOf(PodIP),
            list_type="map",
            list_map_keys=("ip",),
            patch_strategy="merge",
            patch_merge_key="ip",
        ),
        Field("startTime", 7, TIME, nullable=True),
        Field("initContainerStatuses", 10, ListOf(ContainerStatus), list_type="atomic"),
        Field("containerStatuses", 8, ListOf(ContainerStatus), list_type="atomic"),
        Field("qosClass", 9, STRING),
        Field("ephemeralContainerStatuses", 13, ListOf(ContainerStatus), list_type="atomic"),
        Field("resize", 14, STRING),
        Field(
            "resourceClaimStatuses",
            15,
            ListOf(PodResourceClaimStatus),
            list_type="map",
            list_map_keys=("name",),
            patch_strategy="merge,retainKeys",
            patch_merge_key="name",
        ),
        Field("extendedResourceClaimStatus", 18, PodExtendedResourceClaimStatus, nullable=True),
        Field("allocatedResources", 19, MapOf(QUANTITY)),
        Field("resources", 20, core_pod.ResourceRequirements, nullable=True),
        Field(
            "nodeAllocatableResourceClaimStatuses", 21, ListOf(NodeAllocatableResourceClaimStatus), list_type="atomic"
        ),
    ],
)

Pod = Struct(
    _PKG,
    "Pod",
    [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, core_pod.PodSpec), Field("status", 3, PodStatus)],
    kind=True,
)

PodList = Struct(
    _PKG,
    "PodList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(Pod), omitempty=False, required=True)],
    kind=True,
)

PodTemplateSpec = Struct(
    _PKG, "PodTemplateSpec", [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, core_pod.PodSpec)]
)

PodTemplate = Struct(
    _PKG, "PodTemplate", [Field("metadata", 1, meta.ObjectMeta), Field("template", 2, PodTemplateSpec)], kind=True
)

PodTemplateList = Struct(
    _PKG,
    "PodTemplateList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(PodTemplate), omitempty=False, required=True)],
    kind=True,
)

EndpointAddress = Struct(
    _PKG,
    "EndpointAddress",
    [
        Field("ip", 1, STRING, omitempty=False, required=True),
        Field("hostname", 3, STRING),
        Field("nodeName", 4, STRING, nullable=True),
        Field("targetRef", 2, core_volume.ObjectReference, nullable=True),
    ],
    struct_type="atomic",
)

EndpointPort = Struct(
    _PKG,
    "EndpointPort",
    [
        Field("name", 1, STRING),
        Field("port", 2, INT32, omitempty=False, required=True),
        Field("protocol", 3, STRING),
        Field("appProtocol", 4, STRING, nullable=True),
    ],
    struct_type="atomic",
)

EndpointSubset = Struct(
    _PKG,
    "EndpointSubset",
    [
        Field("addresses", 1, ListOf(EndpointAddress), list_type="atomic"),
        Field("notReadyAddresses", 2, ListOf(EndpointAddress), list_type="atomic"),
        Field("ports", 3, ListOf(EndpointPort), list_type="atomic"),
    ],
)

Endpoints = Struct(
    _PKG,
    "Endpoints",
    [Field("metadata", 1, meta.ObjectMeta), Field("subsets", 2, ListOf(EndpointSubset), list_type="atomic")],
    kind=True,
)

EndpointsList = Struct(
    _PKG,
    "EndpointsList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(Endpoints), omitempty=False, required=True)],
    kind=True,
)

EventSource = Struct(_PKG, "EventSource", [Field("component", 1, STRING), Field("host", 2, STRING)])

EventSeries = Struct(_PKG, "EventSeries", [Field("count", 1, INT32), Field("lastObservedTime", 2, MICRO_TIME)])

Event = Struct(
    _PKG,
    "Event",
    [
        Field("metadata", 1, meta.ObjectMeta, omitempty=False, required=True),
        Field("involvedObject", 2, core_volume.ObjectReference, omitempty=False, required=True),
        Field("reason", 3, STRING),
        Field("message", 4, STRING),
        Field("source", 5, EventSource),
        Field("firstTimestamp", 6, TIME),
        Field("lastTimestamp", 7, TIME),
        Field("count", 8, INT32),
        Field("type", 9, STRING),
        Field("eventTime", 10, MICRO_TIME),
        Field("series", 11, EventSeries, nullable=True),
        Field("action", 12, STRING),
        Field("related", 13, core_volume.ObjectReference, nullable=True),
        Field("reportingComponent", 14, STRING, omitempty=False),
        Field("reportingInstance", 15, STRING, omitempty=False),
    ],
    kind=True,
)

EventList = Struct(
    _PKG,
    "EventList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(Event), omitempty=False, required=True)],
    kind=True,
)

LimitRangeItem = Struct(
    _PKG,
    "LimitRangeItem",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("max", 2, MapOf(QUANTITY)),
        Field("min", 3, MapOf(QUANTITY)),
        Field("default", 4, MapOf(QUANTITY)),
        Field("defaultRequest", 5, MapOf(QUANTITY)),
        Field("maxLimitRequestRatio", 6, MapOf(QUANTITY)),
    ],
)

LimitRangeSpec = Struct(
    _PKG,
    "LimitRangeSpec",
    [Field("limits", 1, ListOf(LimitRangeItem), omitempty=False, required=True, list_type="atomic")],
)

LimitRange = Struct(
    _PKG, "LimitRange", [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, LimitRangeSpec)], kind=True
)

LimitRangeList = Struct(
    _PKG,
    "LimitRangeList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(LimitRange), omitempty=False, required=True)],
    kind=True,
)

ReplicationControllerSpec = Struct(
    _PKG,
    "ReplicationControllerSpec",
    [
        Field("replicas", 1, INT32, nullable=True),
        Field("minReadySeconds", 4, INT32),
        Field("selector", 2, MapOf(STRING), map_type="atomic"),
        Field("template", 3, PodTemplateSpec, nullable=True),
    ],
)

ReplicationControllerCondition = Struct(
    _PKG,
    "ReplicationControllerCondition",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("status", 2, STRING, omitempty=False, required=True),
        Field("lastTransitionTime", 3, TIME),
        Field("reason", 4, STRING),
        Field("message", 5, STRING),
    ],
)

ReplicationControllerStatus = Struct(
    _PKG,
    "ReplicationControllerStatus",
    [
        Field("replicas", 1, INT32, omitempty=False, required=True),
        Field("fullyLabeledReplicas", 2, INT32),
        Field("readyReplicas", 4, INT32),
        Field("availableReplicas", 5, INT32),
        Field("observedGeneration", 3, INT64),
        Field(
            "conditions",
            6,
            ListOf(ReplicationControllerCondition),
            list_type="map",
            list_map_keys=("type",),
            patch_strategy="merge",
            patch_merge_key="type",
        ),
    ],
)

ReplicationController = Struct(
    _PKG,
    "ReplicationController",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, ReplicationControllerSpec),
        Field("status", 3, ReplicationControllerStatus),
    ],
    kind=True,
)

ReplicationControllerList = Struct(
    _PKG,
    "ReplicationControllerList",
    [
        Field("metadata", 1, meta.ListMeta),
        Field("items", 2, ListOf(ReplicationController), omitempty=False, required=True),
    ],
    kind=True,
)

PersistentVolumeClaimCondition = Struct(
    _PKG,
    "PersistentVolumeClaimCondition",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("status", 2, STRING, omitempty=False, required=True),
        Field("lastProbeTime", 3, TIME),
        Field("lastTransitionTime", 4, TIME),
        Field("reason", 5, STRING),
        Field("message", 6, STRING),
    ],
)

ModifyVolumeStatus = Struct(
    _PKG,
    "ModifyVolumeStatus",
    [Field("targetVolumeAttributesClassName", 1, STRING), Field("status", 2, STRING, omitempty=False, required=True)],
)

PersistentVolumeClaimStatus = Struct(
    _PKG,
    "PersistentVolumeClaimStatus",
    [
        Field("phase", 1, STRING),
        Field("accessModes", 2, ListOf(STRING), list_type="atomic"),
        Field("capacity", 3, MapOf(QUANTITY)),
        Field(
            "conditions",
            4,
            ListOf(PersistentVolumeClaimCondition),
            list_type="map",
            list_map_keys=("type",),
            patch_strategy="merge",
            patch_merge_key="type",
        ),
        Field("allocatedResources", 5, MapOf(QUANTITY)),
        Field("allocatedResourceStatuses", 7, MapOf(STRING), map_type="granular"),
        Field("currentVolumeAttributesClassName", 8, STRING, nullable=True),
        Field("modifyVolumeStatus", 9, ModifyVolumeStatus, nullable=True),
    ],
)

PersistentVolumeClaim = Struct(
    _PKG,
    "PersistentVolumeClaim",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, core_volume.PersistentVolumeClaimSpec),
        Field("status", 3, PersistentVolumeClaimStatus),
    ],
    kind=True,
)

PersistentVolumeClaimList = Struct(
    _PKG,
    "PersistentVolumeClaimList",
    [
        Field("metadata", 1, meta.ListMeta),
        Field("items", 2, ListOf(PersistentVolumeClaim), omitempty=False, required=True),
    ],
    kind=True,
)

PersistentVolumeStatus = Struct(
    _PKG,
    "PersistentVolumeStatus",
    [
        Field("phase", 1, STRING),
        Field("message", 2, STRING),
        Field("reason", 3, STRING),
        Field("lastPhaseTransitionTime", 4, TIME, nullable=True),
    ],
)

PersistentVolume = Struct(
    _PKG,
    "PersistentVolume",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, core_volume.PersistentVolumeSpec),
        Field("status", 3, PersistentVolumeStatus),
    ],
    kind=True,
)

PersistentVolumeList = Struct(
    _PKG,
    "PersistentVolumeList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(PersistentVolume), omitempty=False, required=True)],
    kind=True,
)

Taint = Struct(
    _PKG,
    "Taint",
    [
        Field("key", 1, STRING, omitempty=False, required=True),
        Field("value", 2, STRING),
        Field("effect", 3, STRING, omitempty=False, required=True),
        Field("timeAdded", 4, TIME, nullable=True),
    ],
)

ConfigMapNodeConfigSource = Struct(
    _PKG,
    "ConfigMapNodeConfigSource",
    [
        Field("namespace", 1, STRING, omitempty=False, required=True),
        Field("name", 2, STRING, omitempty=False, required=True),
        Field("uid", 3, STRING),
        Field("resourceVersion", 4, STRING),
        Field("kubeletConfigKey", 5, STRING, omitempty=False, required=True),
    ],
)

NodeConfigSource = Struct(_PKG, "NodeConfigSource", [Field("configMap", 2, ConfigMapNodeConfigSource, nullable=True)])

NodeSpec = Struct(
    _PKG,
    "NodeSpec",
    [
        Field("podCIDR", 1, STRING),
        Field("podCIDRs", 7, ListOf(STRING), list_type="set", patch_strategy="merge"),
        Field("providerID", 3, STRING),
        Field("unschedulable", 4, BOOL),
        Field("taints", 5, ListOf(Taint), list_type="atomic"),
        Field("configSource", 6, NodeConfigSource, nullable=True),
        Field("externalID", 2, STRING),
    ],
)

NodeCondition = Struct(
    _PKG,
    "NodeCondition",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("status", 2, STRING, omitempty=False, required=True),
        Field("lastHeartbeatTime", 3, TIME),
        Field("lastTransitionTime", 4, TIME),
        Field("reason", 5, STRING),
        Field("message", 6, STRING),
    ],
)

NodeAddress = Struct(
    _PKG,
    "NodeAddress",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("address", 2, STRING, omitempty=False, required=True),
    ],
)

DaemonEndpoint = Struct(_PKG, "DaemonEndpoint", [Field("Port", 1, INT32, omitempty=False, required=True)])

NodeDaemonEndpoints = Struct(_PKG, "NodeDaemonEndpoints", [Field("kubeletEndpoint", 1, DaemonEndpoint)])

NodeSwapStatus = Struct(_PKG, "NodeSwapStatus", [Field("capacity", 1, INT64, nullable=True)])

NodeSystemInfo = Struct(
    _PKG,
    "NodeSystemInfo",
    [
        Field("machineID", 1, STRING, omitempty=False, required=True),
        Field("systemUUID", 2, STRING, omitempty=False, required=True),
        Field("bootID", 3, STRING, omitempty=False, required=True),
        Field("kernelVersion", 4, STRING, omitempty=False, required=True),
        Field("osImage", 5, STRING, omitempty=False, required=True),
        Field("containerRuntimeVersion", 6, STRING, omitempty=False, required=True),
        Field("kubeletVersion", 7, STRING, omitempty=False, required=True),
        Field("kubeProxyVersion", 8, STRING, omitempty=False, required=True),
        Field("operatingSystem", 9, STRING, omitempty=False, required=True),
        Field("architecture", 10, STRING, omitempty=False, required=True),
        Field("swap", 11, NodeSwapStatus, nullable=True),
    ],
)

ContainerImage = Struct(
    _PKG,
    "ContainerImage",
    [Field("names", 1, ListOf(STRING), omitempty=False, list_type="atomic"), Field("sizeBytes", 2, INT64)],
)

AttachedVolume = Struct(
    _PKG,
    "AttachedVolume",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("devicePath", 2, STRING, omitempty=False, required=True),
    ],
)

NodeConfigStatus = Struct(
    _PKG,
    "NodeConfigStatus",
    [
        Field("assigned", 1, NodeConfigSource, nullable=True),
        Field("active", 2, NodeConfigSource, nullable=True),
        Field("lastKnownGood", 3, NodeConfigSource, nullable=True),
        Field("error", 4, STRING),
    ],
)

NodeRuntimeHandlerFeatures = Struct(
    _PKG,
    "NodeRuntimeHandlerFeatures",
    [Field("recursiveReadOnlyMounts", 1, BOOL, nullable=True), Field("userNamespaces", 2, BOOL, nullable=True)],
)

NodeRuntimeHandler = Struct(
    _PKG,
    "NodeRuntimeHandler",
    [Field("name", 1, STRING, omitempty=False), Field("features", 2, NodeRuntimeHandlerFeatures, nullable=True)],
)

NodeFeatures = Struct(_PKG, "NodeFeatures", [Field("supplementalGroupsPolicy", 1, BOOL, nullable=True)])

NodeStatus = Struct(
    _PKG,
    "NodeStatus",
    [
        Field("capacity", 1, MapOf(QUANTITY)),
        Field("allocatable", 2, MapOf(QUANTITY)),
        Field("phase", 3, STRING),
        Field(
            "conditions",
            4,
            ListOf(NodeCondition),
            list_type="map",
            list_map_keys=("type",),
            patch_strategy="merge",
            patch_merge_key="type",
        ),
        Field(
            "addresses",
            5,
            ListOf(NodeAddress),
            list_type="map",
            list_map_keys=("type",),
            patch_strategy="merge",
            patch_merge_key="type",
        ),
        Field("daemonEndpoints", 6, NodeDaemonEndpoints),
        Field("nodeInfo", 7, NodeSystemInfo),
        Field("images", 8, ListOf(ContainerImage), list_type="atomic"),
        Field("volumesInUse", 9, ListOf(STRING), list_type="atomic"),
        Field("volumesAttached", 10, ListOf(AttachedVolume), list_type="atomic"),
        Field("config", 11, NodeConfigStatus, nullable=True),
        Field("runtimeHandlers", 12, ListOf(NodeRuntimeHandler), list_type="atomic"),
        Field("features", 13, NodeFeatures, nullable=True),
        Field("declaredFeatures", 14, ListOf(STRING), list_type="atomic"),
    ],
)

Node = Struct(
    _PKG,
    "Node",
    [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, NodeSpec), Field("status", 3, NodeStatus)],
    kind=True,
)

NodeList = Struct(
    _PKG,
    "NodeList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(Node), omitempty=False, required=True)],
    kind=True,
)

ComponentCondition = Struct(
    _PKG,
    "ComponentCondition",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("status", 2, STRING, omitempty=False, required=True),
        Field("message", 3, STRING),
        Field("error", 4, STRING),
    ],
)

ComponentStatus = Struct(
    _PKG,
    "ComponentStatus",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field(
            "conditions",
            2,
            ListOf(ComponentCondition),
            list_type="map",
            list_map_keys=("type",),
            patch_strategy="merge",
            patch_merge_key="type",
        ),
    ],
    kind=True,
)

ComponentStatusList = Struct(
    _PKG,
    "ComponentStatusList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(ComponentStatus), omitempty=False, required=True)],
    kind=True,
)

Binding = Struct(
    _PKG,
    "Binding",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("target", 2, core_volume.ObjectReference, omitempty=False, required=True),
    ],
    kind=True,
)

TopologySelectorLabelRequirement = Struct(
    _PKG,
    "TopologySelectorLabelRequirement",
    [
        Field("key", 1, STRING, omitempty=False, required=True),
        Field("values", 2, ListOf(STRING), omitempty=False, required=True, list_type="atomic"),
    ],
)

TopologySelectorTerm = Struct(
    _PKG,
    "TopologySelectorTerm",
    [Field("matchLabelExpressions", 1, ListOf(TopologySelectorLabelRequirement), list_type="atomic")],
    struct_type="atomic",
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {
    "Namespace": Namespace,
    "NamespaceList": NamespaceList,
    "ConfigMap": ConfigMap,
    "ConfigMapList": ConfigMapList,
    "Secret": Secret,
    "SecretList": SecretList,
    "ServiceAccount": ServiceAccount,
    "ServiceAccountList": ServiceAccountList,
    "Service": Service,
    "ServiceList": ServiceList,
    "ResourceQuota": ResourceQuota,
    "ResourceQuotaList": ResourceQuotaList,
    "Pod": Pod,
    "PodList": PodList,
    "PodTemplate": PodTemplate,
    "PodTemplateList": PodTemplateList,
    "Endpoints": Endpoints,
    "EndpointsList": EndpointsList,
    "Event": Event,
    "EventList": EventList,
    "LimitRange": LimitRange,
    "LimitRangeList": LimitRangeList,
    "ReplicationController": ReplicationController,
    "ReplicationControllerList": ReplicationControllerList,
    "PersistentVolumeClaim": PersistentVolumeClaim,
    "PersistentVolumeClaimList": PersistentVolumeClaimList,
    "PersistentVolume": PersistentVolume,
    "PersistentVolumeList": PersistentVolumeList,
    "Node": Node,
    "NodeList": NodeList,
    "ComponentStatus": ComponentStatus,
    "ComponentStatusList": ComponentStatusList,
    "Binding": Binding,
}
