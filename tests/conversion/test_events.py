"""events.<domain>/v1 and v1beta1 Events are core v1 Events: conversions both ways, and v1's own rules."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from orch_apiserver.catalog import ResourceType
from orch_apiserver.resources import build_catalog

from tests.conversion import from_storage, to_storage
from tests.conversion.objects import NAMING, objects

CATALOG = build_catalog(NAMING)
GROUP = NAMING.group("events")
V1 = CATALOG.lookup(GROUP, "v1", "events")
V1BETA1 = CATALOG.lookup(GROUP, "v1beta1", "events")
CORE = CATALOG.lookup("", "v1", "events")
assert V1 is not None and V1BETA1 is not None and CORE is not None

CORE_EVENT = {
    "apiVersion": "v1",
    "kind": "Event",
    "metadata": {"name": "web.17", "namespace": "default", "resourceVersion": "42", "uid": "u-1"},
    "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web", "uid": "p-1", "apiVersion": "v1"},
    "reason": "Started",
    "message": "Started container app",
    "source": {"component": "kubelet", "host": "node-1"},
    "firstTimestamp": "2024-01-01T00:00:00Z",
    "lastTimestamp": "2024-01-01T00:05:00Z",
    "count": 3,
    "type": "Normal",
    "eventTime": "2024-01-01T00:00:00.000000Z",
    "series": {"count": 2, "lastObservedTime": "2024-01-01T00:05:00.000000Z"},
    "action": "Started",
    "related": {"kind": "Node", "name": "node-1"},
    "reportingComponent": "kubelet",
    "reportingInstance": "node-1",
}


def test_both_versions_are_stored_as_core_events() -> None:
    for rt in (V1, V1BETA1):
        conv = rt.conversion
        assert conv is not None
        assert (conv.storage_group, conv.storage_version, conv.storage_plural) == ("", "v1", "events")
        assert CATALOG.storage_type(rt) is CORE
    assert V1.deprecation is None
    assert V1BETA1.deprecation is not None
    assert (V1BETA1.deprecation.deprecated_in, V1BETA1.deprecation.removed_in) == ("1.22", "1.25")
    assert V1BETA1.deprecation.replacement == f"{GROUP}/v1 Event"


@pytest.mark.parametrize("rt", [V1, V1BETA1], ids=["v1", "v1beta1"])
def test_core_event_reads_with_the_renamed_fields(rt: ResourceType) -> None:
    event = from_storage(rt, CORE_EVENT)
    assert event["apiVersion"] == rt.group_version and event["kind"] == "Event"
    assert event["regarding"] == CORE_EVENT["involvedObject"]
    assert event["note"] == "Started container app"
    assert event["reportingController"] == "kubelet" and event["reportingInstance"] == "node-1"
    assert event["deprecatedSource"] == {"component": "kubelet", "host": "node-1"}
    assert event["deprecatedFirstTimestamp"] == "2024-01-01T00:00:00Z"
    assert event["deprecatedLastTimestamp"] == "2024-01-01T00:05:00Z"
    assert event["deprecatedCount"] == 3
    assert event["series"] == CORE_EVENT["series"] and event["related"] == CORE_EVENT["related"]
    for core_only in (
        "involvedObject",
        "message",
        "source",
        "firstTimestamp",
        "lastTimestamp",
        "count",
        "reportingComponent",
    ):
        assert core_only not in event
    assert to_storage(rt, event) == CORE_EVENT
    assert list(to_storage(rt, event)) == list(CORE_EVENT)  # the core field order, apiVersion first


@settings(max_examples=60, deadline=None)
@given(objects("v1", "Event"))
def test_core_event_round_trips_through_every_events_version(event: dict[str, Any]) -> None:
    for rt in (V1, V1BETA1):
        assert to_storage(rt, from_storage(rt, event)) == event


@settings(max_examples=60, deadline=None)
@given(objects(f"{GROUP}/v1", "Event"))
def test_v1_event_round_trips_and_reads_as_v1beta1(event: dict[str, Any]) -> None:
    stored = to_storage(V1, event)
    assert from_storage(V1, stored) == event
    as_beta = from_storage(V1BETA1, stored)
    assert as_beta == {**event, "apiVersion": f"{GROUP}/v1beta1"}  # same fields in both versions
    assert to_storage(V1BETA1, as_beta) == stored


@settings(max_examples=60, deadline=None)
@given(objects(f"{GROUP}/v1beta1", "Event"))
def test_v1beta1_event_round_trips(event: dict[str, Any]) -> None:
    stored = to_storage(V1BETA1, event)
    assert stored["apiVersion"] == "v1"
    assert from_storage(V1BETA1, stored) == event
    assert to_storage(V1, from_storage(V1, stored)) == stored


# ----------------------------------------------------------------------------------- v1's own rules

NEW_V1 = {
    "apiVersion": f"{GROUP}/v1",
    "kind": "Event",
    "metadata": {"name": "e", "namespace": "default"},
    "eventTime": "2024-01-01T00:00:00.000000Z",
    "reportingController": "example.io/ctl",
    "reportingInstance": "ctl-1",
    "action": "Scheduled",
    "reason": "Scheduled",
    "type": "Normal",
    "note": "scheduled",
    "regarding": {"kind": "Pod", "name": "web", "namespace": "default"},
}


def _create_errors(rt: ResourceType, obj: dict[str, Any]) -> list[str]:
    assert rt.conversion is not None and rt.conversion.validate is not None
    return [e.field for e in rt.conversion.validate(obj, None)]


def _update_errors(rt: ResourceType, obj: dict[str, Any], old: dict[str, Any]) -> list[str]:
    assert rt.conversion is not None and rt.conversion.validate is not None
    return [e.field for e in rt.conversion.validate(obj, old)]


def test_a_complete_new_v1_event_is_valid() -> None:
    assert _create_errors(V1, NEW_V1) == []
    assert _create_errors(V1, {**NEW_V1, "type": "Warning"}) == []


@pytest.mark.parametrize("missing", ["eventTime", "reportingController", "reportingInstance", "action", "reason"])
def test_new_v1_events_need_the_reporting_fields(missing: str) -> None:
    body = {k: v for k, v in NEW_V1.items() if k != missing}
    assert _create_errors(V1, body) == [missing]


@pytest.mark.parametrize("event_type", ["", "Odd", "normal"])
def test_v1_type_is_normal_or_warning(event_type: str) -> None:
    assert _create_errors(V1, {**NEW_V1, "type": event_type}) == ["type"]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("deprecatedFirstTimestamp", "2024-01-01T00:00:00Z"),
        ("deprecatedLastTimestamp", "2024-01-01T00:00:00Z"),
        ("deprecatedCount", 2),
        ("deprecatedSource", {"component": "kubelet"}),
        ("deprecatedSource", {"host": "n"}),
    ],
)
def test_new_v1_events_refuse_the_deprecated_fields(name: str, value: Any) -> None:
    errors = V1.conversion.validate({**NEW_V1, name: value}, None)  # type: ignore[union-attr]
    assert [(e.field, e.detail) for e in errors] == [(name, "needs to be unset")]


def test_zero_deprecated_fields_are_allowed_on_new_v1_events() -> None:
    assert _create_errors(V1, {**NEW_V1, "deprecatedCount": 0, "deprecatedSource": {}}) == []


def test_v1_note_is_limited() -> None:
    assert _create_errors(V1, {**NEW_V1, "note": "x" * 1025}) == ["note"]


def test_v1_events_are_immutable_but_their_series() -> None:
    old = from_storage(V1, CORE_EVENT)  # an old-style event: its deprecated fields are no obstacle to updates
    assert (
        _update_errors(V1, {**old, "series": {"count": 5, "lastObservedTime": "2024-01-02T00:00:00.000000Z"}}, old)
        == []
    )
    assert _update_errors(V1, {**old, "note": "changed"}, old) == ["message"]
    assert _update_errors(V1, {**old, "regarding": {"kind": "Pod", "name": "other"}}, old) == ["involvedObject"]


def test_v1beta1_keeps_the_legacy_rules() -> None:
    beta = {**NEW_V1, "apiVersion": f"{GROUP}/v1beta1", "type": "Odd", "deprecatedCount": 4}
    assert _create_errors(V1BETA1, beta) == []
    assert _create_errors(V1BETA1, {k: v for k, v in beta.items() if k != "reportingController"}) == [
        "reportingController"
    ]
    assert _create_errors(V1BETA1, {k: v for k, v in beta.items() if k != "eventTime"}) == []


def test_field_selectors_use_the_events_group_names() -> None:
    event = from_storage(V1, CORE_EVENT)
    selectors = V1.strategy.field_selectors
    assert selectors["regarding.name"](event) == "web"
    assert selectors["reportingController"](event) == "kubelet"
    assert V1BETA1.strategy.field_selectors["regarding.kind"](event) == "Pod"


def test_a_field_of_the_other_form_does_not_overwrite_the_renamed_one() -> None:
    event = {**NEW_V1, "involvedObject": {"kind": "Node", "name": "intruder"}}
    assert to_storage(V1, event)["involvedObject"] == NEW_V1["regarding"]
    core = {**CORE_EVENT, "note": "not a core field"}
    assert from_storage(V1, core)["note"] == CORE_EVENT["message"]
