"""Admission with `--api-domain k8s.io`, through the real kubectl: the reference's group, review version, labels,
annotations and paths, as stock tools and manifests spell them."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

import pytest
from orch_apiserver import pki

from tests.admission.helpers import bundle, configuration, review_route, webhook
from tests.auth.helpers import https_server

from . import RunningServer, poll

pytestmark = pytest.mark.e2e


def run(kubectl: str, server: RunningServer, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [kubectl, "--kubeconfig", str(server.kubeconfig), *args],
        input=stdin,
        text=True,
        capture_output=True,
        timeout=90,
        check=False,
    )


def ok(kubectl: str, server: RunningServer, *args: str, stdin: str = "") -> str:
    done = run(kubectl, server, *args, stdin=stdin)
    assert done.returncode == 0, done.stderr
    return done.stdout


def fresh_namespace(kubectl: str, server: RunningServer, **labels: str) -> str:
    name = f"adm-{uuid.uuid4().hex[:6]}"
    ok(kubectl, server, "create", "namespace", name)
    if labels:
        ok(kubectl, server, "label", "namespace", name, *(f"{k}={v}" for k, v in labels.items()))
    return name


def test_a_webhook_gets_the_reference_review_and_kubectl_shows_its_denial(kubectl, k8s_server, tmp_path: Path):
    ca = pki.create_ca("admission-k8s-ca")
    reviews: list[dict] = []
    with https_server(ca, tmp_path) as hook:
        hook.routes["/review"] = review_route(
            reviews,
            lambda req: {
                "allowed": False,
                "status": {"code": 403, "reason": "Forbidden", "message": "no configmaps today"},
            },
        )
        namespace = fresh_namespace(kubectl, k8s_server)
        config = configuration(
            "ValidatingWebhookConfiguration",
            "no-configmaps",
            webhook(
                "no-configmaps.example.com",
                {"url": hook.url + "/review", "caBundle": bundle(ca)},
                namespaceSelector={"matchLabels": {"kubernetes.io/metadata.name": namespace}},
            ),
        )
        config["apiVersion"] = "admissionregistration.k8s.io/v1"
        ok(kubectl, k8s_server, "apply", "-f", "-", stdin=json.dumps(config))
        try:
            refused = run(kubectl, k8s_server, "-n", namespace, "create", "configmap", "c", "--from-literal=a=b")
            assert refused.returncode == 1
            assert (
                'admission webhook "no-configmaps.example.com" denied the request: no configmaps today'
                in refused.stderr
            )
            # the root-CA publisher may write kube-root-ca.crt into the namespace after the hook is in place
            [mine] = [review for review in reviews if review["request"]["name"] == "c"]
            assert mine["apiVersion"] == "admission.k8s.io/v1"
            assert mine["request"]["userInfo"]["groups"] == ["system:masters", "system:authenticated"]
        finally:
            ok(kubectl, k8s_server, "delete", "validatingwebhookconfiguration", "no-configmaps")


def test_kubectl_run_gets_the_reference_pod_defaults(kubectl, k8s_server):
    namespace = fresh_namespace(kubectl, k8s_server)
    poll(lambda: run(kubectl, k8s_server, "-n", namespace, "get", "serviceaccount", "default").returncode == 0)
    ok(kubectl, k8s_server, "-n", namespace, "run", "web", "--image", "nginx")
    spec = json.loads(ok(kubectl, k8s_server, "-n", namespace, "get", "pod", "web", "-o", "json"))["spec"]
    [volume] = spec["volumes"]
    assert volume["name"].startswith("kube-api-access-")
    assert volume["projected"]["sources"][1]["configMap"]["name"] == "kube-root-ca.crt"
    assert spec["containers"][0]["volumeMounts"] == [
        {"name": volume["name"], "readOnly": True, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}
    ]
    assert {t["key"] for t in spec["tolerations"]} == {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}
    assert (spec["priority"], spec["preemptionPolicy"]) == (0, "PreemptLowerPriority")


def test_pod_security_labels_and_quotas_as_kubectl_users_write_them(kubectl, k8s_server):
    guarded = fresh_namespace(kubectl, k8s_server, **{"pod-security.kubernetes.io/enforce": "restricted"})
    poll(lambda: run(kubectl, k8s_server, "-n", guarded, "get", "serviceaccount", "default").returncode == 0)
    refused = run(kubectl, k8s_server, "-n", guarded, "run", "web", "--image", "nginx")
    assert refused.returncode == 1
    assert (
        'pods "web" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false'
        in refused.stderr
    )

    limited = fresh_namespace(kubectl, k8s_server)
    poll(lambda: run(kubectl, k8s_server, "-n", limited, "get", "serviceaccount", "default").returncode == 0)
    ok(kubectl, k8s_server, "-n", limited, "create", "quota", "small", "--hard=pods=1")
    poll(
        lambda: (
            json.loads(ok(kubectl, k8s_server, "-n", limited, "get", "quota", "small", "-o", "json"))
            .get("status", {})
            .get("used")
        )
    )
    ok(kubectl, k8s_server, "-n", limited, "run", "one", "--image", "nginx")
    second = run(kubectl, k8s_server, "-n", limited, "run", "two", "--image", "nginx")
    assert second.returncode == 1
    assert (
        'pods "two" is forbidden: exceeded quota: small, requested: pods=1, used: pods=1, limited: pods=1'
        in second.stderr
    )
    described = ok(kubectl, k8s_server, "-n", limited, "describe", "quota", "small")
    assert [line.split() for line in described.splitlines()][-1] == ["pods", "1", "1"]
