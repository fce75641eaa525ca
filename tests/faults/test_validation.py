"""The Fault kind's validation (app/resources/testing.py): bad input is named by its field."""

from __future__ import annotations

import pytest
from orch_apiserver.naming import Naming
from orch_apiserver.resources.testing import FaultStrategy, action_summary

STRATEGY = FaultStrategy(Naming())


def fields(spec: dict) -> list[str]:
    return [error.field for error in STRATEGY.validate({"spec": spec})]


@pytest.mark.parametrize(
    "action",
    [
        {"error": {"code": 409}},
        {"error": {"code": 429, "retryAfterSeconds": 3, "reason": "Busy", "message": "later"}},
        {"delay": "1.5s"},
        {"delay": "0s"},
        {"afterWrite": {"error": {"code": 500}}},
        {"watch": {"expireAfterEvents": 0}},
        {"watch": {"closeAfterEvents": 3}},
        {"conflictOnce": True},
    ],
)
def test_each_action_alone_is_valid(action: dict) -> None:
    assert fields({"action": action}) == []


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({}, "spec.action"),
        ({"action": {}}, "spec.action"),
        ({"action": {"explode": {}}}, "spec.action.explode"),
        ({"action": {"error": {"code": 500}, "conflictOnce": True}}, "spec.action"),
        ({"action": {"error": {}}}, "spec.action.error.code"),
        ({"action": {"error": {"code": 399}}}, "spec.action.error.code"),
        ({"action": {"error": {"code": 600}}}, "spec.action.error.code"),
        ({"action": {"error": {"code": "500"}}}, "spec.action.error.code"),
        ({"action": {"error": {"code": 429, "retryAfterSeconds": -1}}}, "spec.action.error.retryAfterSeconds"),
        ({"action": {"delay": "-1s"}}, "spec.action.delay"),
        ({"action": {"delay": "soon"}}, "spec.action.delay"),
        ({"action": {"afterWrite": {}}}, "spec.action.afterWrite.error"),
        ({"action": {"watch": {"expireAfterEvents": 1, "closeAfterEvents": 1}}}, "spec.action.watch"),
        ({"action": {"watch": {"closeAfterEvents": -1}}}, "spec.action.watch.closeAfterEvents"),
        ({"action": {"conflictOnce": "yes"}}, "spec.action.conflictOnce"),
        ({"action": {"delay": "1s"}, "times": 0}, "spec.times"),
        ({"action": {"delay": "1s"}, "probability": 1.5}, "spec.probability"),
        ({"action": {"delay": "1s"}, "seed": "x"}, "spec.seed"),
        ({"action": {"delay": "1s"}, "match": {"verbs": ["fly"]}}, "spec.match.verbs[0]"),
        ({"action": {"delay": "1s"}, "match": {"colours": ["red"]}}, "spec.match.colours"),
        ({"action": {"delay": "1s"}, "match": {"names": "one"}}, "spec.match.names"),
    ],
)
def test_bad_input_names_the_field(spec: dict, field: str) -> None:
    assert field in fields(spec)


def test_the_action_in_a_few_words() -> None:
    assert action_summary({"spec": {"action": {"error": {"code": 503}}}}) == "error 503"
    assert action_summary({"spec": {"action": {"afterWrite": {"error": {"code": 500}}}}}) == "afterWrite 500"
    assert action_summary({"spec": {"action": {"watch": {"expireAfterEvents": 2}}}}) == "watch expireAfterEvents=2"
    assert action_summary({"spec": {"action": {"delay": "2s"}}}) == "delay 2s"
    assert action_summary({"spec": {"action": {"conflictOnce": True}}}) == "conflictOnce"
