from __future__ import annotations

from orch_apiserver.naming import Naming
from orch_apiserver.resources import build_catalog
from orch_apiserver.tables import table_for

from tests.tables.helpers import NOW, ago, cells, column_names, obj


def test_namespace_configmap_secret_serviceaccount() -> None:
    assert column_names("", "namespaces") == ["Name", "Status", "Age"]
    assert cells("", "namespaces", obj("default", status={"phase": "Active"})) == ["default", "Active", "5m"]
    cm = obj("cfg", data={"a": "1", "b": "2"}, binaryData={"c": "AA=="})
    assert cells("", "configmaps", cm) == ["cfg", 3, "5m"]
    assert cells("", "configmaps", obj("empty")) == ["empty", 0, "5m"]
    secret = obj("tls", type="orch.io/tls", data={"tls.crt": "", "tls.key": ""})
    assert column_names("", "secrets") == ["Name", "Type", "Data", "Age"]
    assert cells("", "secrets", secret) == ["tls", "orch.io/tls", 2, "5m"]
    assert cells("", "serviceaccounts", obj("default", secrets=[{"name": "tok"}])) == ["default", 1, "5m"]


def test_service_with_node_ports() -> None:
    svc = obj(
        "web",
        created=ago(days=3),
        spec={
            "type": "NodePort",
            "clusterIP": "10.96.0.10",
            "clusterIPs": ["10.96.0.10"],
            "selector": {"app": "web", "tier": "front"},
            "ports": [
                {"port": 80, "protocol": "TCP", "nodePort": 30080},
                {"port": 443, "protocol": "TCP", "nodePort": 30443},
                {"port": 53, "protocol": "UDP"},
            ],
        },
    )
    assert column_names("", "services") == ["Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector"]
    assert cells("", "services", svc) == [
        "web",
        "NodePort",
        "10.96.0.10",
        "<none>",
        "80:30080/TCP,443:30443/TCP,53/UDP",
        "3d",
        "app=web,tier=front",
    ]


def test_service_external_ips_by_type() -> None:
    pending = obj("lb", spec={"type": "LoadBalancer", "clusterIPs": ["10.96.0.11"], "ports": [{"port": 80}]})
    assert cells("", "services", pending)[2:5] == ["10.96.0.11", "<pending>", "80/TCP"]
    ready = obj(
        "lb",
        spec={"type": "LoadBalancer", "clusterIPs": ["10.96.0.11"], "externalIPs": ["1.2.3.4"]},
        status={
            "loadBalancer": {"ingress": [{"ip": "203.0.113.9"}, {"hostname": "lb.example.com"}, {"ip": "203.0.113.9"}]}
        },
    )
    assert cells("", "services", ready)[3:5] == ["203.0.113.9,lb.example.com,1.2.3.4", "<none>"]
    external = obj("db", spec={"type": "ExternalName", "externalName": "db.example.com"})
    assert cells("", "services", external)[1:4] == ["ExternalName", "<none>", "db.example.com"]
    headless = obj("h", spec={"type": "ClusterIP", "clusterIP": "None", "externalIPs": ["5.6.7.8"]})
    assert cells("", "services", headless)[2:4] == ["None", "5.6.7.8"]


def test_endpoints() -> None:
    ep = obj(
        "web",
        subsets=[
            {"addresses": [{"ip": "10.0.0.1"}, {"ip": "fd00::2"}], "ports": [{"port": 8080}]},
            {"addresses": [{"ip": "10.0.0.3"}, {"ip": "10.0.0.4"}], "ports": [{"port": 80}]},
        ],
    )
    assert cells("", "endpoints", ep) == ["web", "10.0.0.1:8080,[fd00::2]:8080,10.0.0.3:80 + 1 more...", "5m"]
    assert cells("", "endpoints", obj("none")) == ["none", "<none>", "5m"]
    headless = obj("h", subsets=[{"addresses": [{"ip": "10.0.0.1"}]}])
    assert cells("", "endpoints", headless)[1] == "10.0.0.1"


