"""Real-world CustomResourceDefinitions, unmodified (tests/e2e/data/crds: cert-manager's and the Prometheus
operator's): applied with the stock kubectl, established, and one object of each created, read and listed."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
import yaml

from . import RunningServer
from .test_custom_resources import kubectl_run

pytestmark = pytest.mark.e2e

CRD_FILES = Path(__file__).parent / "data" / "crds"
NAMES = (
    "certificates.cert-manager.io",
    "certificaterequests.cert-manager.io",
    "servicemonitors.monitoring.coreos.com",
    "prometheusrules.monitoring.coreos.com",
)

OBJECTS = [
    {
        "apiVersion": "cert-manager.io/v1",
        "kind": "Certificate",
        "metadata": {"name": "web"},
        "spec": {
            "secretName": "web-tls",
            "dnsNames": ["web.example.test"],
            "issuerRef": {"name": "ca-issuer", "kind": "Issuer"},
        },
    },
    {
        "apiVersion": "cert-manager.io/v1",
        "kind": "CertificateRequest",
        "metadata": {"name": "web-1"},
        "spec": {
            "request": base64.b64encode(b"-----BEGIN CERTIFICATE REQUEST-----\n").decode(),
            "issuerRef": {"name": "ca-issuer"},
        },
    },
    {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "endpoints": [{"port": "metrics", "interval": "30s"}]},
    },
    {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": "web"},
        "spec": {
            "groups": [
                {
                    "name": "web.rules",
                    "rules": [
                        {"alert": "WebDown", "expr": 'up{job="web"} == 0', "for": "5m", "labels": {"severity": "page"}}
                    ],
                }
            ]
        },
    },
]


@pytest.fixture(scope="module")
def installed(kubectl: str, k8s: RunningServer) -> RunningServer:
    kubectl_run(kubectl, k8s, "apply", "--server-side", "-f", str(CRD_FILES))
    kubectl_run(
        kubectl, k8s, "wait", "--for", "condition=established", "--timeout", "60s", *(f"crd/{name}" for name in NAMES)
    )
    return k8s


def test_the_projects_crds_apply_and_establish(kubectl: str, installed: RunningServer):
    listed = kubectl_run(kubectl, installed, "get", "crd", "-o", "name").stdout.split()
    assert {f"customresourcedefinition.apiextensions.k8s.io/{name}" for name in NAMES} <= set(listed)
    resources = kubectl_run(kubectl, installed, "api-resources", "--api-group", "cert-manager.io", "-o", "name")
    assert resources.stdout.split() == ["certificaterequests.cert-manager.io", "certificates.cert-manager.io"]


def test_an_object_of_each_is_created_read_and_listed(kubectl: str, installed: RunningServer):
    kubectl_run(kubectl, installed, "apply", "-n", "default", "-f", "-", stdin=yaml.safe_dump_all(OBJECTS))
    cert = json.loads(
        kubectl_run(kubectl, installed, "get", "-n", "default", "certificate", "web", "-o", "json").stdout
    )
    assert cert["spec"]["issuerRef"] == {"name": "ca-issuer", "kind": "Issuer"}
    table = kubectl_run(kubectl, installed, "get", "-n", "default", "certs").stdout.splitlines()
    assert table[0].split() == ["NAME", "READY", "SECRET", "AGE"]  # its printer columns (Issuer is priority 1)
    assert table[1].split()[:2] == ["web", "web-tls"]  # READY is empty: no controller writes status here
    wide = kubectl_run(kubectl, installed, "get", "-n", "default", "certs", "-o", "wide").stdout.splitlines()
    assert wide[0].split()[:5] == ["NAME", "READY", "SECRET", "ISSUER", "STATUS"]
    assert "ca-issuer" in wide[1].split()
    request = kubectl_run(kubectl, installed, "get", "-n", "default", "certificaterequest", "web-1").stdout
    assert request.splitlines()[0].split()[:4] == ["NAME", "APPROVED", "DENIED", "READY"]
    monitors = json.loads(
        kubectl_run(kubectl, installed, "get", "-n", "default", "servicemonitors", "-o", "json").stdout
    )
    assert [m["spec"]["endpoints"][0]["port"] for m in monitors["items"]] == ["metrics"]
    rule = json.loads(
        kubectl_run(kubectl, installed, "get", "-n", "default", "prometheusrule", "web", "-o", "json").stdout
    )
    assert rule["spec"]["groups"][0]["rules"][0]["for"] == "5m"
    names = kubectl_run(kubectl, installed, "get", "-n", "default", "cert-manager", "-o", "name").stdout.split()
    assert sorted(names) == ["certificate.cert-manager.io/web", "certificaterequest.cert-manager.io/web-1"]


def test_the_schemas_refuse_bad_objects(kubectl: str, installed: RunningServer):
    no_issuer = {
        "apiVersion": "cert-manager.io/v1",
        "kind": "Certificate",
        "metadata": {"name": "bad"},
        "spec": {"secretName": "bad-tls"},
    }
    refused = kubectl_run(
        kubectl, installed, "create", "-n", "default", "-f", "-", stdin=yaml.safe_dump(no_issuer), ok=False
    )
    assert refused.returncode != 0
    assert "spec.issuerRef: Required value" in refused.stderr
    bad_endpoint = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {"name": "bad"},
        "spec": {"selector": {}, "endpoints": [{"scheme": "gopher"}]},
    }
    refused = kubectl_run(
        kubectl, installed, "create", "-n", "default", "-f", "-", stdin=yaml.safe_dump(bad_endpoint), ok=False
    )
    assert refused.returncode != 0 and 'spec.endpoints[0].scheme: Unsupported value: "gopher"' in refused.stderr
    assert installed.get("/apis/cert-manager.io/v1/namespaces/default/certificates/bad").status_code == 404
