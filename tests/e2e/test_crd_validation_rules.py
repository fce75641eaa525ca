"""CEL validation rules (x-kubernetes-validations) with the stock kubectl: evaluated on custom objects when the
CustomResourceValidationExpressions gate is on, refused when they do not compile, dropped when the gate is off."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import yaml

from . import RunningServer, poll, start_server
from .test_custom_resources import CRDS, _established, kubectl_run, unique_group

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cel_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = start_server(
        tmp_path_factory.mktemp("cel"),
        ["--api-domain", "k8s.io", "--feature-gates", "CustomResourceValidationExpressions=true"],
    )
    yield running
    running.stop()


def scaler_crd(group: str, rules: list[dict], product: str = "kubernetes") -> dict:
    spec = {
        "type": "object",
        f"x-{product}-validations": rules,
        "properties": {
            "minReplicas": {"type": "integer"},
            "maxReplicas": {"type": "integer"},
            "image": {
                "type": "string",
                f"x-{product}-validations": [
                    {"rule": "self.contains(':') && !self.endsWith(':latest')", "message": "pin the image to a tag"}
                ],
            },
        },
    }
    api = "apiextensions.k8s.io/v1" if product == "kubernetes" else "apiextensions.orch.io/v1"
    return {
        "apiVersion": api,
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"scalers.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": "scalers", "kind": "Scaler"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec}}},
                }
            ],
        },
    }


RULES = [{"rule": "self.minReplicas <= self.maxReplicas", "message": "minReplicas must not exceed maxReplicas"}]


def scaler(group: str, name: str, **spec: object) -> str:
    return yaml.safe_dump(
        {
            "apiVersion": f"{group}/v1",
            "kind": "Scaler",
            "metadata": {"name": name, "namespace": "default"},
            "spec": spec,
        }
    )


def test_kubectl_meets_the_rules(kubectl: str, cel_server: RunningServer):
    group = unique_group()
    kubectl_run(kubectl, cel_server, "apply", "-f", "-", stdin=yaml.safe_dump(scaler_crd(group, RULES)))
    kubectl_run(kubectl, cel_server, "wait", "--for", "condition=established", f"crd/scalers.{group}")
    poll(lambda: _established(cel_server, f"scalers.{group}"))
    kubectl_run(
        kubectl,
        cel_server,
        "apply",
        "-f",
        "-",
        stdin=scaler(group, "good", minReplicas=1, maxReplicas=3, image="web:1.2"),
    )
    refused = kubectl_run(
        kubectl,
        cel_server,
        "apply",
        "-f",
        "-",
        stdin=scaler(group, "bad", minReplicas=4, maxReplicas=3, image="web:latest"),
        ok=False,
    )
    assert refused.returncode == 1
    assert 'The Scaler "bad" is invalid:' in refused.stderr
    assert 'spec: Invalid value: "object": minReplicas must not exceed maxReplicas' in refused.stderr
    assert 'spec.image: Invalid value: "web:latest": pin the image to a tag' in refused.stderr
    # an update is checked too, and a failed one leaves the object as it was
    patched = kubectl_run(
        kubectl,
        cel_server,
        "patch",
        "-n",
        "default",
        f"scalers.{group}",
        "good",
        "--type",
        "merge",
        "-p",
        '{"spec": {"maxReplicas": 0}}',
        ok=False,
    )
    assert "minReplicas must not exceed maxReplicas" in patched.stderr
    got = cel_server.get(f"/apis/{group}/v1/namespaces/default/scalers/good").json()
    assert got["spec"]["maxReplicas"] == 3
    stored = cel_server.get(f"{CRDS}/scalers.{group}").json()
    assert (
        stored["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"]
        == RULES
    )


def test_a_rule_that_does_not_compile_is_refused(cel_server: RunningServer):
    group = unique_group()
    bad = scaler_crd(group, [{"rule": "self.minReplicas <="}, {"rule": "self.minimum > 0"}])
    answer = cel_server.session.post(CRDS, json=bad)
    assert answer.status_code == 422, answer.text
    causes = answer.json()["details"]["causes"]
    where = "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations"
    assert [c["field"] for c in causes] == [f"{where}[0].rule", f"{where}[1].rule"]
    assert "compilation failed: ERROR: <input>:1:" in causes[0]["message"]
    assert "undefined field 'minimum'" in causes[1]["message"]
    assert cel_server.get(f"{CRDS}/scalers.{group}").status_code == 404


def test_with_the_gate_off_rules_are_dropped(server: RunningServer):
    group = unique_group()
    answer = server.session.post(
        "/apis/apiextensions.orch.io/v1/customresourcedefinitions", json=scaler_crd(group, RULES, product="orch")
    )
    assert answer.status_code == 201, answer.text
    assert "x-orch-validations" not in answer.text
