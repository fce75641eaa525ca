"""apps/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import core, meta
from .types import BOOL, INT32, INT64, INT_OR_STRING, RAW_EXTENSION, STRING, TIME, Field, ListOf, Struct

_PKG = "apps/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "apps"
GROUP_IN_DOMAIN = False
VERSION = "v1"


RollingUpdateDeployment = Struct(
    _PKG,
    "RollingUpdateDeployment",
    [Field("maxUnavailable", 1, INT_OR_STRING, nullable=True), Field("maxSurge", 2, INT_OR_STRING, nullable=True)],
)

DeploymentStrategy = Struct(
    _PKG,
    "DeploymentStrategy",
    [Field("type", 1, STRING), Field("rollingUpdate", 2, RollingUpdateDeployment, nullable=True)],
)

DeploymentSpec = Struct(
    _PKG,
    "DeploymentSpec",
    [
        Field("replicas", 1, INT32, nullable=True),
        Field("selector", 2, meta.LabelSelector, nullable=True, omitempty=False, required=True),
        Field("template", 3, core.PodTemplateSpec, omitempty=False, required=True),
        Field("strategy", 4, DeploymentStrategy, patch_strategy="retainKeys"),
        Field("minReadySeconds", 5, INT32),
        Field("revisionHistoryLimit", 6, INT32, nullable=True),
        Field("paused", 7, BOOL),
        Field("progressDeadlineSeconds", 9, INT32, nullable=True),
    ],
)

DeploymentCondition = Struct(
    _PKG,
    "DeploymentCondition",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("status", 2, STRING, omitempty=False, required=True),
        Field("lastUpdateTime", 6, TIME),
        Field("lastTransitionTime", 7, TIME),
        Field("reason", 4, STRING),
        Field("message", 5, STRING),
    ],
)

DeploymentStatus = Struct(
    _PKG,
    "DeploymentStatus",
    [
        Field("observedGeneration", 1, INT64),
        Field("replicas", 2, INT32),
        Field("updatedReplicas", 3, INT32),
        Field("readyReplicas", 7, INT32),
        Field("availableReplicas", 4, INT32),
        Field("unavailableReplicas", 5, INT32),
        Field("terminatingReplicas", 9, INT32, nullable=True),
        Field(
            "conditions",
            6,
            ListOf(DeploymentCondition),
            list_type="map",
            list_map_keys=("type",),
            patch_strategy="merge",
            patch_merge_key="type",
        ),
        Field("collisionCount", 8, INT32, nullable=True),
    ],
)

Deployment = Struct(
    _PKG,
    "Deployment",
    [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, DeploymentSpec), Field("status", 3, DeploymentStatus)],
    kind=True,
)

DeploymentList = Struct(
    _PKG,
    "DeploymentList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(Deployment), omitempty=False, required=True)],
    kind=True,
)

ReplicaSetSpec = Struct(
    _PKG,
    "ReplicaSetSpec",
    [
        Field("replicas", 1, INT32, nullable=True),
        Field("minReadySeconds", 4, INT32),
        Field("selector", 2, meta.LabelSelector, nullable=True, omitempty=False, required=True),
        Field("template", 3, core.PodTemplateSpec),
    ],
)

ReplicaSetCondition = Struct(
    _PKG,
    "ReplicaSetCondition",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("status", 2, STRING, omitempty=False, required=True),
        Field("lastTransitionTime", 3, TIME),
        Field("reason", 4, STRING),
        Field("message", 5, STRING),
    ],
)

ReplicaSetStatus = Struct(
    _PKG,
    "ReplicaSetStatus",
    [
        Field("replicas", 1, INT32, omitempty=False, required=True),
        Field("fullyLabeledReplicas", 2, INT32),
        Field("readyReplicas", 4, INT32),
        Field("availableReplicas", 5, INT32),
        Field("terminatingReplicas", 7, INT32, nullable=True),
        Field("observedGeneration", 3, INT64),
        Field(
            "conditions",
            6,
            ListOf(ReplicaSetCondition),
            list_type="map",
            list_map_keys=("type",),
            patch_strategy="merge",
            patch_merge_key="type",
        ),
    ],
)

ReplicaSet = Struct(
    _PKG,
    "ReplicaSet",
    [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, ReplicaSetSpec), Field("status", 3, ReplicaSetStatus)],
    kind=True,
)

ReplicaSetList = Struct(
    _PKG,
    "ReplicaSetList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(ReplicaSet), omitempty=False, required=True)],
    kind=True,
)

RollingUpdateStatefulSetStrategy = Struct(
    _PKG,
    "RollingUpdateStatefulSetStrategy",
    [Field("partition", 1, INT32, nullable=True), Field("maxUnavailable", 2, INT_OR_STRING, nullable=True)],
)

StatefulSetUpdateStrategy = Struct(
    _PKG,
    "StatefulSetUpdateStrategy",
    [Field("type", 1, STRING), Field("rollingUpdate", 2, RollingUpdateStatefulSetStrategy, nullable=True)],
)

StatefulSetPersistentVolumeClaimRetentionPolicy = Struct(
    _PKG,
    "StatefulSetPersistentVolumeClaimRetentionPolicy",
    [Field("whenDeleted", 1, STRING), Field("whenScaled", 2, STRING)],
)

StatefulSetOrdinals = Struct(_PKG, "StatefulSetOrdinals", [Field("start", 1, INT32, omitempty=False)])

StatefulSetSpec = Struct(
    _PKG,
    "StatefulSetSpec",
    [
        Field("replicas", 1, INT32, nullable=True),
        Field("selector", 2, meta.LabelSelector, nullable=True, omitempty=False, required=True),
        Field("template", 3, core.PodTemplateSpec, omitempty=False, required=True),
        Field("volumeClaimTemplates", 4, ListOf(core.PersistentVolumeClaim), list_type="atomic"),
        Field("serviceName", 5, STRING, omitempty=False),
        Field("podManagementPolicy", 6, STRING),
        Field("updateStrategy", 7, StatefulSetUpdateStrategy),
        Field("revisionHistoryLimit", 8, INT32, nullable=True),
        Field("minReadySeconds", 9, INT32),
        Field(
            "persistentVolumeClaimRetentionPolicy", 10, StatefulSetPersistentVolumeClaimRetentionPolicy, nullable=True
        ),
        Field("ordinals", 11, StatefulSetOrdinals, nullable=True),
    ],
)

StatefulSetCondition = Struct(
    _PKG,
    "StatefulSetCondition",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("status", 2, STRING, omitempty=False, required=True),
        Field("lastTransitionTime", 3, TIME),
        Field("reason", 4, STRING),
        Field("message", 5, STRING),
    ],
)

StatefulSetStatus = Struct(
    _PKG,
    "StatefulSetStatus",
    [
        Field("observedGeneration", 1, INT64),
        Field("replicas", 2, INT32, omitempty=False, required=True),
        Field("readyReplicas", 3, INT32),
        Field("currentReplicas", 4, INT32),
        Field("updatedReplicas", 5, INT32),
        Field("currentRevision", 6, STRING),
        Field("updateRevision", 7, STRING),
        Field("collisionCount", 9, INT32, nullable=True),
        Field(
            "conditions",
            10,
            ListOf(StatefulSetCondition),
            list_type="map",
            list_map_keys=("type",),
            patch_strategy="merge",
            patch_merge_key="type",
        ),
        Field("availableReplicas", 11, INT32, omitempty=False),
    ],
)

StatefulSet = Struct(
    _PKG,
    "StatefulSet",
    [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, StatefulSetSpec), Field("status", 3, StatefulSetStatus)],
    kind=True,
)

StatefulSetList = Struct(
    _PKG,
    "StatefulSetList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(StatefulSet), omitempty=False, required=True)],
    kind=True,
)

RollingUpdateDaemonSet = Struct(
    _PKG,
    "RollingUpdateDaemonSet",
    [Field("maxUnavailable", 1, INT_OR_STRING, nullable=True), Field("maxSurge", 2, INT_OR_STRING, nullable=True)],
)

DaemonSetUpdateStrategy = Struct(
    _PKG,
    "DaemonSetUpdateStrategy",
    [Field("type", 1, STRING), Field("rollingUpdate", 2, RollingUpdateDaemonSet, nullable=True)],
)

DaemonSetSpec = Struct(
    _PKG,
    "DaemonSetSpec",
    [
        Field("selector", 1, meta.LabelSelector, nullable=True, omitempty=False, required=True),
        Field("template", 2, core.PodTemplateSpec, omitempty=False, required=True),
        Field("updateStrategy", 3, DaemonSetUpdateStrategy),
        Field("minReadySeconds", 4, INT32),
        Field("revisionHistoryLimit", 6, INT32, nullable=True),
    ],
)

DaemonSetCondition = Struct(
    _PKG,
    "DaemonSetCondition",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("status", 2, STRING, omitempty=False, required=True),
        Field("lastTransitionTime", 3, TIME),
        Field("reason", 4, STRING),
        Field("message", 5, STRING),
    ],
)

DaemonSetStatus = Struct(
    _PKG,
    "DaemonSetStatus",
    [
        Field("currentNumberScheduled", 1, INT32, omitempty=False, required=True),
        Field("numberMisscheduled", 2, INT32, omitempty=False, required=True),
        Field("desiredNumberScheduled", 3, INT32, omitempty=False, required=True),
        Field("numberReady", 4, INT32, omitempty=False, required=True),
        Field("observedGeneration", 5, INT64),
        Field("updatedNumberScheduled", 6, INT32),
        Field("numberAvailable", 7, INT32),
        Field("numberUnavailable", 8, INT32),
        Field("collisionCount", 9, INT32, nullable=True),
        Field(
            "conditions",
            10,
            ListOf(DaemonSetCondition),
            list_type="map",
            list_map_keys=("type",),
            patch_strategy="merge",
            patch_merge_key="type",
        ),
    ],
)

DaemonSet = Struct(
    _PKG,
    "DaemonSet",
    [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, DaemonSetSpec), Field("status", 3, DaemonSetStatus)],
    kind=True,
)

DaemonSetList = Struct(
    _PKG,
    "DaemonSetList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(DaemonSet), omitempty=False, required=True)],
    kind=True,
)

ControllerRevision = Struct(
    _PKG,
    "ControllerRevision",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("data", 2, RAW_EXTENSION),
        Field("revision", 3, INT64, omitempty=False, required=True),
    ],
    kind=True,
)

ControllerRevisionList = Struct(
    _PKG,
    "ControllerRevisionList",
    [
        Field("metadata", 1, meta.ListMeta),
        Field("items", 2, ListOf(ControllerRevision), omitempty=False, required=True),
    ],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {
    "Deployment": Deployment,
    "DeploymentList": DeploymentList,
    "ReplicaSet": ReplicaSet,
    "ReplicaSetList": ReplicaSetList,
    "StatefulSet": StatefulSet,
    "StatefulSetList": StatefulSetList,
    "DaemonSet": DaemonSet,
    "DaemonSetList": DaemonSetList,
    "ControllerRevision": ControllerRevision,
    "ControllerRevisionList": ControllerRevisionList,
}
