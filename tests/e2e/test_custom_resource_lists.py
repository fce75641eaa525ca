"""Custom resources as kubectl users meet them (issue 56 item 5): a `set` or `map` list with a repeat is refused
with the reference's `Duplicate value`, and a printer column whose JSONPath escapes a dot in a label key
(`.metadata.labels.strimzi\\.io/cluster`, as Strimzi's CRDs have it) prints the label."""

from __future__ import annotations

import pytest
import yaml

from . import RunningServer
from .test_custom_resources import kubectl_run

pytestmark = pytest.mark.e2e

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "topics.lists.example.com"},
    "spec": {
        "group": "lists.example.com",
        "scope": "Namespaced",
        "names": {"plural": "topics", "singular": "topic", "kind": "Topic"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "additionalPrinterColumns": [
                    {"name": "Cluster", "type": "string", "jsonPath": ".metadata.labels.strimzi\\.io/cluster"}
                ],
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "properties": {
                                    "tags": {
                                        "type": "array",
                                        "x-kubernetes-list-type": "set",
                                        "items": {"type": "string"},
                                    },
                                    "ports": {
                                        "type": "array",
                                        "x-kubernetes-list-type": "map",
                                        "x-kubernetes-list-map-keys": ["port", "protocol"],
                                        "items": {
                                            "type": "object",
                                            "required": ["port", "protocol"],
                                            "properties": {
                                                "port": {"type": "integer"},
                                                "protocol": {"type": "string"},
                                                "name": {"type": "string"},
                                            },
                                        },
                                    },
                                },
                            }
                        },
                    }
                },
            }
        ],
    },
}


def _topic(name: str, spec: dict, labels: dict | None = None) -> str:
    metadata = {"name": name, **({"labels": labels} if labels else {})}
    return yaml.safe_dump({"apiVersion": "lists.example.com/v1", "kind": "Topic", "metadata": metadata, "spec": spec})


@pytest.fixture(scope="module")
def installed(kubectl: str, k8s_server: RunningServer) -> RunningServer:
    kubectl_run(kubectl, k8s_server, "create", "-f", "-", stdin=yaml.safe_dump(CRD))
    kubectl_run(kubectl, k8s_server, "wait", "--for", "condition=established", "crd/topics.lists.example.com")
    return k8s_server


def test_repeats_in_set_and_map_lists_are_refused(kubectl: str, installed: RunningServer) -> None:
    repeated = {
        "tags": ["a", "b", "a"],
        "ports": [{"port": 80, "protocol": "TCP", "name": "web"}, {"port": 80, "protocol": "TCP", "name": "again"}],
    }
    refused = kubectl_run(
        kubectl, installed, "create", "-n", "default", "-f", "-", stdin=_topic("repeated", repeated), ok=False
    )
    assert refused.returncode != 0
    assert 'spec.tags[2]: Duplicate value: "a"' in refused.stderr
    assert 'spec.ports[1]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}' in refused.stderr
    distinct = {"tags": ["a", "b"], "ports": [{"port": 80, "protocol": "TCP"}, {"port": 80, "protocol": "UDP"}]}
    kubectl_run(kubectl, installed, "create", "-n", "default", "-f", "-", stdin=_topic("distinct", distinct))
    patched = kubectl_run(
        kubectl,
        installed,
        *("patch", "-n", "default", "topic", "distinct", "--type", "merge"),
        *("-p", '{"spec": {"tags": ["a", "b", "b"]}}'),
        ok=False,
    )
    assert patched.returncode != 0 and 'spec.tags[2]: Duplicate value: "b"' in patched.stderr


def test_a_printer_column_with_an_escaped_dot_prints_the_label(kubectl: str, installed: RunningServer) -> None:
    topic = _topic("labelled", {"tags": ["x"]}, {"strimzi.io/cluster": "my-cluster"})
    kubectl_run(kubectl, installed, "create", "-n", "default", "-f", "-", stdin=topic)
    table = kubectl_run(kubectl, installed, "get", "-n", "default", "topic", "labelled").stdout.splitlines()
    assert table[0].split() == ["NAME", "CLUSTER"]
    assert table[1].split() == ["labelled", "my-cluster"]
