"""ResourceQuota: the admission plugin refuses what a quota does not allow and charges what it admits; the
resourcequota controller fills in a quota's status and gives back what deleted objects held."""

from __future__ import annotations

import pytest

from tests.conftest import _shutdown, admin_app, wait_for

from .test_builtin_plugins import claim, created, pod, refused

NAMESPACE = "team"
BASE = f"/api/v1/namespaces/{NAMESPACE}"


@pytest.fixture
def quota_client(database_url, tmp_path):
    """An app with the resourcequota controller, and a namespace for the quotas."""
    app = admin_app(database_url, tmp_path, CONTROLLERS="resourcequota")
    client = app.test_client()
    created(client, "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
    yield client
    _shutdown(app)


def make_quota(client, name: str, hard: dict, **spec) -> dict:
    """Create a quota and wait until the controller has counted what it covers."""
    created(
        client,
        f"{BASE}/resourcequotas",
        {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name}, "spec": {"hard": hard, **spec}},
    )
    return wait_for(lambda: (client.get(f"{BASE}/resourcequotas/{name}").get_json().get("status") or {}).get("used"))


def used(client, name: str) -> dict:
    return client.get(f"{BASE}/resourcequotas/{name}").get_json()["status"]["used"]


def cpu_pod(name: str, cpu: str) -> dict:
    body = pod(name)
    body["spec"]["containers"][0]["resources"] = {"requests": {"cpu": cpu}}
    return body


def test_a_quota_refuses_what_would_exceed_it_and_charges_what_it_admits(quota_client):
    client = quota_client
    assert make_quota(client, "compute", {"pods": "2", "requests.cpu": "1"}) == {"pods": "0", "requests.cpu": "0"}
    created(client, f"{BASE}/pods", cpu_pod("a", "600m"))
    assert used(client, "compute") == {"pods": "1", "requests.cpu": "600m"}  # at once, before any recount
    assert refused(client, f"{BASE}/pods", cpu_pod("b", "600m")) == (
        'pods "b" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=600m, '
        "limited: requests.cpu=1"
    )
    assert (
        refused(client, f"{BASE}/pods", pod("c"))
        == 'pods "c" is forbidden: failed quota: compute: must specify requests.cpu for: c'
    )
    assert client.post(f"{BASE}/pods?dryRun=All", json=cpu_pod("d", "400m")).status_code == 201
    assert used(client, "compute") == {"pods": "1", "requests.cpu": "600m"}  # a dry run is not charged
    assert client.delete(f"{BASE}/pods/a").status_code == 200
    wait_for(lambda: used(client, "compute") == {"pods": "0", "requests.cpu": "0"})
    created(client, f"{BASE}/pods", cpu_pod("b", "600m"))


def test_object_counts_and_claimed_storage(quota_client):
    client = quota_client
    make_quota(client, "objects", {"configmaps": "1", "count/secrets": "1", "requests.storage": "5Gi"})
    created(client, f"{BASE}/configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "one"}})
    assert refused(
        client, f"{BASE}/configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "two"}}
    ) == (
        'configmaps "two" is forbidden: exceeded quota: objects, requested: configmaps=1, used: configmaps=1, '
        "limited: configmaps=1"
    )
    created(client, f"{BASE}/secrets", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}})
    assert "exceeded quota: objects, requested: count/secrets=1" in refused(
        client, f"{BASE}/secrets", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "t"}}
    )
    created(client, f"{BASE}/persistentvolumeclaims", claim("data", "3Gi"))
    assert refused(client, f"{BASE}/persistentvolumeclaims", claim("more", "3Gi")) == (
        'persistentvolumeclaims "more" is forbidden: exceeded quota: objects, requested: requests.storage=3Gi, '
        "used: requests.storage=3Gi, limited: requests.storage=5Gi"
    )
    assert used(client, "objects") == {"configmaps": "1", "count/secrets": "1", "requests.storage": "3Gi"}


def test_a_scoped_quota_takes_only_the_pods_in_its_scope(quota_client):
    client = quota_client
    make_quota(client, "best-effort", {"pods": "1"}, scopes=["BestEffort"])
    created(client, f"{BASE}/pods", pod("free"))
    assert "exceeded quota: best-effort, requested: pods=1, used: pods=1, limited: pods=1" in refused(
        client, f"{BASE}/pods", pod("another")
    )
    created(client, f"{BASE}/pods", cpu_pod("paying", "100m"))
    created(client, f"{BASE}/configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})


def test_a_quota_nobody_has_counted_yet_refuses_what_it_covers(client):
    created(
        client,
        "/api/v1/namespaces/default/resourcequotas",
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {"name": "uncounted"},
            "spec": {"hard": {"pods": "10"}},
        },
    )  # this app runs no resourcequota controller
    assert (
        refused(client, "/api/v1/namespaces/default/pods", pod("p"))
        == 'pods "p" is forbidden: status unknown for quota: uncounted, resources: pods'
    )
    created(
        client,
        "/api/v1/namespaces/default/configmaps",
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "not-covered"}},
    )
