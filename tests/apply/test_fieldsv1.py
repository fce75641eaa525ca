"""Field sets of objects and their FieldsV1 form, checked against the reference's encoding."""

from __future__ import annotations

import json

import pytest
from orch_apiserver.apply import (
    FieldSet,
    FieldsV1Error,
    decode_fields_v1,
    encode_fields_v1,
    field_pe,
    fieldset_from_object,
    index_pe,
    key_pe,
    make_path,
    path_string,
    value_pe,
)

from tests.apply.helpers import DEPLOYMENT, WIDGET, widget


def compact(tree: dict) -> str:
    return json.dumps(tree, separators=(",", ":"), ensure_ascii=False)


DEPLOYMENT_OBJECT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "finalizers": ["example.com/a"]},
    "spec": {
        "template": {
            "spec": {
                "containers": [
                    {
                        "name": "nginx",
                        "image": "nginx",
                        "env": [{"name": "A", "value": "1"}],
                        "ports": [{"containerPort": 80}],
                    }
                ]
            }
        }
    },
}

# (object, expected FieldsV1 JSON with the reference's key order)
FIELDSET_CASES = [
    pytest.param(
        DEPLOYMENT_OBJECT,
        '{"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:finalizers":{"v:\\"example.com/a\\"":{}},"f:name":{}},'
        '"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},'
        '"f:env":{"k:{\\"name\\":\\"A\\"}":{".":{},"f:name":{},"f:value":{}}},"f:image":{},"f:name":{},'
        '"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}}}}}}',
        id="deployment: containers by name, ports by port+defaulted protocol, env by name, finalizers by value",
    ),
    pytest.param(
        {"metadata": {"labels": {"a": "1", "b": "2"}, "annotations": {}}},
        '{"f:metadata":{"f:annotations":{},"f:labels":{"f:a":{},"f:b":{}}}}',
        id="map entries are leaves; an empty map is a leaf",
    ),
    pytest.param(
        {"spec": {"replicas": None, "strategy": {}}},
        '{"f:spec":{"f:replicas":{},"f:strategy":{}}}',
        id="null and empty fields are leaves",
    ),
    pytest.param(
        {"spec": {"selector": {"matchLabels": {"app": "x"}}, "template": {"spec": {"tolerations": [{"key": "k"}]}}}},
        '{"f:spec":{"f:selector":{},"f:template":{"f:spec":{"f:tolerations":{}}}}}',
        id="atomic struct (selector) and atomic list (tolerations) are owned whole",
    ),
    pytest.param(
        {"spec": {"template": {"spec": {"containers": [{"name": "a", "ports": []}]}}}},
        '{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"a\\"}":{".":{},"f:name":{}}}}}}}',
        id="an empty granular list sets nothing",
    ),
]


@pytest.mark.parametrize(("obj", "expected"), FIELDSET_CASES)
def test_fieldset_of_deployment(obj: dict, expected: str) -> None:
    fs = fieldset_from_object(obj, DEPLOYMENT)
    assert compact(encode_fields_v1(fs)) == expected
    assert decode_fields_v1(json.loads(expected)) == fs


WIDGET_CASES = [
    pytest.param({"tags": ["b", "a"]}, {'.spec.tags[="a"]', '.spec.tags[="b"]'}, id="set items by value"),
    pytest.param(
        {"atomicList": ["a"], "plainList": ["b"]},
        {".spec.atomicList", ".spec.plainList"},
        id="atomic and unmarked lists are leaves",
    ),
    pytest.param(
        {"mergeList": [{"name": "x"}], "mergeSet": ["v"]},
        {'.spec.mergeList[name="x"]', '.spec.mergeList[name="x"].name', '.spec.mergeSet[="v"]'},
        id="a merge strategy without a list type reads as map / set",
    ),
    pytest.param(
        {"atomicMap": {"a": "1"}, "labels": {"a": "1"}},
        {".spec.atomicMap", ".spec.labels.a"},
        id="atomic map vs granular map",
    ),
    pytest.param(
        {"selector": {"a": "1"}, "granularSelector": {"a": "1"}, "atomicConfig": {"a": "1"}, "config": {"a": "1"}},
        {".spec.selector", ".spec.granularSelector.a", ".spec.atomicConfig", ".spec.config.a"},
        id="struct type atomic, overridden per field either way",
    ),
    pytest.param(
        {"list": [{"name": "a"}, {"name": "a", "value": 1}]},
        {'.spec.list[name="a"]'},
        id="duplicated keys are owned as a whole item",
    ),
]


@pytest.mark.parametrize(("spec", "expected"), WIDGET_CASES)
def test_fieldset_list_and_map_types(spec: dict, expected: set[str]) -> None:
    fs = fieldset_from_object({"spec": spec}, WIDGET)
    assert set(fs.strings()) == expected


