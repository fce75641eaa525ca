"""Access reviews: the default policy seen through them, and their validation."""

from __future__ import annotations

from typing import Any

import pytest

from tests.authz.conftest import as_user

AUTHZ = "/apis/authorization.orch.io/v1"
ADMIN = as_user("admin")


def _sar(client: Any, spec: dict, headers: dict | None = None) -> tuple[int, dict]:
    response = client.post(f"{AUTHZ}/subjectaccessreviews", json={"spec": spec}, headers=headers or ADMIN)
    return response.status_code, response.get_json()


@pytest.mark.parametrize(
    ("user", "groups", "attrs", "allowed"),
    [
        ("root", ["system:masters"], {"resourceAttributes": {"verb": "delete", "resource": "nodes"}}, True),
        ("bob", ["system:authenticated"], {"resourceAttributes": {"verb": "list", "resource": "pods"}}, False),
        ("bob", ["system:authenticated"], {"nonResourceAttributes": {"verb": "get", "path": "/api/v1"}}, True),
        (
            "system:anonymous",
            ["system:unauthenticated"],
            {"nonResourceAttributes": {"verb": "get", "path": "/livez"}},
            True,
        ),
        (
            "system:anonymous",
            ["system:unauthenticated"],
            {"nonResourceAttributes": {"verb": "get", "path": "/apis"}},
            False,
        ),
        (
            "bob",
            ["system:authenticated"],
            {
                "resourceAttributes": {
                    "verb": "create",
                    "resource": "selfsubjectrulesreviews",
                    "group": "authorization.orch.io",
                }
            },
            True,
        ),
        (
            "bob",
            ["system:bootstrappers"],
            {
                "resourceAttributes": {
                    "verb": "create",
                    "resource": "certificatesigningrequests",
                    "group": "certificates.orch.io",
                }
            },
            True,
        ),
    ],
)
def test_default_policy_through_subject_access_reviews(
    rbac: Any, user: str, groups: list[str], attrs: dict, allowed: bool
) -> None:
    code, body = _sar(rbac, {"user": user, "groups": groups, **attrs})
    assert code == 201, body
    assert body["status"]["allowed"] is allowed
    assert "denied" not in body["status"]  # RBAC never denies, it has no opinion


def test_reason_names_the_binding(rbac: Any) -> None:
    _, body = _sar(
        rbac,
        {"user": "x", "groups": ["system:authenticated"], "nonResourceAttributes": {"verb": "get", "path": "/version"}},
    )
    assert body["status"]["reason"].startswith('RBAC: allowed by ClusterRoleBinding "system:')


def test_review_validation(rbac: Any) -> None:
    code, body = _sar(rbac, {"user": "bob"})
    assert code == 422 and "exactly one of nonResourceAttributes or resourceAttributes" in body["message"]
    code, body = _sar(rbac, {"resourceAttributes": {"verb": "get", "resource": "pods"}})
    assert code == 422 and "at least one of user or group must be specified" in body["message"]


def test_subject_access_reviews_need_permission(rbac: Any) -> None:
    code, body = _sar(rbac, {"user": "bob", "resourceAttributes": {"verb": "get", "resource": "pods"}}, as_user("bob"))
    assert code == 403 and "subjectaccessreviews" in body["message"]


def test_self_reviews(rbac: Any) -> None:
    review = {"spec": {"resourceAttributes": {"verb": "list", "resource": "pods", "namespace": "default"}}}
    response = rbac.post(f"{AUTHZ}/selfsubjectaccessreviews", json=review, headers=as_user("bob"))
    assert response.status_code == 201 and response.get_json()["status"]["allowed"] is False
    response = rbac.post(f"{AUTHZ}/selfsubjectaccessreviews", json=review, headers=ADMIN)
    assert response.get_json()["status"]["allowed"] is True
    response = rbac.post(
        f"{AUTHZ}/selfsubjectrulesreviews", json={"spec": {"namespace": "default"}}, headers=as_user("bob")
    )
    status = response.get_json()["status"]
    assert status["incomplete"] is False
    assert {
        "verbs": ["create"],
        "apiGroups": ["authorization.orch.io"],
        "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
    } in status["resourceRules"]
    assert any("/healthz" in r["nonResourceURLs"] for r in status["nonResourceRules"])


def test_local_reviews_must_match_their_namespace(rbac: Any) -> None:
    spec = {"user": "bob", "resourceAttributes": {"verb": "get", "resource": "pods", "namespace": "other"}}
    response = rbac.post(f"{AUTHZ}/namespaces/default/localsubjectaccessreviews", json={"spec": spec}, headers=ADMIN)
    assert response.status_code == 400
    assert response.get_json()["message"] == "spec.resourceAttributes.namespace must match namespace: default"
    spec["resourceAttributes"]["namespace"] = "default"
    response = rbac.post(f"{AUTHZ}/namespaces/default/localsubjectaccessreviews", json={"spec": spec}, headers=ADMIN)
    assert response.status_code == 201 and response.get_json()["status"]["allowed"] is False


def test_always_deny_reports_denied(auth_app_deny: Any) -> None:
    client = auth_app_deny.test_client()
    assert client.get("/api/v1/namespaces").status_code == 403
