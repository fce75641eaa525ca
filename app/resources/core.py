"""The core (legacy) group, `v1`: namespaces, pods, services, config, storage claims and friends."""

from __future__ import annotations

import base64
import copy
from typing import ClassVar

from ..catalog import Obj, ResourceType, Subresource, proxy_subresource, status_subresource
from ..errors import FieldError, forbidden, invalid, not_supported, required
from ..naming import Naming
from .common import (
    Getter,
    KindStrategy,
    NoSpecStrategy,
    as_list,
    base64_error,
    child,
    config_key_errors,
    dig,
    field,
    immutable,
    items,
    non_negative,
    part,
    setdefault_empty,
)
from .component_status import component_status_type
from .core_pod_connect import pod_connect_subresources
from .core_pod_writes import bindings_type, pod_write_subresources
from .core_service import ServiceStrategy
from .defaults import (
    default_pod,
    default_pvc,
    default_template,
    map_selector_string,
    parse_quantity,
    pod_qos_class,
    scale_subresource,
    template_labels,
    validate_pod_spec,
    validate_template,
)

ALL = ("all",)
NO_DELETECOLLECTION = ("create", "delete", "get", "list", "patch", "update", "watch")
QUANTITY_MSG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"]
POD_SPEC_UPDATE_MSG = (
    "pod updates may not change fields other than `spec.containers[*].image`, "
    "`spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` "
    "(only additions to existing tolerations) or `spec.terminationGracePeriodSeconds` "
    "(allow it to be set to 1 if it was previously negative)"
)
PV_SOURCES = (
    "awsElasticBlockStore",
    "azureDisk",
    "azureFile",
    "cephfs",
    "cinder",
    "csi",
    "fc",
    "flexVolume",
    "flocker",
    "gcePersistentDisk",
    "glusterfs",
    "hostPath",
    "iscsi",
    "local",
    "nfs",
    "photonPersistentDisk",
    "portworxVolume",
    "quobyte",
    "rbd",
    "scaleIO",
    "storageos",
    "vsphereVolume",
)


def quantity_errors(path: str, resources: object) -> list[FieldError]:
    if not isinstance(resources, dict):
        return []
    return [
        invalid(f"{path}[{name}]", value, QUANTITY_MSG)
        for name, value in resources.items()
        if parse_quantity(value) is None
    ]


def immutable_data_errors(obj: Obj, old: Obj, keys: tuple[str, ...]) -> list[FieldError]:
    """ConfigMaps and Secrets marked `immutable: true` keep their data and the flag itself."""
    if old.get("immutable") is not True:
        return []
    errors = []
    if obj.get("immutable") is not True:
        errors.append(forbidden("immutable", "field is immutable when `immutable` is set"))
    for key in keys:
        if obj.get(key) != old.get(key):
            errors.append(forbidden(key, "field is immutable when `immutable` is set"))
    return errors


# ----------------------------------------------------------------------------------- namespaces


class NamespaceStrategy(KindStrategy):
    generation = False
    initial_status: ClassVar[Obj] = {"phase": "Active"}
    field_selectors: ClassVar[dict[str, Getter]] = {"status.phase": field("status", "phase")}

    def prepare_for_create(self, obj: Obj) -> None:
        super().prepare_for_create(obj)
        spec = child(obj, "spec")
        finalizers = list(as_list(spec.get("finalizers")))
        if self.naming.namespace_finalizer not in finalizers:
            finalizers.append(self.naming.namespace_finalizer)
        spec["finalizers"] = finalizers
        self._label_name(obj)

    def prepare_for_update(self, obj: Obj, old: Obj) -> None:
        super().prepare_for_update(obj, old)
        # spec.finalizers only change through the finalize subresource
        _set_finalizers(obj, dig(old, "spec", "finalizers"))
        self._label_name(obj)

    def _label_name(self, obj: Obj) -> None:
        # selectors (NetworkPolicy namespaceSelector) rely on the label: it always equals the name
        name = dig(obj, "metadata", "name")
        if isinstance(name, str) and name:
            child(child(obj, "metadata"), "labels")[self.naming.namespace_name_label] = name

    def validate(self, obj: Obj) -> list[FieldError]:
        standard = {self.naming.namespace_finalizer, "orphan", "foregroundDeletion"}
        errors = []
        for i, name in enumerate(as_list(dig(obj, "spec", "finalizers"))):
            if not isinstance(name, str) or ("/" not in name and name not in standard):
                errors.append(
                    invalid(
                        f"spec.finalizers[{i}]",
                        name,
                        "name is neither a standard finalizer name nor is it fully qualified",
                    )
                )
        return errors

    def prepare_for_delete(self, obj: Obj) -> None:
        child(obj, "status")["phase"] = "Terminating"

    def pending_finalizers(self, obj: Obj) -> list[str]:
        return super().pending_finalizers(obj) + list(as_list(dig(obj, "spec", "finalizers")))


