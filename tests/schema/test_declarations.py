"""The declarations carry the reference's merge metadata and are internally consistent."""

from __future__ import annotations

import pytest
from orch_apiserver.schema import (
    SCHEMAS,
    apps,
    authentication,
    authorization,
    autoscaling,
    batch,
    certificates,
    coordination,
    core,
    core_pod,
    core_volume,
    discovery,
    events,
    meta,
    networking,
    node,
    policy,
    rbac,
    served_api_version,
    storage,
)
from orch_apiserver.schema.types import STRING, Field, ListOf, MapOf, Struct


def _field(struct: Struct, name: str) -> Field:
    found = struct.field(name)
    assert found is not None, f"{struct.qualname} has no field {name}"
    return found


@pytest.mark.parametrize(
    ("struct", "name", "list_type", "keys", "merge_key", "strategy"),
    [
        (core_pod.PodSpec, "containers", "map", ("name",), "name", "merge"),
        (core_pod.PodSpec, "initContainers", "map", ("name",), "name", "merge"),
        (core_pod.PodSpec, "volumes", "map", ("name",), "name", "merge,retainKeys"),
        (core_pod.PodSpec, "tolerations", "atomic", (), None, None),
        (core_pod.PodSpec, "imagePullSecrets", "map", ("name",), "name", "merge"),
        (core_pod.Container, "ports", "map", ("containerPort", "protocol"), "containerPort", "merge"),
        (core_pod.Container, "env", "map", ("name",), "name", "merge"),
        (core_pod.Container, "volumeMounts", "map", ("mountPath",), "mountPath", "merge"),
        (core_pod.Container, "command", "atomic", (), None, None),
        (core.PodStatus, "conditions", "map", ("type",), "type", "merge"),
        (core.ServiceSpec, "ports", "map", ("port", "protocol"), "port", "merge"),
        (core.NamespaceSpec, "finalizers", "atomic", (), None, None),
        (core.NamespaceStatus, "conditions", "map", ("type",), "type", "merge"),
        (apps.DeploymentStatus, "conditions", "map", ("type",), "type", "merge"),
        (batch.JobStatus, "conditions", "atomic", (), "type", "merge"),
        (policy.PodDisruptionBudgetStatus, "conditions", "map", ("type",), "type", "merge"),
        (meta.ObjectMeta, "finalizers", "set", (), None, "merge"),
        (meta.ObjectMeta, "ownerReferences", "map", ("uid",), "uid", "merge"),
        (meta.ObjectMeta, "managedFields", "atomic", (), None, None),
        (rbac.ClusterRole, "rules", "atomic", (), None, None),
        (rbac.RoleBinding, "subjects", "atomic", (), None, None),
        (certificates.CertificateSigningRequestStatus, "conditions", "map", ("type",), None, None),
        (certificates.CertificateSigningRequestSpec, "usages", "atomic", (), None, None),
        (discovery.EndpointSlice, "endpoints", "atomic", (), None, None),
        (discovery.Endpoint, "addresses", "set", (), None, None),
        (networking.HTTPIngressRuleValue, "paths", "atomic", (), None, None),
        (networking.NetworkPolicySpec, "policyTypes", "atomic", (), None, None),
        (storage.StorageClass, "allowedTopologies", "atomic", (), None, None),
        (node.Scheduling, "tolerations", "atomic", (), None, None),
    ],
)
def test_merge_metadata(
    struct: Struct, name: str, list_type: str, keys: tuple[str, ...], merge_key: str | None, strategy: str | None
) -> None:
    f = _field(struct, name)
    assert (f.list_type, f.list_map_keys, f.patch_merge_key, f.patch_strategy) == (list_type, keys, merge_key, strategy)


def test_struct_and_map_markers() -> None:
    assert meta.LabelSelector.struct_type == "atomic"
    assert meta.OwnerReference.struct_type == "atomic"
    assert _field(core.ServiceSpec, "selector").map_type == "atomic"
    assert _field(apps.DeploymentSpec, "strategy").patch_strategy == "retainKeys"


def test_required_and_pointer_flags() -> None:
    assert _field(core_pod.Container, "name").required
    assert not _field(meta.ObjectMeta, "name").required
    assert _field(apps.DeploymentSpec, "selector").required
    assert _field(apps.DeploymentSpec, "replicas").nullable
    assert not _field(apps.DeploymentSpec, "minReadySeconds").nullable
    assert not _field(core.ServicePort, "port").omitempty
    assert _field(meta.ObjectMeta, "creationTimestamp").omitzero
    assert _field(coordination.LeaseSpec, "leaseTransitions").nullable
    assert _field(events.Event, "eventTime").required and not _field(events.Event, "series").required
    assert _field(rbac.RoleBinding, "roleRef").required
    assert (
        _field(networking.HTTPIngressPath, "pathType").required
        and _field(networking.HTTPIngressPath, "pathType").nullable
    )
    assert _field(certificates.CertificateSigningRequestSpec, "request").required
    assert (
        _field(autoscaling.ScaleStatus, "replicas").required
        and not _field(autoscaling.ScaleStatus, "replicas").omitempty
    )
    assert networking.ServiceBackendPort.struct_type == "atomic" and rbac.Subject.struct_type == "atomic"
    assert node.Scheduling.field("nodeSelector").map_type == "atomic"  # type: ignore[union-attr]


