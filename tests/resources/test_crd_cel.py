"""CEL validation rules of CRD schemas (x-<product>-validations): checked when a CRD is written, evaluated on
custom objects with `self` typed by the schema, and dropped while the gate is off."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from orch_apiserver.naming import Naming
from orch_apiserver.resources.apiextensions import CustomResourceDefinitionStrategy
from orch_apiserver.resources.crd_cel import CelValidator, escape, rule_errors
from orch_apiserver.resources.crd_schema import Extensions

EXT = Extensions("orch")
RULES = "x-orch-validations"

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            RULES: [
                {"rule": "self.minReplicas <= self.maxReplicas", "message": "minReplicas must not exceed maxReplicas"},
                {"rule": "!has(self.mode) || self.mode.lowerAscii() in ['fast', 'slow']"},
            ],
            "properties": {
                "minReplicas": {"type": "integer"},
                "maxReplicas": {"type": "integer"},
                "mode": {"type": "string"},
                "x-name": {"type": "string", RULES: [{"rule": "self.size() <= 5"}]},
                "timeout": {"type": "string", "format": "duration", RULES: [{"rule": "self <= duration('1h')"}]},
                "ports": {
                    "type": "array",
                    "items": {
                        "type": "integer",
                        RULES: [{"rule": "self > 1024", "message": "ports must be unprivileged"}],
                    },
                },
                "labels": {
                    "type": "object",
                    "additionalProperties": {"type": "string"},
                    RULES: [{"rule": "self.all(k, k.startsWith('app'))"}],
                },
            },
        }
    },
}


def errors_of(obj: dict) -> list[str]:
    validator = CelValidator.build(SCHEMA, EXT)
    assert validator is not None
    return [str(e) for e in validator.validate(obj, SCHEMA)]


def widget(**spec: Any) -> dict:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": {"minReplicas": 1, "maxReplicas": 3, **spec},
    }


def test_a_valid_object_passes_every_rule() -> None:
    assert (
        errors_of(
            widget(
                mode="FAST", timeout="30m", ports=[8080], labels={"app.kubernetes.io/name": "x"}, **{"x-name": "short"}
            )
        )
        == []
    )


def test_failed_rules_report_their_message_or_the_rule_at_the_rules_node() -> None:
    assert errors_of(widget(minReplicas=5, mode="medium")) == [
        'spec: Invalid value: "object": minReplicas must not exceed maxReplicas',
        ("spec: Invalid value: \"object\": failed rule: !has(self.mode) || self.mode.lowerAscii() in ['fast', 'slow']"),
    ]


def test_rules_see_typed_values_of_nested_nodes() -> None:
    found = errors_of(widget(ports=[8080, 80], timeout="2h", labels={"tier": "web"}, **{"x-name": "toolong"}))
    assert sorted(found) == sorted(
        [  # in the object's field order (the reference's is a map's: any)
            'spec.x-name: Invalid value: "toolong": failed rule: self.size() <= 5',
            "spec.timeout: Invalid value: \"2h\": failed rule: self <= duration('1h')",
            "spec.ports[1]: Invalid value: 80: ports must be unprivileged",
            "spec.labels: Invalid value: \"object\": failed rule: self.all(k, k.startsWith('app'))",
        ]
    )


def test_an_evaluation_error_names_the_rule() -> None:
    obj = widget()
    del obj["spec"]["maxReplicas"]
    assert errors_of(obj) == [
        (
            'spec: Invalid value: "object": no such key: maxReplicas evaluating rule: '
            "minReplicas must not exceed maxReplicas"
        )
    ]


def test_the_root_sees_api_version_kind_and_the_name() -> None:
    schema = {
        "type": "object",
        RULES: [
            {"rule": "self.metadata.name.startsWith('w-') && self.kind == 'Widget'", "message": "names start with w-"}
        ],
    }
    validator = CelValidator.build(schema, EXT)
    assert validator is not None
    assert validator.validate({"kind": "Widget", "metadata": {"name": "w-1"}}, schema) == []
    assert [str(e) for e in validator.validate({"kind": "Widget", "metadata": {"name": "x"}}, schema)] == [
        ': Invalid value: "object": names start with w-'
    ]


@pytest.mark.parametrize(
    ("name", "escaped"),
    [
        ("plain", "plain"),
        ("x-name", "x__dash__name"),
        ("a.b/c", "a__dot__b__slash__c"),
        ("namespace", "__namespace__"),
        ("a__b", "a__underscores__b"),
        ("1st", None),
        ("sp ace", None),
    ],
)
def test_property_names_escape_as_the_references(name: str, escaped: str | None) -> None:
    assert escape(name) == escaped


def test_rules_that_do_not_compile_are_refused_with_the_references_paths() -> None:
    node = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        RULES: [
            {"rule": "self.a >"},
            {"rule": "self.b > 1"},
            {"rule": "other.a > 1"},
            {"rule": " "},
            {"rule": "self.a > 1", "message": "two\nlines"},
            {"rule": "self.a > 1"},
        ],
    }
    errors = rule_errors(node, "spec.versions[0].schema.openAPIV3Schema", EXT, True)
    assert [e.field for e in errors] == [
        f"spec.versions[0].schema.openAPIV3Schema.{RULES}[3].rule",
        f"spec.versions[0].schema.openAPIV3Schema.{RULES}[4].message",
    ]
    del node[RULES][3:5]
    details = [e.detail for e in rule_errors(node, "s", EXT, True)]
    assert details[0].startswith("compilation failed: ERROR: <input>:1:")
    assert details[1:] == [
        "compilation failed: ERROR: <input>:1:6: undefined field 'b'",
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'other' (in container '')",
    ]


def test_a_rule_on_an_untyped_node_is_refused() -> None:
    node = {"x-orch-preserve-unknown-fields": True, RULES: [{"rule": "self.a > 1"}]}
    assert [str(e) for e in rule_errors(node, "s", EXT, False)] == [
        (
            f"s.{RULES}: Internal error: rule declared on schema that does not support validation rules type: '' "
            "x-orch-preserve-unknown-fields: 'true'"
        )
    ]


def _crd(schema: dict) -> dict:
    return {
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}],
        },
    }


def test_with_the_gate_off_rules_are_dropped_unless_already_stored() -> None:
    strategy = CustomResourceDefinitionStrategy(Naming("orch.io"))
    created = _crd(copy.deepcopy(SCHEMA))
    strategy.prepare_for_create(created)
    assert "x-orch-validations" not in str(created)
    old = _crd(copy.deepcopy(SCHEMA))  # stored by a server that had the gate on
    updated = _crd(copy.deepcopy(SCHEMA))
    strategy.prepare_for_update(updated, old)
    assert updated["spec"]["versions"][0]["schema"]["openAPIV3Schema"] == SCHEMA


def test_rules_over_huge_values_run_out_of_budget_instead_of_holding_the_request() -> None:
    schema = {
        "type": "object",
        "properties": {
            "l": {
                "type": "array",
                "items": {"type": "integer"},
                RULES: [{"rule": "self.all(x, self.all(y, x != y || x >= 0))"}, {"rule": "self.size() > 0"}],
            }
        },
    }
    validator = CelValidator.build(schema, EXT)
    assert validator is not None
    assert [str(e) for e in validator.validate({"l": list(range(1_000_000))}, schema)] == [
        (
            'l: Invalid value: "object": validation failed due to running out of cost budget, no further validation '
            "rules will be run"
        )
    ]
    assert validator.validate({"l": list(range(20))}, schema) == []  # the same rules on a small list pass
