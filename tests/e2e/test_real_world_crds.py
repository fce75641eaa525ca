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


ALERTMANAGERCONFIGS = "alertmanagerconfigs.monitoring.coreos.com"
ALERTMANAGERCONFIGS_FILE = (
    Path(__file__).parent / "data" / "alertmanagerconfigs" / "monitoring.coreos.com_alertmanagerconfigs.yaml"
)
INHIBIT_RULE = """\
apiVersion: monitoring.coreos.com/v1alpha1
kind: AlertmanagerConfig
metadata: {name: inhibit}
spec:
  inhibitRules:
  - sourceMatch: [{name: severity, value: critical, matchType: =}]
    targetMatch: [{name: severity, value: warning, matchType: '!='}]
"""


def _match_types(crd: dict) -> list[str]:
    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    rule = schema["properties"]["spec"]["properties"]["inhibitRules"]["items"]["properties"]
    return rule["sourceMatch"]["items"]["properties"]["matchType"]["enum"]


def test_alertmanagerconfigs_keeps_its_unquoted_equals_from_kubectl_and_from_a_yaml_body(
    kubectl: str, installed: RunningServer
):
    """Its enums spell `- =`: kubectl reads the file with sigs.k8s.io/yaml and sends JSON; sent as application/yaml,
    the server reads it by the same rules (go-yaml v2: a plain `=` is the string "=")."""
    kubectl_run(kubectl, installed, "create", "-f", str(ALERTMANAGERCONFIGS_FILE))
    kubectl_run(kubectl, installed, "wait", "--for", "condition=established", f"crd/{ALERTMANAGERCONFIGS}")
    crd = json.loads(kubectl_run(kubectl, installed, "get", "crd", ALERTMANAGERCONFIGS, "-o", "json").stdout)
    assert _match_types(crd) == ["!=", "=", "=~", "!~"]
    kubectl_run(kubectl, installed, "delete", "crd", ALERTMANAGERCONFIGS)  # waits until it is gone
    created = installed.session.post(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        data=ALERTMANAGERCONFIGS_FILE.read_bytes(),
        headers={"Content-Type": "application/yaml"},
    )
    assert created.status_code == 201, created.text
    assert _match_types(created.json()) == ["!=", "=", "=~", "!~"]
    kubectl_run(kubectl, installed, "wait", "--for", "condition=established", f"crd/{ALERTMANAGERCONFIGS}")
    posted = installed.session.post(
        "/apis/monitoring.coreos.com/v1alpha1/namespaces/default/alertmanagerconfigs",
        data=INHIBIT_RULE.replace("name: inhibit", "name: posted").encode(),
        headers={"Content-Type": "application/yaml"},
    )
    assert posted.status_code == 201, posted.text
    kubectl_run(kubectl, installed, "create", "-n", "default", "-f", "-", stdin=INHIBIT_RULE)
    for name in ("posted", "inhibit"):
        config = json.loads(kubectl_run(kubectl, installed, "get", "-n", "default", "amcfg", name, "-o", "json").stdout)
        assert config["spec"]["inhibitRules"][0]["sourceMatch"][0]["matchType"] == "="
