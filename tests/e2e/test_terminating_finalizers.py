"""A finalizer cannot be added to an object being deleted (issue 56 item 6): the reference's 422, where the
server used to drop the new finalizer and answer 200; removing finalizers still works and lets the object go."""

from __future__ import annotations

import json
from typing import Any

import pytest

from . import RunningServer, poll
from .test_custom_resources import kubectl_run

pytestmark = pytest.mark.e2e


def test_adding_a_finalizer_to_a_terminating_object_is_refused(kube_client: Any) -> None:
    from kubernetes import client
    from kubernetes.client.rest import ApiException

    core = client.CoreV1Api(kube_client)
    core.create_namespaced_config_map("default", {"metadata": {"name": "held", "finalizers": ["example.com/hold"]}})
    core.delete_namespaced_config_map("held", "default")
    with pytest.raises(ApiException) as caught:
        core.patch_namespaced_config_map(
            "held", "default", {"metadata": {"finalizers": ["example.com/hold", "example.com/late", "a.com/b"]}}
        )
    assert caught.value.status == 422
    status = json.loads(caught.value.body)
    assert status["reason"] == "Invalid"
    assert status["details"]["causes"] == [
        {
            "reason": "FieldValueForbidden",
            "message": "Forbidden: no new finalizers can be added if the object is being deleted, "
            'found new finalizers []string{"a.com/b", "example.com/late"}',
            "field": "metadata.finalizers",
        }
    ]
    assert core.read_namespaced_config_map("held", "default").metadata.finalizers == ["example.com/hold"]
    core.patch_namespaced_config_map("held", "default", {"metadata": {"finalizers": None}})
    poll(lambda: not core.list_namespaced_config_map("default", field_selector="metadata.name=held").items)


def test_kubectl_reports_the_refusal(kubectl: str, server: RunningServer) -> None:
    kubectl_run(kubectl, server, "create", "configmap", "-n", "default", "held-kubectl")
    kubectl_run(
        kubectl,
        server,
        "patch",
        "-n",
        "default",
        "configmap",
        "held-kubectl",
        "-p",
        '{"metadata": {"finalizers": ["example.com/hold"]}}',
    )
    kubectl_run(kubectl, server, "delete", "-n", "default", "configmap", "held-kubectl", "--wait=false")
    refused = kubectl_run(
        kubectl,
        server,
        "patch",
        "-n",
        "default",
        "configmap",
        "held-kubectl",
        "--type",
        "json",
        "-p",
        '[{"op": "add", "path": "/metadata/finalizers/-", "value": "example.com/late"}]',
        ok=False,
    )
    assert refused.returncode != 0
    assert (
        "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, "
        'found new finalizers []string{"example.com/late"}'
    ) in refused.stderr
    kubectl_run(
        kubectl,
        server,
        "patch",
        "-n",
        "default",
        "configmap",
        "held-kubectl",
        "--type",
        "json",
        "-p",
        '[{"op": "remove", "path": "/metadata/finalizers"}]',
    )
