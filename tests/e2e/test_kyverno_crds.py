"""Kyverno's CRDs install unmodified (issue 56): the schemas under not/allOf/anyOf/oneOf are value validations,
where the reference requires `type` and the like to be empty, and checks their values on every write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from . import RunningServer
from .test_custom_resources import kubectl_run

pytestmark = pytest.mark.e2e

CRD_FILES = Path(__file__).parent / "data" / "kyverno"
NAMES = ("policyexceptions.kyverno.io", "cleanuppolicies.kyverno.io")


def _exception(name: str, match: dict) -> dict:
    return {
        "apiVersion": "kyverno.io/v2",
        "kind": "PolicyException",
        "metadata": {"name": name},
        "spec": {"exceptions": [{"policyName": "require-labels", "ruleNames": ["check"]}], "match": match},
    }


@pytest.fixture(scope="module")
def installed(kubectl: str, k8s: RunningServer) -> RunningServer:
    kubectl_run(kubectl, k8s, "apply", "--server-side", "-f", str(CRD_FILES))
    kubectl_run(
        kubectl, k8s, "wait", "--for", "condition=established", "--timeout", "60s", *(f"crd/{name}" for name in NAMES)
    )
    return k8s


def test_an_object_passing_the_not_clauses_is_stored(kubectl: str, installed: RunningServer) -> None:
    fine = _exception("pods", {"any": [{"resources": {"kinds": ["Pod"], "names": ["web-*"]}}]})
    kubectl_run(kubectl, installed, "create", "-n", "default", "-f", "-", stdin=yaml.safe_dump(fine))
    got = json.loads(kubectl_run(kubectl, installed, "get", "-n", "default", "polex", "pods", "-o", "json").stdout)
    assert got["spec"]["match"]["any"][0]["resources"]["names"] == ["web-*"]


def test_an_object_matching_a_not_clause_is_refused(kubectl: str, installed: RunningServer) -> None:
    both = _exception("both", {"any": [{"resources": {"kinds": ["Pod"]}}], "all": [{"resources": {"kinds": ["Pod"]}}]})
    refused = kubectl_run(
        kubectl, installed, "create", "-n", "default", "-f", "-", stdin=yaml.safe_dump(both), ok=False
    )
    assert refused.returncode != 0
    assert "spec.match in body must not validate the schema (not)" in refused.stderr


def test_a_type_inside_not_is_refused_in_the_references_words(kubectl: str, k8s: RunningServer) -> None:
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "typednots.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "typednots", "singular": "typednot", "kind": "TypedNot"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {"spec": {"type": "object", "not": {"type": "object", "required": ["a"]}}},
                        }
                    },
                }
            ],
        },
    }
    refused = kubectl_run(kubectl, k8s, "create", "-f", "-", stdin=yaml.safe_dump(crd), ok=False)
    assert refused.returncode != 0
    assert (
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].not.type: Forbidden: must be empty to be structural"
        in refused.stderr
    )