def _set_finalizers(obj: Obj, finalizers: object) -> None:
    spec = child(obj, "spec")
    if isinstance(finalizers, list) and finalizers:
        spec["finalizers"] = copy.deepcopy(finalizers)
    else:
        spec.pop("finalizers", None)


def finalize_subresource() -> Subresource:
    """`namespaces/finalize`: a written Namespace contributes only its spec.finalizers."""

    def merge(old: Obj, new: Obj) -> Obj:
        out = copy.deepcopy(old)
        _set_finalizers(out, dig(new, "spec", "finalizers"))
        return out

    return Subresource("finalize", verbs=("update",), merge=merge)


# ----------------------------------------------------------------------------------- pods


class PodStrategy(KindStrategy):
    generation = False
    field_selectors: ClassVar[dict[str, Getter]] = {
        "spec.nodeName": field("spec", "nodeName"),
        "spec.host": field("spec", "nodeName"),  # legacy alias the reference converts
        "spec.restartPolicy": field("spec", "restartPolicy"),
        "spec.schedulerName": field("spec", "schedulerName"),
        "spec.serviceAccountName": field("spec", "serviceAccountName"),
        "spec.hostNetwork": field("spec", "hostNetwork", default="false"),
        "status.phase": field("status", "phase"),
        "status.podIP": lambda obj: str(
            dig(obj, "status", "podIPs", 0, "ip", default="") or dig(obj, "status", "podIP", default="")
        ),
        "status.nominatedNodeName": field("status", "nominatedNodeName"),
    }
    #: every node agent watches its own pods: one index lookup per change instead of one filter per node
    index_fields: ClassVar[tuple[str, ...]] = ("spec.nodeName",)

    def default(self, obj: Obj) -> None:
        default_pod(obj)

    def prepare_for_update(self, obj: Obj, old: Obj) -> None:
        super().prepare_for_update(obj, old)
        # ephemeral containers change only through pods/ephemeralcontainers, as in the reference
        ephemeral = (old.get("spec") or {}).get("ephemeralContainers")
        spec = child(obj, "spec")
        if ephemeral:
            spec["ephemeralContainers"] = copy.deepcopy(ephemeral)
        else:
            spec.pop("ephemeralContainers", None)

    def prepare_for_create(self, obj: Obj) -> None:
        spec = child(obj, "spec")
        self.default(obj)
        obj["status"] = {"phase": "Pending", "qosClass": pod_qos_class(spec)}

    def validate(self, obj: Obj) -> list[FieldError]:
        return validate_pod_spec(obj.get("spec"), "spec")

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        if _mutable_pod_spec(obj.get("spec")) != _mutable_pod_spec(old.get("spec")):
            return [forbidden("spec", POD_SPEC_UPDATE_MSG)]
        return []

    def delete_grace_period(self, obj: Obj, requested: int | None) -> int | None:
        """The client's grace, else the pod's own; 0 when no node agent runs it (unscheduled or finished)."""
        period = requested if requested is not None else dig(obj, "spec", "terminationGracePeriodSeconds", default=0)
        if not dig(obj, "spec", "nodeName", default="") or dig(obj, "status", "phase") in ("Succeeded", "Failed"):
            return 0
        return 1 if int(period or 0) < 0 else int(period or 0)


def _mutable_pod_spec(spec: object) -> object:
    """The pod spec with the fields an update may change blanked out."""
    if not isinstance(spec, dict):
        return spec
    out = copy.deepcopy(spec)
    for key in ("activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds", "ephemeralContainers"):
        out.pop(key, None)
    for key in ("containers", "initContainers"):
        for c in items(out, key):
            c.pop("image", None)
    return out


