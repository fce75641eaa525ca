"""A real HTTPS admission webhook for the tests: answers AdmissionReviews with what a test tells it."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

from orch_apiserver import pki

MUTATING = "/apis/admissionregistration.orch.io/v1/mutatingwebhookconfigurations"
VALIDATING = "/apis/admissionregistration.orch.io/v1/validatingwebhookconfigurations"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"

#: review request -> the `response` stanza (uid is filled in unless the answer sets one)
Decide = Callable[[dict], dict]


def bundle(ca: pki.CertKey) -> str:
    return base64.b64encode(ca.cert_pem).decode()


def json_patch(*operations: dict) -> dict:
    return {"patchType": "JSONPatch", "patch": base64.b64encode(json.dumps(list(operations)).encode()).decode()}


def review_route(reviews: list[dict], decide: Decide) -> Callable[[str, str, dict, bytes], tuple[int, Any]]:
    """A route of tests.auth.helpers.https_server that records each review and answers decide(request)."""

    def route(_method: str, _path: str, _headers: dict, body: bytes) -> tuple[int, Any]:
        review = json.loads(body)
        reviews.append(review)
        response = {"uid": review["request"]["uid"], "allowed": True, **decide(review["request"])}
        return 200, {"apiVersion": review["apiVersion"], "kind": "AdmissionReview", "response": response}

    return route


def webhook(
    name: str,
    client_config: dict,
    resources: tuple[str, ...] = ("configmaps",),
    operations: tuple[str, ...] = ("CREATE",),
    groups: tuple[str, ...] = ("",),
    versions: tuple[str, ...] = ("v1",),
    **extra: Any,
) -> dict:
    return {
        "name": name,
        "clientConfig": client_config,
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
        "rules": [
            {
                "operations": list(operations),
                "apiGroups": list(groups),
                "apiVersions": list(versions),
                "resources": list(resources),
            }
        ],
        **extra,
    }


def configuration(kind: str, name: str, *hooks: dict) -> dict:
    return {
        "apiVersion": "admissionregistration.orch.io/v1",
        "kind": kind,
        "metadata": {"name": name},
        "webhooks": list(hooks),
    }


def configmap(name: str, **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}
