"""HTTP behaviour of resource endpoints: verbs, metadata rules, errors as Status, on both stores."""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import wait_for

CM = "/api/v1/namespaces/default/configmaps"


def cm(name: str, **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def test_create_get_list_update_delete_configmap(any_client) -> None:
    c = any_client
    created = c.post(CM, json=cm("a", k="v"))
    assert created.status_code == 201
    body = created.get_json()
    md = body["metadata"]
    assert md["namespace"] == "default" and md["uid"] and md["creationTimestamp"].endswith("Z")
    assert md["resourceVersion"].isdigit() and "generation" not in md
    got = c.get(f"{CM}/a").get_json()
    assert got == body
    listed = c.get(CM).get_json()
    assert listed["kind"] == "ConfigMapList" and listed["apiVersion"] == "v1"
    assert [i["metadata"]["name"] for i in listed["items"]] == ["a"]
    assert int(listed["metadata"]["resourceVersion"]) >= int(md["resourceVersion"])
    got["data"] = {"k": "w"}
    updated = c.put(f"{CM}/a", json=got)
    assert updated.status_code == 200
    assert updated.get_json()["data"] == {"k": "w"}
    assert int(updated.get_json()["metadata"]["resourceVersion"]) > int(md["resourceVersion"])
    deleted = c.delete(f"{CM}/a")
    assert deleted.status_code == 200
    assert deleted.get_json()["status"] == "Success" and deleted.get_json()["details"]["name"] == "a"
    missing = c.get(f"{CM}/a")
    assert missing.status_code == 404
    assert missing.headers["Content-Type"] == "application/json"
    assert missing.get_json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'configmaps "a" not found',
        "reason": "NotFound",
        "details": {"name": "a", "kind": "configmaps"},
        "code": 404,
    }


def test_duplicate_create_is_already_exists(client) -> None:
    assert client.post(CM, json=cm("a")).status_code == 201
    again = client.post(CM, json=cm("a"))
    assert again.status_code == 409 and again.get_json()["reason"] == "AlreadyExists"
    assert again.get_json()["message"] == 'configmaps "a" already exists'


def test_stale_resource_version_is_conflict_and_unconditional_update_wins(client) -> None:
    first = client.post(CM, json=cm("a", k="1")).get_json()
    second = dict(first, data={"k": "2"})
    assert client.put(f"{CM}/a", json=second).status_code == 200
    stale = dict(first, data={"k": "3"})
    conflict = client.put(f"{CM}/a", json=stale)
    assert conflict.status_code == 409 and conflict.get_json()["reason"] == "Conflict"
    assert "the object has been modified" in conflict.get_json()["message"]
    unconditional = dict(first, data={"k": "4"})
    del unconditional["metadata"]["resourceVersion"]
    assert client.put(f"{CM}/a", json=unconditional).get_json()["data"] == {"k": "4"}


def test_noop_update_keeps_resource_version(client) -> None:
    first = client.post(CM, json=cm("a", k="1")).get_json()
    again = client.put(f"{CM}/a", json=first).get_json()
    assert again["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]


def test_generate_name(client) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "web-"}}
    made = client.post(CM, json=body).get_json()
    assert made["metadata"]["name"].startswith("web-") and len(made["metadata"]["name"]) == 9


def test_invalid_name_is_422_with_causes(client) -> None:
    bad = client.post(CM, json=cm("Bad_Name"))
    assert bad.status_code == 422
    status = bad.get_json()
    assert status["reason"] == "Invalid" and status["details"]["kind"] == "ConfigMap"
    assert status["details"]["causes"][0]["field"] == "metadata.name"
    assert status["message"].startswith('ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"')
    missing = client.post(CM, json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}})
    assert missing.status_code == 422
    assert "name or generateName is required" in missing.get_json()["message"]


def test_namespace_must_exist_for_namespaced_create(client) -> None:
    resp = client.post("/api/v1/namespaces/nope/configmaps", json=cm("a"))
    assert resp.status_code == 404 and resp.get_json()["message"] == 'namespaces "nope" not found'


def test_wrong_kind_or_namespace_in_body_is_bad_request(client) -> None:
    wrong_kind = dict(cm("a"), kind="Secret")
    assert client.post(CM, json=wrong_kind).status_code == 400
    other_ns = cm("a")
    other_ns["metadata"]["namespace"] = "elsewhere"
    assert client.post(CM, json=other_ns).status_code == 400
    name_mismatch = client.post(CM, json=cm("a")).get_json()
    assert client.put(f"{CM}/b", json=name_mismatch).status_code == 400


