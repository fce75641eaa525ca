"""Names and wording clients and people search for, in the reference's domain (issue 56 item 7): the OpenAPI
definitions carry the reference's names (kubectl's client-side validation quotes them), and a webhook that
cannot be called, a conversion that fails and a CRD with a wrong root type are reported in the reference's
words."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import yaml

from . import RunningServer, free_port
from .test_custom_resources import kubectl_run

pytestmark = pytest.mark.e2e

WEBHOOKS = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"


def test_openapi_definitions_carry_the_reference_names(kubectl: str, k8s_server: RunningServer) -> None:
    v2 = k8s_server.get("/openapi/v2").json()["definitions"]
    assert "io.k8s.api.core.v1.ConfigMap" in v2 and "io.k8s.api.apps.v1.Deployment" in v2
    meta = v2["io.k8s.api.core.v1.ConfigMap"]["properties"]["metadata"]
    assert meta.get("$ref", "").endswith("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta") or any(
        ref.get("$ref", "").endswith("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta") for ref in meta.get("allOf", [])
    )
    v3 = k8s_server.get("/openapi/v3/api/v1").json()["components"]["schemas"]
    assert "io.k8s.api.core.v1.ConfigMap" in v3 and "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" in v3
    bad = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "named"}, "datax": {"a": "b"}}
    as_list = yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [bad]})  # validated by kubectl itself
    refused = kubectl_run(kubectl, k8s_server, "apply", "-n", "default", "-f", "-", stdin=as_list, ok=False)
    assert 'unknown field "datax" in io.k8s.api.core.v1.ConfigMap' in refused.stderr


@pytest.fixture
def webhook(k8s_server: RunningServer) -> Iterator[list[str]]:
    """Registers the configurations the test names (each of one webhook on configmap creation); removed after."""
    names: list[str] = []
    yield names
    for name in names:
        k8s_server.session.delete(f"{WEBHOOKS}/{name}")


def _register(server: RunningServer, names: list[str], name: str, client_config: dict) -> None:
    config = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": name},
        "webhooks": [
            {
                "name": f"{name}.example.com",
                "clientConfig": client_config,
                "rules": [
                    {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}
                ],
                "sideEffects": "None",
                "admissionReviewVersions": ["v1"],
            }
        ],
    }
    assert server.session.post(WEBHOOKS, json=config).status_code == 201
    names.append(name)


def test_a_webhook_refusing_connections_says_connection_refused(
    kubectl: str, k8s_server: RunningServer, webhook: list[str]
) -> None:
    port = free_port()
    _register(k8s_server, webhook, "refusing", {"url": f"https://127.0.0.1:{port}/review"})
    refused = kubectl_run(kubectl, k8s_server, "create", "configmap", "-n", "default", "refused", ok=False)
    assert (
        'failed calling webhook "refusing.example.com": failed to call webhook: '
        f'Post "https://127.0.0.1:{port}/review?timeout=10s": dial tcp 127.0.0.1:{port}: connect: connection refused'
    ) in refused.stderr


def test_a_webhook_whose_service_is_missing_names_the_service(
    kubectl: str, k8s_server: RunningServer, webhook: list[str]
) -> None:
    service = {"service": {"namespace": "default", "name": "nowhere", "path": "/review"}}
    _register(k8s_server, webhook, "serviceless", service)
    refused = kubectl_run(kubectl, k8s_server, "create", "configmap", "-n", "default", "serviceless", ok=False)
    assert (
        'failed calling webhook "serviceless.example.com": failed to call webhook: '
        'Post "https://nowhere.default.svc:443/review?timeout=10s": service "nowhere" not found'
    ) in refused.stderr


def _crd(name: str, plural: str, kind: str, versions: list[dict], conversion: dict | None = None) -> dict:
    spec = {
        "group": "wording.example.com",
        "scope": "Namespaced",
        "names": {"plural": plural, "singular": plural[:-1], "kind": kind},
        "versions": versions,
        **({"conversion": conversion} if conversion else {}),
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": name},
        "spec": spec,
    }


def _version(name: str, storage: bool, schema: dict, subresources: dict | None = None) -> dict:
    return {
        "name": name,
        "served": True,
        "storage": storage,
        "schema": {"openAPIV3Schema": schema},
        **({"subresources": subresources} if subresources else {}),
    }


def test_a_wrong_root_type_is_refused_in_the_references_words(kubectl: str, k8s_server: RunningServer) -> None:
    root = {"type": "array", "items": {"type": "string"}}
    crd = _crd("lists.wording.example.com", "lists", "List", [_version("v1", True, root, {"status": {}})])
    refused = kubectl_run(kubectl, k8s_server, "create", "-f", "-", stdin=yaml.safe_dump(crd), ok=False)
    prefix = 'spec.versions[0].schema.openAPIV3Schema.type: Invalid value: "array": '
    assert (
        prefix + 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'
    ) in refused.stderr
    assert prefix + "must be object at the root" in refused.stderr


def test_a_failed_conversion_names_the_version_converted_from(kubectl: str, k8s_server: RunningServer) -> None:
    port = free_port()
    schema = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    conversion = {
        "strategy": "Webhook",
        "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {"url": f"https://127.0.0.1:{port}/convert"}},
    }
    crd = _crd(
        "gadgets.wording.example.com",
        "gadgets",
        "Gadget",
        [_version("v1", True, schema), _version("v2", False, schema)],
        conversion,
    )
    kubectl_run(kubectl, k8s_server, "create", "-f", "-", stdin=yaml.safe_dump(crd))
    kubectl_run(kubectl, k8s_server, "wait", "--for", "condition=established", "crd/gadgets.wording.example.com")
    gadget = {"apiVersion": "wording.example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {}}
    kubectl_run(kubectl, k8s_server, "create", "-n", "default", "-f", "-", stdin=yaml.safe_dump(gadget))
    failed = k8s_server.get("/apis/wording.example.com/v2/namespaces/default/gadgets/g")
    assert failed.status_code == 500
    assert failed.json()["message"] == (
        "conversion webhook for wording.example.com/v1, Kind=Gadget failed: "
        f'Post "https://127.0.0.1:{port}/convert": dial tcp 127.0.0.1:{port}: connect: connection refused'
    )
