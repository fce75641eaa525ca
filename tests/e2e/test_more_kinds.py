"""Kinds a v1.23 server serves beyond the first set, as kubectl uses them: ControllerRevision (the history
`kubectl rollout history` reads for DaemonSets and StatefulSets) and the CSI kinds of the storage group."""

from __future__ import annotations

import subprocess
import uuid

import pytest
import yaml

from . import RunningServer

pytestmark = pytest.mark.e2e


def run(kubectl: str, server: RunningServer, *args: str) -> str:
    done = subprocess.run(
        [kubectl, "--kubeconfig", str(server.kubeconfig), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_rollout_history_of_a_daemon_set_reads_its_controller_revisions(kubectl: str, k8s_server: RunningServer):
    server = k8s_server
    ns = f"cr-{uuid.uuid4().hex[:8]}"
    assert server.session.post("/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
    template = {"metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "a", "image": "busybox"}]}}
    ds = server.session.post(
        f"/apis/apps/v1/namespaces/{ns}/daemonsets",
        json={
            "metadata": {"name": "agent"},
            "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": template},
        },
    )
    assert ds.status_code == 201, ds.text
    owner = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "name": "agent",
        "uid": ds.json()["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }
    for revision in (1, 2):
        created = server.session.post(
            f"/apis/apps/v1/namespaces/{ns}/controllerrevisions",
            json={
                "metadata": {
                    "name": f"agent-{revision}",
                    "labels": {"app": "agent"},
                    "ownerReferences": [owner],
                    "annotations": {"kubernetes.io/change-cause": f"change {revision}"},
                },
                "revision": revision,
                "data": {"spec": {"template": template}},
            },
        )
        assert created.status_code == 201, created.text

    shown = run(kubectl, server, "get", "controllerrevisions", "-n", ns).splitlines()
    assert shown[0].split() == ["NAME", "CONTROLLER", "REVISION", "AGE"]
    assert shown[1].split()[:3] == ["agent-1", "daemonset.apps/agent", "1"]
    history = run(kubectl, server, "rollout", "history", "daemonset/agent", "-n", ns)
    assert [line.split()[:3] for line in history.splitlines()[2:] if line.strip()] == [
        ["1", "change", "1"],
        ["2", "change", "2"],
    ]

    url = f"/apis/apps/v1/namespaces/{ns}/controllerrevisions/agent-1"
    current = server.get(url).json()
    changed = server.session.put(url, json={**current, "data": {"other": True}})
    assert changed.status_code == 422 and changed.json()["details"]["causes"][0]["field"] == "data", changed.text
    negative = server.session.post(
        f"/apis/apps/v1/namespaces/{ns}/controllerrevisions", json={"metadata": {"name": "bad"}, "revision": -1}
    )
    assert negative.status_code == 422
    assert {c["field"] for c in negative.json()["details"]["causes"]} == {"data", "revision"}


CSI_OBJECTS = """\
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: hostpath.csi.example.com}
spec: {podInfoOnMount: true, tokenRequests: [{audience: vault}]}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-1}
spec:
  drivers:
  - {name: hostpath.csi.example.com, nodeID: node-1, topologyKeys: [topology.example.com/zone]}
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: attach-1}
spec: {attacher: hostpath.csi.example.com, nodeName: node-1, source: {persistentVolumeName: pv-1}}
---
apiVersion: storage.k8s.io/v1beta1
kind: CSIStorageCapacity
metadata: {name: capacity-1, namespace: default}
storageClassName: standard
capacity: 10Gi
"""


def test_csi_kinds_are_served_as_kubectl_expects(kubectl: str, k8s_server: RunningServer):
    server = k8s_server
    resources = {
        line.split()[0]: line.split()
        for line in run(kubectl, server, "api-resources", "--api-group", "storage.k8s.io").splitlines()[1:]
    }
    assert resources["csidrivers"][1:] == ["storage.k8s.io/v1", "false", "CSIDriver"]
    assert resources["csinodes"][1:] == ["storage.k8s.io/v1", "false", "CSINode"]
    assert resources["volumeattachments"][1:] == ["storage.k8s.io/v1", "false", "VolumeAttachment"]
    assert resources["csistoragecapacities"][1:] == ["storage.k8s.io/v1beta1", "true", "CSIStorageCapacity"]

    subprocess.run(
        [kubectl, "--kubeconfig", str(server.kubeconfig), "apply", "-f", "-"],
        input=CSI_OBJECTS,
        text=True,
        check=True,
        capture_output=True,
        timeout=60,
    )
    drivers = run(kubectl, server, "get", "csidrivers").splitlines()
    assert drivers[0].split() == [
        "NAME",
        "ATTACHREQUIRED",
        "PODINFOONMOUNT",
        "STORAGECAPACITY",
        "TOKENREQUESTS",
        "REQUIRESREPUBLISH",
        "MODES",
        "AGE",
    ]
    assert drivers[1].split()[:7] == [
        "hostpath.csi.example.com",
        "true",
        "true",
        "false",
        "vault",
        "false",
        "Persistent",
    ]  # the reference's defaults
    assert run(kubectl, server, "get", "csinodes").splitlines()[1].split()[:2] == ["node-1", "1"]
    assert run(kubectl, server, "get", "volumeattachments").splitlines()[1].split()[:5] == [
        "attach-1",
        "hostpath.csi.example.com",
        "pv-1",
        "node-1",
        "false",
    ]
    assert run(kubectl, server, "get", "csistoragecapacities").splitlines()[1].split() == [
        "capacity-1",
        "standard",
        "10Gi",
    ]

    # the attacher reports through the status subresource; the spec is fixed
    url = "/apis/storage.k8s.io/v1/volumeattachments/attach-1"
    attachment = server.get(url).json()
    attachment["status"] = {"attached": True, "attachmentMetadata": {"devicePath": "/dev/xvdf"}}
    assert server.session.put(url + "/status", json=attachment).status_code == 200
    assert run(kubectl, server, "get", "volumeattachments").splitlines()[1].split()[4] == "true"
    moved = server.get(url).json()
    moved["spec"]["nodeName"] = "node-2"
    refused = server.session.put(url, json=moved)
    assert refused.status_code == 422 and refused.json()["details"]["causes"][0]["field"] == "spec", refused.text
    driver = yaml.safe_load(run(kubectl, server, "get", "csidriver", "hostpath.csi.example.com", "-o", "yaml"))
    driver["spec"]["attachRequired"] = False
    immutable = server.session.put("/apis/storage.k8s.io/v1/csidrivers/hostpath.csi.example.com", json=driver)
    assert immutable.status_code == 422, immutable.text
    assert immutable.json()["details"]["causes"][0]["field"] == "spec.attachRequired"
    bad = server.session.post(
        "/apis/storage.k8s.io/v1/volumeattachments",
        json={"metadata": {"name": "bad"}, "spec": {"attacher": "x", "nodeName": "n", "source": {}}},
    )
    assert bad.status_code == 422 and "exactly one of" in bad.text, bad.text


def test_kubectl_get_componentstatuses_shows_the_store_and_the_controllers(kubectl: str, k8s_server: RunningServer):
    done = subprocess.run(
        [kubectl, "--kubeconfig", str(k8s_server.kubeconfig), "get", "cs"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "v1 ComponentStatus is deprecated in v1.19+" in done.stderr  # kubectl prints the server's warning
    rows = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines()[1:]}
    assert done.stdout.splitlines()[0].split() == ["NAME", "STATUS", "MESSAGE", "ERROR"]
    assert rows["storage-0"] == ["Healthy", "ok"]
    assert rows["controller-manager"] == ["Healthy", "ok"]


PSP = """\
apiVersion: policy/v1beta1
kind: PodSecurityPolicy
metadata: {name: restricted}
spec:
  privileged: false
  requiredDropCapabilities: [ALL]
  seLinux: {rule: RunAsAny}
  runAsUser: {rule: MustRunAsNonRoot}
  fsGroup: {rule: MustRunAs, ranges: [{min: 1, max: 65535}]}
  supplementalGroups: {rule: RunAsAny}
  volumes: [configMap, secret, emptyDir]
"""


def test_pod_security_policies_are_stored_deprecated_and_validated(kubectl: str, k8s_server: RunningServer):
    server = k8s_server
    applied = subprocess.run(
        [kubectl, "--kubeconfig", str(server.kubeconfig), "apply", "-f", "-"],
        input=PSP,
        text=True,
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert "policy/v1beta1 PodSecurityPolicy is deprecated in v1.21+, unavailable in v1.25+" in applied.stderr
    shown = run(kubectl, server, "get", "psp").splitlines()
    assert shown[0].split() == [
        "NAME",
        "PRIV",
        "CAPS",
        "SELINUX",
        "RUNASUSER",
        "FSGROUP",
        "SUPGROUP",
        "READONLYROOTFS",
        "VOLUMES",
    ]
    assert shown[1].split() == [
        "restricted",
        "false",
        "RunAsAny",
        "MustRunAsNonRoot",
        "MustRunAs",
        "RunAsAny",
        "false",
        "configMap,secret,emptyDir",
    ]
    stored = server.get("/apis/policy/v1beta1/podsecuritypolicies/restricted").json()
    assert stored["spec"]["allowPrivilegeEscalation"] is True  # the reference's default
    bad = server.session.post(
        "/apis/policy/v1beta1/podsecuritypolicies",
        json={
            "metadata": {"name": "bad"},
            "spec": {
                "seLinux": {"rule": "Sometimes"},
                "runAsUser": {"rule": "MustRunAs"},
                "fsGroup": {"rule": "RunAsAny"},
                "supplementalGroups": {"rule": "RunAsAny"},
                "volumes": ["nfs", "tape"],
            },
        },
    )
    assert bad.status_code == 422, bad.text
    assert {c["field"] for c in bad.json()["details"]["causes"]} == {
        "spec.seLinux.rule",
        "spec.runAsUser.ranges",
        "spec.volumes[1]",
    }
