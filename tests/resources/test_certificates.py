"""The CSR API (certificates/v1): create validation, requester stamping, the /approval and /status rules,
main-resource writes that cannot touch status, and the spec.signerName field selector."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from orch_apiserver import pki

from tests.authz.conftest import as_user, rbac, rbac_app  # noqa: F401 - fixtures
from tests.controllers import CLIENT_SIGNER, CSRS, NAMING, NODE_CLIENT_SIGNER, b64, condition, csr_body, request_pem

GOOD_PEM = request_pem("someone", ["some-group"])


def _tampered() -> bytes:
    der = bytearray(base64.b64decode(b"".join(GOOD_PEM.splitlines()[1:-1])))
    der[-3] ^= 0x55  # inside the signature
    return (
        b"-----BEGIN CERTIFICATE REQUEST-----\n"
        + base64.encodebytes(bytes(der))
        + b"-----END CERTIFICATE REQUEST-----\n"
    )


def _set(path: str, value: object) -> Callable[[dict], None]:
    def change(body: dict) -> None:
        if value is None:
            body["spec"].pop(path)
        else:
            body["spec"][path] = value

    return change


CASES = [
    ("request missing", _set("request", None), "spec.request", "FieldValueRequired"),
    ("request not PEM", _set("request", b64(b"hello")), "spec.request", "FieldValueInvalid"),
    (
        "request is a certificate",
        _set("request", b64(GOOD_PEM.replace(b"CERTIFICATE REQUEST", b"CERTIFICATE"))),
        "spec.request",
        "FieldValueInvalid",
    ),
    ("signature does not verify", _set("request", b64(_tampered())), "spec.request", "FieldValueInvalid"),
    ("signer missing", _set("signerName", None), "spec.signerName", "FieldValueRequired"),
    ("legacy signer", _set("signerName", NAMING.key("legacy-unknown")), "spec.signerName", "FieldValueInvalid"),
    ("usages missing", _set("usages", None), "spec.usages", "FieldValueRequired"),
    ("unknown usage", _set("usages", ["client auth", "flying"]), "spec.usages[1]", "FieldValueNotSupported"),
    ("duplicate usage", _set("usages", ["client auth", "client auth"]), "spec.usages[1]", "FieldValueDuplicate"),
    ("expiration too short", _set("expirationSeconds", 599), "spec.expirationSeconds", "FieldValueInvalid"),
]


@pytest.mark.parametrize(("case", "change", "field", "reason"), CASES, ids=[c[0] for c in CASES])
def test_create_validation(client: Any, case: str, change: Callable[[dict], None], field: str, reason: str) -> None:
    body = csr_body("bad")
    change(body)
    response = client.post(CSRS, json=body)
    assert response.status_code == 422, response.json
    causes = [(c["field"], c["reason"]) for c in response.json["details"]["causes"]]
    assert causes == [(field, reason)]


def test_a_request_that_is_not_base64_is_a_decode_error(client: Any) -> None:
    """spec.request is []byte in the reference: bad base64 fails decoding (400), before validation."""
    body = csr_body("bad")
    body["spec"]["request"] = "***"
    response = client.post(CSRS, json=body)
    assert response.status_code == 400, response.json
    assert response.json["reason"] == "BadRequest"
    assert "illegal base64 data at input byte 0" in response.json["message"]


def test_valid_request_is_created_pending_with_the_requester_stamped(client: Any) -> None:
    body = csr_body("ok", expirationSeconds=600)
    body["spec"].update(username="mallory", uid="u-1", groups=["system:masters"], extra={"x": ["y"]})
    body["status"] = {"certificate": "AAAA"}
    created = client.post(CSRS, json=body)
    assert created.status_code == 201, created.json
    spec = created.json["spec"]
    assert spec["username"] == "admin"
    assert "system:masters" in spec["groups"]
    assert "extra" not in spec and spec.get("uid", "") != "u-1"
    assert not created.json.get("status", {}).get("certificate")


def _created(client: Any, name: str = "req", signer: str = CLIENT_SIGNER) -> dict:
    created = client.post(CSRS, json=csr_body(name, signer))
    assert created.status_code == 201, created.json
    return created.json


def _approval(client: Any, csr: dict, conditions: list[dict], **headers: Any) -> Any:
    return client.put(
        f"{CSRS}/{csr['metadata']['name']}/approval", json={**csr, "status": {"conditions": conditions}}, **headers
    )


@pytest.mark.parametrize(
    ("conditions", "field"),
    [
        ([condition("Approved", "False")], "status.conditions[0].status"),
        ([condition("Approved"), condition("Denied")], "status.conditions"),
        ([condition("Approved"), condition("Approved")], "status.conditions[1].type"),
        ([condition("Failed")], "status.conditions"),
        ([condition("Approved", status="")], "status.conditions[0].status"),
    ],
    ids=["status not True", "both", "duplicate", "Failed through approval", "status missing"],
)
def test_approval_condition_rules(client: Any, conditions: list[dict], field: str) -> None:
    response = _approval(client, _created(client), conditions)
    assert response.status_code == 422, response.json
    assert field in [c["field"] for c in response.json["details"]["causes"]]


def test_approval_cannot_be_removed_or_flipped(client: Any) -> None:
    csr = _created(client)
    approved = _approval(client, csr, [condition("Approved")])
    assert approved.status_code == 200, approved.json
    assert approved.json["status"]["conditions"][0]["lastUpdateTime"]
    removed = _approval(client, approved.json, [])
    assert removed.status_code == 422
    assert "may not remove" in removed.json["details"]["causes"][0]["message"]
    flipped = _approval(client, approved.json, [condition("Denied")])
    assert flipped.status_code == 422


def _certificate(ca: pki.CertKey | None = None) -> bytes:
    ca = ca or pki.create_ca("test-signer")
    return pki.issue_client_cert(ca, "someone", ["some-group"]).cert_pem


def _status(client: Any, csr: dict, status: dict) -> Any:
    return client.put(f"{CSRS}/{csr['metadata']['name']}/status", json={**csr, "status": status})


def test_certificate_only_on_approved_requests_and_only_once(client: Any) -> None:
    csr = _created(client)
    pem = _certificate()
    early = _status(client, csr, {"certificate": b64(pem)})
    assert early.status_code == 422
    assert early.json["details"]["causes"][0]["field"] == "status.certificate"
    approved = _approval(client, csr, [condition("Approved")]).json
    signed = _status(client, approved, {**approved["status"], "certificate": b64(pem)})
    assert signed.status_code == 200, signed.json
    assert base64.b64decode(signed.json["status"]["certificate"]) == pem
    again = _status(client, signed.json, {**signed.json["status"], "certificate": b64(_certificate())})
    assert again.status_code == 422
    assert "may not modify existing certificate" in again.json["details"]["causes"][0]["message"]


@pytest.mark.parametrize(
    "bad",
    [
        b"not pem at all",
        b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
        b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
        "headers",
    ],
    ids=["not PEM", "other block", "unparseable", "headers"],
)
def test_certificate_must_be_clean_certificate_blocks(client: Any, bad: Any) -> None:
    if bad == "headers":
        lines = _certificate().splitlines(keepends=True)
        bad = lines[0] + b"Proc-Type: 4,ENCRYPTED\n\n" + b"".join(lines[1:])
    approved = _approval(client, _created(client), [condition("Approved")]).json
    response = _status(client, approved, {**approved["status"], "certificate": b64(bad)})
    assert response.status_code == 422, response.json
    assert response.json["details"]["causes"][0]["field"] == "status.certificate"


def test_several_certificate_blocks_are_accepted(client: Any) -> None:
    ca = pki.create_ca("chain-ca")
    chain = _certificate(ca) + ca.cert.public_bytes(serialization.Encoding.PEM)
    approved = _approval(client, _created(client), [condition("Approved")]).json
    assert _status(client, approved, {**approved["status"], "certificate": b64(chain)}).status_code == 200


def test_status_cannot_touch_approval_but_may_add_failed(client: Any) -> None:
    csr = _created(client)
    sneaky = _status(client, csr, {"conditions": [condition("Approved")]})
    assert sneaky.status_code == 422
    failed = _status(client, csr, {"conditions": [condition("Failed")]})
    assert failed.status_code == 200, failed.json
    assert failed.json["status"]["conditions"][0]["type"] == "Failed"


def test_main_resource_writes_keep_status_and_spec(client: Any) -> None:
    csr = _created(client)
    changed = {
        **csr,
        "status": {"conditions": [condition("Approved")]},
        "spec": {**csr["spec"], "signerName": "example.com/other"},
    }
    changed["metadata"] = {**csr["metadata"], "labels": {"a": "b"}}
    response = client.put(f"{CSRS}/req", json=changed)
    assert response.status_code == 200, response.json
    assert not response.json.get("status", {}).get("conditions")
    assert response.json["spec"]["signerName"] == CLIENT_SIGNER
    assert response.json["metadata"]["labels"] == {"a": "b"}


def test_signer_name_field_selector(client: Any) -> None:
    _created(client, "a", CLIENT_SIGNER)
    _created(client, "b", NODE_CLIENT_SIGNER)
    listed = client.get(CSRS, query_string={"fieldSelector": f"spec.signerName={NODE_CLIENT_SIGNER}"})
    assert [o["metadata"]["name"] for o in listed.json["items"]] == ["b"]


def test_approve_without_the_signer_verb_is_forbidden(rbac: Any) -> None:  # noqa: F811
    from tests.authz.test_csr_signers import csr_rule, grant, signer_rule

    admin = as_user("admin")
    created = rbac.post(CSRS, json=csr_body("req"), headers=admin)
    assert created.status_code == 201
    grant(rbac, "approver", "bob", [csr_rule("approval")])
    body = {**created.json, "status": {"conditions": [condition("Approved")]}}
    denied = rbac.put(f"{CSRS}/req/approval", json=body, headers=as_user("bob"))
    assert denied.status_code == 403
    grant(rbac, "signer-approver", "bob", [signer_rule("approve", CLIENT_SIGNER)])
    assert rbac.put(f"{CSRS}/req/approval", json=body, headers=as_user("bob")).status_code == 200
