"""StorageObjectInUseProtection with the pvc-protection and pv-protection controllers: a claim in use, or a bound
volume, outlives its deletion until nothing uses it; TaintNodesByCondition: new nodes start not-ready."""

from __future__ import annotations

import pytest
from orch_apiserver.admission.plugins import enabled_plugins

from tests.conftest import _shutdown, admin_app, wait_for

from .test_builtin_plugins import claim, created, pod

CLAIMS = "/api/v1/namespaces/default/persistentvolumeclaims"
PODS = "/api/v1/namespaces/default/pods"


@pytest.fixture
def protected_client(database_url, tmp_path):
    app = admin_app(
        database_url,
        tmp_path,
        CONTROLLERS="pvc-protection,pv-protection",
        ADMISSION_PLUGINS=enabled_plugins(disable=["ServiceAccount"]),
    )
    yield app.test_client()
    _shutdown(app)


def test_a_claim_in_use_outlives_its_deletion_until_its_pod_goes(protected_client):
    client = protected_client
    made = created(client, CLAIMS, claim("data"))
    assert made["metadata"]["finalizers"] == ["orch.io/pvc-protection"]
    user = pod("user", nodeName="node-1", volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}])
    created(client, PODS, user)
    assert client.delete(f"{CLAIMS}/data").status_code == 200
    held = client.get(f"{CLAIMS}/data").get_json()
    assert held["metadata"]["deletionTimestamp"] and held["metadata"]["finalizers"] == ["orch.io/pvc-protection"]
    assert client.delete(f"{PODS}/user?gracePeriodSeconds=0").status_code == 200
    wait_for(lambda: client.get(f"{CLAIMS}/data").status_code == 404)
    created(client, CLAIMS, claim("unused"))
    assert client.delete(f"{CLAIMS}/unused").status_code == 200
    wait_for(lambda: client.get(f"{CLAIMS}/unused").status_code == 404)


def test_a_bound_volume_outlives_its_deletion_until_it_is_released(protected_client):
    client = protected_client
    volumes = "/api/v1/persistentvolumes"
    made = created(
        client,
        volumes,
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": "disk"},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/data"}},
        },
    )
    assert made["metadata"]["finalizers"] == ["orch.io/pv-protection"]
    made["status"] = {"phase": "Bound"}
    made = client.put(f"{volumes}/disk/status", json=made).get_json()
    assert client.delete(f"{volumes}/disk").status_code == 200
    assert client.get(f"{volumes}/disk").get_json()["metadata"]["deletionTimestamp"]
    held = client.get(f"{volumes}/disk").get_json()
    held["status"] = {"phase": "Released"}
    assert client.put(f"{volumes}/disk/status", json=held).status_code == 200
    wait_for(lambda: client.get(f"{volumes}/disk").status_code == 404)


def test_new_nodes_start_tainted_not_ready(client):
    node = created(client, "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    assert node["spec"]["taints"] == [{"key": "node.orch.io/not-ready", "effect": "NoSchedule"}]
