from __future__ import annotations

from orch_apiserver.tables import table_for

from tests.tables.helpers import NAMING, NOW, ago, cells, column_names, obj, rt


def csr(conditions: list[str], certificate: str = "", **spec: object) -> dict:
    return obj(
        "node-csr",
        created=ago(minutes=7),
        spec={"signerName": "orch.io/kube-apiserver-client", "username": "system:admin", "request": "LS0t", **spec},
        status={
            "conditions": [{"type": t, "status": "True"} for t in conditions],
            **({"certificate": certificate} if certificate else {}),
        },
    )


def test_csr_approved_issued() -> None:
    assert column_names("certificates", "certificatesigningrequests") == [
        "Name",
        "Age",
        "SignerName",
        "Requestor",
        "RequestedDuration",
        "Condition",
    ]
    item = csr(["Approved"], certificate="LS0tLS1CRUdJTg==", expirationSeconds=86400)
    assert cells("certificates", "certificatesigningrequests", item) == [
        "node-csr",
        "7m",
        "orch.io/kube-apiserver-client",
        "system:admin",
        "24h",
        "Approved,Issued",
    ]


def test_csr_condition_precedence() -> None:
    plural = "certificatesigningrequests"
    assert cells("certificates", plural, csr([]))[4:] == ["<none>", "Pending"]
    assert cells("certificates", plural, csr(["Approved", "Denied"]))[5] == "Denied"
    assert cells("certificates", plural, csr(["Approved", "Failed"]))[5] == "Approved,Failed"
    assert cells("certificates", plural, csr([], expirationSeconds=600))[4] == "10m"
    assert cells("certificates", plural, csr([], signerName=""))[2] == "<none>"


def test_role_bindings() -> None:
    binding = obj(
        "read-pods",
        created=ago(hours=5),
        roleRef={"kind": "ClusterRole", "name": "view", "apiGroup": "rbac.authorization.orch.io"},
        subjects=[
            {"kind": "User", "name": "jane"},
            {"kind": "User", "name": "bob"},
            {"kind": "Group", "name": "devs"},
            {"kind": "ServiceAccount", "name": "builder", "namespace": "ci"},
        ],
    )
    assert column_names("rbac.authorization", "rolebindings") == [
        "Name",
        "Role",
        "Age",
        "Users",
        "Groups",
        "ServiceAccounts",
    ]
    assert cells("rbac.authorization", "rolebindings", binding) == [
        "read-pods",
        "ClusterRole/view",
        "5h",
        "jane, bob",
        "devs",
        "ci/builder",
    ]
    assert cells("rbac.authorization", "clusterrolebindings", binding)[:2] == ["read-pods", "ClusterRole/view"]
    definitions = table_for(rt("rbac.authorization", "clusterrolebindings"), NAMING).column_definitions()
    assert definitions[3]["description"] == "Users in the clusterRoleBinding"
    assert [d["priority"] for d in definitions] == [0, 0, 0, 1, 1, 1]


def test_roles_print_name_and_created_at() -> None:
    role = obj("pod-reader", created="2024-04-30T10:00:00Z", rules=[])
    assert column_names("rbac.authorization", "roles") == ["Name", "Created At"]
    assert column_names("rbac.authorization", "clusterroles") == ["Name", "Created At"]
    assert cells("rbac.authorization", "roles", role) == ["pod-reader", "2024-04-30T10:00:00Z"]


def test_core_event() -> None:
    event = obj(
        "web.17a",
        created=ago(minutes=20),
        involvedObject={"kind": "Pod", "name": "web", "fieldPath": "spec.containers{app}"},
        reason="BackOff",
        message="Back-off restarting failed container\n",
        type="Warning",
        source={"component": "kubelet", "host": "node-1"},
        count=7,
        firstTimestamp=ago(minutes=20),
        lastTimestamp=ago(seconds=30),
    )
    assert column_names("", "events") == [
        "Last Seen",
        "Type",
        "Reason",
        "Object",
        "Subobject",
        "Source",
        "Message",
        "First Seen",
        "Count",
        "Name",
    ]
    assert cells("", "events", event) == [
        "30s",
        "Warning",
        "BackOff",
        "pod/web",
        "spec.containers{app}",
        "kubelet, node-1",
        "Back-off restarting failed container",
        "20m",
        7,
        "web.17a",
    ]
    definitions = table_for(rt("", "events"), NAMING).column_definitions()
    assert definitions[-1]["format"] == "name" and definitions[-1]["priority"] == 1


def test_events_group_event_and_series() -> None:
    event = obj(
        "sched.1",
        eventTime="2024-05-01T11:58:00.000000Z",
        reportingController="scheduler",
        reportingInstance="scheduler-1",
        action="Binding",
        reason="Scheduled",
        type="Normal",
        note="Assigned default/web to node-1",
        regarding={"kind": "Pod", "name": "web"},
        series={"count": 4, "lastObservedTime": "2024-05-01T11:59:50.000000Z"},
    )
    assert cells("events", "events", event) == [
        "10s",
        "Normal",
        "Scheduled",
        "pod/web",
        "",
        "scheduler, scheduler-1",
        "Assigned default/web to node-1",
        "2m",
        4,
        "sched.1",
    ]
    single = obj(
        "e",
        eventTime="2024-05-01T11:59:00.000000Z",
        reportingController="kubelet",
        type="Normal",
        reason="Pulled",
        regarding={"kind": "Node"},
    )
    assert cells("events", "events", single)[:4] + cells("events", "events", single)[7:9] == [
        "60s",
        "Normal",
        "Pulled",
        "node",
        "60s",
        1,
    ]


