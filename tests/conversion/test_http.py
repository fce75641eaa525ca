"""Objects written through one served version are read, listed and watched through every other (HTTP)."""

from __future__ import annotations

import copy
from typing import Any

import orjson
from orch_apiserver.naming import Naming
from orch_apiserver.schema import decode_object, encode_object

NAMING = Naming()
EVENTS, DISCOVERY, NODE = NAMING.group("events"), NAMING.group("discovery"), NAMING.group("node")
HOSTNAME, ZONE = NAMING.key("hostname"), f"topology.{NAMING.domain}/zone"
CORE_EVENTS = "/api/v1/namespaces/default/events"
POD_SPEC = {"containers": [{"name": "task", "image": "busybox:1.36"}], "restartPolicy": "OnFailure"}


def events_path(version: str) -> str:
    return f"/apis/{EVENTS}/{version}/namespaces/default/events"


def cronjobs_path(version: str) -> str:
    return f"/apis/batch/{version}/namespaces/default/cronjobs"


def slices_path(version: str) -> str:
    return f"/apis/{DISCOVERY}/{version}/namespaces/default/endpointslices"


def runtime_classes_path(version: str) -> str:
    return f"/apis/{NODE}/{version}/runtimeclasses"


def core_event(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "web", "namespace": "default", "apiVersion": "v1"},
        "reason": "Started",
        "message": "Started container app",
        "type": "Normal",
        "source": {"component": "kubelet", "host": "node-1"},
        "count": 2,
        "firstTimestamp": "2024-01-01T00:00:00Z",
        "lastTimestamp": "2024-01-01T00:01:00Z",
    }


def v1_event(name: str) -> dict[str, Any]:
    return {
        "apiVersion": f"{EVENTS}/v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "default"},
        "eventTime": "2024-01-01T00:00:00.000000Z",
        "reportingController": "example.io/ctl",
        "reportingInstance": "ctl-1",
        "action": "Scheduled",
        "reason": "Scheduled",
        "type": "Normal",
        "note": "scheduled web",
        "regarding": {"kind": "Pod", "name": "web", "namespace": "default"},
    }


def created(client, path: str, body: dict[str, Any]) -> dict[str, Any]:
    resp = client.post(path, json=body)
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def fetched(client, path: str) -> dict[str, Any]:
    resp = client.get(path)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def watched(client, path: str, resource_version: str) -> list[dict[str, Any]]:
    """The events a watch from `resource_version` replays (every write happened before it)."""
    resp = client.get(f"{path}?watch=1&resourceVersion={resource_version}&timeoutSeconds=1", buffered=False)
    assert resp.status_code == 200
    body = b"".join(resp.response)
    resp.close()
    return [orjson.loads(line) for line in body.splitlines() if line.strip()]


# ----------------------------------------------------------------------------------- events