class PodTemplateStrategy(KindStrategy):
    generation = False

    def default(self, obj: Obj) -> None:
        default_template(obj.get("template"))

    def validate(self, obj: Obj) -> list[FieldError]:
        return validate_template(obj.get("template"), "template")


# ----------------------------------------------------------------------------------- config


class ConfigMapStrategy(NoSpecStrategy):
    def validate(self, obj: Obj) -> list[FieldError]:
        data = obj["data"] if isinstance(obj.get("data"), dict) else {}
        binary = obj["binaryData"] if isinstance(obj.get("binaryData"), dict) else {}
        errors = config_key_errors("data", data) + config_key_errors("binaryData", binary)
        for key, value in binary.items():
            if key in data:
                errors.append(invalid(f"data[{key}]", key, "duplicate of key present in binaryData"))
            if (error := base64_error(f"binaryData[{key}]", value)) is not None:
                errors.append(error)
        return errors

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        return immutable_data_errors(obj, old, ("data", "binaryData"))


class SecretStrategy(NoSpecStrategy):
    field_selectors: ClassVar[dict[str, Getter]] = {"type": field("type")}

    def default(self, obj: Obj) -> None:
        setdefault_empty(obj, "type", "Opaque")
        string_data = obj.pop("stringData", None)
        if isinstance(string_data, dict) and string_data:
            # the v1 wire form folds stringData into data; stringData wins on a clash
            data = child(obj, "data")
            for key, value in string_data.items():
                data[key] = base64.b64encode(str(value).encode()).decode()

    def validate(self, obj: Obj) -> list[FieldError]:
        data = obj["data"] if isinstance(obj.get("data"), dict) else {}
        errors = config_key_errors("data", data)
        for key, value in data.items():
            if (error := base64_error(f"data[{key}]", value)) is not None:
                errors.append(error)
        return errors

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        return immutable("type", obj.get("type"), old.get("type")) + immutable_data_errors(obj, old, ("data",))


class ServiceAccountStrategy(NoSpecStrategy):
    def default(self, obj: Obj) -> None:
        # secret references keep only their name (the reference's cleanSecretReferences)
        if isinstance(obj.get("secrets"), list):
            obj["secrets"] = [{"name": s.get("name")} if isinstance(s, dict) else s for s in obj["secrets"]]


def token_subresource(naming: Naming) -> Subresource:
    """POST serviceaccounts/<name>/token: a TokenRequest answered with a signed token (app.auth)."""
    from ..auth.tokenrequest import token_subresource_create

    return Subresource(
        "token",
        verbs=("create",),
        kind="TokenRequest",
        group=naming.group("authentication"),
        version="v1",
        create=token_subresource_create,
    )


# ----------------------------------------------------------------------------------- nodes and events


class NodeStrategy(KindStrategy):
    generation = False
    reset_status_on_create = False  # the kubelet registers its node with a status
    field_selectors: ClassVar[dict[str, Getter]] = {
        "spec.unschedulable": field("spec", "unschedulable", default="false")
    }

    def default(self, obj: Obj) -> None:
        spec = child(obj, "spec")
        if spec.get("podCIDR") and not spec.get("podCIDRs"):
            spec["podCIDRs"] = [spec["podCIDR"]]
        elif spec.get("podCIDRs") and not spec.get("podCIDR"):
            spec["podCIDR"] = spec["podCIDRs"][0]
        status = obj.get("status")
        if isinstance(status, dict) and status.get("capacity") and "allocatable" not in status:
            status["allocatable"] = copy.deepcopy(status["capacity"])

    def validate(self, obj: Obj) -> list[FieldError]:
        errors = []
        effects = ["NoExecute", "NoSchedule", "PreferNoSchedule"]
        for i, taint in enumerate(items(part(obj, "spec"), "taints")):
            if not taint.get("key"):
                errors.append(required(f"spec.taints[{i}].key"))
            if taint.get("effect") not in effects:
                errors.append(not_supported(f"spec.taints[{i}].effect", taint.get("effect"), effects))
        return errors


def _event_source(obj: Obj) -> str:
    return str(dig(obj, "source", "component", default="") or obj.get("reportingComponent") or "")


