"""The shared resource suite: every kind in the catalog through the HTTP API, derived from the catalog."""

from __future__ import annotations

import copy

import orjson
import pytest
from orch_apiserver.naming import Naming
from orch_apiserver.resources import build_catalog

from tests.kinds import OWN_TESTS

# virtual kinds (reviews) store nothing: tests/auth covers them
KINDS = sorted(
    (rt for rt in build_catalog(Naming()) if not rt.virtual and rt.plural not in OWN_TESTS),
    key=lambda rt: (rt.group, rt.plural),
)


def collection(rt, namespace: str = "default") -> str:
    base = f"/apis/{rt.group}/{rt.version}" if rt.group else f"/api/{rt.version}"
    return f"{base}/namespaces/{namespace}/{rt.plural}" if rt.namespaced else f"{base}/{rt.plural}"


def body(rt, name: str) -> dict:
    obj = copy.deepcopy(rt.example)
    obj.update({"apiVersion": rt.group_version, "kind": rt.kind, "metadata": {"name": name}})
    return obj


@pytest.mark.parametrize("rt", KINDS, ids=lambda rt: rt.group_resource)
def test_lifecycle_of_every_kind(client, rt) -> None:
    url = collection(rt)
    name = "suite-one"
    created = client.post(url, json=body(rt, name))
    assert created.status_code == 201, created.get_json()
    obj = created.get_json()
    assert obj["kind"] == rt.kind and obj["apiVersion"] == rt.group_version
    assert obj["metadata"]["uid"] and obj["metadata"]["resourceVersion"]
    assert ("generation" in obj["metadata"]) == rt.strategy.generation

    assert client.get(f"{url}/{name}").get_json() == obj
    listed = client.get(url).get_json()
    assert listed["kind"] == rt.list_kind
    assert name in [i["metadata"]["name"] for i in listed["items"]]

    patch = {"metadata": {"labels": {"suite": "yes"}}}
    patched = client.patch(
        f"{url}/{name}", data=orjson.dumps(patch), headers={"Content-Type": "application/merge-patch+json"}
    )
    assert patched.status_code == 200, patched.get_json()
    assert patched.get_json()["metadata"]["labels"]["suite"] == "yes"
    assert patched.get_json().get("metadata", {}).get("generation") == obj["metadata"].get("generation")

    replaced = copy.deepcopy(patched.get_json())
    replaced["metadata"]["annotations"] = {"note": "put"}
    put = client.put(f"{url}/{name}", json=replaced)
    assert put.status_code == 200, put.get_json()
    assert put.get_json()["metadata"]["annotations"] == {"note": "put"}

    again = client.post(url, json=body(rt, name))
    assert again.status_code == 409

    deleted = client.delete(f"{url}/{name}")
    assert deleted.status_code == 200
    if rt.return_deleted_object:
        assert deleted.get_json()["metadata"]["name"] == name
    else:
        assert deleted.get_json()["status"] == "Success"
    if rt.plural != "namespaces":  # namespaces finish deleting in the background
        assert client.get(f"{url}/{name}").status_code == 404


@pytest.mark.parametrize("rt", KINDS, ids=lambda rt: rt.group_resource)
def test_every_kind_rejects_a_bad_name(client, rt) -> None:
    bad = client.post(collection(rt), json=body(rt, "Bad/Name"))
    assert bad.status_code == 422
    assert bad.get_json()["details"]["causes"][0]["field"] == "metadata.name"


STATUS_KINDS = [rt for rt in KINDS if rt.has_status]
# A status field each kind's schema declares (most have observedGeneration), and a value for it.
STATUS_MARKERS = {
    "namespaces": ("conditions", [{"type": "SuiteCondition", "status": "True"}]),
    "nodes": ("phase", "Running"),
    "persistentvolumeclaims": ("phase", "Bound"),
    "persistentvolumes": ("message", "suite"),
    "resourcequotas": ("used", {"pods": "1"}),
    "services": ("loadBalancer", {"ingress": [{"ip": "10.0.0.7"}]}),
    "cronjobs": ("lastScheduleTime", "2026-01-02T03:04:05Z"),
    "jobs": ("succeeded", 7),
    "volumeattachments": ("attached", True),
    # a certificate needs an approved request; a Failed condition does not
    "certificatesigningrequests": (
        "conditions",
        [
            {
                "type": "Failed",
                "status": "True",
                "reason": "Suite",
                "message": "suite",
                "lastUpdateTime": "2026-01-02T03:04:05Z",
                "lastTransitionTime": "2026-01-02T03:04:05Z",
            }
        ],
    ),
    "ingresses": ("loadBalancer", {"ingress": [{"ip": "10.0.0.7"}]}),
    "flowschemas": ("conditions", [{"type": "Dangling", "status": "False"}]),
    "prioritylevelconfigurations": ("conditions", [{"type": "Suite", "status": "True"}]),
}


@pytest.mark.parametrize("rt", STATUS_KINDS, ids=lambda rt: rt.group_resource)
def test_status_is_written_only_through_its_subresource(client, rt) -> None:
    url = collection(rt)
    obj = client.post(url, json=body(rt, "st")).get_json()
    with_status = copy.deepcopy(obj)
    field, value = STATUS_MARKERS.get(rt.plural, ("observedGeneration", 7))
    with_status["status"] = {field: value}
    main = client.put(f"{url}/st", json=with_status).get_json()
    assert (main.get("status") or {}).get(field) != value
    view = client.get(f"{url}/st/status").get_json()
    view["status"] = dict(view.get("status") or {}, **{field: value})
    view["metadata"]["labels"] = {"ignored": "yes"}
    resp = client.put(f"{url}/st/status", json=view)
    assert resp.status_code == 200, resp.get_json()
    stored = client.get(f"{url}/st").get_json()
    assert stored["status"][field] == value
    assert "ignored" not in (stored["metadata"].get("labels") or {})
    assert stored["metadata"].get("generation") == obj["metadata"].get("generation")
