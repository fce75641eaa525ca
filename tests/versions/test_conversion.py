"""policy/v1beta1 and policy/v1 PodDisruptionBudget share one stored object: every verb through either
version, on both stores."""

from __future__ import annotations

import json
import threading

import pytest

from tests.conftest import wait_for

V1 = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
V1BETA1 = "/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets"
EMPTY_SELECTOR_KEY = "pdb.orch.io/deprecated-v1beta1-empty-selector-match"


def pdb(name: str, api_version: str = "policy/v1beta1", selector: dict | None = None, **labels: str) -> dict:
    body = {
        "apiVersion": api_version,
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "labels": labels or {"app": "web"}},
        "spec": {"minAvailable": 1, "selector": selector if selector is not None else {"matchLabels": {"app": "web"}}},
    }
    return body


def test_create_through_v1beta1_read_through_v1_and_back(any_client) -> None:
    created = any_client.post(V1BETA1, json=pdb("one"))
    assert created.status_code == 201, created.json
    assert created.json["apiVersion"] == "policy/v1beta1"
    as_v1 = any_client.get(f"{V1}/one")
    assert as_v1.status_code == 200
    assert as_v1.json["apiVersion"] == "policy/v1"
    assert as_v1.json["spec"] == created.json["spec"]
    back = any_client.get(f"{V1BETA1}/one").json
    for field in ("uid", "resourceVersion", "generation", "creationTimestamp"):
        assert as_v1.json["metadata"][field] == created.json["metadata"][field] == back["metadata"][field]
    assert back == created.json


def test_create_through_v1_read_through_v1beta1(any_client) -> None:
    created = any_client.post(V1, json=pdb("two", "policy/v1"))
    assert created.status_code == 201, created.json
    old = any_client.get(f"{V1BETA1}/two")
    assert old.status_code == 200
    assert old.json["apiVersion"] == "policy/v1beta1"
    assert old.json["spec"] == created.json["spec"]
    assert old.json["metadata"]["resourceVersion"] == created.json["metadata"]["resourceVersion"]


def test_empty_v1beta1_selector_keeps_selecting_nothing_in_v1(any_client) -> None:
    created = any_client.post(V1BETA1, json=pdb("none", selector={}))
    assert created.status_code == 201, created.json
    assert created.json["spec"]["selector"] == {}
    as_v1 = any_client.get(f"{V1}/none").json
    assert as_v1["spec"]["selector"] == {"matchExpressions": [{"key": EMPTY_SELECTOR_KEY, "operator": "Exists"}]}
    assert any_client.get(f"{V1BETA1}/none").json["spec"]["selector"] == {}


def test_empty_v1_selector_keeps_selecting_everything_in_v1beta1(any_client) -> None:
    assert any_client.post(V1, json=pdb("all", "policy/v1", selector={})).status_code == 201
    old = any_client.get(f"{V1BETA1}/all").json
    assert old["spec"]["selector"] == {"matchExpressions": [{"key": EMPTY_SELECTOR_KEY, "operator": "DoesNotExist"}]}
    # written back unchanged through v1beta1, v1 still sees its empty (select-all) selector
    old["metadata"].pop("managedFields", None)
    assert any_client.put(f"{V1BETA1}/all", json=old).status_code == 200
    assert any_client.get(f"{V1}/all").json["spec"]["selector"] == {}


def test_a_user_selector_never_mixes_with_the_reserved_key(any_client) -> None:
    selector = {"matchLabels": {"app": "web"}, "matchExpressions": [{"key": EMPTY_SELECTOR_KEY, "operator": "Exists"}]}
    assert any_client.post(V1BETA1, json=pdb("mixed", selector=selector)).status_code == 201
    assert any_client.get(f"{V1}/mixed").json["spec"]["selector"] == {"matchLabels": {"app": "web"}}


