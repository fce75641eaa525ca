"""The stock kubectl meets the reference's ObjectMeta limits and default columns, on both stores: client-side
apply of a real CRD whose last-applied annotation is over 256 KiB fails as on a real cluster (server-side apply
and create of it work), and a custom kind without printer columns lists NAME and AGE."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from . import RunningServer
from .test_custom_resources import crd, create_crd, kubectl_run, unique_group

pytestmark = pytest.mark.e2e

LARGE_CRD = Path(__file__).parent / "data" / "large-crds" / "monitoring.coreos.com_alertmanagers.yaml"
LARGE_CRD_NAME = "alertmanagers.monitoring.coreos.com"
LIMIT = 262144


def test_client_side_apply_of_a_crd_over_the_annotation_limit_fails(kubectl: str, k8s: RunningServer) -> None:
    # kubectl's last-applied annotation is the object's compact JSON: this one is over the limit on its own
    assert len(json.dumps(yaml.safe_load(LARGE_CRD.read_text()), separators=(",", ":"))) > LIMIT
    applied = kubectl_run(kubectl, k8s, "apply", "-f", str(LARGE_CRD), ok=False)
    assert applied.returncode == 1
    assert (
        f'The CustomResourceDefinition "{LARGE_CRD_NAME}" is invalid: metadata.annotations: Too long: '
        f"must have at most {LIMIT} bytes"
    ) in applied.stderr
    assert kubectl_run(kubectl, k8s, "get", "crd", LARGE_CRD_NAME, ok=False).returncode == 1  # nothing was stored

    created = kubectl_run(kubectl, k8s, "create", "-f", str(LARGE_CRD))
    assert f"customresourcedefinition.apiextensions.k8s.io/{LARGE_CRD_NAME} created" in created.stdout
    kubectl_run(kubectl, k8s, "delete", "-f", str(LARGE_CRD), "--wait=true")

    ssa = kubectl_run(kubectl, k8s, "apply", "--server-side", "-f", str(LARGE_CRD))
    assert f"customresourcedefinition.apiextensions.k8s.io/{LARGE_CRD_NAME} serverside-applied" in ssa.stdout
    kubectl_run(kubectl, k8s, "wait", "--for", "condition=established", "--timeout", "60s", f"crd/{LARGE_CRD_NAME}")
    annotations = json.loads(kubectl_run(kubectl, k8s, "get", "crd", LARGE_CRD_NAME, "-o", "json").stdout)[
        "metadata"
    ].get("annotations", {})
    assert "kubectl.kubernetes.io/last-applied-configuration" not in annotations
    kubectl_run(kubectl, k8s, "delete", "crd", LARGE_CRD_NAME, "--wait=true")


def test_kubectl_shows_a_too_long_annotation_update_as_the_reference_does(kubectl: str, k8s: RunningServer) -> None:
    name = f"big-{unique_group()[:9]}"
    kubectl_run(kubectl, k8s, "create", "configmap", name)
    chunk = "x" * 100_000  # an argument may not exceed 128 KiB
    kubectl_run(kubectl, k8s, "annotate", "configmap", name, f"a={chunk}", f"b={chunk}")
    refused = kubectl_run(kubectl, k8s, "annotate", "configmap", name, f"c={chunk}", ok=False)
    assert refused.returncode == 1
    assert (
        f'The ConfigMap "{name}" is invalid: metadata.annotations: Too long: must have at most {LIMIT} bytes'
        in refused.stderr
    )
    kubectl_run(kubectl, k8s, "delete", "configmap", name)


def test_a_custom_kind_without_printer_columns_lists_name_and_age(kubectl: str, k8s: RunningServer) -> None:
    group = unique_group()
    body = crd(group, plural="plainthings", kind="PlainThing")
    del body["spec"]["versions"][0]["additionalPrinterColumns"]
    create_crd(k8s, body)
    thing = {"apiVersion": f"{group}/v1", "kind": "PlainThing", "metadata": {"name": "one"}, "spec": {"mode": "fast"}}
    kubectl_run(kubectl, k8s, "apply", "-f", "-", stdin=json.dumps(thing))

    listed = kubectl_run(kubectl, k8s, "get", f"plainthings.{group}").stdout.splitlines()
    assert listed[0].split() == ["NAME", "AGE"]
    assert listed[1].split()[0] == "one" and len(listed[1].split()) == 2
    wide = kubectl_run(kubectl, k8s, "get", f"plainthings.{group}", "one", "-o", "wide").stdout.splitlines()
    assert wide[0].split() == ["NAME", "AGE"]

    table = k8s.get(
        f"/apis/{group}/v1/namespaces/default/plainthings",
        headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"},
    ).json()
    assert [(c["name"], c["type"], c["format"], c["priority"]) for c in table["columnDefinitions"]] == [
        ("Name", "string", "name", 0),
        ("Age", "date", "", 0),
    ]
    assert table["columnDefinitions"][1]["description"].startswith("CreationTimestamp is a timestamp")
    assert table["rows"][0]["cells"][0] == "one"
    kubectl_run(kubectl, k8s, "delete", "crd", f"plainthings.{group}")
