"""csrsigning: each built-in signer's rules, the lifetime, Failed conditions, custom signers left alone."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from orch_apiserver.controllers.base import Context
from orch_apiserver.controllers.csrsigning import CsrSigning

from tests.controllers import (
    CLIENT_SIGNER,
    CLIENT_USAGES,
    CSRS,
    NODE_CLIENT_SIGNER,
    NODE_CLIENT_USAGES,
    NODE_SERVING_SIGNER,
    SERVING_USAGES,
    certificate_pem,
    condition,
    csr_body,
    request_pem,
)
from tests.controllers.conftest import FakeClock


def file_and_approve(client: Any, body: dict) -> None:
    created = client.post(CSRS, json=body)
    assert created.status_code == 201, created.json
    approved = client.put(
        f"{CSRS}/{body['metadata']['name']}/approval",
        json={**created.json, "status": {"conditions": [condition("Approved")]}},
    )
    assert approved.status_code == 200, approved.json


def signed(client: Any, ctx: Context, body: dict) -> dict:
    file_and_approve(client, body)
    CsrSigning(ctx).sync()
    return client.get(f"{CSRS}/{body['metadata']['name']}").json


def issued(obj: dict) -> x509.Certificate:
    assert obj["status"].get("certificate"), obj["status"]
    return x509.load_pem_x509_certificate(certificate_pem(obj))


def failure(obj: dict) -> str:
    assert not obj["status"].get("certificate")
    failed = [c for c in obj["status"]["conditions"] if c["type"] == "Failed"]
    assert failed and failed[0]["reason"] == "SignerValidationFailure" and failed[0]["status"] == "True", obj
    return failed[0]["message"]


def test_apiserver_client_issues_with_the_requested_subject_and_sans(
    cclient: Any, ctx: Context, clock: FakeClock
) -> None:
    pem = request_pem("jane", ["devs", "ops"], dns=["jane.example"])
    cert = issued(signed(cclient, ctx, csr_body("jane", CLIENT_SIGNER, CLIENT_USAGES, pem, expirationSeconds=600)))
    assert cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "jane"
    assert [a.value for a in cert.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)] == ["devs", "ops"]
    assert cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is False
    assert list(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) == [
        ExtendedKeyUsageOID.CLIENT_AUTH
    ]
    assert cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(
        x509.DNSName
    ) == ["jane.example"]
    assert cert.not_valid_after_utc == clock.now + timedelta(seconds=600)  # expirationSeconds < duration
    ca = x509.load_pem_x509_certificate(Path(ctx.settings["CLUSTER_CA_CERT_FILE"]).read_bytes())
    cert.verify_directly_issued_by(ca)


def test_signing_duration_caps_the_lifetime(cclient: Any, ctx: Context, clock: FakeClock) -> None:
    ctx.settings["CLUSTER_SIGNING_DURATION"] = 3600.0
    cert = issued(signed(cclient, ctx, csr_body("short", expirationSeconds=86400)))
    assert cert.not_valid_after_utc == clock.now + timedelta(hours=1)


def test_default_lifetime_is_a_year(cclient: Any, ctx: Context, clock: FakeClock) -> None:
    ctx.settings.pop("CLUSTER_SIGNING_DURATION", None)
    cert = issued(signed(cclient, ctx, csr_body("year")))
    assert cert.not_valid_after_utc == clock.now + timedelta(days=365)


@pytest.mark.parametrize(
    ("usages", "why"),
    [(["digital signature", "key encipherment"], "client auth"), (["client auth", "server auth"], "not allowed")],
)
def test_apiserver_client_usage_rules(cclient: Any, ctx: Context, usages: list[str], why: str) -> None:
    assert why in failure(signed(cclient, ctx, csr_body("bad", CLIENT_SIGNER, usages)))


NODE_PEM = {"subject": ("system:node:n1", ["system:nodes"])}


@pytest.mark.parametrize(
    ("cn", "orgs", "sans", "usages", "why"),
    [
        ("system:node:n1", ["system:nodes", "extra"], {}, NODE_CLIENT_USAGES, "organization"),
        ("n1", ["system:nodes"], {}, NODE_CLIENT_USAGES, "common name"),
        ("system:node:n1", ["system:nodes"], {"dns": ["n1"]}, NODE_CLIENT_USAGES, "subjectAltName"),
        ("system:node:n1", ["system:nodes"], {}, ["client auth", "key encipherment"], "usages"),
        ("system:node:n1", ["system:nodes"], {}, [*NODE_CLIENT_USAGES, "server auth"], "usages"),
    ],
)
def test_node_client_rules(
    cclient: Any, ctx: Context, cn: str, orgs: list[str], sans: dict, usages: list[str], why: str
) -> None:
    body = csr_body("node", NODE_CLIENT_SIGNER, usages, request_pem(cn, orgs, **sans))
    assert why in failure(signed(cclient, ctx, body))


def test_node_client_issues(cclient: Any, ctx: Context) -> None:
    body = csr_body("node", NODE_CLIENT_SIGNER, NODE_CLIENT_USAGES, request_pem("system:node:n1", ["system:nodes"]))
    cert = issued(signed(cclient, ctx, body))
    assert cert.subject.rfc4514_string() == "CN=system:node:n1,O=system:nodes"


@pytest.mark.parametrize(
    ("sans", "usages", "why"),
    [
        ({}, SERVING_USAGES, "at least one DNS or IP"),
        ({"dns": ["n1"], "emails": ["a@b.c"]}, SERVING_USAGES, "email and URI"),
        ({"dns": ["n1"], "uris": ["spiffe://x/y"]}, SERVING_USAGES, "email and URI"),
        ({"dns": ["n1"]}, ["digital signature", "key encipherment", "client auth"], "usages"),
    ],
)
def test_node_serving_rules(cclient: Any, ctx: Context, sans: dict, usages: list[str], why: str) -> None:
    body = csr_body("serving", NODE_SERVING_SIGNER, usages, request_pem("system:node:n1", ["system:nodes"], **sans))
    assert why in failure(signed(cclient, ctx, body))


def test_node_serving_issues_with_dns_and_ip(cclient: Any, ctx: Context) -> None:
    pem = request_pem("system:node:n1", ["system:nodes"], dns=["n1.local"], ips=["10.0.0.1"])
    cert = issued(signed(cclient, ctx, csr_body("serving", NODE_SERVING_SIGNER, SERVING_USAGES, pem)))
    sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert sans.get_values_for_type(x509.DNSName) == ["n1.local"]
    assert list(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) == [
        ExtendedKeyUsageOID.SERVER_AUTH
    ]


def test_pending_denied_and_custom_signer_requests_are_left_alone(cclient: Any, ctx: Context) -> None:
    assert cclient.post(CSRS, json=csr_body("pending")).status_code == 201
    file_and_approve(cclient, csr_body("custom", "example.com/signer"))
    denied = cclient.post(CSRS, json=csr_body("denied")).json
    cclient.put(f"{CSRS}/denied/approval", json={**denied, "status": {"conditions": [condition("Denied")]}})
    CsrSigning(ctx).sync()
    for name in ("pending", "custom", "denied"):
        status = cclient.get(f"{CSRS}/{name}").json.get("status") or {}
        assert not status.get("certificate")
        assert "Failed" not in [c["type"] for c in status.get("conditions") or []]


def test_signer_writes_as_the_certificate_controller(cclient: Any, ctx: Context) -> None:
    obj = signed(cclient, ctx, csr_body("who"))
    managers = {entry["manager"] for entry in obj["metadata"]["managedFields"]}
    assert "certificate-controller" in managers


def test_cluster_signing_files_choose_the_ca(cclient: Any, ctx: Context, tmp_path: Path) -> None:
    from orch_apiserver import pki

    other = pki.create_ca("other-signer")
    pki.write_pair(other, tmp_path / "signer.crt", tmp_path / "signer.key")
    ctx.settings.update(
        CLUSTER_SIGNING_CERT_FILE=str(tmp_path / "signer.crt"), CLUSTER_SIGNING_KEY_FILE=str(tmp_path / "signer.key")
    )
    cert = issued(signed(cclient, ctx, csr_body("other")))
    cert.verify_directly_issued_by(other.cert)