class EventStrategy(NoSpecStrategy):
    allow_create_on_update = True
    field_selectors: ClassVar[dict[str, Getter]] = {
        **{
            f"involvedObject.{k}": field("involvedObject", k)
            for k in ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")
        },
        "reason": field("reason"),
        "reportingComponent": field("reportingComponent"),
        "source": _event_source,
        "type": field("type"),
    }

    def validate(self, obj: Obj) -> list[FieldError]:
        if not obj.get("eventTime"):
            return []
        # "new" events (with eventTime) must say who reported them and what happened
        return [
            required(name)
            for name in ("reportingComponent", "reportingInstance", "action", "reason")
            if not obj.get(name)
        ]


class EndpointsStrategy(NoSpecStrategy):
    allow_create_on_update = True

    def default(self, obj: Obj) -> None:
        for subset in items(obj, "subsets"):
            for port in items(subset, "ports"):
                setdefault_empty(port, "protocol", "TCP")

    def validate(self, obj: Obj) -> list[FieldError]:
        errors: list[FieldError] = []
        for i, subset in enumerate(items(obj, "subsets")):
            for key in ("addresses", "notReadyAddresses"):
                for j, address in enumerate(items(subset, key)):
                    if not address.get("ip"):
                        errors.append(required(f"subsets[{i}].{key}[{j}].ip"))
            for j, port in enumerate(items(subset, "ports")):
                number = port.get("port")
                if not isinstance(number, int) or not 1 <= number <= 65535:
                    errors.append(
                        invalid(f"subsets[{i}].ports[{j}].port", number or 0, "must be between 1 and 65535, inclusive")
                    )
        return errors


# ----------------------------------------------------------------------------------- storage and quota


class PersistentVolumeStrategy(KindStrategy):
    generation = False

    def default(self, obj: Obj) -> None:
        spec = child(obj, "spec")
        setdefault_empty(spec, "persistentVolumeReclaimPolicy", "Retain")
        setdefault_empty(spec, "volumeMode", "Filesystem")
        setdefault_empty(child(obj, "status"), "phase", "Pending")

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = part(obj, "spec")
        errors = []
        if not spec.get("accessModes"):
            errors.append(required("spec.accessModes"))
        errors += _access_mode_errors(spec)
        capacity = spec.get("capacity")
        if not capacity:
            errors.append(required("spec.capacity"))
        elif not isinstance(capacity, dict) or set(capacity) != {"storage"}:
            errors.append(not_supported("spec.capacity", capacity, ["storage"]))
        else:
            errors += quantity_errors("spec.capacity", capacity)
        if not any(spec.get(source) is not None for source in PV_SOURCES):
            errors.append(required("spec", "must specify a volume type"))
        policy = spec.get("persistentVolumeReclaimPolicy")
        if policy not in ("Delete", "Recycle", "Retain"):
            errors.append(not_supported("spec.persistentVolumeReclaimPolicy", policy, ["Delete", "Recycle", "Retain"]))
        return errors


def _access_mode_errors(spec: Obj) -> list[FieldError]:
    return [
        not_supported(f"spec.accessModes[{i}]", mode, ACCESS_MODES)
        for i, mode in enumerate(as_list(spec.get("accessModes")))
        if mode not in ACCESS_MODES
    ]


class PersistentVolumeClaimStrategy(KindStrategy):
    generation = False

    def default(self, obj: Obj) -> None:
        default_pvc(obj)

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = part(obj, "spec")
        errors = []
        if not spec.get("accessModes"):
            errors.append(required("spec.accessModes", "at least 1 access mode is required"))
        errors += _access_mode_errors(spec)
        requests = dig(spec, "resources", "requests", default={})
        if not isinstance(requests, dict) or "storage" not in requests:
            errors.append(required("spec.resources[storage]"))
        else:
            errors += quantity_errors("spec.resources.requests", requests)
        return errors

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        def frozen(o: Obj) -> Obj:
            spec = copy.deepcopy(o.get("spec") or {})
            resources = spec.get("resources")
            if isinstance(resources, dict):
                resources.pop("requests", None)
            if not (old.get("spec") or {}).get("volumeName"):
                spec.pop("volumeName", None)  # binding fills in the volume name once
            return spec

        if frozen(obj) != frozen(old):
            return [forbidden("spec", "spec is immutable after creation except resources.requests for bound claims")]
        return []


