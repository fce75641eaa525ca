"""core/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import meta
from .types import BOOL, INT32, INT64, QUANTITY, STRING, Field, ListOf, MapOf, Struct

_PKG = "core/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = ""
GROUP_IN_DOMAIN = False
VERSION = "v1"


ObjectReference = Struct(
    _PKG,
    "ObjectReference",
    [
        Field("kind", 1, STRING),
        Field("namespace", 2, STRING),
        Field("name", 3, STRING),
        Field("uid", 4, STRING),
        Field("apiVersion", 5, STRING),
        Field("resourceVersion", 6, STRING),
        Field("fieldPath", 7, STRING),
    ],
    struct_type="atomic",
)

LocalObjectReference = Struct(_PKG, "LocalObjectReference", [Field("name", 1, STRING)], struct_type="atomic")

HostPathVolumeSource = Struct(
    _PKG,
    "HostPathVolumeSource",
    [Field("path", 1, STRING, omitempty=False, required=True), Field("type", 2, STRING, nullable=True)],
)

EmptyDirVolumeSource = Struct(
    _PKG, "EmptyDirVolumeSource", [Field("medium", 1, STRING), Field("sizeLimit", 2, QUANTITY, nullable=True)]
)

GCEPersistentDiskVolumeSource = Struct(
    _PKG,
    "GCEPersistentDiskVolumeSource",
    [
        Field("pdName", 1, STRING, omitempty=False, required=True),
        Field("fsType", 2, STRING),
        Field("partition", 3, INT32),
        Field("readOnly", 4, BOOL),
    ],
)

AWSElasticBlockStoreVolumeSource = Struct(
    _PKG,
    "AWSElasticBlockStoreVolumeSource",
    [
        Field("volumeID", 1, STRING, omitempty=False, required=True),
        Field("fsType", 2, STRING),
        Field("partition", 3, INT32),
        Field("readOnly", 4, BOOL),
    ],
)

GitRepoVolumeSource = Struct(
    _PKG,
    "GitRepoVolumeSource",
    [
        Field("repository", 1, STRING, omitempty=False, required=True),
        Field("revision", 2, STRING),
        Field("directory", 3, STRING),
    ],
)

KeyToPath = Struct(
    _PKG,
    "KeyToPath",
    [
        Field("key", 1, STRING, omitempty=False, required=True),
        Field("path", 2, STRING, omitempty=False, required=True),
        Field("mode", 3, INT32, nullable=True),
    ],
)

SecretVolumeSource = Struct(
    _PKG,
    "SecretVolumeSource",
    [
        Field("secretName", 1, STRING),
        Field("items", 2, ListOf(KeyToPath), list_type="atomic"),
        Field("defaultMode", 3, INT32, nullable=True),
        Field("optional", 4, BOOL, nullable=True),
    ],
)

NFSVolumeSource = Struct(
    _PKG,
    "NFSVolumeSource",
    [
        Field("server", 1, STRING, omitempty=False, required=True),
        Field("path", 2, STRING, omitempty=False, required=True),
        Field("readOnly", 3, BOOL),
    ],
)

ISCSIVolumeSource = Struct(
    _PKG,
    "ISCSIVolumeSource",
    [
        Field("targetPortal", 1, STRING, omitempty=False, required=True),
        Field("iqn", 2, STRING, omitempty=False, required=True),
        Field("lun", 3, INT32, omitempty=False, required=True),
        Field("iscsiInterface", 4, STRING),
        Field("fsType", 5, STRING),
        Field("readOnly", 6, BOOL),
        Field("portals", 7, ListOf(STRING), list_type="atomic"),
        Field("chapAuthDiscovery", 8, BOOL),
        Field("chapAuthSession", 11, BOOL),
        Field("secretRef", 10, LocalObjectReference, nullable=True),
        Field("initiatorName", 12, STRING, nullable=True),
    ],
)

GlusterfsVolumeSource = Struct(
    _PKG,
    "GlusterfsVolumeSource",
    [
        Field("endpoints", 1, STRING, omitempty=False, required=True),
        Field("path", 2, STRING, omitempty=False, required=True),
        Field("readOnly", 3, BOOL),
    ],
)

PersistentVolumeClaimVolumeSource = Struct(
    _PKG,
    "PersistentVolumeClaimVolumeSource",
    [Field("claimName", 1, STRING, omitempty=False, required=True), Field("readOnly", 2, BOOL)],
)

RBDVolumeSource = Struct(
    _PKG,
    "RBDVolumeSource",
    [
        Field("monitors", 1, ListOf(STRING), omitempty=False, required=True, list_type="atomic"),
        Field("image", 2, STRING, omitempty=False, required=True),
        Field("fsType", 3, STRING),
        Field("pool", 4, STRING),
        Field("user", 5, STRING),
        Field("keyring", 6, STRING),
        Field("secretRef", 7, LocalObjectReference, nullable=True),
        Field("readOnly", 8, BOOL),
    ],
)

FlexVolumeSource = Struct(
    _PKG,
    "FlexVolumeSource",
    [
        Field("driver", 1, STRING, omitempty=False, required=True),
        Field("fsType", 2, STRING),
        Field("secretRef", 3, LocalObjectReference, nullable=True),
        Field("readOnly", 4, BOOL),
        Field("options", 5, MapOf(STRING)),
    ],
)

CinderVolumeSource = Struct(
    _PKG,
    "CinderVolumeSource",
    [
        Field("volumeID", 1, STRING, omitempty=False, required=True),
        Field("fsType", 2, STRING),
        Field("readOnly", 3, BOOL),
        Field("secretRef", 4, LocalObjectReference, nullable=True),
    ],
)

CephFSVolumeSource = Struct(
    _PKG,
    "CephFSVolumeSource",
    [
        Field("monitors", 1, ListOf(STRING), omitempty=False, required=True, list_type="atomic"),
        Field("path", 2, STRING),
        Field("user", 3, STRING),
        Field("secretFile", 4, STRING),
        Field("secretRef", 5, LocalObjectReference, nullable=True),
        Field("readOnly", 6, BOOL),
    ],
)

FlockerVolumeSource = Struct(
    _PKG, "FlockerVolumeSource", [Field("datasetName", 1, STRING), Field("datasetUUID", 2, STRING)]
)

ObjectFieldSelector = Struct(
    _PKG,
    "ObjectFieldSelector",
    [Field("apiVersion", 1, STRING), Field("fieldPath", 2, STRING, omitempty=False, required=True)],
    struct_type="atomic",
)

ResourceFieldSelector = Struct(
    _PKG,
    "ResourceFieldSelector",
    [
        Field("containerName", 1, STRING),
        Field("resource", 2, STRING, omitempty=False, required=True),
        Field("divisor", 3, QUANTITY),
    ],
    struct_type="atomic",
)

DownwardAPIVolumeFile = Struct(
    _PKG,
    "DownwardAPIVolumeFile",
    [
        Field("path", 1, STRING, omitempty=False, required=True),
        Field("fieldRef", 2, ObjectFieldSelector, nullable=True),
        Field("resourceFieldRef", 3, ResourceFieldSelector, nullable=True),
        Field("mode", 4, INT32, nullable=True),
    ],
)

DownwardAPIVolumeSource = Struct(
    _PKG,
    "DownwardAPIVolumeSource",
    [
        Field("items", 1, ListOf(DownwardAPIVolumeFile), list_type="atomic"),
        Field("defaultMode", 2, INT32, nullable=True),
    ],
)

FCVolumeSource = Struct(
    _PKG,
    "FCVolumeSource",
    [
        Field("targetWWNs", 1, ListOf(STRING), list_type="atomic"),
        Field("lun", 2, INT32, nullable=True),
        Field("fsType", 3, STRING),
        Field("readOnly", 4, BOOL),
        Field("wwids", 5, ListOf(STRING), list_type="atomic"),
    ],
)

AzureFileVolumeSource = Struct(
    _PKG,
    "AzureFileVolumeSource",
    [
        Field("secretName", 1, STRING, omitempty=False, required=True),
        Field("shareName", 2, STRING, omitempty=False, required=True),
        Field("readOnly", 3, BOOL),
    ],
)

ConfigMapVolumeSource = Struct(
    _PKG,
    "ConfigMapVolumeSource",
    [
        Field("localObjectReference", 1, LocalObjectReference, inline=True),
        Field("items", 2, ListOf(KeyToPath), list_type="atomic"),
        Field("defaultMode", 3, INT32, nullable=True),
        Field("optional", 4, BOOL, nullable=True),
    ],
)

VsphereVirtualDiskVolumeSource = Struct(
    _PKG,
    "VsphereVirtualDiskVolumeSource",
    [
        Field("volumePath", 1, STRING, omitempty=False, required=True),
        Field("fsType", 2, STRING),
        Field("storagePolicyName", 3, STRING),
        Field("storagePolicyID", 4, STRING),
    ],
)

QuobyteVolumeSource = Struct(
    _PKG,
    "QuobyteVolumeSource",
    [
        Field("registry", 1, STRING, omitempty=False, required=True),
        Field("volume", 2, STRING, omitempty=False, required=True),
        Field("readOnly", 3, BOOL),
        Field("user", 4, STRING),
        Field("group", 5, STRING),
        Field("tenant", 6, STRING),
    ],
)

AzureDiskVolumeSource = Struct(
    _PKG,
    "AzureDiskVolumeSource",
    [
        Field("diskName", 1, STRING, omitempty=False, required=True),
        Field("diskURI", 2, STRING, omitempty=False, required=True),
        Field("cachingMode", 3, STRING, nullable=True),
        Field("fsType", 4, STRING, nullable=True),
        Field("readOnly", 5, BOOL, nullable=True),
        Field("kind", 6, STRING, nullable=True),
    ],
)

PhotonPersistentDiskVolumeSource = Struct(
    _PKG,
    "PhotonPersistentDiskVolumeSource",
    [Field("pdID", 1, STRING, omitempty=False, required=True), Field("fsType", 2, STRING)],
)

SecretProjection = Struct(
    _PKG,
    "SecretProjection",
    [
        Field("localObjectReference", 1, LocalObjectReference, inline=True),
        Field("items", 2, ListOf(KeyToPath), list_type="atomic"),
        Field("optional", 4, BOOL, nullable=True),
    ],
)

DownwardAPIProjection = Struct(
    _PKG, "DownwardAPIProjection", [Field("items", 1, ListOf(DownwardAPIVolumeFile), list_type="atomic")]
)

ConfigMapProjection = Struct(
    _PKG,
    "ConfigMapProjection",
    [
        Field("localObjectReference", 1, LocalObjectReference, inline=True),
        Field("items", 2, ListOf(KeyToPath), list_type="atomic"),
        Field("optional", 4, BOOL, nullable=True),
    ],
)

ServiceAccountTokenProjection = Struct(
    _PKG,
    "ServiceAccountTokenProjection",
    [
        Field("audience", 1, STRING),
        Field("expirationSeconds", 2, INT64, nullable=True),
        Field("path", 3, STRING, omitempty=False, required=True),
    ],
)

ClusterTrustBundleProjection = Struct(
    _PKG,
    "ClusterTrustBundleProjection",
    [
        Field("name", 1, STRING, nullable=True),
        Field("signerName", 2, STRING, nullable=True),
        Field("labelSelector", 3, meta.LabelSelector, nullable=True),
        Field("optional", 5, BOOL, nullable=True),
        Field("path", 4, STRING, omitempty=False, required=True),
    ],
)

PodCertificateProjection = Struct(
    _PKG,
    "PodCertificateProjection",
    [
        Field("signerName", 1, STRING, required=True),
        Field("keyType", 2, STRING, required=True),
        Field("maxExpirationSeconds", 3, INT32, nullable=True),
        Field("credentialBundlePath", 4, STRING),
        Field("keyPath", 5, STRING),
        Field("certificateChainPath", 6, STRING),
        Field("userAnnotations", 7, MapOf(STRING)),
    ],
)

VolumeProjection = Struct(
    _PKG,
    "VolumeProjection",
    [
        Field("secret", 1, SecretProjection, nullable=True),
        Field("downwardAPI", 2, DownwardAPIProjection, nullable=True),
        Field("configMap", 3, ConfigMapProjection, nullable=True),
        Field("serviceAccountToken", 4, ServiceAccountTokenProjection, nullable=True),
        Field("clusterTrustBundle", 5, ClusterTrustBundleProjection, nullable=True),
        Field("podCertificate", 6, PodCertificateProjection, nullable=True),
    ],
)

ProjectedVolumeSource = Struct(
    _PKG,
    "ProjectedVolumeSource",
    [
        Field("sources", 1, ListOf(VolumeProjection), omitempty=False, list_type="atomic"),
        Field("defaultMode", 2, INT32, nullable=True),
    ],
)

PortworxVolumeSource = Struct(
    _PKG,
    "PortworxVolumeSource",
    [
        Field("volumeID", 1, STRING, omitempty=False, required=True),
        Field("fsType", 2, STRING),
        Field("readOnly", 3, BOOL),
    ],
)

ScaleIOVolumeSource = Struct(
    _PKG,
    "ScaleIOVolumeSource",
    [
        Field("gateway", 1, STRING, omitempty=False, required=True),
        Field("system", 2, STRING, omitempty=False, required=True),
        Field("secretRef", 3, LocalObjectReference, nullable=True, omitempty=False, required=True),
        Field("sslEnabled", 4, BOOL),
        Field("protectionDomain", 5, STRING),
        Field("storagePool", 6, STRING),
        Field("storageMode", 7, STRING),
        Field("volumeName", 8, STRING),
        Field("fsType", 9, STRING),
        Field("readOnly", 10, BOOL),
    ],
)

StorageOSVolumeSource = Struct(
    _PKG,
    "StorageOSVolumeSource",
    [
        Field("volumeName", 1, STRING),
        Field("volumeNamespace", 2, STRING),
        Field("fsType", 3, STRING),
        Field("readOnly", 4, BOOL),
        Field("secretRef", 5, LocalObjectReference, nullable=True),
    ],
)

CSIVolumeSource = Struct(
    _PKG,
    "CSIVolumeSource",
    [
        Field("driver", 1, STRING, omitempty=False, required=True),
        Field("readOnly", 2, BOOL, nullable=True),
        Field("fsType", 3, STRING, nullable=True),
        Field("volumeAttributes", 4, MapOf(STRING)),
        Field("nodePublishSecretRef", 5, LocalObjectReference, nullable=True),
    ],
)

VolumeResourceRequirements = Struct(
    _PKG, "VolumeResourceRequirements", [Field("limits", 1, MapOf(QUANTITY)), Field("requests", 2, MapOf(QUANTITY))]
)

TypedLocalObjectReference = Struct(
    _PKG,
    "TypedLocalObjectReference",
    [
        Field("apiGroup", 1, STRING, nullable=True, omitempty=False),
        Field("kind", 2, STRING, omitempty=False, required=True),
        Field("name", 3, STRING, omitempty=False, required=True),
    ],
    struct_type="atomic",
)

TypedObjectReference = Struct(
    _PKG,
    "TypedObjectReference",
    [
        Field("apiGroup", 1, STRING, nullable=True, omitempty=False),
        Field("kind", 2, STRING, omitempty=False, required=True),
        Field("name", 3, STRING, omitempty=False, required=True),
        Field("namespace", 4, STRING, nullable=True),
    ],
)

PersistentVolumeClaimSpec = Struct(
    _PKG,
    "PersistentVolumeClaimSpec",
    [
        Field("accessModes", 1, ListOf(STRING), list_type="atomic"),
        Field("selector", 4, meta.LabelSelector, nullable=True),
        Field("resources", 2, VolumeResourceRequirements),
        Field("volumeName", 3, STRING),
        Field("storageClassName", 5, STRING, nullable=True),
        Field("volumeMode", 6, STRING, nullable=True),
        Field("dataSource", 7, TypedLocalObjectReference, nullable=True),
        Field("dataSourceRef", 8, TypedObjectReference, nullable=True),
        Field("volumeAttributesClassName", 9, STRING, nullable=True),
    ],
)

PersistentVolumeClaimTemplate = Struct(
    _PKG,
    "PersistentVolumeClaimTemplate",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, PersistentVolumeClaimSpec, omitempty=False, required=True),
    ],
)

EphemeralVolumeSource = Struct(
    _PKG, "EphemeralVolumeSource", [Field("volumeClaimTemplate", 1, PersistentVolumeClaimTemplate, nullable=True)]
)

ImageVolumeSource = Struct(_PKG, "ImageVolumeSource", [Field("reference", 1, STRING), Field("pullPolicy", 2, STRING)])

VolumeSource = Struct(
    _PKG,
    "VolumeSource",
    [
        Field("hostPath", 1, HostPathVolumeSource, nullable=True),
        Field("emptyDir", 2, EmptyDirVolumeSource, nullable=True),
        Field("gcePersistentDisk", 3, GCEPersistentDiskVolumeSource, nullable=True),
        Field("awsElasticBlockStore", 4, AWSElasticBlockStoreVolumeSource, nullable=True),
        Field("gitRepo", 5, GitRepoVolumeSource, nullable=True),
        Field("secret", 6, SecretVolumeSource, nullable=True),
        Field("nfs", 7, NFSVolumeSource, nullable=True),
        Field("iscsi", 8, ISCSIVolumeSource, nullable=True),
        Field("glusterfs", 9, GlusterfsVolumeSource, nullable=True),
        Field("persistentVolumeClaim", 10, PersistentVolumeClaimVolumeSource, nullable=True),
        Field("rbd", 11, RBDVolumeSource, nullable=True),
        Field("flexVolume", 12, FlexVolumeSource, nullable=True),
        Field("cinder", 13, CinderVolumeSource, nullable=True),
        Field("cephfs", 14, CephFSVolumeSource, nullable=True),
        Field("flocker", 15, FlockerVolumeSource, nullable=True),
        Field("downwardAPI", 16, DownwardAPIVolumeSource, nullable=True),
        Field("fc", 17, FCVolumeSource, nullable=True),
        Field("azureFile", 18, AzureFileVolumeSource, nullable=True),
        Field("configMap", 19, ConfigMapVolumeSource, nullable=True),
        Field("vsphereVolume", 20, VsphereVirtualDiskVolumeSource, nullable=True),
        Field("quobyte", 21, QuobyteVolumeSource, nullable=True),
        Field("azureDisk", 22, AzureDiskVolumeSource, nullable=True),
        Field("photonPersistentDisk", 23, PhotonPersistentDiskVolumeSource, nullable=True),
        Field("projected", 26, ProjectedVolumeSource, nullable=True),
        Field("portworxVolume", 24, PortworxVolumeSource, nullable=True),
        Field("scaleIO", 25, ScaleIOVolumeSource, nullable=True),
        Field("storageos", 27, StorageOSVolumeSource, nullable=True),
        Field("csi", 28, CSIVolumeSource, nullable=True),
        Field("ephemeral", 29, EphemeralVolumeSource, nullable=True),
        Field("image", 30, ImageVolumeSource, nullable=True),
    ],
)

Volume = Struct(
    _PKG,
    "Volume",
    [Field("name", 1, STRING, omitempty=False, required=True), Field("volumeSource", 2, VolumeSource, inline=True)],
)

NodeSelectorRequirement = Struct(
    _PKG,
    "NodeSelectorRequirement",
    [
        Field("key", 1, STRING, omitempty=False, required=True),
        Field("operator", 2, STRING, omitempty=False, required=True),
        Field("values", 3, ListOf(STRING), list_type="atomic"),
    ],
)

NodeSelectorTerm = Struct(
    _PKG,
    "NodeSelectorTerm",
    [
        Field("matchExpressions", 1, ListOf(NodeSelectorRequirement), list_type="atomic"),
        Field("matchFields", 2, ListOf(NodeSelectorRequirement), list_type="atomic"),
    ],
    struct_type="atomic",
)

NodeSelector = Struct(
    _PKG,
    "NodeSelector",
    [Field("nodeSelectorTerms", 1, ListOf(NodeSelectorTerm), omitempty=False, required=True, list_type="atomic")],
    struct_type="atomic",
)

GlusterfsPersistentVolumeSource = Struct(
    _PKG,
    "GlusterfsPersistentVolumeSource",
    [
        Field("endpoints", 1, STRING, omitempty=False, required=True),
        Field("path", 2, STRING, omitempty=False, required=True),
        Field("readOnly", 3, BOOL),
        Field("endpointsNamespace", 4, STRING, nullable=True),
    ],
)

SecretReference = Struct(
    _PKG, "SecretReference", [Field("name", 1, STRING), Field("namespace", 2, STRING)], struct_type="atomic"
)

RBDPersistentVolumeSource = Struct(
    _PKG,
    "RBDPersistentVolumeSource",
    [
        Field("monitors", 1, ListOf(STRING), omitempty=False, required=True, list_type="atomic"),
        Field("image", 2, STRING, omitempty=False, required=True),
        Field("fsType", 3, STRING),
        Field("pool", 4, STRING),
        Field("user", 5, STRING),
        Field("keyring", 6, STRING),
        Field("secretRef", 7, SecretReference, nullable=True),
        Field("readOnly", 8, BOOL),
    ],
)

ISCSIPersistentVolumeSource = Struct(
    _PKG,
    "ISCSIPersistentVolumeSource",
    [
        Field("targetPortal", 1, STRING, omitempty=False, required=True),
        Field("iqn", 2, STRING, omitempty=False, required=True),
        Field("lun", 3, INT32, omitempty=False, required=True),
        Field("iscsiInterface", 4, STRING),
        Field("fsType", 5, STRING),
        Field("readOnly", 6, BOOL),
        Field("portals", 7, ListOf(STRING), list_type="atomic"),
        Field("chapAuthDiscovery", 8, BOOL),
        Field("chapAuthSession", 11, BOOL),
        Field("secretRef", 10, SecretReference, nullable=True),
        Field("initiatorName", 12, STRING, nullable=True),
    ],
)

CinderPersistentVolumeSource = Struct(
    _PKG,
    "CinderPersistentVolumeSource",
    [
        Field("volumeID", 1, STRING, omitempty=False, required=True),
        Field("fsType", 2, STRING),
        Field("readOnly", 3, BOOL),
        Field("secretRef", 4, SecretReference, nullable=True),
    ],
)

CephFSPersistentVolumeSource = Struct(
    _PKG,
    "CephFSPersistentVolumeSource",
    [
        Field("monitors", 1, ListOf(STRING), omitempty=False, required=True, list_type="atomic"),
        Field("path", 2, STRING),
        Field("user", 3, STRING),
        Field("secretFile", 4, STRING),
        Field("secretRef", 5, SecretReference, nullable=True),
        Field("readOnly", 6, BOOL),
    ],
)

FlexPersistentVolumeSource = Struct(
    _PKG,
    "FlexPersistentVolumeSource",
    [
        Field("driver", 1, STRING, omitempty=False, required=True),
        Field("fsType", 2, STRING),
        Field("secretRef", 3, SecretReference, nullable=True),
        Field("readOnly", 4, BOOL),
        Field("options", 5, MapOf(STRING)),
    ],
)

AzureFilePersistentVolumeSource = Struct(
    _PKG,
    "AzureFilePersistentVolumeSource",
    [
        Field("secretName", 1, STRING, omitempty=False, required=True),
        Field("shareName", 2, STRING, omitempty=False, required=True),
        Field("readOnly", 3, BOOL),
        Field("secretNamespace", 4, STRING, nullable=True, omitempty=False),
    ],
)

ScaleIOPersistentVolumeSource = Struct(
    _PKG,
    "ScaleIOPersistentVolumeSource",
    [
        Field("gateway", 1, STRING, omitempty=False, required=True),
        Field("system", 2, STRING, omitempty=False, required=True),
        Field("secretRef", 3, SecretReference, nullable=True, omitempty=False, required=True),
        Field("sslEnabled", 4, BOOL),
        Field("protectionDomain", 5, STRING),
        Field("storagePool", 6, STRING),
        Field("storageMode", 7, STRING),
        Field("volumeName", 8, STRING),
        Field("fsType", 9, STRING),
        Field("readOnly", 10, BOOL),
    ],
)

LocalVolumeSource = Struct(
    _PKG,
    "LocalVolumeSource",
    [Field("path", 1, STRING, omitempty=False, required=True), Field("fsType", 2, STRING, nullable=True)],
)

StorageOSPersistentVolumeSource = Struct(
    _PKG,
    "StorageOSPersistentVolumeSource",
    [
        Field("volumeName", 1, STRING),
        Field("volumeNamespace", 2, STRING),
        Field("fsType", 3, STRING),
        Field("readOnly", 4, BOOL),
        Field("secretRef", 5, ObjectReference, nullable=True),
    ],
)

CSIPersistentVolumeSource = Struct(
    _PKG,
    "CSIPersistentVolumeSource",
    [
        Field("driver", 1, STRING, omitempty=False, required=True),
        Field("volumeHandle", 2, STRING, omitempty=False, required=True),
        Field("readOnly", 3, BOOL),
        Field("fsType", 4, STRING),
        Field("volumeAttributes", 5, MapOf(STRING)),
        Field("controllerPublishSecretRef", 6, SecretReference, nullable=True),
        Field("nodeStageSecretRef", 7, SecretReference, nullable=True),
        Field("nodePublishSecretRef", 8, SecretReference, nullable=True),
        Field("controllerExpandSecretRef", 9, SecretReference, nullable=True),
        Field("nodeExpandSecretRef", 10, SecretReference, nullable=True),
    ],
)

PersistentVolumeSource = Struct(
    _PKG,
    "PersistentVolumeSource",
    [
        Field("gcePersistentDisk", 1, GCEPersistentDiskVolumeSource, nullable=True),
        Field("awsElasticBlockStore", 2, AWSElasticBlockStoreVolumeSource, nullable=True),
        Field("hostPath", 3, HostPathVolumeSource, nullable=True),
        Field("glusterfs", 4, GlusterfsPersistentVolumeSource, nullable=True),
        Field("nfs", 5, NFSVolumeSource, nullable=True),
        Field("rbd", 6, RBDPersistentVolumeSource, nullable=True),
        Field("iscsi", 7, ISCSIPersistentVolumeSource, nullable=True),
        Field("cinder", 8, CinderPersistentVolumeSource, nullable=True),
        Field("cephfs", 9, CephFSPersistentVolumeSource, nullable=True),
        Field("fc", 10, FCVolumeSource, nullable=True),
        Field("flocker", 11, FlockerVolumeSource, nullable=True),
        Field("flexVolume", 12, FlexPersistentVolumeSource, nullable=True),
        Field("azureFile", 13, AzureFilePersistentVolumeSource, nullable=True),
        Field("vsphereVolume", 14, VsphereVirtualDiskVolumeSource, nullable=True),
        Field("quobyte", 15, QuobyteVolumeSource, nullable=True),
        Field("azureDisk", 16, AzureDiskVolumeSource, nullable=True),
        Field("photonPersistentDisk", 17, PhotonPersistentDiskVolumeSource, nullable=True),
        Field("portworxVolume", 18, PortworxVolumeSource, nullable=True),
        Field("scaleIO", 19, ScaleIOPersistentVolumeSource, nullable=True),
        Field("local", 20, LocalVolumeSource, nullable=True),
        Field("storageos", 21, StorageOSPersistentVolumeSource, nullable=True),
        Field("csi", 22, CSIPersistentVolumeSource, nullable=True),
    ],
)

VolumeNodeAffinity = Struct(_PKG, "VolumeNodeAffinity", [Field("required", 1, NodeSelector, nullable=True)])

PersistentVolumeSpec = Struct(
    _PKG,
    "PersistentVolumeSpec",
    [
        Field("capacity", 1, MapOf(QUANTITY)),
        Field("persistentVolumeSource", 2, PersistentVolumeSource, inline=True),
        Field("accessModes", 3, ListOf(STRING), list_type="atomic"),
        Field("claimRef", 4, ObjectReference, nullable=True),
        Field("persistentVolumeReclaimPolicy", 5, STRING),
        Field("storageClassName", 6, STRING),
        Field("mountOptions", 7, ListOf(STRING), list_type="atomic"),
        Field("volumeMode", 8, STRING, nullable=True),
        Field("nodeAffinity", 9, VolumeNodeAffinity, nullable=True),
        Field("volumeAttributesClassName", 10, STRING, nullable=True),
    ],
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {}
