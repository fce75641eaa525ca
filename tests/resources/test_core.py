"""Core v1 strategies: namespaces, pods, config, services, storage claims, controllers, selectors."""

from __future__ import annotations

import base64
import copy
import ipaddress

from .helpers import NAMING, create_ok, created, messages, rt, updated

POD = {"spec": {"containers": [{"name": "app", "image": "nginx"}]}}


# ----------------------------------------------------------------------------------- namespaces


def test_namespace_create_sets_phase_and_finalizer() -> None:
    ns = create_ok(rt("", "namespaces"), {"status": {"phase": "Terminating"}})
    assert ns["status"] == {"phase": "Active"}
    assert ns["spec"]["finalizers"] == [NAMING.namespace_finalizer]
    again = create_ok(rt("", "namespaces"), {"spec": {"finalizers": [NAMING.namespace_finalizer, "a.io/x"]}})
    assert again["spec"]["finalizers"] == [NAMING.namespace_finalizer, "a.io/x"]


def test_namespace_update_keeps_spec_finalizers_and_finalize_takes_only_them() -> None:
    kind = rt("", "namespaces")
    old = create_ok(kind, {})
    new, errors = updated(
        kind, {**old, "spec": {"finalizers": []}, "metadata": {**old["metadata"], "labels": {"a": "b"}}}, old
    )
    assert errors == [] and new["spec"]["finalizers"] == [NAMING.namespace_finalizer]
    finalize = kind.subresource("finalize")
    merged = finalize.merge(
        old, {"metadata": {"labels": {"x": "y"}}, "spec": {"finalizers": []}, "status": {"phase": "Gone"}}
    )
    assert merged["spec"] == {} and merged["status"] == old["status"] and merged["metadata"] == old["metadata"]
    kept = finalize.merge(old, {"spec": {"finalizers": ["a.io/x"]}})
    assert kept["spec"]["finalizers"] == ["a.io/x"]


def test_namespace_finalizer_names_are_checked() -> None:
    _, errors = created(rt("", "namespaces"), {"spec": {"finalizers": ["bogus"]}})
    assert messages(errors) == [
        (
            'spec.finalizers[0]: Invalid value: "bogus": name is neither a standard finalizer '
            "name nor is it fully qualified"
        )
    ]


def test_namespace_delete_hooks() -> None:
    strategy = rt("", "namespaces").strategy  # immortal namespaces: tests/admission (NamespaceLifecycle)
    ns = create_ok(rt("", "namespaces"), {"metadata": {"finalizers": ["a.io/hold"]}})
    strategy.prepare_for_delete(ns)
    assert ns["status"]["phase"] == "Terminating"
    assert strategy.pending_finalizers(ns) == ["a.io/hold", NAMING.namespace_finalizer]
    assert strategy.field_selectors["status.phase"](ns) == "Terminating"


# ----------------------------------------------------------------------------------- pods


def test_pod_create_defaults_and_status() -> None:
    pod = create_ok(rt("", "pods"), {**POD, "status": {"phase": "Running"}})
    spec = pod["spec"]
    assert (
        spec["restartPolicy"],
        spec["terminationGracePeriodSeconds"],
        spec["dnsPolicy"],
        spec["schedulerName"],
        spec["securityContext"],
        spec["enableServiceLinks"],
    ) == ("Always", 30, "ClusterFirst", "default-scheduler", {}, True)
    # the ServiceAccount and Priority admission plugins' (tests/admission/test_builtin_plugins.py)
    assert "serviceAccountName" not in spec and "priority" not in spec
    assert spec["containers"][0]["imagePullPolicy"] == "Always"
    assert pod["status"] == {"phase": "Pending", "qosClass": "BestEffort"}


def test_pod_needs_containers_with_name_and_image() -> None:
    _, errors = created(rt("", "pods"), {"spec": {"containers": [{"name": "a"}]}})
    assert messages(errors) == ["spec.containers[0].image: Required value"]
    _, errors = created(rt("", "pods"), {"spec": {}})
    assert messages(errors) == ["spec.containers: Required value"]


