"""CSR approval and signing need `approve` / `sign` on `signers` (by signerName or `<domain>/*`), asked of the
same authorizer chain as every request."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from orch_apiserver import pki
from orch_apiserver.resources.certificates import EXAMPLE_REQUEST

from tests.authz.conftest import as_user

RBAC = "/apis/rbac.authorization.orch.io/v1"
CSRS = "/apis/certificates.orch.io/v1/certificatesigningrequests"
G = "rbac.authorization.orch.io"
ADMIN = as_user("admin")
SIGNER = "example.com/my-signer"


def grant(client: Any, name: str, user: str, rules: list[dict]) -> None:
    role = {"metadata": {"name": name}, "rules": rules}
    assert client.post(f"{RBAC}/clusterroles", json=role, headers=ADMIN).status_code == 201
    binding = {
        "metadata": {"name": name},
        "roleRef": {"apiGroup": G, "kind": "ClusterRole", "name": name},
        "subjects": [{"kind": "User", "name": user, "apiGroup": G}],
    }
    assert client.post(f"{RBAC}/clusterrolebindings", json=binding, headers=ADMIN).status_code == 201


def csr_rule(subresource: str) -> dict:
    return {
        "apiGroups": ["certificates.orch.io"],
        "verbs": ["get", "update"],
        "resources": [f"certificatesigningrequests/{subresource}"],
    }


def signer_rule(verb: str, name: str) -> dict:
    return {"apiGroups": ["certificates.orch.io"], "verbs": [verb], "resources": ["signers"], "resourceNames": [name]}


@pytest.fixture
def csr(rbac: Any) -> dict:
    body = {
        "metadata": {"name": "req"},
        "spec": {"request": EXAMPLE_REQUEST, "signerName": SIGNER, "usages": ["client auth"]},
    }
    created = rbac.post(CSRS, json=body, headers=ADMIN)
    assert created.status_code == 201, created.json
    return created.json


def approve(client: Any, csr: dict, user: str) -> Any:
    body = {**csr, "status": {"conditions": [{"type": "Approved", "status": "True", "reason": "ok"}]}}
    return client.put(f"{CSRS}/req/approval", json=body, headers=as_user(user))


@pytest.mark.parametrize("resource_name", [SIGNER, "example.com/*"])
def test_approval_needs_approve_on_the_signer(rbac: Any, csr: dict, resource_name: str) -> None:
    grant(rbac, "csr-approval", "bob", [csr_rule("approval")])
    denied = approve(rbac, csr, "bob")
    assert denied.status_code == 403
    assert denied.json["message"] == (
        'certificatesigningrequests.certificates.orch.io "req" is forbidden: '
        f'user not permitted to approve requests with signerName "{SIGNER}"'
    )
    grant(rbac, "signer-approver", "bob", [signer_rule("approve", resource_name)])
    approved = approve(rbac, csr, "bob")
    assert approved.status_code == 200, approved.json
    assert approved.json["status"]["conditions"][0]["type"] == "Approved"


def test_approve_on_another_signer_or_domain_is_not_enough(rbac: Any, csr: dict) -> None:
    grant(
        rbac,
        "csr-approval",
        "bob",
        [
            csr_rule("approval"),
            signer_rule("approve", "example.com/other"),
            signer_rule("approve", "example.org/*"),
            signer_rule("sign", SIGNER),
        ],
    )
    assert approve(rbac, csr, "bob").status_code == 403


def test_signing_needs_sign_on_the_signer(rbac: Any, csr: dict) -> None:
    grant(rbac, "csr-status", "bob", [csr_rule("status")])
    csr = approve(rbac, csr, "admin").json  # a certificate is only accepted on an approved request
    certificate = base64.b64encode(pki.issue_client_cert(pki.create_ca("signer"), "someone").cert_pem).decode()
    same = rbac.put(f"{CSRS}/req/status", json=csr, headers=as_user("bob"))
    assert same.status_code == 200, same.json  # the certificate does not change: no signing check
    body = {**csr, "status": {**csr["status"], "certificate": certificate}}
    denied = rbac.put(f"{CSRS}/req/status", json=body, headers=as_user("bob"))
    assert denied.status_code == 403
    assert denied.json["message"].endswith(f'user not permitted to sign requests with signerName "{SIGNER}"')
    grant(rbac, "signer", "bob", [signer_rule("sign", "example.com/*")])
    signed = rbac.put(f"{CSRS}/req/status", json=body, headers=as_user("bob"))
    assert signed.status_code == 200, signed.json
    assert signed.json["status"]["certificate"] == certificate


def test_the_admin_may_approve_anything(rbac: Any, csr: dict) -> None:
    assert approve(rbac, csr, "admin").status_code == 200


def test_no_request_asks_the_api_client_signer_for_system_masters(rbac: Any) -> None:
    from tests.controllers import CLIENT_SIGNER, csr_body, request_pem

    masters = rbac.post(CSRS, json=csr_body("root", pem=request_pem("mallory", ["system:masters"])), headers=ADMIN)
    assert masters.status_code == 403
    assert masters.json["message"] == (
        'certificatesigningrequests.certificates.orch.io "root" is forbidden: use of '
        f"{CLIENT_SIGNER} signer with system:masters group is not allowed"
    )
    other_signer = csr_body("elsewhere", signer=SIGNER, pem=request_pem("mallory", ["system:masters"]))
    assert rbac.post(CSRS, json=other_signer, headers=ADMIN).status_code == 201
    assert rbac.post(CSRS, json=csr_body("plain", pem=request_pem("alice", ["dev"])), headers=ADMIN).status_code == 201