def test_malformed_json_is_400_and_unsupported_accept_is_406(client) -> None:
    resp = client.post(CM, data=b"{not json", headers={"Content-Type": "application/json"})
    assert resp.status_code == 400 and resp.get_json()["kind"] == "Status"
    assert client.get(CM, headers={"Accept": "text/html"}).status_code == 406
    assert client.get(CM, headers={"Accept": "application/vnd.orch.protobuf, application/json"}).status_code == 200


def test_body_over_3_mib_is_413(client) -> None:
    big = cm("big", blob="x" * (3 * 1024 * 1024 + 10))
    resp = client.post(CM, data=orjson.dumps(big), headers={"Content-Type": "application/json"})
    assert resp.status_code == 413 and resp.get_json()["reason"] == "RequestEntityTooLarge"


def test_yaml_in_and_out_and_pretty(client) -> None:
    body = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: b\n"  # (`y` reads as true)
    resp = client.post(CM, data=body, headers={"Content-Type": "application/yaml", "Accept": "application/yaml"})
    assert resp.status_code == 201 and resp.headers["Content-Type"] == "application/yaml"
    assert b"name: web" in resp.data
    pretty = client.get(f"{CM}/web?pretty=true")
    assert pretty.data.startswith(b"{\n")


@pytest.mark.parametrize(
    "patch_type, patch",
    [
        ("application/merge-patch+json", {"data": {"k": "new", "gone": None}}),
        (
            "application/json-patch+json",
            [{"op": "replace", "path": "/data/k", "value": "new"}, {"op": "remove", "path": "/data/gone"}],
        ),
    ],
)
def test_patch(any_client, patch_type: str, patch) -> None:
    any_client.post(CM, json=cm("p", k="old", gone="x"))
    resp = any_client.patch(f"{CM}/p", data=orjson.dumps(patch), headers={"Content-Type": patch_type})
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["data"] == {"k": "new"}


def test_patch_reads_the_object_once_and_still_retries_after_a_race(app, client, monkeypatch) -> None:
    client.post(CM, json=cm("once", k="old"))
    storage = app.extensions["orch"].storage
    reads: list[str] = []
    getting = storage.get
    monkeypatch.setattr(storage, "get", lambda key: reads.append(key) or getting(key))
    merge = {"Content-Type": "application/merge-patch+json"}
    assert client.patch(f"{CM}/once", data=b'{"data":{"k":"new"}}', headers=merge).status_code == 200
    # the field-validation check's read serves the patch too; none when the watch hub remembers the object
    assert reads in ([], ["/core/configmaps/default/once"])
    # the object changes between that read and the write: the patch is applied again to the newer object
    updating, raced = storage.update, []

    def race_once(key, obj, expected):  # type: ignore[no-untyped-def]
        if not raced:
            raced.append(getting(key))
            updating(key, {**raced[0].decode(), "data": {"k": "new", "other": "x"}}, raced[0])
        return updating(key, obj, expected)

    monkeypatch.setattr(storage, "update", race_once)
    done = client.patch(f"{CM}/once", data=b'{"data":{"k":"newer"}}', headers=merge)
    assert done.status_code == 200 and done.get_json()["data"] == {"k": "newer", "other": "x"}


def test_failed_json_patch_test_writes_nothing(client) -> None:
    before = client.post(CM, json=cm("p", k="old")).get_json()
    ops = [{"op": "replace", "path": "/data/k", "value": "new"}, {"op": "test", "path": "/data/k", "value": "x"}]
    resp = client.patch(f"{CM}/p", data=orjson.dumps(ops), headers={"Content-Type": "application/json-patch+json"})
    assert resp.status_code == 422
    assert client.get(f"{CM}/p").get_json() == before


def test_unknown_patch_type_is_415_and_too_many_json_patch_ops_refused(client) -> None:
    client.post(CM, json=cm("p"))
    resp = client.patch(f"{CM}/p", data=b"{}", headers={"Content-Type": "application/weird+json"})
    assert resp.status_code == 415 and resp.get_json()["reason"] == "UnsupportedMediaType"
    ops = [{"op": "add", "path": "/data", "value": {}}] * 10001
    resp = client.patch(f"{CM}/p", data=orjson.dumps(ops), headers={"Content-Type": "application/json-patch+json"})
    assert resp.status_code == 413