def test_pod_update_may_change_images_but_not_other_spec_fields() -> None:
    kind = rt("", "pods")
    old = create_ok(kind, POD)
    new = copy.deepcopy(old)
    new["spec"]["containers"][0]["image"] = "nginx:2"
    assert updated(kind, new, old)[1] == []
    new["spec"]["containers"][0]["command"] = ["sh"]
    errors = updated(kind, new, old)[1]
    assert [e.field for e in errors] == ["spec"] and "pod updates may not change fields" in errors[0].detail


def test_pod_field_selectors() -> None:
    pod = create_ok(
        rt("", "pods"),
        {"spec": {**POD["spec"], "nodeName": "n1", "hostNetwork": True, "serviceAccountName": "default"}},
    )
    pod["status"]["podIPs"] = [{"ip": "10.0.0.9"}]
    sel = rt("", "pods").strategy.field_selectors
    got = {k: f(pod) for k, f in sel.items()}
    assert got["spec.nodeName"] == "n1" and got["spec.hostNetwork"] == "true"
    assert got["spec.restartPolicy"] == "Always" and got["spec.schedulerName"] == "default-scheduler"
    assert got["spec.serviceAccountName"] == "default" and got["status.phase"] == "Pending"
    assert got["status.podIP"] == "10.0.0.9" and got["status.nominatedNodeName"] == ""
    assert sel["spec.hostNetwork"](create_ok(rt("", "pods"), POD)) == "false"


# ----------------------------------------------------------------------------------- config


def test_secret_folds_string_data_and_defaults_type() -> None:
    secret = create_ok(
        rt("", "secrets"),
        {"data": {"a": base64.b64encode(b"old").decode(), "b": "YmI="}, "stringData": {"a": "new", "c": "see"}},
    )
    assert "stringData" not in secret and secret["type"] == "Opaque"
    decoded = {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}
    assert decoded == {"a": "new", "b": "bb", "c": "see"}


def test_secret_data_must_be_base64() -> None:
    _, errors = created(rt("", "secrets"), {"data": {"ok": "YQ==", "bad": "not base64!"}})
    assert [(e.reason, e.field) for e in errors] == [("FieldValueInvalid", "data[bad]")]
    assert "not base64" not in str(errors[0])  # the value itself is never echoed


def test_secret_keys_type_and_immutability() -> None:
    kind = rt("", "secrets")
    _, errors = created(kind, {"data": {"bad key": "YQ=="}})
    assert errors[0].field == "data[bad key]" and "valid config key" in errors[0].detail
    old = create_ok(kind, {"type": "Opaque", "data": {"a": "YQ=="}, "immutable": True})
    new = {**copy.deepcopy(old), "type": "custom", "data": {"a": "Yg=="}}
    assert messages(updated(kind, new, old)[1]) == [
        'type: Invalid value: "custom": field is immutable',
        "data: Forbidden: field is immutable when `immutable` is set",
    ]
    assert kind.strategy.field_selectors["type"](old) == "Opaque"


def test_configmap_rules() -> None:
    kind = rt("", "configmaps")
    _, errors = created(kind, {"data": {"k": "v"}, "binaryData": {"k": "YQ==", "b": "%%"}})
    assert [e.field for e in errors] == ["data[k]", "binaryData[b]"]
    old = create_ok(kind, {"data": {"k": "v"}, "immutable": True})
    assert updated(kind, copy.deepcopy(old), old)[1] == []
    assert [e.field for e in updated(kind, {**old, "immutable": False}, old)[1]] == ["immutable"]
    assert not kind.strategy.generation


def test_service_account_secret_references_keep_only_names() -> None:
    sa = create_ok(rt("", "serviceaccounts"), {"secrets": [{"name": "tok", "namespace": "x", "uid": "u"}]})
    assert sa["secrets"] == [{"name": "tok"}]


# ----------------------------------------------------------------------------------- services