def test_field_numbers_match_the_reference() -> None:
    numbers = {f.name: f.number for f in meta.ObjectMeta.fields}
    assert numbers == {
        "name": 1,
        "generateName": 2,
        "namespace": 3,
        "selfLink": 4,
        "uid": 5,
        "resourceVersion": 6,
        "generation": 7,
        "creationTimestamp": 8,
        "deletionTimestamp": 9,
        "deletionGracePeriodSeconds": 10,
        "labels": 11,
        "annotations": 12,
        "ownerReferences": 13,
        "finalizers": 14,
        "managedFields": 17,
    }
    assert [(f.name, f.number) for f in core.ConfigMap.fields] == [
        ("metadata", 1),
        ("immutable", 4),
        ("data", 2),
        ("binaryData", 3),
    ]  # JSON order != wire order
    assert [f.number for f in core.ConfigMap.wire_fields] == [1, 2, 3, 4]
    assert _field(core_pod.PodSpec, "containers").number == 2
    assert _field(core_pod.Container, "envFrom").number == 19


def test_inline_fields_flatten_into_the_parent() -> None:
    keys = core_volume.Volume.json_fields
    assert "emptyDir" in keys and "persistentVolumeClaim" in keys and "volumeSource" not in keys
    assert [f.name for f in keys["hostPath"]] == ["volumeSource", "hostPath"]
    assert "httpGet" in core_pod.Probe.json_fields and "name" in core_pod.ConfigMapKeySelector.json_fields


def _all_structs() -> list[Struct]:
    seen: dict[int, Struct] = {}
    for schema in SCHEMAS.values():
        for s in schema.walk():
            seen[id(s)] = s
    return list(seen.values())


def test_declarations_are_consistent() -> None:
    structs = _all_structs()
    assert len(structs) > 250
    for s in structs:
        flat = []
        for f in s.fields:
            flat += list(f.type.json_fields) if isinstance(f.type, Struct) and f.inline else [f.name]
        assert len(flat) == len(set(flat)), f"{s.qualname}: a JSON key is declared twice"
        for f in s.fields:
            if f.list_map_keys:
                assert f.list_type == "map" and isinstance(f.type, ListOf)
                item = f.type.item
                assert isinstance(item, Struct) and all(k in item.json_fields for k in f.list_map_keys)
            if isinstance(f.type, MapOf):
                assert not f.nullable


def test_every_kind_has_its_metadata_first() -> None:
    for (api_version, kind), schema in SCHEMAS.items():
        assert schema.kind, kind
        if kind not in ("DeleteOptions",) and not kind.endswith(
            ("ProxyOptions", "ExecOptions", "AttachOptions", "PortForwardOptions")
        ):  # options: no metadata
            assert schema.fields[0].name == "metadata" and schema.fields[0].number == 1, (api_version, kind)


def test_strings_are_the_most_common_leaf() -> None:
    leaves = [f.type for s in _all_structs() for f in s.fields]
    assert leaves.count(STRING) > 200


def test_review_kinds_follow_the_reference() -> None:
    extra = MapOf(ListOf(STRING, wrapped=True))
    assert _field(authentication.UserInfo, "extra").type == extra
    assert _field(authorization.SubjectAccessReviewSpec, "extra").type == extra
    spec = authentication.TokenRequestSpec
    assert (_field(spec, "expirationSeconds").number, _field(spec, "boundObjectRef").number) == (4, 3)
    assert _field(spec, "boundObjectRef").type is authentication.BoundObjectReference
    assert _field(spec, "boundObjectRef").nullable and not _field(spec, "audiences").omitempty
    assert _field(authorization.ResourceAttributes, "fieldSelector").type is authorization.FieldSelectorAttributes
    assert _field(authorization.FieldSelectorAttributes, "requirements").type == ListOf(meta.FieldSelectorRequirement)
    assert _field(authorization.SubjectAccessReviewStatus, "allowed").required
    # create-only kinds: the reference declares no <Kind>List for them
    assert set(authentication.KINDS) == {"TokenReview", "SelfSubjectReview", "TokenRequest"}
    assert set(authorization.KINDS) == {
        "SubjectAccessReview",
        "SelfSubjectAccessReview",
        "LocalSubjectAccessReview",
        "SelfSubjectRulesReview",
    }
    for module in (authentication, authorization):
        for kind in module.KINDS:
            assert (served_api_version(module), kind) in SCHEMAS
            assert (served_api_version(module), f"{kind}List") not in SCHEMAS
