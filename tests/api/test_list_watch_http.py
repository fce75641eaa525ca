"""Chunked lists, resourceVersion rules and watch streams over HTTP, on both stores."""

from __future__ import annotations

import threading
import time
from typing import Any

import orjson

CM = "/api/v1/namespaces/default/configmaps"


def cm(name: str, **labels: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels}}


def names(resp) -> list[str]:
    return [i["metadata"]["name"] for i in resp.get_json()["items"]]


def test_chunked_list_is_a_consistent_snapshot(any_client) -> None:
    c = any_client
    for n in "abcde":
        c.post(CM, json=cm(n))
    first = c.get(f"{CM}?limit=2").get_json()
    assert [i["metadata"]["name"] for i in first["items"]] == ["a", "b"]
    assert first["metadata"]["remainingItemCount"] == 3
    rv = first["metadata"]["resourceVersion"]
    c.post(CM, json=cm("bb"))
    c.delete(f"{CM}/d")
    second = c.get(f"{CM}?limit=2&continue={first['metadata']['continue']}").get_json()
    assert [i["metadata"]["name"] for i in second["items"]] == ["c", "d"]
    assert second["metadata"]["resourceVersion"] == rv
    third = c.get(f"{CM}?limit=2&continue={second['metadata']['continue']}").get_json()
    assert [i["metadata"]["name"] for i in third["items"]] == ["e"]
    assert "continue" not in third["metadata"] and "remainingItemCount" not in third["metadata"]


def test_selectors_omit_remaining_count(client) -> None:
    for n in "abcd":
        client.post(CM, json=cm(n, app="x"))
    page = client.get(f"{CM}?limit=1&labelSelector=app%3Dx").get_json()
    assert page["metadata"]["continue"] and "remainingItemCount" not in page["metadata"]


def test_selective_chunked_list_reads_growing_pages(any_client, any_app, monkeypatch) -> None:
    """limit=2 with a selector that matches 1 object in 50: every match exactly once, in key order, and the
    store is read in pages that grow (not a read per object, as the first cut did)."""
    c = any_client
    for i in range(300):
        c.post(CM, json=cm(f"o{i:03d}", **({"pick": "yes"} if i % 50 == 7 else {})))
    storage = any_app.extensions["orch"].storage
    reads: list[int | None] = []
    listing = storage.list
    here = threading.get_ident()  # the test client serves on this thread; controllers list on their own

    def counted(*a: Any, **k: Any) -> Any:
        if threading.get_ident() == here:
            reads.append(k.get("limit"))
        return listing(*a, **k)

    monkeypatch.setattr(storage, "list", counted)
    found, token, pages = [], "", 0
    while True:
        page = c.get(f"{CM}?limit=2&labelSelector=pick%3Dyes" + (f"&continue={token}" if token else "")).get_json()
        found += [i["metadata"]["name"] for i in page["items"]]
        pages += 1
        token = page["metadata"].get("continue", "")
        if not token:
            break
    assert found == [f"o{i:03d}" for i in range(300) if i % 50 == 7]
    assert pages == 4 and len(reads) <= 30, reads  # the last page: rows were left, none matched (~300 before)
    assert reads[:3] == [2, 4, 8]  # doubling


def test_list_option_rules(client) -> None:
    assert client.get(f"{CM}?resourceVersionMatch=Exact").status_code == 400
    assert client.get(f"{CM}?resourceVersionMatch=Exact&resourceVersion=0").status_code == 400
    assert client.get(f"{CM}?limit=1&continue=abc&resourceVersion=5").status_code == 400
    tampered = client.get(f"{CM}?limit=1&continue=bm90LWEtdG9rZW4")
    assert tampered.status_code == 400 and "continue" in tampered.get_json()["message"]
    future = client.get(f"{CM}?resourceVersion=999999")
    assert future.status_code == 504 and future.headers["Retry-After"] == "1"
    assert "Too large resource version" in future.get_json()["message"]


