from __future__ import annotations

import copy
from datetime import UTC, datetime

import pytest
from orch_apiserver.catalog import ResourceType
from orch_apiserver.errors import BadRequest
from orch_apiserver.naming import Naming
from orch_apiserver.resources import build_catalog
from orch_apiserver.tables import DEFAULT_TABLE, group_prefix, parse_include_object, render_table, table_for

from tests.tables.helpers import NAMING, NOW, ago, obj, rt

PODS = rt("", "pods")


def pod(name: str) -> dict:
    item = obj(name, spec={"containers": [{"name": "app", "image": "nginx"}]}, status={"phase": "Running"})
    item["metadata"].update(
        {
            "namespace": "default",
            "uid": f"uid-{name}",
            "resourceVersion": "12",
            "labels": {"app": "web"},
            "managedFields": [{"manager": "kubectl", "operation": "Apply"}],
        }
    )
    return item


def test_list_table_shape() -> None:
    table = render_table(
        PODS,
        NAMING,
        [pod("a"), pod("b")],
        list_meta={"resourceVersion": "99", "continue": "tok", "remainingItemCount": 5},
        now=NOW,
    )
    assert list(table) == ["kind", "apiVersion", "metadata", "columnDefinitions", "rows"]
    assert table["kind"] == "Table"
    assert table["apiVersion"] == "meta.orch.io/v1"
    assert table["metadata"] == {"resourceVersion": "99", "continue": "tok", "remainingItemCount": 5}
    assert [c["name"] for c in table["columnDefinitions"]][:5] == ["Name", "Ready", "Status", "Restarts", "Age"]
    assert [r["cells"][:3] for r in table["rows"]] == [["a", "0/1", "Running"], ["b", "0/1", "Running"]]


def test_metadata_omits_empty_values() -> None:
    table = render_table(
        PODS, NAMING, [], list_meta={"resourceVersion": "7", "continue": "", "remainingItemCount": None}, now=NOW
    )
    assert table["metadata"] == {"resourceVersion": "7"}
    assert table["rows"] == []
    assert render_table(PODS, NAMING, [], list_meta={}, now=NOW)["metadata"] == {}
    assert render_table(PODS, NAMING, [], list_meta={"remainingItemCount": 0}, now=NOW)["metadata"] == {
        "remainingItemCount": 0
    }


def test_include_object_metadata_is_the_default() -> None:
    item = pod("a")
    row = render_table(PODS, NAMING, [item], list_meta={"resourceVersion": "12"}, now=NOW)["rows"][0]
    assert row["object"] == {
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.orch.io/v1",
        "metadata": item["metadata"],
    }
    assert row["object"]["metadata"]["managedFields"] == [{"manager": "kubectl", "operation": "Apply"}]


def test_include_object_object_adds_type_meta() -> None:
    item = pod("a")
    original = copy.deepcopy(item)
    row = render_table(PODS, NAMING, [item], list_meta={}, include_object="Object", now=NOW)["rows"][0]
    assert list(row["object"])[:2] == ["kind", "apiVersion"]
    assert row["object"] == {"kind": "Pod", "apiVersion": "v1", **original}
    assert item == original  # the caller's object is left alone
    csrs = rt("certificates", "certificatesigningrequests")
    row = render_table(csrs, NAMING, [obj("c", spec={})], list_meta={}, include_object="Object", now=NOW)["rows"][0]
    assert row["object"]["apiVersion"] == "certificates.orch.io/v1"


def test_include_object_none() -> None:
    row = render_table(PODS, NAMING, [pod("a")], list_meta={}, include_object="None", now=NOW)["rows"][0]
    assert row == {"cells": row["cells"], "object": None}


def test_initial_events_end_bookmark_row_keeps_only_metadata() -> None:
    item = pod("a")
    item["metadata"]["annotations"] = {NAMING.initial_events_end_annotation: "true"}
    for mode in ("None", "Object", "Metadata"):
        row = render_table(PODS, NAMING, [item], list_meta={}, include_object=mode, now=NOW)["rows"][0]
        assert row["object"]["kind"] == "PartialObjectMetadata"


def test_conditions_are_carried_into_rows() -> None:
    done = pod("done")
    done["status"] = {"phase": "Succeeded"}
    rows = render_table(PODS, NAMING, [done, pod("live")], list_meta={}, now=NOW)["rows"]
    assert list(rows[0]) == ["cells", "conditions", "object"]
    assert rows[0]["conditions"][0]["type"] == "Completed"
    assert "conditions" not in rows[1]


def test_without_headers_column_definitions_are_null() -> None:
    table = render_table(PODS, NAMING, [pod("a")], list_meta={"resourceVersion": "12"}, include_headers=False, now=NOW)
    assert table["columnDefinitions"] is None
    assert len(table["rows"]) == 1