def test_unstructured_object_is_deduced() -> None:
    obj = {
        "apiVersion": "x.io/v1",
        "kind": "Thing",
        "metadata": {"name": "t", "labels": {"a": "b"}},
        "spec": {"list": [1, 2], "nested": {"k": "v"}},
    }
    fs = fieldset_from_object(obj, None)
    assert set(fs.strings()) == {
        ".apiVersion",
        ".kind",
        ".metadata.name",
        ".metadata.labels.a",
        ".spec",
        ".spec.list",
        ".spec.nested",
        ".spec.nested.k",
    }


ENCODE_CASES = [
    pytest.param(FieldSet([make_path("a", "b"), make_path("a")]), '{"f:a":{".":{},"f:b":{}}}', id="dot first"),
    pytest.param(
        FieldSet(
            [
                (field_pe("l"), index_pe(2)),
                (field_pe("l"), value_pe("x")),
                (field_pe("l"), key_pe({"k": 1})),
                (field_pe("l"), field_pe("z")),
            ]
        ),
        '{"f:l":{"f:z":{},"k:{\\"k\\":1}":{},"v:\\"x\\"":{},"i:2":{}}}',
        id="field < key < value < index",
    ),
    pytest.param(
        FieldSet([(field_pe("p"), key_pe({"protocol": "TCP", "containerPort": 80}))]),
        '{"f:p":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{}}}',
        id="key fields sorted by name",
    ),
    pytest.param(
        FieldSet([(value_pe("a<b&c"),), (value_pe(3),), (value_pe(True),)]),
        '{"v:3":{},"v:\\"a\\\\u003cb\\\\u0026c\\"":{},"v:true":{}}',
        id="values: numbers < strings < bools, HTML-safe escapes",
    ),
    pytest.param(
        FieldSet([(value_pe(2.5),), (value_pe(1.5e-7),), (value_pe(80.0),)]),
        '{"v:1.5e-7":{},"v:2.5":{},"v:80":{}}',
        id="numbers as the reference writes them",
    ),
    pytest.param(FieldSet(), "{}", id="empty set"),
]


@pytest.mark.parametrize(("fs", "expected"), ENCODE_CASES)
def test_encode(fs: FieldSet, expected: str) -> None:
    assert compact(encode_fields_v1(fs)) == expected
    assert decode_fields_v1(json.loads(expected)) == fs


DECODE_CASES = [
    pytest.param({"f:a": {}}, {".a"}, id="leaf"),
    pytest.param({"f:a": {".": {}}}, {".a"}, id="dot alone is the member"),
    pytest.param({"f:a": {"f:b": {}}}, {".a.b"}, id="parent without dot is not a member"),
    pytest.param({"f:a": {".": {}, "f:b": {}}}, {".a", ".a.b"}, id="parent with dot"),
    pytest.param({"f:a": {"x:new": {}, "f:b": {}}}, {".a.b"}, id="unknown element kinds are skipped"),
    pytest.param({'k:{"b":2,"a":1}': {}}, {"[a=1,b=2]"}, id="key fields are sorted on read"),
    pytest.param({"v:80.0": {}}, {"[=80]"}, id="integral numbers read as integers"),
]


@pytest.mark.parametrize(("tree", "expected"), DECODE_CASES)
def test_decode(tree: dict, expected: set[str]) -> None:
    assert set(decode_fields_v1(tree).strings()) == expected


@pytest.mark.parametrize(
    "tree", [{"fx": {}}, {"f": {}}, {"k:[1]": {}}, {"k:{bad": {}}, {"v:nope": {}}, {"f:a": []}, {"i:x": {}}, []]
)
def test_decode_rejects_malformed(tree: object) -> None:
    with pytest.raises(FieldsV1Error):
        decode_fields_v1(tree)


PATH_CASES = [
    (make_path("spec", "replicas"), ".spec.replicas"),
    (
        make_path("spec", "template", "spec", "containers", {"name": "nginx"}, "image"),
        '.spec.template.spec.containers[name="nginx"].image',
    ),
    (make_path("ports", {"protocol": "TCP", "containerPort": 80}), '.ports[containerPort=80,protocol="TCP"]'),
    (make_path("metadata", "finalizers", value_pe("example.com/a")), '.metadata.finalizers[="example.com/a"]'),
    (make_path("args", 3), ".args[3]"),
    (make_path("flags", value_pe(True), value_pe(1.5)), ".flags[=true][=1.5]"),
]


@pytest.mark.parametrize(("path", "text"), PATH_CASES)
def test_path_string(path: tuple, text: str) -> None:
    assert path_string(path) == text


def test_set_algebra() -> None:
    a = FieldSet([make_path("s"), make_path("s", "x"), make_path("t")])
    b = FieldSet([make_path("s")])
    assert (a - b).strings() == [".s.x", ".t"]
    assert a.recursive_difference(b).strings() == [".t"]
    assert a.only_under(b).strings() == [".s", ".s.x"]
    assert (a & b).strings() == [".s"]
    assert a.leaves().strings() == [".s.x", ".t"]
    assert a.with_prefix(field_pe("s")).strings() == [".x"]


def test_widget_helper_is_typed() -> None:
    fs = fieldset_from_object(widget({"replicas": 1}), WIDGET)
    assert ".spec.replicas" in fs.strings()