def test_finalizers_make_delete_two_phase(any_client) -> None:
    c = any_client
    body = cm("f")
    body["metadata"]["finalizers"] = ["example.com/hold"]
    c.post(CM, json=body)
    first = c.delete(f"{CM}/f")
    assert first.status_code == 200
    terminating = first.get_json()
    assert terminating["metadata"]["deletionTimestamp"]
    assert c.get(f"{CM}/f").status_code == 200
    terminating["metadata"]["finalizers"] = []
    assert c.put(f"{CM}/f", json=terminating).status_code == 200
    assert c.get(f"{CM}/f").status_code == 404


def test_delete_preconditions(client) -> None:
    made = client.post(CM, json=cm("d")).get_json()
    resp = client.delete(f"{CM}/d", json={"preconditions": {"uid": "wrong"}})
    assert resp.status_code == 409 and "the UID in the precondition (wrong)" in resp.get_json()["message"]
    assert client.delete(f"{CM}/d", json={"preconditions": {"uid": made["metadata"]["uid"]}}).status_code == 200
    bad = client.delete(f"{CM}/x", json={"propagationPolicy": "Sometimes"})
    assert bad.status_code in (404, 422)


def test_deletecollection_with_label_selector(any_client) -> None:
    c = any_client
    for name, team in [("a", "x"), ("b", "y"), ("c", "x")]:
        body = cm(name)
        body["metadata"]["labels"] = {"team": team}
        c.post(CM, json=body)
    resp = c.delete(f"{CM}?labelSelector=team%3Dx")
    assert resp.status_code == 200
    assert [i["metadata"]["name"] for i in resp.get_json()["items"]] == ["a", "c"]
    assert [i["metadata"]["name"] for i in c.get(CM).get_json()["items"]] == ["b"]


def test_unknown_routes(client) -> None:
    resp = client.get("/api/v1/nosuchthings")
    assert resp.status_code == 404 and resp.get_json()["message"] == "the server could not find the requested resource"
    plain = client.get("/nowhere")
    assert plain.status_code == 404 and plain.data == b"404 page not found\n"
    assert client.post("/api/v1/namespaces/default/configmaps/x").status_code == 405


def test_list_across_namespaces_and_selectors(client) -> None:
    client.post("/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    client.post(CM, json=cm("a"))
    client.post("/api/v1/namespaces/team/configmaps", json=cm("a"))
    items = client.get("/api/v1/configmaps").get_json()["items"]
    assert [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in items] == [("default", "a"), ("team", "a")]
    only = client.get("/api/v1/configmaps?fieldSelector=metadata.namespace%3Dteam").get_json()["items"]
    assert [i["metadata"]["namespace"] for i in only] == ["team"]
    bad = client.get("/api/v1/configmaps?fieldSelector=spec.nothing%3Dx")
    assert bad.status_code == 400 and "spec.nothing" in bad.get_json()["message"]
    assert client.get(f"{CM}?labelSelector=a%20in%20(b").status_code == 400


def test_field_validation_on_metadata_and_duplicates(client) -> None:
    body = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"s","bogus":1},"data":{}}'
    strict = client.post(f"{CM}?fieldValidation=Strict", data=body, headers={"Content-Type": "application/json"})
    assert strict.status_code == 400
    assert 'strict decoding error: unknown field "metadata.bogus"' in strict.get_json()["message"]
    warn = client.post(CM, data=body, headers={"Content-Type": "application/json"})
    assert warn.status_code == 201
    assert warn.headers.get_all("Warning") == ['299 - "unknown field \\"metadata.bogus\\""']
    dup = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"},"data":{"a":"1","a":"2"}}'
    resp = client.post(f"{CM}?fieldValidation=Strict", data=dup, headers={"Content-Type": "application/json"})
    assert resp.status_code == 400 and 'duplicate field "data.a"' in resp.get_json()["message"]
    assert client.post(f"{CM}?fieldValidation=Sometimes", json=cm("z")).status_code == 400