def test_service_defaults_and_cluster_ip() -> None:
    svc = create_ok(rt("", "services"), {"spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}})
    spec = svc["spec"]
    assert (
        spec["type"],
        spec["sessionAffinity"],
        spec["ipFamilyPolicy"],
        spec["ipFamilies"],
        spec["internalTrafficPolicy"],
    ) == ("ClusterIP", "None", "SingleStack", ["IPv4"], "Cluster")
    assert spec["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 80}]
    assert ipaddress.ip_address(spec["clusterIP"]) in ipaddress.ip_network("10.96.0.0/12")
    assert spec["clusterIPs"] == [spec["clusterIP"]]
    assert svc["status"] == {"loadBalancer": {}}


def test_service_cluster_ip_is_derived_from_uid() -> None:
    body = {"metadata": {"uid": "abc"}, "spec": {"ports": [{"port": 80}]}}
    assert (
        create_ok(rt("", "services"), body)["spec"]["clusterIP"]
        == create_ok(rt("", "services"), body)["spec"]["clusterIP"]
    )


def test_headless_node_port_and_external_name_services() -> None:
    kind = rt("", "services")
    headless = create_ok(kind, {"spec": {"clusterIP": "None", "selector": {"a": "b"}}})
    assert headless["spec"]["clusterIPs"] == ["None"]
    node_port = create_ok(kind, {"spec": {"type": "NodePort", "ports": [{"port": 80, "targetPort": "http"}]}})
    port = node_port["spec"]["ports"][0]
    assert 30000 <= port["nodePort"] <= 32767 and port["targetPort"] == "http"
    assert node_port["spec"]["externalTrafficPolicy"] == "Cluster"
    external = create_ok(kind, {"spec": {"type": "ExternalName", "externalName": "db.example.com"}})
    assert "clusterIP" not in external["spec"] and "ipFamilies" not in external["spec"]


def test_service_validation() -> None:
    kind = rt("", "services")
    assert messages(created(kind, {"spec": {"ports": [{"port": 0}]}})[1]) == [
        "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive"
    ]
    assert messages(created(kind, {"spec": {}})[1]) == ["spec.ports: Required value"]
    two = created(kind, {"spec": {"ports": [{"port": 80}, {"port": 81}]}})[1]
    assert [e.field for e in two] == ["spec.ports[0].name", "spec.ports[1].name"]
    outside = created(kind, {"spec": {"clusterIP": "192.168.0.1", "ports": [{"port": 80}]}})[1]
    assert "is not in the valid range" in outside[0].detail
    assert messages(created(kind, {"spec": {"type": "ExternalName"}})[1]) == ["spec.externalName: Required value"]


def test_service_update_keeps_allocations_and_forbids_ip_change() -> None:
    kind = rt("", "services")
    old = create_ok(kind, {"spec": {"type": "NodePort", "ports": [{"name": "http", "port": 80}]}})
    replaced = {"metadata": old["metadata"], "spec": {"type": "NodePort", "ports": [{"name": "http", "port": 80}]}}
    new, errors = updated(kind, replaced, old)
    assert errors == []
    assert new["spec"]["clusterIP"] == old["spec"]["clusterIP"]
    assert new["spec"]["ports"][0]["nodePort"] == old["spec"]["ports"][0]["nodePort"]
    moved = copy.deepcopy(old)
    moved["spec"]["clusterIP"] = "10.96.0.10"
    moved["spec"]["clusterIPs"] = ["10.96.0.10"]
    assert messages(updated(kind, moved, old)[1]) == [
        'spec.clusterIPs[0]: Invalid value: ["10.96.0.10"]: may not change once set'
    ]
    back = copy.deepcopy(old)
    back["spec"]["type"] = "ClusterIP"
    cluster_ip, errors = updated(kind, back, old)
    assert errors == [] and "nodePort" not in cluster_ip["spec"]["ports"][0]


# ----------------------------------------------------------------------------------- nodes, events, endpoints


def test_node_keeps_status_and_selects_unschedulable() -> None:
    kind = rt("", "nodes")
    assert kind.strategy.reset_status_on_create is False
    node = create_ok(kind, {"spec": {"podCIDR": "10.244.0.0/24"}, "status": {"capacity": {"cpu": "4"}}})
    assert node["spec"]["podCIDRs"] == ["10.244.0.0/24"]
    assert node["status"]["allocatable"] == {"cpu": "4"}
    assert kind.strategy.field_selectors["spec.unschedulable"](node) == "false"
    node["spec"]["unschedulable"] = True
    assert kind.strategy.field_selectors["spec.unschedulable"](node) == "true"


def test_core_event_field_selectors() -> None:
    kind = rt("", "events")
    event = create_ok(kind, copy.deepcopy(kind.example))
    sel = kind.strategy.field_selectors
    assert sel["involvedObject.kind"](event) == "Pod" and sel["involvedObject.name"](event) == "web"
    assert sel["involvedObject.uid"](event) == "" and sel["reason"](event) == "Started"
    assert sel["source"](event) == "kubelet" and sel["type"](event) == "Normal"
    assert sel["reportingComponent"](event) == ""
    assert kind.strategy.allow_create_on_update


def test_endpoints_default_port_protocol() -> None:
    ep = create_ok(rt("", "endpoints"), {"subsets": [{"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 80}]}]})
    assert ep["subsets"][0]["ports"][0]["protocol"] == "TCP"


# ----------------------------------------------------------------------------------- storage and quota


def test_persistent_volume_defaults_and_rules() -> None:
    kind = rt("", "persistentvolumes")
    pv = create_ok(kind, copy.deepcopy(kind.example))
    assert pv["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert pv["spec"]["volumeMode"] == "Filesystem" and pv["status"] == {"phase": "Pending"}
    assert messages(created(kind, {"spec": {}})[1]) == [
        "spec.accessModes: Required value",
        "spec.capacity: Required value",
        "spec: Required value: must specify a volume type",
    ]


def test_persistent_volume_claim_defaults_and_immutable_spec() -> None:
    kind = rt("", "persistentvolumeclaims")
    pvc = create_ok(kind, copy.deepcopy(kind.example))
    assert pvc["spec"]["volumeMode"] == "Filesystem" and pvc["status"] == {"phase": "Pending"}
    grown = copy.deepcopy(pvc)
    grown["spec"]["resources"]["requests"]["storage"] = "2Gi"
    assert updated(kind, grown, pvc)[1] == []
    changed = copy.deepcopy(pvc)
    changed["spec"]["accessModes"] = ["ReadWriteMany"]
    assert [e.field for e in updated(kind, changed, pvc)[1]] == ["spec"]
    assert messages(created(kind, {"spec": {"accessModes": ["ReadWriteOnce"]}})[1]) == [
        "spec.resources[storage]: Required value"
    ]


def test_quota_and_limit_range() -> None:
    _, errors = created(rt("", "resourcequotas"), {"spec": {"hard": {"pods": "ten"}}})
    assert [e.field for e in errors] == ["spec.hard[pods]"]
    lr = create_ok(
        rt("", "limitranges"),
        {"spec": {"limits": [{"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "1Mi"}}]}},
    )
    item = lr["spec"]["limits"][0]
    assert item["default"] == {"cpu": "2"} and item["defaultRequest"] == {"cpu": "2", "memory": "1Mi"}


# ----------------------------------------------------------------------------------- replication controllers


def test_replication_controller_defaults_from_template() -> None:
    kind = rt("", "replicationcontrollers")
    template = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "a", "image": "x"}]}}
    rc = create_ok(kind, {"spec": {"template": template}})
    assert rc["spec"]["selector"] == {"app": "web"} and rc["metadata"]["labels"] == {"app": "web"}
    assert rc["spec"]["replicas"] == 1 and rc["status"] == {"replicas": 0}
    assert rc["spec"]["template"]["spec"]["restartPolicy"] == "Always"
    assert kind.strategy.field_selectors["status.replicas"](rc) == "0"
    scale = kind.subresource("scale")
    assert scale.view(rc)["status"] == {"replicas": 0, "selector": "app=web"}


def test_replication_controller_selector_must_match() -> None:
    kind = rt("", "replicationcontrollers")
    template = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "a", "image": "x"}]}}
    errors = created(kind, {"spec": {"selector": {"app": "db"}, "template": template}})[1]
    assert messages(errors) == [
        ('spec.template.metadata.labels: Invalid value: {"app":"web"}: selector does not match template labels')
    ]
    assert created(kind, {"spec": {"replicas": -1, "template": template}})[1][0].field == "spec.replicas"
