"""Server-side apply and managedFields over HTTP."""

from __future__ import annotations

import orjson

URL = "/apis/apps/v1/namespaces/default/deployments"
APPLY = {"Content-Type": "application/apply-patch+yaml"}


def deployment(replicas: int = 1, image: str = "nginx:1") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": image}]},
            },
        },
    }


def apply(client, body: dict, manager: str, force: bool = False):
    query = f"?fieldManager={manager}" + ("&force=true" if force else "")
    return client.patch(f"{URL}/web{query}", data=orjson.dumps(body), headers=APPLY)


def managers(obj: dict) -> dict[str, str]:
    return {e["manager"]: e["operation"] for e in obj["metadata"]["managedFields"]}


def test_apply_creates_then_is_a_noop(client) -> None:
    created = apply(client, deployment(), "alice")
    assert created.status_code == 201
    obj = created.get_json()
    entry = obj["metadata"]["managedFields"][0]
    assert entry["manager"] == "alice" and entry["operation"] == "Apply" and entry["fieldsType"] == "FieldsV1"
    assert "f:replicas" in entry["fieldsV1"]["f:spec"]
    assert 'k:{"name":"web"}' in entry["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"]
    again = apply(client, deployment(), "alice")
    assert again.status_code == 200
    assert again.get_json()["metadata"]["resourceVersion"] == obj["metadata"]["resourceVersion"]


def test_conflict_with_another_manager_and_force(client) -> None:
    apply(client, deployment(replicas=1), "alice")
    resp = apply(client, deployment(replicas=3), "bob")
    assert resp.status_code == 409
    status = resp.get_json()
    assert status["reason"] == "Conflict"
    assert 'conflict with "alice"' in status["message"] and ".spec.replicas" in status["message"]
    assert {"reason": "FieldManagerConflict", "field": ".spec.replicas"}.items() <= status["details"]["causes"][
        0
    ].items()
    forced = apply(client, deployment(replicas=3), "bob", force=True)
    assert forced.status_code == 200 and forced.get_json()["spec"]["replicas"] == 3
    alice = next(e for e in forced.get_json()["metadata"]["managedFields"] if e["manager"] == "alice")
    assert "f:replicas" not in alice["fieldsV1"]["f:spec"]


def test_same_value_shares_ownership_and_removal_keeps_shared_fields(client) -> None:
    apply(client, deployment(replicas=2), "alice")
    assert apply(client, deployment(replicas=2), "bob").status_code == 200
    smaller = deployment()
    del smaller["spec"]["replicas"]
    kept = apply(client, smaller, "alice").get_json()
    assert kept["spec"]["replicas"] == 2  # bob still owns it


def test_updates_record_update_entries_and_never_conflict(client) -> None:
    apply(client, deployment(replicas=1), "alice")
    patch = orjson.dumps({"spec": {"replicas": 5}})
    resp = client.patch(
        f"{URL}/web?fieldManager=scaler", data=patch, headers={"Content-Type": "application/merge-patch+json"}
    )
    assert resp.status_code == 200
    assert managers(resp.get_json()) == {"alice": "Apply", "scaler": "Update"}
    made = client.post(
        "/api/v1/namespaces/default/configmaps",
        json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ua"}, "data": {"a": "b"}},
        headers={"User-Agent": "kubectl-create/v1.32.4 (linux/amd64) kubernetes/abc"},
    )
    assert managers(made.get_json()) == {"kubectl-create": "Update"}


def test_apply_requires_a_field_manager_and_no_managed_fields(client) -> None:
    resp = client.patch(f"{URL}/web", data=orjson.dumps(deployment()), headers=APPLY)
    assert resp.status_code == 400 and "fieldManager" in resp.get_json()["message"]
    body = deployment()
    body["metadata"]["managedFields"] = [{"manager": "x"}]
    assert apply(client, body, "alice").status_code == 400
    assert client.get(f"{URL}/web").status_code == 404


def test_force_on_a_non_apply_patch_is_invalid(client) -> None:
    apply(client, deployment(), "alice")
    resp = client.patch(f"{URL}/web?force=true", data=b"{}", headers={"Content-Type": "application/merge-patch+json"})
    assert resp.status_code == 422
