"""kubectl's default (client-side) validation reads /openapi/v2 as gnostic protobuf: `kind: List` manifests, the
`get -o yaml` backup and restore, manifests of unserved versions, and validation errors taken from our schemas."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import yaml

from . import RunningServer, poll
from .test_kubectl import Kubectl, fresh_namespace, kubectl_for

pytestmark = pytest.mark.e2e


@pytest.fixture
def kc(any_server: RunningServer, kubectl: str, tmp_path_factory: pytest.TempPathFactory) -> Kubectl:
    return kubectl_for(kubectl, any_server, tmp_path_factory)


@pytest.fixture
def namespace(kc: Kubectl) -> Iterator[str]:
    with fresh_namespace(kc) as name:
        yield name


def config_map(namespace: str, name: str = "settings", **extra: object) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace}, **extra}


def deployment(namespace: str, spec: dict | None = None) -> dict:
    labels = {"app": "web"}
    template = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": namespace},
        "spec": spec or {"replicas": 2, "selector": {"matchLabels": labels}, "template": template},
    }


def as_list(*items: dict) -> str:
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": list(items)})


def test_apply_of_a_list_validates_against_openapi_v2(kc: Kubectl, namespace: str) -> None:
    manifest = as_list(config_map(namespace, data={"mode": "fast"}), deployment(namespace))
    out = kc.ok("apply", "-f", "-", input=manifest)  # --validate=strict, kubectl's default
    assert "configmap/settings created" in out and "deployment.apps/web created" in out
    assert kc.json("get", "configmap", "settings", "-n", namespace)["data"] == {"mode": "fast"}
    assert kc.json("get", "deployment", "web", "-n", namespace)["spec"]["replicas"] == 2
    again = kc.ok("apply", "-f", "-", input=manifest)
    assert "configmap/settings unchanged" in again and "deployment.apps/web unchanged" in again


def test_backup_with_get_o_yaml_restores_with_apply(kc: Kubectl, namespace: str) -> None:
    kc.ok("apply", "-f", "-", input=as_list(config_map(namespace, data={"k": "v"}), deployment(namespace)))
    backup = kc.ok("get", "configmap/settings", "deployment/web", "-n", namespace, "-o", "yaml")
    before = yaml.safe_load(backup)
    assert before["kind"] == "List" and len(before["items"]) == 2
    kc.ok("delete", "-f", "-", input=backup)
    kc.fails("get", "configmap", "settings", "-n", namespace)
    out = kc.ok("apply", "-f", "-", input=backup)
    assert "configmap/settings created" in out and "deployment.apps/web created" in out
    restored = kc.json("get", "configmap", "settings", "-n", namespace)
    assert restored["data"] == {"k": "v"} and restored["metadata"]["uid"] != before["items"][0]["metadata"]["uid"]
    assert kc.json("get", "deployment", "web", "-n", namespace)["spec"]["replicas"] == 2


def test_client_side_validation_reports_errors_from_the_v2_schemas(kc: Kubectl, namespace: str) -> None:
    bad = as_list(config_map(namespace, datax={"a": "b"}), deployment(namespace, {"replicas": "two"}))
    err = kc.fails("apply", "-f", "-", input=bad)
    assert "error validating data" in err
    assert 'unknown field "datax" in core.v1.ConfigMap' in err
    assert 'invalid type for apps.v1.DeploymentSpec.replicas: got "string", expected "integer"' in err
    assert 'missing required field "selector" in apps.v1.DeploymentSpec' in err
    kc.fails("get", "configmap", "settings", "-n", namespace)  # nothing was sent


def test_unserved_versions_fail_with_kubectl_s_mapping_error(kc: Kubectl, namespace: str) -> None:
    daemon_set = {
        "apiVersion": "extensions/v1beta1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": namespace},
        "spec": {"template": {"spec": {"containers": [{"name": "agent", "image": "busybox"}]}}},
    }
    err = kc.fails("apply", "-f", "-", input=yaml.safe_dump(daemon_set))
    assert 'no matches for kind "DaemonSet" in version "extensions/v1beta1"' in err
    assert "unable to respond with a content type" not in err


def test_custom_resources_are_validated_once_their_definition_is_published(kc: Kubectl, namespace: str) -> None:
    group = f"g{uuid.uuid4().hex[:8]}.example.com"
    size = {"type": "integer", "minimum": 1}
    spec_schema = {"type": "object", "required": ["size"], "properties": {"size": size}}
    version = {
        "name": "v1",
        "served": True,
        "storage": True,
        "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec_schema}}},
    }
    crd = {
        "apiVersion": "apiextensions.orch.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"widgets.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [version],
        },
    }
    kc.ok("apply", "-f", "-", input=yaml.safe_dump(crd))
    try:

        def widgets(spec: dict) -> str:
            item = {"apiVersion": f"{group}/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": spec}
            return as_list(item, config_map(namespace))

        def refused() -> str:
            """kubectl's complaint, once the new document (a new ETag) lists the established definition."""
            result = kc.run("apply", "-n", namespace, "-f", "-", input=widgets({"sizex": 3}))
            return result.stderr if result.returncode and "error validating data" in result.stderr else ""

        err = poll(refused)
        assert f'unknown field "sizex" in {".".join(reversed(group.split(".")))}.v1.Widget.spec' in err, err
        assert 'missing required field "size"' in err
        out = kc.ok("apply", "-n", namespace, "-f", "-", input=widgets({"size": 3}))
        assert f"widget.{group}/w1 created" in out and "configmap/settings created" in out
    finally:
        kc.run("delete", "customresourcedefinition", f"widgets.{group}", "--wait=false")


def test_explain_still_works(kc: Kubectl) -> None:
    out = kc.ok("explain", "deployment.spec.replicas")
    assert "KIND:       Deployment" in out and "FIELD: replicas <integer>" in out