class ResourceQuotaStrategy(KindStrategy):
    generation = False
    initial_status: ClassVar[Obj] = {}

    def validate(self, obj: Obj) -> list[FieldError]:
        return quantity_errors("spec.hard", dig(obj, "spec", "hard"))


class LimitRangeStrategy(KindStrategy):
    generation = False
    allow_create_on_update = True

    def default(self, obj: Obj) -> None:
        for item in items(child(obj, "spec"), "limits"):
            if item.get("type") != "Container":
                continue
            # SetDefaults_LimitRangeItem: default <- max, defaultRequest <- default, then <- min
            default = dict(item.get("default") or {})
            request = dict(item.get("defaultRequest") or {})
            for key, value in (item.get("max") or {}).items():
                default.setdefault(key, value)
            for key, value in default.items():
                request.setdefault(key, value)
            for key, value in (item.get("min") or {}).items():
                request.setdefault(key, value)
            if default:
                item["default"] = default
            if request:
                item["defaultRequest"] = request

    def validate(self, obj: Obj) -> list[FieldError]:
        errors = []
        types = ["Container", "PersistentVolumeClaim", "Pod"]
        for i, item in enumerate(items(part(obj, "spec"), "limits")):
            if item.get("type") not in types:
                errors.append(not_supported(f"spec.limits[{i}].type", item.get("type"), types))
            for key in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio"):
                errors += quantity_errors(f"spec.limits[{i}].{key}", item.get(key))
        return errors


# ----------------------------------------------------------------------------------- replication controllers


class ReplicationControllerStrategy(KindStrategy):
    initial_status: ClassVar[Obj] = {"replicas": 0}
    field_selectors: ClassVar[dict[str, Getter]] = {"status.replicas": field("status", "replicas", default="0")}

    def default(self, obj: Obj) -> None:
        spec = child(obj, "spec")
        default_template(spec.get("template"))
        labels = dig(spec, "template", "metadata", "labels")
        if isinstance(labels, dict) and labels:
            if not spec.get("selector"):
                spec["selector"] = copy.deepcopy(labels)
            md = child(obj, "metadata")
            if not md.get("labels"):
                md["labels"] = copy.deepcopy(labels)
        if spec.get("replicas") is None:
            spec["replicas"] = 1

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = part(obj, "spec")
        errors = non_negative("spec.replicas", spec.get("replicas"))
        selector = spec.get("selector")
        if not selector:
            errors.append(required("spec.selector"))
        elif not isinstance(selector, dict):
            errors.append(invalid("spec.selector", selector, "must be a map of label keys to values"))
            selector = None
        template = spec.get("template")
        if not isinstance(template, dict):
            return errors + [required("spec.template")]
        labels = template_labels(template)
        if selector and any(labels.get(k) != v for k, v in selector.items()):
            errors.append(invalid("spec.template.metadata.labels", labels, "selector does not match template labels"))
        return errors + validate_template(template, "spec.template", restart_policies=["Always"])


# ----------------------------------------------------------------------------------- the group

POD = {"containers": [{"name": "app", "image": "nginx:1.21"}]}
POD_TEMPLATE = {"metadata": {"labels": {"app": "web"}}, "spec": POD}


