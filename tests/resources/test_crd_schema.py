"""A CRD version's schema at work on objects: pruning, defaults, validation wording, Go's regex syntax."""

from __future__ import annotations

import re

import pytest
from orch_apiserver.resources.crd_schema import Extensions, Validator, apply_defaults, go_regex, prune

EXT = Extensions("kubernetes")
SCHEMA = {
    "type": "object",
    "properties": {
        "metadata": {"type": "object"},  # real CRDs say this: metadata is never pruned by it
        "spec": {
            "type": "object",
            "properties": {
                "size": {"type": "integer", "default": 3, "minimum": 1},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2, "uniqueItems": True},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "either": {"x-kubernetes-int-or-string": True},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            },
        },
    },
}


def test_pruning_keeps_metadata_preserved_subtrees_and_typed_maps():
    obj = {
        "apiVersion": "x/v1",
        "kind": "K",
        "metadata": {"name": "n", "labels": {"a": "b"}},
        "spec": {"size": 1, "junk": 1, "free": {"any": {"deep": [1]}}, "labels": {"k": "v"}},
        "top": 1,
    }
    prune(obj, SCHEMA, EXT)
    assert obj == {
        "apiVersion": "x/v1",
        "kind": "K",
        "metadata": {"name": "n", "labels": {"a": "b"}},
        "spec": {"size": 1, "free": {"any": {"deep": [1]}}, "labels": {"k": "v"}},
    }


def test_defaults_fill_missing_fields_only():
    obj = {"spec": {}}
    apply_defaults(obj, SCHEMA)
    assert obj == {"spec": {"size": 3}}
    kept = {"spec": {"size": 7}}
    apply_defaults(kept, SCHEMA)
    assert kept == {"spec": {"size": 7}}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"size": 0}, ["spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1"]),
        ({"size": "a"}, ['spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"']),
        (
            {"tags": ["a", "b", "a"]},
            ["spec.tags: Too many: 3: must have at most 2 items", 'spec.tags[2]: Duplicate value: "a"'],
        ),
        (
            {"either": 1.5},
            [('spec.either: Invalid value: "number": spec.either in body must be of type integer,string: "number"')],
        ),
        (
            {"labels": {"k": 1}},
            [('spec.labels.k: Invalid value: "integer": spec.labels.k in body must be of type string: "integer"')],
        ),
    ],
)
def test_validation_speaks_as_the_reference(spec, expected):
    assert [str(e) for e in Validator(EXT).validate({"spec": spec}, SCHEMA)] == expected


@pytest.mark.parametrize(
    ("go", "matches", "misses"),
    [
        ("^(?i)(abort|warn)?$", ["ABORT", "warn", ""], ["stop"]),  # the Prometheus operator's rule files
        (r"^[[:alpha:]]+\z", ["abc"], ["ab1", "abc\n"]),
        ("(a(?i)b)c", ["aBc"], ["aBC", "Abc"]),
    ],
)
def test_go_patterns_mean_the_same_in_python(go, matches, misses):
    compiled = re.compile(go_regex(go))
    assert all(compiled.search(text) for text in matches)
    assert not any(compiled.search(text) for text in misses)
