"""dryRun=All runs every stage but the write: nothing stored, no revision, no change-log row."""

from __future__ import annotations

import orjson
import pytest

CM = "/api/v1/namespaces/default/configmaps"


def cm(name: str, **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def revision(app) -> int:
    return app.extensions["orch"].storage.current_revision()


@pytest.mark.parametrize("verb", ["put", "merge", "json", "strategic", "delete"])
def test_dry_run_writes_nothing(app, client, verb: str) -> None:
    made = client.post(CM, json=cm("d", k="1")).get_json()
    before = revision(app)
    if verb == "put":
        resp = client.put(f"{CM}/d?dryRun=All", json=dict(made, data={"k": "2"}))
        assert resp.get_json()["data"] == {"k": "2"}
    elif verb == "delete":
        resp = client.delete(f"{CM}/d?dryRun=All")
        assert resp.get_json()["status"] == "Success"
    else:
        kinds = {
            "merge": ("application/merge-patch+json", {"data": {"k": "2"}}),
            "json": ("application/json-patch+json", [{"op": "replace", "path": "/data/k", "value": "2"}]),
            "strategic": ("application/strategic-merge-patch+json", {"data": {"k": "2"}}),
        }
        content_type, patch = kinds[verb]
        resp = client.patch(f"{CM}/d?dryRun=All", data=orjson.dumps(patch), headers={"Content-Type": content_type})
        assert resp.get_json()["data"] == {"k": "2"}
    assert resp.status_code == 200
    assert revision(app) == before
    assert app.extensions["orch"].storage.changes_after(before) == []
    assert client.get(f"{CM}/d").get_json() == made


def test_dry_run_delete_of_a_finalized_object_sets_no_deletion_timestamp(client) -> None:
    body = cm("f")
    body["metadata"]["finalizers"] = ["example.com/x"]
    client.post(CM, json=body)
    resp = client.delete(f"{CM}/f", json={"dryRun": ["All"]})
    assert resp.status_code == 200 and resp.get_json()["metadata"]["deletionTimestamp"]
    assert "deletionTimestamp" not in client.get(f"{CM}/f").get_json()["metadata"]