def test_namespace_deletion_finishes_in_the_server(any_client) -> None:
    c = any_client
    c.post("/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gone"}})
    c.post("/api/v1/namespaces/gone/configmaps", json=cm("a"))
    held = cm("held")
    held["metadata"]["finalizers"] = ["example.com/hold"]
    c.post("/api/v1/namespaces/gone/configmaps", json=held)
    ns = c.get("/api/v1/namespaces/gone").get_json()
    assert ns["spec"]["finalizers"] and ns["status"]["phase"] == "Active"
    deleting = c.delete("/api/v1/namespaces/gone")
    assert deleting.status_code == 200 and deleting.get_json()["status"]["phase"] == "Terminating"
    refused = c.post("/api/v1/namespaces/gone/configmaps", json=cm("new"))
    assert refused.status_code == 403
    assert refused.get_json()["details"]["causes"][0]["reason"] == "NamespaceTerminating"

    def remaining_reported():
        conds = {
            x["type"]: x
            for x in (c.get("/api/v1/namespaces/gone").get_json().get("status") or {}).get("conditions") or []
        }
        return conds.get("NamespaceFinalizersRemaining", {}).get("status") == "True" and conds

    conds = wait_for(remaining_reported)
    assert "example.com/hold" in conds["NamespaceFinalizersRemaining"]["message"]
    assert c.get("/api/v1/namespaces/gone/configmaps/a").status_code == 404
    last = c.get("/api/v1/namespaces/gone/configmaps/held").get_json()
    last["metadata"]["finalizers"] = []
    assert c.put("/api/v1/namespaces/gone/configmaps/held", json=last).status_code == 200
    wait_for(lambda: c.get("/api/v1/namespaces/gone").status_code == 404)


def test_system_namespaces_exist_and_default_cannot_be_deleted(client) -> None:
    names = [i["metadata"]["name"] for i in client.get("/api/v1/namespaces").get_json()["items"]]
    assert names == ["default", "orch-node-lease", "orch-public", "orch-system"]
    resp = client.delete("/api/v1/namespaces/default")
    assert resp.status_code == 403 and "may not be deleted" in resp.get_json()["message"]


def test_scale_subresource(client) -> None:
    dep = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx"}]},
            },
        },
    }
    url = "/apis/apps/v1/namespaces/default/deployments"
    made = client.post(url, json=dep).get_json()
    assert made["spec"]["replicas"] == 1 and made["spec"]["strategy"]["type"] == "RollingUpdate"
    scale = client.get(f"{url}/web/scale").get_json()
    assert scale["kind"] == "Scale" and scale["apiVersion"] == "autoscaling/v1"
    assert scale["spec"]["replicas"] == 1 and scale["status"]["selector"] == "app=web"
    resp = client.patch(
        f"{url}/web/scale", data=b'{"spec":{"replicas":4}}', headers={"Content-Type": "application/merge-patch+json"}
    )
    assert resp.status_code == 200 and resp.get_json()["spec"]["replicas"] == 4
    after = client.get(f"{url}/web").get_json()
    assert after["spec"]["replicas"] == 4 and after["metadata"]["generation"] == 2
    stale = dict(scale, spec={"replicas": 9})
    assert client.put(f"{url}/web/scale", json=stale).status_code == 409


def test_put_creates_where_the_reference_allows_it(client) -> None:
    lease = {"apiVersion": "coordination.orch.io/v1", "kind": "Lease", "metadata": {"name": "l"}, "spec": {}}
    resp = client.put("/apis/coordination.orch.io/v1/namespaces/default/leases/l", json=lease)
    assert resp.status_code == 201
    resp = client.put(f"{CM}/nothere", json=cm("nothere"))
    assert resp.status_code == 404


def test_dry_run_create_writes_nothing(client) -> None:
    resp = client.post(f"{CM}?dryRun=All", json=cm("dry"))
    assert resp.status_code == 201 and "resourceVersion" not in resp.get_json()["metadata"]
    assert client.get(f"{CM}/dry").status_code == 404
    assert client.post(f"{CM}?dryRun=Maybe", json=cm("dry")).status_code == 400


def test_removing_the_last_label_leaves_no_empty_map(client) -> None:
    body = cm("l")
    body["metadata"]["labels"] = {"x": "1"}
    client.post(CM, json=body)
    resp = client.patch(
        f"{CM}/l", data=b'{"metadata":{"labels":{"x":null}}}', headers={"Content-Type": "application/merge-patch+json"}
    )
    assert "labels" not in resp.get_json()["metadata"]