def test_update_through_v1beta1_bumps_generation_and_validates(any_client) -> None:
    created = any_client.post(V1BETA1, json=pdb("upd")).json
    created["spec"]["minAvailable"] = 2
    updated = any_client.put(f"{V1BETA1}/upd", json=created)
    assert updated.status_code == 200, updated.json
    assert updated.json["apiVersion"] == "policy/v1beta1"
    assert updated.json["metadata"]["generation"] == 2
    assert any_client.get(f"{V1}/upd").json["spec"]["minAvailable"] == 2
    bad = dict(updated.json, spec={**updated.json["spec"], "maxUnavailable": 1})
    refused = any_client.put(f"{V1BETA1}/upd", json=bad)
    assert refused.status_code == 422
    assert "minAvailable and maxUnavailable cannot be both set" in refused.json["message"]
    stale = dict(created, spec={**created["spec"], "minAvailable": 3})
    assert any_client.put(f"{V1BETA1}/upd", json=stale).status_code == 409


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("application/merge-patch+json", {"spec": {"minAvailable": 3}}),
        ("application/strategic-merge-patch+json", {"spec": {"minAvailable": 3}}),
        ("application/json-patch+json", [{"op": "replace", "path": "/spec/minAvailable", "value": 3}]),
    ],
)
def test_patch_through_v1beta1(any_client, content_type: str, body: object) -> None:
    any_client.post(V1, json=pdb("p", "policy/v1"))
    patched = any_client.patch(f"{V1BETA1}/p", data=json.dumps(body), content_type=content_type)
    assert patched.status_code == 200, patched.json
    assert patched.json["apiVersion"] == "policy/v1beta1"
    assert patched.json["spec"]["minAvailable"] == 3
    assert any_client.get(f"{V1}/p").json["spec"]["minAvailable"] == 3


def test_json_patch_sees_the_v1beta1_form_of_the_selector(any_client) -> None:
    any_client.post(V1BETA1, json=pdb("jp", selector={}))
    # the v1beta1 form has an empty selector: a test op on it passes only on the served form
    ops = [
        {"op": "test", "path": "/spec/selector", "value": {}},
        {"op": "add", "path": "/spec/selector/matchLabels", "value": {"app": "db"}},
    ]
    patched = any_client.patch(f"{V1BETA1}/jp", data=json.dumps(ops), content_type="application/json-patch+json")
    assert patched.status_code == 200, patched.json
    assert any_client.get(f"{V1}/jp").json["spec"]["selector"] == {"matchLabels": {"app": "db"}}


def test_server_side_apply_through_v1beta1(any_client) -> None:
    body = json.dumps(pdb("ssa", selector={}))
    applied = any_client.patch(
        f"{V1BETA1}/ssa?fieldManager=tester", data=body, content_type="application/apply-patch+yaml"
    )
    assert applied.status_code == 201, applied.json
    assert applied.json["spec"]["selector"] == {}
    entry = next(e for e in applied.json["metadata"]["managedFields"] if e["manager"] == "tester")
    assert entry["operation"] == "Apply"
    assert entry["apiVersion"] == "policy/v1beta1"  # entries keep the version they were written in
    again = json.dumps({**pdb("ssa", selector={}), "spec": {"minAvailable": 2, "selector": {}}})
    reapplied = any_client.patch(
        f"{V1BETA1}/ssa?fieldManager=tester", data=again, content_type="application/apply-patch+yaml"
    )
    assert reapplied.status_code == 200, reapplied.json
    stored = any_client.get(f"{V1}/ssa").json
    assert stored["spec"]["minAvailable"] == 2
    assert stored["spec"]["selector"]["matchExpressions"][0]["operator"] == "Exists"