def resource_types(naming: Naming) -> list[ResourceType]:
    status = status_subresource()
    rc_scale = scale_subresource(lambda obj: map_selector_string(dig(obj, "spec", "selector")))
    return [
        bindings_type(),
        component_status_type(naming),
        ResourceType(
            "",
            "v1",
            "ConfigMap",
            "configmaps",
            True,
            short_names=("cm",),
            strategy=ConfigMapStrategy(naming),
            example={"data": {"key": "value"}},
        ),
        ResourceType(
            "",
            "v1",
            "Endpoints",
            "endpoints",
            True,
            singular="endpoints",
            short_names=("ep",),
            strategy=EndpointsStrategy(naming),
            example={"subsets": [{"addresses": [{"ip": "10.244.0.5"}], "ports": [{"port": 80}]}]},
        ),
        ResourceType(
            "",
            "v1",
            "Event",
            "events",
            True,
            short_names=("ev",),
            strategy=EventStrategy(naming),
            example={
                "involvedObject": {"kind": "Pod", "name": "web", "apiVersion": "v1"},
                "reason": "Started",
                "message": "Started container app",
                "type": "Normal",
                "source": {"component": "kubelet"},
                "count": 1,
            },
        ),
        ResourceType(
            "",
            "v1",
            "LimitRange",
            "limitranges",
            True,
            short_names=("limits",),
            strategy=LimitRangeStrategy(naming),
            example={"spec": {"limits": [{"type": "Container", "default": {"cpu": "500m"}}]}},
        ),
        ResourceType(
            "",
            "v1",
            "Namespace",
            "namespaces",
            False,
            short_names=("ns",),
            verbs=NO_DELETECOLLECTION,
            subresources=(finalize_subresource(), status),
            strategy=NamespaceStrategy(naming),
            name_rule="label",
            return_deleted_object=True,
            has_status=True,
            example={"spec": {}},
        ),
        ResourceType(
            "",
            "v1",
            "Node",
            "nodes",
            False,
            short_names=("no",),
            subresources=(proxy_subresource("node", "NodeProxyOptions"), status),
            strategy=NodeStrategy(naming),
            has_status=True,
            example={"spec": {"podCIDR": "10.244.1.0/24"}},
        ),
        ResourceType(
            "",
            "v1",
            "PersistentVolumeClaim",
            "persistentvolumeclaims",
            True,
            short_names=("pvc",),
            subresources=(status,),
            strategy=PersistentVolumeClaimStrategy(naming),
            return_deleted_object=True,
            has_status=True,
            example={"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
        ),
        ResourceType(
            "",
            "v1",
            "PersistentVolume",
            "persistentvolumes",
            False,
            short_names=("pv",),
            subresources=(status,),
            strategy=PersistentVolumeStrategy(naming),
            return_deleted_object=True,
            has_status=True,
            example={
                "spec": {
                    "capacity": {"storage": "1Gi"},
                    "accessModes": ["ReadWriteOnce"],
                    "hostPath": {"path": "/data/pv"},
                }
            },
        ),
        ResourceType(
            "",
            "v1",
            "Pod",
            "pods",
            True,
            short_names=("po",),
            categories=ALL,
            subresources=(*pod_write_subresources(), *pod_connect_subresources(), status),
            strategy=PodStrategy(naming),
            return_deleted_object=True,
            has_status=True,
            example={"spec": copy.deepcopy(POD)},
        ),
        ResourceType(
            "",
            "v1",
            "PodTemplate",
            "podtemplates",
            True,
            strategy=PodTemplateStrategy(naming),
            return_deleted_object=True,
            example={"template": copy.deepcopy(POD_TEMPLATE)},
        ),
        ResourceType(
            "",
            "v1",
            "ReplicationController",
            "replicationcontrollers",
            True,
            short_names=("rc",),
            categories=ALL,
            subresources=(rc_scale, status),
            strategy=ReplicationControllerStrategy(naming),
            has_status=True,
            example={"spec": {"replicas": 1, "selector": {"app": "web"}, "template": copy.deepcopy(POD_TEMPLATE)}},
        ),
        ResourceType(
            "",
            "v1",
            "ResourceQuota",
            "resourcequotas",
            True,
            short_names=("quota",),
            subresources=(status,),
            strategy=ResourceQuotaStrategy(naming),
            return_deleted_object=True,
            has_status=True,
            example={"spec": {"hard": {"pods": "10", "requests.cpu": "4"}}},
        ),
        ResourceType(
            "",
            "v1",
            "Secret",
            "secrets",
            True,
            strategy=SecretStrategy(naming),
            example={"type": "Opaque", "data": {"username": "YWRtaW4="}},
        ),
        ResourceType(
            "",
            "v1",
            "ServiceAccount",
            "serviceaccounts",
            True,
            short_names=("sa",),
            subresources=(token_subresource(naming),),
            strategy=ServiceAccountStrategy(naming),
            return_deleted_object=True,
            example={},
        ),
        ResourceType(
            "",
            "v1",
            "Service",
            "services",
            True,
            short_names=("svc",),
            categories=ALL,
            verbs=NO_DELETECOLLECTION,
            strategy=ServiceStrategy(naming),
            subresources=(proxy_subresource("service", "ServiceProxyOptions"), status),
            name_rule="label",
            return_deleted_object=True,
            has_status=True,
            example={"spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}},
        ),
    ]