def test_exact_list_at_an_older_revision(client) -> None:
    client.post(CM, json=cm("a"))
    rv = client.get(CM).get_json()["metadata"]["resourceVersion"]
    client.post(CM, json=cm("b"))
    old = client.get(f"{CM}?resourceVersion={rv}&resourceVersionMatch=Exact")
    assert names(old) == ["a"] and old.get_json()["metadata"]["resourceVersion"] == rv
    assert names(client.get(f"{CM}?resourceVersion={rv}")) == ["a", "b"]


def test_expired_continue_token_is_410_with_a_fresh_token(app, client) -> None:
    for n in "abc":
        client.post(CM, json=cm(n))
    first = client.get(f"{CM}?limit=1").get_json()
    client.post(CM, json=cm("d"))
    app.extensions["orch"].storage.compact(now=time.time() + 3600)
    expired = client.get(f"{CM}?limit=1&continue={first['metadata']['continue']}")
    assert expired.status_code == 410
    status = expired.get_json()
    assert status["reason"] == "Expired" and status["metadata"]["continue"]
    rest = client.get(f"{CM}?limit=10&continue={status['metadata']['continue']}")
    assert names(rest) == ["b", "c", "d"]


def read_events(resp, count: int, timeout: float = 10.0) -> list[dict]:
    events: list[dict] = []
    buffer = b""
    deadline = time.monotonic() + timeout
    for chunk in resp.response:
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            events.append(orjson.loads(line))
        if len(events) >= count or time.monotonic() > deadline:
            break
    return events


def test_watch_sends_initial_state_then_changes(any_app) -> None:
    c = any_app.test_client()
    c.post(CM, json=cm("a"))
    resp = c.get(f"{CM}?watch=1&timeoutSeconds=5", buffered=False)
    assert resp.status_code == 200 and resp.headers["Content-Type"] == "application/json"

    def writes() -> None:
        w = any_app.test_client()
        w.post(CM, json=cm("b"))
        w.delete(f"{CM}/a")

    threading.Timer(0.2, writes).start()
    events = read_events(resp, 3)
    resp.close()
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("ADDED", "a"),
        ("ADDED", "b"),
        ("DELETED", "a"),
    ]


def test_watch_from_a_revision_replays_only_later_changes(client) -> None:
    client.post(CM, json=cm("a"))
    rv = client.get(CM).get_json()["metadata"]["resourceVersion"]
    client.post(CM, json=cm("b"))
    resp = client.get(f"{CM}?watch=true&resourceVersion={rv}&timeoutSeconds=1", buffered=False)
    events = read_events(resp, 1)
    resp.close()
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "b")]


def test_watch_label_selector_transitions(client, app) -> None:
    client.post(CM, json=cm("a", app="x"))
    rv = client.get(CM).get_json()["metadata"]["resourceVersion"]
    patch = {"metadata": {"labels": {"app": "y"}}}
    client.patch(f"{CM}/a", data=orjson.dumps(patch), headers={"Content-Type": "application/merge-patch+json"})
    resp = client.get(f"{CM}?watch=1&resourceVersion={rv}&labelSelector=app%3Dx&timeoutSeconds=1", buffered=False)
    events = read_events(resp, 1)
    resp.close()
    assert [e["type"] for e in events] == ["DELETED"]


def test_watch_from_compacted_revision_is_an_error_event(app, client) -> None:
    client.post(CM, json=cm("a"))
    rv = client.get(CM).get_json()["metadata"]["resourceVersion"]
    client.post(CM, json=cm("b"))
    app.extensions["orch"].storage.compact(now=time.time() + 3600)
    resp = client.get(f"{CM}?watch=1&resourceVersion={int(rv) - 1}", buffered=False)
    events = read_events(resp, 1)
    resp.close()
    assert events[0]["type"] == "ERROR"
    assert events[0]["object"]["code"] == 410 and events[0]["object"]["reason"] == "Expired"
    assert events[0]["object"]["message"].startswith("too old resource version:")


