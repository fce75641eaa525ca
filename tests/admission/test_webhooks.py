"""Dynamic admission webhooks through the HTTP API, on both stores, against real HTTPS webhook servers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from orch_apiserver import pki

from tests.auth.helpers import HttpsServer, https_server

from .helpers import (
    CONFIGMAPS,
    MUTATING,
    VALIDATING,
    bundle,
    configmap,
    configuration,
    json_patch,
    review_route,
    webhook,
)


@pytest.fixture(scope="module")
def ca() -> pki.CertKey:
    return pki.create_ca("admission-webhook-ca")


@pytest.fixture
def hook(ca: pki.CertKey, tmp_path: Path) -> Iterator[HttpsServer]:
    with https_server(ca, tmp_path) as server:
        yield server


def url_config(hook: HttpsServer, ca: pki.CertKey, path: str = "/review") -> dict:
    return {"url": hook.url + path, "caBundle": bundle(ca)}


def register(client, path: str, body: dict) -> dict:
    made = client.post(path, json=body)
    assert made.status_code == 201, made.get_json()
    return made.get_json()


def test_a_validating_webhook_denies_with_its_code_and_message_and_nothing_is_stored(any_client, hook, ca):
    reviews: list[dict] = []
    hook.routes["/review"] = review_route(
        reviews,
        lambda req: {
            "allowed": req["object"]["data"].get("ok") == "yes",
            "status": {"code": 403, "reason": "Forbidden", "message": "configmaps need ok=yes"},
        },
    )
    register(
        any_client,
        VALIDATING,
        configuration("ValidatingWebhookConfiguration", "guard", webhook("guard.example.com", url_config(hook, ca))),
    )
    denied = any_client.post(CONFIGMAPS, json=configmap("bad", ok="no"))
    assert denied.status_code == 403
    status = denied.get_json()
    assert status["reason"] == "Forbidden"
    assert status["message"] == 'admission webhook "guard.example.com" denied the request: configmaps need ok=yes'
    assert any_client.get(f"{CONFIGMAPS}/bad").status_code == 404
    assert any_client.post(CONFIGMAPS, json=configmap("good", ok="yes")).status_code == 201

    request = reviews[0]["request"]
    assert reviews[0]["apiVersion"] == "admission.orch.io/v1" and reviews[0]["kind"] == "AdmissionReview"
    assert request["operation"] == "CREATE" and request["namespace"] == "default" and request["name"] == "bad"
    assert request["kind"] == {"group": "", "version": "v1", "kind": "ConfigMap"}
    assert request["resource"] == {"group": "", "version": "v1", "resource": "configmaps"}
    assert request["requestKind"] == request["kind"] and request["dryRun"] is False
    assert request["options"]["kind"] == "CreateOptions" and request["oldObject"] is None
    assert request["userInfo"]["username"] and "system:masters" in request["userInfo"]["groups"]
    metrics = any_client.get("/metrics").get_data(as_text=True)
    assert (
        'apiserver_admission_webhook_admission_duration_seconds_count{name="guard.example.com",'
        'operation="CREATE",rejected="true",type="validating"} 1.0'
    ) in metrics
    assert (
        'apiserver_admission_controller_admission_duration_seconds_count{name="ValidatingAdmissionWebhook",'
        'operation="CREATE",rejected="true",type="validate"} 1.0'
    ) in metrics


def test_a_denial_without_a_status_is_a_400_without_explanation(any_client, hook, ca):
    hook.routes["/review"] = review_route([], lambda req: {"allowed": False})
    register(
        any_client,
        VALIDATING,
        configuration("ValidatingWebhookConfiguration", "no", webhook("no.example.com", url_config(hook, ca))),
    )
    denied = any_client.post(CONFIGMAPS, json=configmap("x"))
    assert denied.status_code == 400
    assert denied.get_json()["message"] == 'admission webhook "no.example.com" denied the request without explanation'


def test_a_mutating_webhook_patches_the_object_that_is_stored_and_answered(any_client, hook, ca):
    hook.routes["/review"] = review_route(
        [],
        lambda req: json_patch(
            {"op": "add", "path": "/metadata/labels", "value": {"mutated": "yes"}},
            {"op": "add", "path": "/data/added", "value": "by-webhook"},
        ),
    )
    register(
        any_client,
        MUTATING,
        configuration(
            "MutatingWebhookConfiguration", "labeller", webhook("labeller.example.com", url_config(hook, ca))
        ),
    )
    created = any_client.post(CONFIGMAPS, json=configmap("m", given="1"))
    assert created.status_code == 201, created.get_json()
    assert created.get_json()["metadata"]["labels"] == {"mutated": "yes"}
    stored = any_client.get(f"{CONFIGMAPS}/m").get_json()
    assert stored["data"] == {"given": "1", "added": "by-webhook"} and stored["metadata"]["uid"]


def test_a_patch_that_makes_the_object_invalid_is_refused_by_validation(any_client, hook, ca):
    hook.routes["/review"] = review_route(
        [], lambda req: json_patch({"op": "add", "path": "/data/bad key!", "value": "x"})
    )
    register(
        any_client,
        MUTATING,
        configuration("MutatingWebhookConfiguration", "breaker", webhook("breaker.example.com", url_config(hook, ca))),
    )
    refused = any_client.post(CONFIGMAPS, json=configmap("broken"))
    assert refused.status_code == 422 and refused.get_json()["reason"] == "Invalid"
    assert any_client.get(f"{CONFIGMAPS}/broken").status_code == 404


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (
            lambda review: (200, {**review, "response": {"uid": "not-the-uid", "allowed": True}}),
            'expected response.uid="',
        ),
        (lambda review: (200, ["not", "a", "review"]), "the answer is not an AdmissionReview"),
        (lambda review: (500, {"oops": True}), "the server responded with HTTP 500"),
        (
            lambda review: (
                200,
                {
                    **review,
                    "response": {
                        "uid": review["request"]["uid"],
                        "allowed": True,
                        "patchType": "JSONPatch",
                        "patch": "bm90IGpzb24=",
                    },
                },
            ),
            "returned an invalid patch",
        ),
    ],
    ids=["wrong-uid", "garbage", "http-500", "invalid-patch"],
)
def test_a_broken_webhook_fails_closed_with_the_cause(any_client, hook, ca, answer, why):
    hook.routes["/review"] = lambda _m, _p, _h, body: answer(json.loads(body))
    register(
        any_client,
        MUTATING,
        configuration("MutatingWebhookConfiguration", "broken", webhook("broken.example.com", url_config(hook, ca))),
    )
    failed = any_client.post(CONFIGMAPS, json=configmap("x"))
    assert failed.status_code == 500
    status = failed.get_json()
    assert status["reason"] == "InternalError" and why in status["message"]
    assert "broken.example.com" in status["message"]
    assert any_client.get(f"{CONFIGMAPS}/x").status_code == 404


def test_an_unreachable_webhook_fails_closed_or_open_by_its_failure_policy(any_client, ca):
    nowhere = {"url": "https://127.0.0.1:1/review", "caBundle": bundle(ca)}
    register(
        any_client,
        VALIDATING,
        configuration("ValidatingWebhookConfiguration", "gone", webhook("gone.example.com", nowhere)),
    )
    failed = any_client.post(CONFIGMAPS, json=configmap("x"))
    assert failed.status_code == 500
    assert failed.get_json()["message"] == (
        'Internal error occurred: failed calling webhook "gone.example.com": failed to call webhook: Post '
        '"https://127.0.0.1:1/review?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused'
    )
    config = any_client.get(f"{VALIDATING}/gone").get_json()
    config["webhooks"][0]["failurePolicy"] = "Ignore"
    assert any_client.put(f"{VALIDATING}/gone", json=config).status_code == 200
    assert any_client.post(CONFIGMAPS, json=configmap("x")).status_code == 201


def test_a_slow_webhook_times_out(any_client, hook, ca):
    hook.routes["/review"] = review_route([], lambda req: {})
    hook.delay = 2.0
    register(
        any_client,
        VALIDATING,
        configuration(
            "ValidatingWebhookConfiguration",
            "slow",
            webhook("slow.example.com", url_config(hook, ca), timeoutSeconds=1),
        ),
    )
    failed = any_client.post(CONFIGMAPS, json=configmap("x"))
    assert failed.status_code == 500 and "context deadline exceeded" in failed.get_json()["message"]


def test_a_certificate_from_another_ca_is_not_trusted(any_client, hook, ca):
    hook.routes["/review"] = review_route([], lambda req: {})
    other = pki.create_ca("someone-else")
    register(
        any_client,
        VALIDATING,
        configuration(
            "ValidatingWebhookConfiguration",
            "untrusted",
            webhook("untrusted.example.com", {"url": hook.url + "/review", "caBundle": bundle(other)}),
        ),
    )
    failed = any_client.post(CONFIGMAPS, json=configmap("x"))
    assert failed.status_code == 500 and "CERTIFICATE_VERIFY_FAILED" in failed.get_json()["message"]
    assert hook.calls == []


def test_warnings_become_warning_headers(any_client, hook, ca):
    hook.routes["/review"] = review_route([], lambda req: {"warnings": ["think twice", "and again"]})
    register(
        any_client,
        VALIDATING,
        configuration("ValidatingWebhookConfiguration", "warner", webhook("warner.example.com", url_config(hook, ca))),
    )
    created = any_client.post(CONFIGMAPS, json=configmap("w"))
    assert created.status_code == 201
    assert created.headers.getlist("Warning") == ['299 - "think twice"', '299 - "and again"']


def test_dry_run_calls_side_effect_free_webhooks_with_dry_run_set_and_stores_nothing(any_client, hook, ca):
    reviews: list[dict] = []
    hook.routes["/review"] = review_route(
        reviews, lambda req: json_patch({"op": "add", "path": "/metadata/labels", "value": {"seen": "yes"}})
    )
    register(
        any_client,
        MUTATING,
        configuration(
            "MutatingWebhookConfiguration",
            "dry",
            webhook("dry.example.com", url_config(hook, ca), sideEffects="NoneOnDryRun"),
        ),
    )
    answered = any_client.post(f"{CONFIGMAPS}?dryRun=All", json=configmap("d"))
    assert answered.status_code == 201 and answered.get_json()["metadata"]["labels"] == {"seen": "yes"}
    assert reviews[0]["request"]["dryRun"] is True
    assert any_client.get(f"{CONFIGMAPS}/d").status_code == 404


def test_update_and_delete_carry_the_old_object_and_their_options(any_client, hook, ca):
    reviews: list[dict] = []
    hook.routes["/review"] = review_route(reviews, lambda req: {})
    register(
        any_client,
        VALIDATING,
        configuration(
            "ValidatingWebhookConfiguration",
            "audit",
            webhook("audit.example.com", url_config(hook, ca), operations=("UPDATE", "DELETE")),
        ),
    )
    assert any_client.post(CONFIGMAPS, json=configmap("u", v="1")).status_code == 201
    assert reviews == []  # CREATE is not among the rules
    assert (
        any_client.patch(
            f"{CONFIGMAPS}/u", json={"data": {"v": "2"}}, headers={"Content-Type": "application/merge-patch+json"}
        ).status_code
        == 200
    )
    assert any_client.delete(f"{CONFIGMAPS}/u").status_code == 200
    update, delete = (r["request"] for r in reviews)
    assert update["operation"] == "UPDATE" and update["options"]["kind"] == "UpdateOptions"
    assert update["oldObject"]["data"] == {"v": "1"} and update["object"]["data"] == {"v": "2"}
    assert delete["operation"] == "DELETE" and delete["object"] is None
    assert delete["oldObject"]["data"] == {"v": "2"} and delete["options"]["kind"] == "DeleteOptions"


def test_rules_select_subresources_and_selectors_select_objects_and_namespaces(any_client, hook, ca):
    reviews: list[dict] = []
    hook.routes["/review"] = review_route(reviews, lambda req: {})
    register(
        any_client,
        VALIDATING,
        configuration(
            "ValidatingWebhookConfiguration",
            "picky",
            webhook(
                "picky.example.com",
                url_config(hook, ca),
                resources=("namespaces/status", "configmaps"),
                operations=("CREATE", "UPDATE"),
                objectSelector={"matchLabels": {"watched": "yes"}},
                namespaceSelector={"matchExpressions": [{"key": "team", "operator": "In", "values": ["blue"]}]},
            ),
        ),
    )
    for name, team in (("blue", "blue"), ("red", "red")):
        ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": {"team": team}}}
        assert any_client.post("/api/v1/namespaces", json=ns).status_code == 201
    watched = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {"watched": "yes"}}}
    for namespace in ("blue", "red"):
        assert any_client.post(f"/api/v1/namespaces/{namespace}/configmaps", json=watched).status_code == 201
    plain = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "p"}}
    assert any_client.post("/api/v1/namespaces/blue/configmaps", json=plain).status_code == 201
    assert [(r["request"]["namespace"], r["request"]["name"]) for r in reviews] == [("blue", "c")]
    # the Namespace kind itself: matched on its own labels, only through the subresource named in the rules
    reviews.clear()
    status = any_client.get("/api/v1/namespaces/blue").get_json()
    status["metadata"]["labels"]["watched"] = "yes"
    assert any_client.put("/api/v1/namespaces/blue", json=status).status_code == 200
    assert reviews == []
    fresh = any_client.get("/api/v1/namespaces/blue").get_json()
    assert any_client.put("/api/v1/namespaces/blue/status", json=fresh).status_code == 200
    assert [(r["request"]["resource"]["resource"], r["request"].get("subResource")) for r in reviews] == [
        ("namespaces", "status")
    ]


def test_an_equivalent_version_reaches_the_webhook_converted_to_the_version_it_registered_for(any_client, hook, ca):
    reviews: list[dict] = []
    hook.routes["/review"] = review_route(
        reviews, lambda req: json_patch({"op": "add", "path": "/note", "value": "seen in events.orch.io/v1"})
    )
    register(
        any_client,
        MUTATING,
        configuration(
            "MutatingWebhookConfiguration",
            "events",
            webhook("events.example.com", url_config(hook, ca), resources=("events",), groups=("events.orch.io",)),
        ),
    )
    core_event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "e1"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
        "reason": "Tested",
        "message": "hello",
        "type": "Normal",
    }
    created = any_client.post("/api/v1/namespaces/default/events", json=core_event)
    assert created.status_code == 201, created.get_json()
    request = reviews[0]["request"]
    assert request["kind"] == {"group": "events.orch.io", "version": "v1", "kind": "Event"}
    assert request["requestKind"] == {"group": "", "version": "v1", "kind": "Event"}
    assert request["object"]["apiVersion"] == "events.orch.io/v1" and request["object"]["note"] == "hello"
    assert created.get_json()["message"] == "seen in events.orch.io/v1"  # the patch came back converted
    reviews.clear()
    config = any_client.get(f"{MUTATING}/events").get_json()
    config["webhooks"][0]["matchPolicy"] = "Exact"
    assert any_client.put(f"{MUTATING}/events", json=config).status_code == 200
    assert (
        any_client.post(
            "/api/v1/namespaces/default/events", json={**core_event, "metadata": {"name": "e2"}}
        ).status_code
        == 201
    )
    assert reviews == []


def test_reinvocation_if_needed_calls_a_webhook_again_after_a_later_one_changed_the_object(any_client, hook, ca):
    reviews: list[dict] = []

    def decide(req: dict) -> dict:
        labels = req["object"]["metadata"].get("labels") or {}
        if req["object"]["metadata"]["name"] and "second" not in labels and len(reviews) % 2 == 0:
            return json_patch({"op": "add", "path": "/metadata/labels", "value": {**labels, "second": "yes"}})
        return {}

    hook.routes["/first"] = review_route(reviews, lambda req: {})
    hook.routes["/second"] = review_route(reviews, decide)
    register(
        any_client,
        MUTATING,
        configuration(
            "MutatingWebhookConfiguration",
            "pair",
            webhook("first.example.com", url_config(hook, ca, "/first"), reinvocationPolicy="IfNeeded"),
            webhook("second.example.com", url_config(hook, ca, "/second")),
        ),
    )
    assert any_client.post(CONFIGMAPS, json=configmap("r")).status_code == 201
    assert [r["request"]["object"]["metadata"].get("labels") for r in reviews] == [None, None, {"second": "yes"}]


def test_webhook_configurations_are_never_sent_to_webhooks(any_client, ca):
    everything = webhook(
        "all.example.com",
        {"url": "https://127.0.0.1:1/", "caBundle": bundle(ca)},
        resources=("*",),
        operations=("*",),
        groups=("*",),
        versions=("*",),
    )
    register(any_client, VALIDATING, configuration("ValidatingWebhookConfiguration", "all", everything))
    assert any_client.post(CONFIGMAPS, json=configmap("x")).status_code == 500  # the webhook is down
    assert any_client.delete(f"{VALIDATING}/all").status_code == 200  # but its own configuration is free
    assert any_client.post(CONFIGMAPS, json=configmap("x")).status_code == 201


def test_service_references_resolve_through_endpoints_and_check_the_service_name(any_client, ca, tmp_path):
    with https_server(ca, tmp_path, hosts=("hook.webhooks.svc", "127.0.0.1")) as server:
        reviews: list[dict] = []
        server.routes["/admit"] = review_route(reviews, lambda req: {})
        port = int(server.url.rsplit(":", 1)[1])
        assert (
            any_client.post(
                "/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "webhooks"}}
            ).status_code
            == 201
        )
        assert (
            any_client.post(
                "/api/v1/namespaces/webhooks/services",
                json={
                    "apiVersion": "v1",
                    "kind": "Service",
                    "metadata": {"name": "hook"},
                    "spec": {"ports": [{"port": 443, "targetPort": port}]},
                },
            ).status_code
            == 201
        )
        assert (
            any_client.post(
                "/api/v1/namespaces/webhooks/endpoints",
                json={
                    "apiVersion": "v1",
                    "kind": "Endpoints",
                    "metadata": {"name": "hook"},
                    "subsets": [{"addresses": [{"ip": "127.0.0.1"}], "ports": [{"port": port}]}],
                },
            ).status_code
            == 201
        )
        register(
            any_client,
            VALIDATING,
            configuration(
                "ValidatingWebhookConfiguration",
                "svc",
                webhook(
                    "svc.example.com",
                    {"service": {"namespace": "webhooks", "name": "hook", "path": "/admit"}, "caBundle": bundle(ca)},
                ),
            ),
        )
        assert any_client.post(CONFIGMAPS, json=configmap("s")).status_code == 201
        assert len(reviews) == 1


def test_subresource_actions_reach_webhooks_with_their_own_kind(any_client, hook, ca):
    reviews: list[dict] = []
    hook.routes["/review"] = review_route(
        reviews,
        lambda req: {"allowed": False, "status": {"code": 429, "reason": "TooManyRequests", "message": "not now"}},
    )
    register(
        any_client,
        VALIDATING,
        configuration(
            "ValidatingWebhookConfiguration",
            "evictions",
            webhook("evictions.example.com", url_config(hook, ca), resources=("pods/eviction",)),
        ),
    )
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }
    assert any_client.post("/api/v1/namespaces/default/pods", json=pod).status_code == 201
    eviction = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "p", "namespace": "default"}}
    refused = any_client.post("/api/v1/namespaces/default/pods/p/eviction", json=eviction)
    assert refused.status_code == 429
    assert refused.get_json()["message"] == 'admission webhook "evictions.example.com" denied the request: not now'
    assert any_client.get("/api/v1/namespaces/default/pods/p").status_code == 200
    request = reviews[0]["request"]
    assert request["kind"] == {"group": "policy", "version": "v1", "kind": "Eviction"}
    assert request["resource"] == {"group": "", "version": "v1", "resource": "pods"}
    assert request["subResource"] == "eviction" and request["object"]["kind"] == "Eviction"
    assert request["name"] == "p" and request["operation"] == "CREATE"


def test_reviews_reach_webhooks_too(any_client, hook, ca):
    reviews: list[dict] = []
    hook.routes["/review"] = review_route(reviews, lambda req: {})
    register(
        any_client,
        VALIDATING,
        configuration(
            "ValidatingWebhookConfiguration",
            "reviews",
            webhook(
                "reviews.example.com",
                url_config(hook, ca),
                resources=("selfsubjectaccessreviews",),
                groups=("authorization.orch.io",),
            ),
        ),
    )
    asked = any_client.post(
        "/apis/authorization.orch.io/v1/selfsubjectaccessreviews",
        json={
            "apiVersion": "authorization.orch.io/v1",
            "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": {"verb": "get", "resource": "pods", "namespace": "default"}},
        },
    )
    assert asked.status_code == 201 and asked.get_json()["status"]["allowed"] is True
    assert reviews[0]["request"]["kind"]["kind"] == "SelfSubjectAccessReview"


def test_scale_writes_reach_webhooks_as_a_scale(any_client, hook, ca):
    reviews: list[dict] = []
    hook.routes["/mutate"] = review_route(
        reviews,
        lambda req: json_patch(
            {"op": "replace", "path": "/spec/replicas", "value": min(req["object"]["spec"]["replicas"], 3)}
        ),
    )
    hook.routes["/validate"] = review_route(reviews, lambda req: {})
    rules = {"resources": ("deployments/scale",), "groups": ("apps",), "operations": ("UPDATE",)}
    register(
        any_client,
        MUTATING,
        configuration(
            "MutatingWebhookConfiguration", "cap", webhook("cap.example.com", url_config(hook, ca, "/mutate"), **rules)
        ),
    )
    register(
        any_client,
        VALIDATING,
        configuration(
            "ValidatingWebhookConfiguration",
            "see",
            webhook("see.example.com", url_config(hook, ca, "/validate"), **rules),
        ),
    )
    deployments = "/apis/apps/v1/namespaces/default/deployments"
    template = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    assert (
        any_client.post(
            deployments,
            json={
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "web"},
                "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}}, "template": template},
            },
        ).status_code
        == 201
    )
    scale = any_client.get(f"{deployments}/web/scale").get_json()
    scale["spec"]["replicas"] = 10
    answer = any_client.put(f"{deployments}/web/scale", json=scale)
    assert answer.status_code == 200 and answer.get_json()["spec"]["replicas"] == 3  # the webhook capped it
    assert any_client.get(f"{deployments}/web").get_json()["spec"]["replicas"] == 3
    mutated, validated = (review["request"] for review in reviews)
    for request in (mutated, validated):
        assert request["kind"] == {"group": "autoscaling", "version": "v1", "kind": "Scale"}
        assert request["resource"] == {"group": "apps", "version": "v1", "resource": "deployments"}
        assert request["subResource"] == "scale" and request["oldObject"]["spec"]["replicas"] == 1
    assert mutated["object"]["spec"]["replicas"] == 10 and validated["object"]["spec"]["replicas"] == 3