def test_lease() -> None:
    assert cells("coordination", "leases", obj("node-1", spec={"holderIdentity": "node-1"})) == [
        "node-1",
        "node-1",
        "5m",
    ]
    assert cells("coordination", "leases", obj("free", spec={})) == ["free", "", "5m"]


def test_ingress() -> None:
    ing = obj(
        "web",
        spec={
            "ingressClassName": "nginx",
            "tls": [{"hosts": ["a.example.com"]}],
            "rules": [
                {"host": "a.example.com"},
                {},
                {"host": "b.example.com"},
                {"host": "c.example.com"},
                {"host": "d.example.com"},
            ],
        },
        status={"loadBalancer": {"ingress": [{"ip": "203.0.113.5"}, {"hostname": "lb.example.com"}]}},
    )
    assert column_names("networking", "ingresses") == ["Name", "Class", "Hosts", "Address", "Ports", "Age"]
    assert cells("networking", "ingresses", ing) == [
        "web",
        "nginx",
        "a.example.com,b.example.com,c.example.com + 2 more...",
        "203.0.113.5,lb.example.com",
        "80, 443",
        "5m",
    ]
    bare = obj("any", spec={"defaultBackend": {"service": {"name": "web", "port": {"number": 80}}}})
    assert cells("networking", "ingresses", bare) == ["any", "<none>", "*", "", "80", "5m"]


def test_ingress_class_network_policy_endpoint_slice() -> None:
    klass = obj(
        "nginx",
        spec={
            "controller": "example.com/ingress",
            "parameters": {"apiGroup": "k.example.com", "kind": "Params", "name": "p"},
        },
    )
    assert cells("networking", "ingressclasses", klass) == [
        "nginx",
        "example.com/ingress",
        "Params.k.example.com/p",
        "5m",
    ]
    policy = obj("deny", spec={"podSelector": {}})
    assert cells("networking", "networkpolicies", policy) == ["deny", "<none>", "5m"]
    eps = obj(
        "web-x",
        addressType="IPv4",
        endpoints=[{"addresses": ["10.0.0.1", "10.0.0.2"]}, {"addresses": ["10.0.0.3"]}, {"addresses": ["10.0.0.4"]}],
        ports=[{"name": "http", "port": 80}, {"name": "metrics"}, {}],
    )
    assert cells("discovery", "endpointslices", eps) == [
        "web-x",
        "IPv4",
        "80,metrics,*",
        "10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...",
        "5m",
    ]
    assert cells("discovery", "endpointslices", obj("e", addressType="IPv6"))[2:4] == ["<unset>", "<unset>"]


def test_pod_disruption_budget() -> None:
    pdb = obj("web", spec={"minAvailable": "50%"}, status={"disruptionsAllowed": 2})
    assert column_names("policy", "poddisruptionbudgets") == [
        "Name",
        "Min Available",
        "Max Unavailable",
        "Allowed Disruptions",
        "Age",
    ]
    assert cells("policy", "poddisruptionbudgets", pdb) == ["web", "50%", "N/A", 2, "5m"]
    assert cells("policy", "poddisruptionbudgets", obj("b", spec={"maxUnavailable": 1}))[1:4] == ["N/A", "1", 0]


def test_storage_class() -> None:
    sc = obj(
        "standard",
        provisioner="example.com/hostpath",
        reclaimPolicy="Retain",
        volumeBindingMode="WaitForFirstConsumer",
        allowVolumeExpansion=True,
    )
    sc["metadata"]["annotations"] = {"storageclass.orch.io/is-default-class": "true"}
    assert column_names("storage", "storageclasses") == [
        "Name",
        "Provisioner",
        "ReclaimPolicy",
        "VolumeBindingMode",
        "AllowVolumeExpansion",
        "Age",
    ]
    assert cells("storage", "storageclasses", sc) == [
        "standard (default)",
        "example.com/hostpath",
        "Retain",
        "WaitForFirstConsumer",
        True,
        "5m",
    ]
    plain = obj("slow", provisioner="example.com/nfs")
    assert cells("storage", "storageclasses", plain) == ["slow", "example.com/nfs", "Delete", "Immediate", False, "5m"]


def test_priority_and_runtime_classes() -> None:
    pc = obj("high", value=100000, globalDefault=True, preemptionPolicy="PreemptLowerPriority")
    assert column_names("scheduling", "priorityclasses") == [
        "Name",
        "Value",
        "Global-Default",
        "Age",
        "PreemptionPolicy",
    ]
    assert cells("scheduling", "priorityclasses", pc) == ["high", 100000, True, "5m", "PreemptLowerPriority"]
    assert cells("node", "runtimeclasses", obj("gvisor", handler="runsc")) == ["gvisor", "runsc", "5m"]


def test_rows_are_plain_dicts_without_conditions() -> None:
    row = table_for(rt("coordination", "leases"), NAMING).row(obj("l"), NOW)
    assert row == {"cells": ["l", "", "5m"]}