def test_watch_list_ends_initial_events_with_a_bookmark(client) -> None:
    client.post(CM, json=cm("a"))
    url = (
        f"{CM}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
        "&timeoutSeconds=1"
    )
    events = read_events(client.get(url, buffered=False), 2)
    assert [e["type"] for e in events] == ["ADDED", "BOOKMARK"]
    assert events[1]["object"]["metadata"]["annotations"] == {"orch.io/initial-events-end": "true"}
    bad = client.get(f"{CM}?watch=1&sendInitialEvents=true")
    assert bad.status_code == 422


def test_watch_single_object_by_name(client) -> None:
    client.post(CM, json=cm("a"))
    client.post(CM, json=cm("b"))
    resp = client.get(f"{CM}/b?watch=1&timeoutSeconds=1", buffered=False)
    events = read_events(resp, 1)
    resp.close()
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "b")]


def test_bookmark_before_the_deadline_carries_a_caught_up_revision(client) -> None:
    client.post(CM, json=cm("a"))
    rv = client.get(CM).get_json()["metadata"]["resourceVersion"]
    resp = client.get(f"{CM}?watch=1&resourceVersion={rv}&allowWatchBookmarks=true&timeoutSeconds=2", buffered=False)
    events = read_events(resp, 1)
    resp.close()
    assert events[0]["type"] == "BOOKMARK"
    assert events[0]["object"]["kind"] == "ConfigMap"
    assert int(events[0]["object"]["metadata"]["resourceVersion"]) >= int(rv)


def test_list_resource_version_table(app, client) -> None:
    client.post(CM, json=cm("a"))
    rv = client.get(CM).get_json()["metadata"]["resourceVersion"]
    client.post(CM, json=cm("b"))
    newest = client.get(CM).get_json()["metadata"]["resourceVersion"]
    # unset and "0" serve the newest state; NotOlderThan serves at least the asked revision
    assert names(client.get(f"{CM}?resourceVersion=0")) == ["a", "b"]
    assert names(client.get(f"{CM}?resourceVersion={rv}&resourceVersionMatch=NotOlderThan")) == ["a", "b"]
    assert names(client.get(f"{CM}?resourceVersion=0&resourceVersionMatch=NotOlderThan&limit=1")) == ["a"]
    # rv other + limit, no match: Exact (the legacy rule)
    legacy = client.get(f"{CM}?resourceVersion={rv}&limit=5").get_json()
    assert [i["metadata"]["name"] for i in legacy["items"]] == ["a"]
    assert legacy["metadata"]["resourceVersion"] == rv
    # "0" with a continue token continues the token's snapshot
    page = client.get(f"{CM}?limit=1").get_json()
    rest = client.get(f"{CM}?limit=1&resourceVersion=0&continue={page['metadata']['continue']}").get_json()
    assert [i["metadata"]["name"] for i in rest["items"]] == ["b"] and rest["metadata"]["resourceVersion"] == newest
    # Exact below the kept history is 410
    app.extensions["orch"].storage.compact(now=time.time() + 3600)
    gone = client.get(f"{CM}?resourceVersion={rv}&resourceVersionMatch=Exact")
    assert gone.status_code == 410 and gone.get_json()["reason"] == "Expired"


def test_get_resource_version_rules(client) -> None:
    made = client.post(CM, json=cm("a")).get_json()
    rv = made["metadata"]["resourceVersion"]
    assert client.get(f"{CM}/a?resourceVersion=0").get_json()["metadata"]["name"] == "a"
    assert client.get(f"{CM}/a?resourceVersion={rv}").status_code == 200
    late = client.get(f"{CM}/a?resourceVersion={int(rv) + 1000}")
    assert late.status_code == 504 and "Too large resource version" in late.get_json()["message"]