def test_now_defaults_to_the_clock() -> None:
    fresh = obj("a", created=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    cells = render_table(rt("", "configmaps"), NAMING, [fresh], list_meta={})["rows"][0]["cells"]
    assert cells[2] in ("0s", "1s", "2s")


@pytest.mark.parametrize("value", ["Object", "Metadata", "None"])
def test_parse_include_object_accepts(value: str) -> None:
    assert parse_include_object(value) == value


def test_parse_include_object_defaults_to_metadata() -> None:
    assert parse_include_object(None) == "Metadata"
    assert parse_include_object("") == "Metadata"


@pytest.mark.parametrize("value", ["x", "object", "metadata", "All"])
def test_parse_include_object_rejects(value: str) -> None:
    with pytest.raises(BadRequest) as caught:
        parse_include_object(value)
    assert caught.value.message == f'unrecognized includeObject value: "{value}"'
    assert caught.value.code == 400


def test_render_table_rejects_unknown_include_object() -> None:
    with pytest.raises(BadRequest):
        render_table(PODS, NAMING, [], list_meta={}, include_object="Everything")


def test_unlisted_kind_gets_the_default_table() -> None:
    widgets = ResourceType("widgets.example.com", "v1", "Widget", "widgets", True)
    assert table_for(widgets, NAMING) is DEFAULT_TABLE
    table = render_table(widgets, NAMING, [obj("w", created="2024-04-01T00:00:00Z")], list_meta={}, now=NOW)
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Created At"]
    assert [c["type"] for c in table["columnDefinitions"]] == ["string", "date"]
    assert table["rows"][0]["cells"] == ["w", "2024-04-01T00:00:00Z"]
    # a kind that only shares a printed plural is not mistaken for the built-in one
    foreign = ResourceType("apps.example.com", "v1", "Deployment", "deployments", True)
    assert table_for(foreign, NAMING) is DEFAULT_TABLE


def test_group_prefix() -> None:
    assert group_prefix("", NAMING) == ""
    assert group_prefix("apps", NAMING) == "apps"
    assert group_prefix("certificates.orch.io", NAMING) == "certificates"
    assert group_prefix("rbac.authorization.orch.io", NAMING) == "rbac.authorization"
    assert group_prefix("orch.io", NAMING) is None
    assert group_prefix("certificates.example.com", NAMING) is None
    assert group_prefix("certificates.example.com", Naming("example.com")) == "certificates"


def test_other_domain_uses_its_meta_group() -> None:
    naming = Naming("example.com")
    pods = next(t for t in build_catalog(naming) if t.plural == "pods")
    table = render_table(pods, naming, [pod("a")], list_meta={}, now=NOW)
    assert table["apiVersion"] == "meta.example.com/v1"
    assert table["rows"][0]["object"]["apiVersion"] == "meta.example.com/v1"
    assert table["columnDefinitions"][1]["name"] == "Ready"


def _kinds() -> list[ResourceType]:
    return list(build_catalog(NAMING))


@pytest.mark.parametrize("kind", _kinds(), ids=lambda t: f"{t.plural}.{t.group or 'core'}")
def test_every_kind_renders_its_example(kind: ResourceType) -> None:
    item = {"metadata": {"name": "example", "creationTimestamp": ago(minutes=3)}, **copy.deepcopy(kind.example)}
    for mode in ("Metadata", "Object", "None"):
        table = render_table(kind, NAMING, [item], list_meta={"resourceVersion": "1"}, include_object=mode, now=NOW)
        definitions = table["columnDefinitions"]
        assert definitions, kind.plural
        assert all(set(d) == {"name", "type", "format", "description", "priority"} for d in definitions)
        assert all(d["type"] in ("string", "integer", "number", "boolean", "date") for d in definitions)
        # the reference marks VolumeAttachment's Attacher column "name" too; kubectl decorates the first one only
        assert sum(d["format"] == "name" for d in definitions) == (2 if kind.plural == "volumeattachments" else 1)
        assert all(d["description"] for d in definitions)
        row = table["rows"][0]
        assert len(row["cells"]) == len(definitions), kind.plural
        assert all(isinstance(c, (str, int, bool)) for c in row["cells"]), row["cells"]
        name_index = next(i for i, d in enumerate(definitions) if d["format"] == "name")
        assert row["cells"][name_index] == "example"
        # the age (or Created At) is computed from creationTimestamp (events and pod templates have none)
        names = [d["name"] for d in definitions]
        if "Age" in names:
            assert row["cells"][names.index("Age")] == "3m"
        if "Created At" in names:
            assert row["cells"][names.index("Created At")] == "2024-05-01T11:57:00Z"


@pytest.mark.parametrize("kind", _kinds(), ids=lambda t: f"{t.plural}.{t.group or 'core'}")
def test_every_kind_survives_an_empty_object(kind: ResourceType) -> None:
    row = table_for(kind, NAMING).row({}, NOW)
    assert len(row["cells"]) == len(table_for(kind, NAMING).columns)
