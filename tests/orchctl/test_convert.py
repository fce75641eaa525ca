"""`orchctl convert`: local conversion with the server's own conversion code (no server)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from orch_apiserver.catalog import ResourceType
from orch_apiserver.naming import Naming
from orch_apiserver.orchctl.main import main
from orch_apiserver.resources import build_catalog

NAMING = Naming()
CONVERTIBLE = [rt for rt in build_catalog(NAMING) if rt.conversion is not None and not rt.virtual]


def convert(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, *args: str) -> tuple[int, str, str]:
    source = tmp_path / "in.yaml"
    source.write_text(text)
    code = main(["convert", "-f", str(source), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def manifest(rt: ResourceType, name: str) -> dict:
    metadata = {"name": name, **({"namespace": "default"} if rt.namespaced else {})}
    return {"apiVersion": rt.group_version, "kind": rt.kind, "metadata": metadata, **rt.example}


def test_unchanged_version_and_other_groups_pass_through(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n---\n"
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2}\n"
    )
    code, out, _ = convert(tmp_path, capsys, text, "--output-version", "v1", "-o", "json")
    assert code == 0
    document = json.loads(out)
    assert document["kind"] == "List"
    assert [(o["apiVersion"], o["kind"]) for o in document["items"]] == [("v1", "ConfigMap"), ("apps/v1", "Deployment")]


def test_unknown_kind_or_version_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = convert(
        tmp_path, capsys, "apiVersion: v1\nkind: Gizmo\nmetadata: {name: a}\n", "--output-version", "v1"
    )
    assert code == 1 and out == ""
    assert 'no kind "Gizmo" is registered for version "v1"' in err
    code, _, err = convert(
        tmp_path,
        capsys,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
        "--output-version",
        "nothing.example/v9",
    )
    assert code == 1 and "nothing.example/v9" in err


@pytest.mark.parametrize("rt", CONVERTIBLE, ids=lambda rt: f"{rt.group_version}/{rt.kind}")
def test_round_trip_through_the_storage_version(
    rt: ResourceType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert rt.conversion is not None
    storage_gv = (
        f"{rt.conversion.storage_group}/{rt.conversion.storage_version}"
        if rt.conversion.storage_group
        else rt.conversion.storage_version
    )
    original = manifest(rt, "one")
    code, out, err = convert(tmp_path, capsys, yaml.safe_dump(original), "--output-version", storage_gv)
    assert code == 0, err
    stored = yaml.safe_load(out)
    assert stored["apiVersion"] == storage_gv
    code, out, err = convert(tmp_path, capsys, out, "--output-version", rt.group_version, "-o", "json")
    assert code == 0, err
    assert json.loads(out) == original


def test_pod_disruption_budget_v1beta1_to_v1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if not any(rt.group_version == "policy/v1beta1" and rt.kind == "PodDisruptionBudget" for rt in CONVERTIBLE):
        pytest.skip("policy/v1beta1 PodDisruptionBudget is not served by this tree yet")
    text = "".join(
        f"---\napiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {{name: {name}}}\n"
        f"spec: {{minAvailable: 1, selector: {{matchLabels: {{app: {name}}}}}}}\n"
        for name in ("a", "b")
    )
    code, out, err = convert(tmp_path, capsys, text, "--output-version", "policy/v1", "-o", "json")
    assert code == 0, err
    items = json.loads(out)["items"]
    assert [(o["apiVersion"], o["metadata"]["name"]) for o in items] == [("policy/v1", "a"), ("policy/v1", "b")]
    assert items[0]["spec"]["selector"] == {"matchLabels": {"app": "a"}}