def test_status_subresource_through_v1beta1(any_client) -> None:
    created = any_client.post(V1BETA1, json=pdb("st")).json
    created["status"] = {"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2}
    written = any_client.put(f"{V1BETA1}/st/status", json=created)
    assert written.status_code == 200, written.json
    assert written.json["apiVersion"] == "policy/v1beta1"
    assert any_client.get(f"{V1}/st").json["status"]["currentHealthy"] == 2


def test_dry_run_through_v1beta1_stores_nothing(any_client) -> None:
    answered = any_client.post(f"{V1BETA1}?dryRun=All", json=pdb("dry", selector={}))
    assert answered.status_code == 201
    assert answered.json["apiVersion"] == "policy/v1beta1"
    assert answered.json["spec"]["selector"] == {}
    assert any_client.get(f"{V1}/dry").status_code == 404
    any_client.post(V1BETA1, json=pdb("dry"))
    deleted = any_client.delete(f"{V1BETA1}/dry?dryRun=All")
    assert deleted.status_code == 200
    assert any_client.get(f"{V1}/dry").status_code == 200


def test_delete_through_v1beta1_removes_the_v1_object(any_client) -> None:
    any_client.post(V1, json=pdb("del", "policy/v1"))
    assert any_client.delete(f"{V1BETA1}/del").status_code == 200
    gone = any_client.get(f"{V1}/del")
    assert gone.status_code == 404
    assert gone.json["details"]["group"] == "policy"


def test_list_through_the_other_version_with_selectors_and_chunks(any_client) -> None:
    any_client.post(V1, json=pdb("a", "policy/v1", app="web"))
    any_client.post(V1BETA1, json=pdb("b", app="db"))
    any_client.post(V1BETA1, json=pdb("c", app="web", selector={}))
    listed = any_client.get(V1BETA1).json
    assert listed["apiVersion"] == "policy/v1beta1"
    assert [i["metadata"]["name"] for i in listed["items"]] == ["a", "b", "c"]
    assert {i["apiVersion"] for i in listed["items"]} == {"policy/v1beta1"}
    assert listed["items"][2]["spec"]["selector"] == {}
    as_v1 = any_client.get(V1).json
    assert {i["apiVersion"] for i in as_v1["items"]} == {"policy/v1"}
    labelled = any_client.get(f"{V1BETA1}?labelSelector=app%3Dweb").json
    assert [i["metadata"]["name"] for i in labelled["items"]] == ["a", "c"]
    by_name = any_client.get(f"{V1BETA1}?fieldSelector=metadata.name%3Db").json
    assert [i["metadata"]["name"] for i in by_name["items"]] == ["b"]
    first = any_client.get(f"{V1BETA1}?limit=2").json
    assert [i["metadata"]["name"] for i in first["items"]] == ["a", "b"]
    rest = any_client.get(f"{V1BETA1}?limit=2&continue={first['metadata']['continue']}").json
    assert [i["metadata"]["name"] for i in rest["items"]] == ["c"]
    assert rest["items"][0]["apiVersion"] == "policy/v1beta1"


def _watch_lines(client, url: str, want: int, out: list[dict]) -> None:
    with client.get(url, buffered=False) as resp:
        for line in resp.response:
            for part in line.splitlines():
                if part.strip():
                    out.append(json.loads(part))
            if len(out) >= want:
                return


def test_watch_through_the_other_version(any_app) -> None:
    client = any_app.test_client()
    client.post(V1, json=pdb("w1", "policy/v1", selector={}))
    events: list[dict] = []
    rv = client.get(V1).json["metadata"]["resourceVersion"]
    watcher = threading.Thread(
        target=_watch_lines,
        daemon=True,
        args=(
            any_app.test_client(),
            f"{V1BETA1}?watch=true&resourceVersion=0&timeoutSeconds=10&labelSelector=app%3Dweb",
            3,
            events,
        ),
    )
    watcher.start()
    wait_for(lambda: events)  # resourceVersion=0 starts at the present: write only once the watch has begun
    client.post(V1, json=pdb("w2", "policy/v1", app="web"))
    client.delete(f"{V1}/w2")
    watcher.join(15)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("ADDED", "w1"),
        ("ADDED", "w2"),
        ("DELETED", "w2"),
    ]
    assert {e["object"]["apiVersion"] for e in events} == {"policy/v1beta1"}
    assert events[0]["object"]["spec"]["selector"]["matchExpressions"][0]["operator"] == "DoesNotExist"
    assert int(events[1]["object"]["metadata"]["resourceVersion"]) > int(rv)


def test_watch_from_a_revision_converts_the_backlog(any_client) -> None:
    rv = any_client.post(V1BETA1, json=pdb("b1", selector={})).json["metadata"]["resourceVersion"]
    any_client.post(V1BETA1, json=pdb("b2"))
    resp = any_client.get(f"{V1}?watch=true&resourceVersion={rv}&timeoutSeconds=1")
    events = [json.loads(line) for line in resp.data.splitlines() if line.strip()]
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "b2")]
    assert events[0]["object"]["apiVersion"] == "policy/v1"
