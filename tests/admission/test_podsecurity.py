"""PodSecurity: a namespace's pod-security.orch.io labels enforce, warn about and audit the Pod Security Standards,
with the reference's messages."""

from __future__ import annotations

import pytest
from orch_apiserver.admission.podsecurity import evaluate

from .test_builtin_plugins import created, pod

LABEL = "pod-security.orch.io"


def namespace(client, name: str, **labels: str) -> str:
    created(
        client,
        "/api/v1/namespaces",
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": name,
                "labels": {f"{LABEL}/{key.replace('_', '-')}": value for key, value in labels.items()},
            },
        },
    )
    return f"/api/v1/namespaces/{name}"


def restricted_pod(name: str) -> dict:
    body = pod(name, securityContext={"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}})
    body["spec"]["containers"][0]["securityContext"] = {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
    }
    return body


def test_the_enforced_level_refuses_pods_that_break_it(any_client):
    base = namespace(any_client, "guarded", enforce="baseline")
    risky = pod("risky", hostNetwork=True, volumes=[{"name": "root", "hostPath": {"path": "/"}}])
    risky["spec"]["containers"][0]["securityContext"] = {"privileged": True}
    risky["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 80}]
    answer = any_client.post(f"{base}/pods", json=risky)
    assert answer.status_code == 403 and answer.get_json()["reason"] == "Forbidden"
    assert answer.get_json()["message"] == (
        'pods "risky" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true), '
        'hostPath volumes (volume "root"), hostPort (container "c" uses hostPort 80), privileged (container "c" '
        "must not set securityContext.privileged=true)"
    )
    assert any_client.get(f"{base}/pods/risky").status_code == 404
    created(any_client, f"{base}/pods", pod("plain"))  # baseline allows a pod that asks for nothing


def test_the_warn_level_warns_and_workload_templates_are_only_warned_about(client):
    base = namespace(client, "watched", warn="restricted")
    answer = client.post(f"{base}/pods", json=pod("loose"))
    assert answer.status_code == 201
    assert answer.headers["Warning"] == (
        '299 - "would violate PodSecurity \\"restricted:latest\\": allowPrivilegeEscalation != false (container '
        '\\"c\\" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container '
        '\\"c\\" must set securityContext.capabilities.drop=[\\"ALL\\"]), runAsNonRoot != true (pod or container '
        '\\"c\\" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container \\"c\\" must set '
        'securityContext.seccompProfile.type to \\"RuntimeDefault\\" or \\"Localhost\\")"'
    )
    assert "Warning" not in client.post(f"{base}/pods", json=restricted_pod("tight")).headers
    enforced = namespace(client, "strict", enforce="restricted")
    template = {"metadata": {"labels": {"app": "web"}}, "spec": pod("x")["spec"]}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": template},
    }
    assert client.post("/apis/apps/v1/namespaces/strict/deployments", json=deployment).status_code == 201
    assert client.post(f"{enforced}/pods", json=pod("x")).status_code == 403


def test_namespace_labels_must_name_a_level_and_a_version(client):
    answer = client.post(
        "/api/v1/namespaces",
        json={
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": "typo", "labels": {f"{LABEL}/enforce": "strict", f"{LABEL}/warn-version": "1.23"}},
        },
    )
    assert answer.status_code == 422
    assert answer.get_json()["message"] == (
        'Namespace "typo" is invalid: [metadata.labels[pod-security.orch.io/enforce]: Invalid value: "strict": must '
        "be one of privileged, baseline, restricted, metadata.labels[pod-security.orch.io/warn-version]: Invalid "
        'value: "1.23": must be "latest" or "v1.x"]'
    )


def test_a_pinned_version_leaves_out_newer_checks():
    spec = {
        "containers": [
            {
                "name": "c",
                "image": "nginx",
                "securityContext": {
                    "runAsUser": 0,
                    "runAsNonRoot": True,
                    "allowPrivilegeEscalation": False,
                    "capabilities": {"drop": ["ALL"]},
                    "seccompProfile": {"type": "RuntimeDefault"},
                },
            }
        ]
    }
    assert evaluate("restricted", 10**6, {}, spec) == 'runAsUser=0 (container "c" must not set runAsUser=0)'
    assert evaluate("restricted", 22, {}, spec) == ""  # runAsUser came with v1.23
    assert evaluate("baseline", 10**6, {}, spec) == ""


@pytest.mark.parametrize(
    ("spec", "detail"),
    [
        (
            {"securityContext": {"sysctls": [{"name": "kernel.msgmax", "value": "1"}]}},
            "forbidden sysctls (kernel.msgmax)",
        ),
        (
            {
                "containers": [
                    {"name": "a", "image": "i", "securityContext": {"capabilities": {"add": ["NET_ADMIN"]}}},
                    {"name": "b", "image": "i", "securityContext": {"capabilities": {"add": ["SYS_TIME"]}}},
                ]
            },
            (
                'non-default capabilities (containers "a", "b" must not include "NET_ADMIN", "SYS_TIME" in '
                "securityContext.capabilities.add)"
            ),
        ),
        (
            {"securityContext": {"seccompProfile": {"type": "Unconfined"}}},
            'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")',
        ),
        (
            {"securityContext": {"seLinuxOptions": {"type": "spc_t", "user": "root"}}},
            'seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set)',
        ),
    ],
)
def test_baseline_checks_read_as_the_references(spec, detail):
    assert evaluate("baseline", 10**6, {}, {"containers": [{"name": "c", "image": "i"}], **spec}) == detail