def node(labels: dict | None = None, ready: str | None = "True", unschedulable: bool = False) -> dict:
    item = obj(
        "node-1",
        created=ago(days=10),
        spec={"unschedulable": unschedulable} if unschedulable else {},
        status={
            "nodeInfo": {
                "kubeletVersion": "v1.30.1",
                "osImage": "Ubuntu 22.04",
                "kernelVersion": "6.1.0",
                "containerRuntimeVersion": "containerd://1.7.0",
            },
            "addresses": [{"type": "Hostname", "address": "node-1"}, {"type": "InternalIP", "address": "192.168.0.10"}],
            "conditions": (
                [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": ready}] if ready else []
            ),
        },
    )
    item["metadata"]["labels"] = labels or {}
    return item


def test_node() -> None:
    assert column_names("", "nodes") == [
        "Name",
        "Status",
        "Roles",
        "Age",
        "Version",
        "Internal-IP",
        "External-IP",
        "OS-Image",
        "Kernel-Version",
        "Container-Runtime",
    ]
    labels = {
        "node-role.orch.io/control-plane": "",
        "node-role.orch.io/master": "",
        "orch.io/role": "edge",
        "node-role.kubernetes.io/worker": "",
        "kubernetes.io/hostname": "node-1",
    }
    assert cells("", "nodes", node(labels)) == [
        "node-1",
        "Ready",
        "control-plane,edge,master",
        "10d",
        "v1.30.1",
        "192.168.0.10",
        "<none>",
        "Ubuntu 22.04",
        "6.1.0",
        "containerd://1.7.0",
    ]


def test_node_status_variants() -> None:
    assert cells("", "nodes", node(ready="False"))[1:3] == ["NotReady", "<none>"]
    assert cells("", "nodes", node(ready="Unknown"))[1] == "NotReady"
    assert cells("", "nodes", node(ready=None))[1] == "Unknown"
    assert cells("", "nodes", node(unschedulable=True))[1] == "Ready,SchedulingDisabled"


def test_node_roles_follow_the_configured_domain() -> None:
    naming = Naming("example.com")
    nodes = next(rt for rt in build_catalog(naming) if rt.plural == "nodes")
    item = node({"node-role.example.com/infra": "", "node-role.orch.io/ignored": ""})
    assert table_for(nodes, naming).row(item, NOW)["cells"][2] == "infra"


def test_persistent_volume() -> None:
    pv = obj(
        "pv-1",
        spec={
            "capacity": {"storage": "10Gi"},
            "accessModes": ["ReadWriteMany", "ReadWriteOnce"],
            "persistentVolumeReclaimPolicy": "Retain",
            "storageClassName": "fast",
            "claimRef": {"namespace": "default", "name": "data"},
            "volumeMode": "Filesystem",
        },
        status={"phase": "Bound"},
    )
    assert column_names("", "persistentvolumes") == [
        "Name",
        "Capacity",
        "Access Modes",
        "Reclaim Policy",
        "Status",
        "Claim",
        "StorageClass",
        "VolumeAttributesClass",
        "Reason",
        "Age",
        "VolumeMode",
    ]
    assert cells("", "persistentvolumes", pv) == [
        "pv-1",
        "10Gi",
        "RWO,RWX",
        "Retain",
        "Bound",
        "default/data",
        "fast",
        "<unset>",
        "",
        "5m",
        "Filesystem",
    ]
    pv["metadata"]["deletionTimestamp"] = ago(seconds=1)
    pv["metadata"]["annotations"] = {"volume.beta.orch.io/storage-class": "legacy"}
    assert cells("", "persistentvolumes", pv)[4:7] == ["Terminating", "default/data", "legacy"]


def test_persistent_volume_claim() -> None:
    pending = obj(
        "data",
        spec={
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": "fast",
            "resources": {"requests": {"storage": "1Gi"}},
        },
        status={"phase": "Pending"},
    )
    assert cells("", "persistentvolumeclaims", pending) == [
        "data",
        "Pending",
        "",
        "",
        "",
        "fast",
        "<unset>",
        "5m",
        "<unset>",
    ]
    bound = obj(
        "data",
        spec={"volumeName": "pv-1", "storageClassName": "fast", "volumeMode": "Block"},
        status={"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "10Gi"}},
    )
    assert cells("", "persistentvolumeclaims", bound) == [
        "data",
        "Bound",
        "pv-1",
        "10Gi",
        "RWO",
        "fast",
        "<unset>",
        "5m",
        "Block",
    ]


def test_resource_quota() -> None:
    quota = obj(
        "q",
        status={
            "hard": {"pods": "10", "requests.cpu": "4", "limits.memory": "8Gi", "limits.cpu": "8"},
            "used": {"pods": "3", "requests.cpu": "500m", "limits.cpu": "1"},
        },
    )
    assert column_names("", "resourcequotas") == ["Name", "Request", "Limit", "Age"]
    assert cells("", "resourcequotas", quota) == [
        "q",
        "pods: 3/10, requests.cpu: 500m/4",
        "limits.cpu: 1/8, limits.memory: 0/8Gi",
        "5m",
    ]


def test_pod_template() -> None:
    template = obj(
        "t",
        template={
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "a", "image": "x:1"}, {"name": "b", "image": "y"}]},
        },
    )
    assert cells("", "podtemplates", template) == ["t", "a,b", "x:1,y", "app=web"]


def test_limit_ranges_use_the_default_table() -> None:
    assert column_names("", "limitranges") == ["Name", "Created At"]