def test_core_event_reads_through_both_events_versions(any_client) -> None:
    c = any_client
    stored = created(c, CORE_EVENTS, core_event("web.1"))
    for version in ("v1", "v1beta1"):
        event = fetched(c, f"{events_path(version)}/web.1")
        assert event["apiVersion"] == f"{EVENTS}/{version}"
        assert event["regarding"]["name"] == "web" and event["note"] == "Started container app"
        assert event["deprecatedSource"] == {"component": "kubelet", "host": "node-1"}
        assert event["deprecatedCount"] == 2 and event["deprecatedFirstTimestamp"] == "2024-01-01T00:00:00Z"
        assert "involvedObject" not in event and "message" not in event
        assert event["metadata"]["uid"] == stored["metadata"]["uid"]
        assert event["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]
        listed = fetched(c, events_path(version))
        assert listed["kind"] == "EventList" and listed["apiVersion"] == f"{EVENTS}/{version}"
        assert [(i["metadata"]["name"], i["note"]) for i in listed["items"]] == [("web.1", "Started container app")]


def test_v1_event_reads_as_a_core_event(any_client) -> None:
    c = any_client
    created(c, events_path("v1"), v1_event("sched.1"))
    event = fetched(c, f"{CORE_EVENTS}/sched.1")
    assert event["apiVersion"] == "v1"
    assert event["involvedObject"]["name"] == "web" and event["message"] == "scheduled web"
    assert event["reportingComponent"] == "example.io/ctl" and event["reportingInstance"] == "ctl-1"
    assert "regarding" not in event and "note" not in event
    assert fetched(c, f"{events_path('v1beta1')}/sched.1")["note"] == "scheduled web"


def test_v1_refuses_deprecated_fields_and_incomplete_events(any_client) -> None:
    c = any_client
    resp = c.post(events_path("v1"), json={**v1_event("bad"), "deprecatedCount": 3})
    assert resp.status_code == 422
    assert [cause["field"] for cause in resp.get_json()["details"]["causes"]] == ["deprecatedCount"]
    incomplete = {k: v for k, v in v1_event("bad").items() if k != "reportingInstance"}
    resp = c.post(events_path("v1"), json=incomplete)
    assert resp.status_code == 422
    assert [cause["field"] for cause in resp.get_json()["details"]["causes"]] == ["reportingInstance"]
    assert c.get(f"{CORE_EVENTS}/bad").status_code == 404


def test_v1_event_update_keeps_its_fields_immutable(any_client) -> None:
    c = any_client
    event = created(c, events_path("v1"), v1_event("sched.2"))
    series = {**event, "series": {"count": 2, "lastObservedTime": "2024-01-01T00:02:00.000000Z"}}
    resp = c.put(f"{events_path('v1')}/sched.2", json=series)
    assert resp.status_code == 200, resp.get_json()
    assert fetched(c, f"{CORE_EVENTS}/sched.2")["series"]["count"] == 2
    resp = c.put(f"{events_path('v1')}/sched.2", json={**resp.get_json(), "note": "rewritten"})
    assert resp.status_code == 422


def test_events_watch_shows_the_watched_version(any_client) -> None:
    c = any_client
    rv = fetched(c, CORE_EVENTS)["metadata"]["resourceVersion"]
    created(c, CORE_EVENTS, core_event("web.2"))
    created(c, events_path("v1"), v1_event("sched.3"))
    frames = watched(c, events_path("v1beta1"), rv)
    assert [(f["type"], f["object"]["apiVersion"], f["object"]["metadata"]["name"]) for f in frames] == [
        ("ADDED", f"{EVENTS}/v1beta1", "web.2"),
        ("ADDED", f"{EVENTS}/v1beta1", "sched.3"),
    ]
    assert frames[0]["object"]["note"] == "Started container app"
    core_frames = watched(c, CORE_EVENTS, rv)
    assert [f["object"].get("message") for f in core_frames] == ["Started container app", "scheduled web"]


def test_field_selectors_speak_the_served_versions_names(client) -> None:
    created(client, CORE_EVENTS, core_event("web.4"))
    created(client, events_path("v1"), {**v1_event("other.1"), "regarding": {"kind": "Pod", "name": "other"}})
    listed = fetched(client, f"{events_path('v1')}?fieldSelector=regarding.name%3Dweb")
    assert [i["metadata"]["name"] for i in listed["items"]] == ["web.4"]
    listed = fetched(client, f"{events_path('v1beta1')}?fieldSelector=reportingController%3Dexample.io%2Fctl")
    assert [i["metadata"]["name"] for i in listed["items"]] == ["other.1"]
    listed = fetched(client, f"{CORE_EVENTS}?fieldSelector=involvedObject.name%3Dother")
    assert [i["metadata"]["name"] for i in listed["items"]] == ["other.1"]


def test_deprecated_events_version_warns(client) -> None:
    resp = client.get(events_path("v1beta1"))
    assert resp.status_code == 200
    assert resp.headers.get("Warning") == (
        f'299 - "{EVENTS}/v1beta1 Event is deprecated in v1.22+, unavailable in v1.25+; use {EVENTS}/v1 Event"'
    )
    assert "Warning" not in client.get(events_path("v1")).headers


# ----------------------------------------------------------------------------------- batch/v1beta1 CronJob


def cronjob(name: str, version: str) -> dict[str, Any]:
    return {
        "apiVersion": f"batch/{version}",
        "kind": "CronJob",
        "metadata": {"name": name},
        "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {"spec": copy.deepcopy(POD_SPEC)}}}},
    }


def test_cronjob_written_as_v1beta1_reads_as_v1_and_back(any_client) -> None:
    c = any_client
    beta = created(c, cronjobs_path("v1beta1"), cronjob("nightly", "v1beta1"))
    assert beta["apiVersion"] == "batch/v1beta1"
    assert beta["spec"]["concurrencyPolicy"] == "Allow" and beta["spec"]["successfulJobsHistoryLimit"] == 3
    v1 = fetched(c, f"{cronjobs_path('v1')}/nightly")
    assert v1 == {**beta, "apiVersion": "batch/v1"}
    v1["spec"]["suspend"] = True
    resp = c.put(f"{cronjobs_path('v1')}/nightly", json=v1)
    assert resp.status_code == 200, resp.get_json()
    again = fetched(c, f"{cronjobs_path('v1beta1')}/nightly")
    assert again["spec"]["suspend"] is True and again["apiVersion"] == "batch/v1beta1"
    assert [i["apiVersion"] for i in fetched(c, cronjobs_path("v1beta1"))["items"]] == ["batch/v1beta1"]
    assert c.delete(f"{cronjobs_path('v1beta1')}/nightly").status_code == 200
    assert c.get(f"{cronjobs_path('v1')}/nightly").status_code == 404


def test_cronjob_v1beta1_speaks_protobuf_and_warns(client) -> None:
    created(client, cronjobs_path("v1"), cronjob("hourly", "v1"))
    resp = client.get(f"{cronjobs_path('v1beta1')}/hourly", headers={"Accept": NAMING.protobuf_media_type})
    assert resp.status_code == 200
    obj = decode_object(resp.data, NAMING)
    assert (obj["apiVersion"], obj["kind"], obj["spec"]["schedule"]) == ("batch/v1beta1", "CronJob", "*/5 * * * *")
    assert resp.headers.get("Warning") == (
        '299 - "batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob"'
    )


def test_batch_discovery_prefers_v1(client) -> None:
    group = fetched(client, "/apis/batch")
    assert [v["version"] for v in group["versions"]] == ["v1", "v1beta1"]
    assert group["preferredVersion"]["version"] == "v1"


# ----------------------------------------------------------------------------------- discovery EndpointSlice


def endpoint_slice(name: str, version: str, endpoint: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": f"{DISCOVERY}/{version}",
        "kind": "EndpointSlice",
        "metadata": {"name": name},
        "addressType": "IPv4",
        "endpoints": [{"addresses": ["10.0.0.1"], **endpoint}],
        "ports": [{"name": "http", "port": 80, "protocol": "TCP"}],
    }


def test_endpoint_slice_topology_across_versions(any_client) -> None:
    c = any_client
    beta = created(
        c,
        slices_path("v1beta1"),
        endpoint_slice("web-a", "v1beta1", {"nodeName": "n1", "topology": {HOSTNAME: "n1", ZONE: "z1", "rack": "r7"}}),
    )
    assert beta["endpoints"][0]["topology"] == {"rack": "r7", ZONE: "z1", HOSTNAME: "n1"}
    v1 = fetched(c, f"{slices_path('v1')}/web-a")
    assert v1["endpoints"][0] == {
        "addresses": ["10.0.0.1"],
        "nodeName": "n1",
        "zone": "z1",
        "deprecatedTopology": {"rack": "r7"},
    }
    created(c, slices_path("v1"), endpoint_slice("web-b", "v1", {"nodeName": "n2", "zone": "z2"}))
    listed = fetched(c, slices_path("v1beta1"))
    assert [(i["metadata"]["name"], i["endpoints"][0]["topology"]) for i in listed["items"]] == [
        ("web-a", {"rack": "r7", ZONE: "z1", HOSTNAME: "n1"}),
        ("web-b", {ZONE: "z2", HOSTNAME: "n2"}),
    ]
    # a v1beta1 client's read-modify-write leaves the v1 fields as they were
    beta_b = listed["items"][1]
    beta_b["metadata"]["labels"] = {"touched": "yes"}
    resp = c.put(
        f"{slices_path('v1beta1')}/web-b",
        json={"apiVersion": f"{DISCOVERY}/v1beta1", "kind": "EndpointSlice", **beta_b},
    )
    assert resp.status_code == 200, resp.get_json()
    assert fetched(c, f"{slices_path('v1')}/web-b")["endpoints"][0] == {
        "addresses": ["10.0.0.1"],
        "nodeName": "n2",
        "zone": "z2",
    }


def test_endpoint_slice_written_as_v1beta1_protobuf(client) -> None:
    pb = NAMING.protobuf_media_type
    body = endpoint_slice("web-pb", "v1beta1", {"nodeName": "n3", "topology": {HOSTNAME: "n3", ZONE: "z3"}})
    resp = client.post(
        slices_path("v1beta1"), data=encode_object(body, NAMING), headers={"Content-Type": pb, "Accept": pb}
    )
    assert resp.status_code == 201
    answered = decode_object(resp.data, NAMING)
    assert answered["apiVersion"] == f"{DISCOVERY}/v1beta1"
    assert answered["endpoints"][0]["topology"] == {ZONE: "z3", HOSTNAME: "n3"}
    v1 = decode_object(client.get(f"{slices_path('v1')}/web-pb", headers={"Accept": pb}).data, NAMING)
    assert (v1["endpoints"][0]["nodeName"], v1["endpoints"][0]["zone"]) == ("n3", "z3")
    assert "deprecatedTopology" not in v1["endpoints"][0]


# ----------------------------------------------------------------------------------- node RuntimeClass


def test_runtime_class_across_versions(any_client) -> None:
    c = any_client
    body = {
        "apiVersion": f"{NODE}/v1",
        "kind": "RuntimeClass",
        "metadata": {"name": "kata"},
        "handler": "kata",
        "overhead": {"podFixed": {"cpu": "250m"}},
        "scheduling": {"nodeSelector": {"sandbox": "kata"}},
    }
    stored = created(c, runtime_classes_path("v1"), body)
    beta = fetched(c, f"{runtime_classes_path('v1beta1')}/kata")
    assert beta == {**stored, "apiVersion": f"{NODE}/v1beta1"}
    resp = c.patch(
        f"{runtime_classes_path('v1beta1')}/kata",
        data=orjson.dumps({"metadata": {"labels": {"a": "b"}}}),
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["apiVersion"] == f"{NODE}/v1beta1"
    assert fetched(c, f"{runtime_classes_path('v1')}/kata")["metadata"]["labels"] == {"a": "b"}
    resp = c.put(f"{runtime_classes_path('v1beta1')}/kata", json={**resp.get_json(), "handler": "runc"})
    assert resp.status_code == 422  # v1's immutable handler holds for every version
    assert resp.headers.get("Warning") == (
        f'299 - "{NODE}/v1beta1 RuntimeClass is deprecated in v1.22+, unavailable in v1.25+; '
        f'use {NODE}/v1 RuntimeClass"'
    )


# ----------------------------------------------------------------------------------- tables

TABLE = f"application/json;as=Table;v=v1;g={NAMING.meta_group}"


def test_older_versions_print_with_their_kind_printer(client) -> None:
    created(client, CORE_EVENTS, core_event("web.3"))
    table = client.get(events_path("v1beta1"), headers={"Accept": TABLE}).get_json()
    assert [c["name"] for c in table["columnDefinitions"] if c["priority"] == 0] == [
        "Last Seen",
        "Type",
        "Reason",
        "Object",
        "Message",
    ]
    row = table["rows"][0]["cells"]
    assert row[1:4] == ["Normal", "Started", "pod/web"] and row[6] == "Started container app"
    created(client, cronjobs_path("v1"), cronjob("daily", "v1"))
    table = client.get(cronjobs_path("v1beta1"), headers={"Accept": TABLE}).get_json()
    assert [c["name"] for c in table["columnDefinitions"]][:3] == ["Name", "Schedule", "Timezone"]
    assert table["rows"][0]["cells"][:2] == ["daily", "*/5 * * * *"]
