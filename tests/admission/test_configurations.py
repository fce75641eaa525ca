"""MutatingWebhookConfiguration and ValidatingWebhookConfiguration: the reference's v1 defaults and validation."""

from __future__ import annotations

import copy

import pytest

from .helpers import MUTATING, VALIDATING, configuration, webhook

HOOK = webhook("check.example.com", {"url": "https://hooks.example.com/check"})


def test_the_v1_defaults_are_filled_in(client):
    service_hook = webhook("svc.example.com", {"service": {"namespace": "ns", "name": "hook"}})
    made = client.post(MUTATING, json=configuration("MutatingWebhookConfiguration", "d", HOOK, service_hook))
    assert made.status_code == 201, made.get_json()
    first, second = made.get_json()["webhooks"]
    assert {
        k: first[k]
        for k in (
            "failurePolicy",
            "matchPolicy",
            "timeoutSeconds",
            "reinvocationPolicy",
            "namespaceSelector",
            "objectSelector",
        )
    } == {
        "failurePolicy": "Fail",
        "matchPolicy": "Equivalent",
        "timeoutSeconds": 10,
        "reinvocationPolicy": "Never",
        "namespaceSelector": {},
        "objectSelector": {},
    }
    assert first["rules"][0]["scope"] == "*" and second["clientConfig"]["service"]["port"] == 443
    validating = client.post(VALIDATING, json=configuration("ValidatingWebhookConfiguration", "v", HOOK)).get_json()
    assert "reinvocationPolicy" not in validating["webhooks"][0]
    assert made.get_json()["metadata"]["generation"] == 1


def changed(**fields) -> dict:
    hook = copy.deepcopy(HOOK)
    for key, value in fields.items():
        if value is None:
            hook.pop(key, None)
        else:
            hook[key] = value
    return hook


@pytest.mark.parametrize(
    ("hooks", "message"),
    [
        (
            [changed(sideEffects=None)],
            "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun",
        ),
        (
            [changed(sideEffects="Some")],
            ('webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"'),
        ),
        ([changed(admissionReviewVersions=None)], "webhooks[0].admissionReviewVersions: Required value"),
        ([changed(admissionReviewVersions=["v2"])], "must include at least one of v1, v1beta1"),
        (
            [changed(timeoutSeconds=31)],
            ("webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds"),
        ),
        ([changed(name="short.name")], "should be a domain with at least three segments separated by dots"),
        ([HOOK, HOOK], 'webhooks[1].name: Duplicate value: "check.example.com"'),
        ([changed(clientConfig={"url": "http://hooks.example.com/"})], "'https' is the only allowed URL scheme"),
        ([changed(clientConfig={"url": "https://hooks.example.com/?x=1"})], "query parameters are not permitted"),
        (
            [changed(clientConfig={"url": "https://a.example.com/", "service": {"namespace": "n", "name": "s"}})],
            "exactly one of url or service is required",
        ),
        (
            [changed(clientConfig={"service": {"namespace": "n", "name": "s", "path": "no-slash"}})],
            "webhooks[0].clientConfig.service.path: Invalid value: \"no-slash\": must start with a '/'",
        ),
        ([changed(failurePolicy="Sometimes")], "webhooks[0].failurePolicy: Unsupported value"),
        (
            [
                changed(
                    rules=[
                        {"operations": ["CREATE", "*"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}
                    ]
                )
            ],
            "if '*' is present, must not specify other operations",
        ),
        (
            [
                changed(
                    rules=[
                        {
                            "operations": ["CREATE"],
                            "apiGroups": [""],
                            "apiVersions": ["v1"],
                            "resources": ["*/status", "pods/status"],
                        }
                    ]
                )
            ],
            "if '*/status' is present, must not specify pods/status",
        ),
        (
            [
                changed(
                    rules=[
                        {
                            "operations": ["PATCH"],
                            "apiGroups": [""],
                            "apiVersions": ["v1"],
                            "resources": ["pods"],
                            "scope": "Everywhere",
                        }
                    ]
                )
            ],
            'webhooks[0].rules[0].operations[0]: Unsupported value: "PATCH"',
        ),
        (
            [changed(objectSelector={"matchExpressions": [{"key": "a", "operator": "Near"}]})],
            "webhooks[0].objectSelector: Invalid value",
        ),
    ],
    ids=[
        "no-side-effects",
        "side-effects-some",
        "no-review-versions",
        "unknown-review-version",
        "timeout",
        "short-name",
        "duplicate-name",
        "http-url",
        "url-query",
        "url-and-service",
        "service-path",
        "failure-policy",
        "star-operations",
        "star-subresource",
        "unknown-operation",
        "bad-selector",
    ],
)
def test_invalid_configurations_are_refused_with_the_reference_messages(client, hooks, message):
    for path, kind in ((MUTATING, "MutatingWebhookConfiguration"), (VALIDATING, "ValidatingWebhookConfiguration")):
        refused = client.post(path, json=configuration(kind, "bad", *hooks))
        assert refused.status_code == 422, refused.get_json()
        assert message in refused.get_json()["message"]
        assert client.get(f"{path}/bad").status_code == 404


def test_reinvocation_policy_is_a_mutating_field(client):
    bad = changed(reinvocationPolicy="Always")
    refused = client.post(MUTATING, json=configuration("MutatingWebhookConfiguration", "r", bad))
    assert (
        refused.status_code == 422
        and "webhooks[0].reinvocationPolicy: Unsupported value" in refused.get_json()["message"]
    )
