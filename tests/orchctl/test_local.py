"""orchctl pieces that need no server: manifests, output formats, the client-side apply patch, usage errors."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from orch_apiserver.naming import Naming
from orch_apiserver.orchctl.apply import three_way_patch
from orch_apiserver.orchctl.main import main
from orch_apiserver.orchctl.manifests import ManifestError, read_manifests
from orch_apiserver.orchctl.output import align, format_objects, object_name, table_lines

CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "v"}}
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}


def test_manifests_from_yaml_documents_json_lists_directories_and_stdin(tmp_path: Path) -> None:
    (tmp_path / "two.yaml").write_text(
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\n"
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
    )
    (tmp_path / "list.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [CONFIGMAP]}))
    (tmp_path / "notes.txt").write_text("not a manifest")
    objects = read_manifests([str(tmp_path)])
    assert [(o["kind"], o["metadata"]["name"]) for o in objects] == [
        ("ConfigMap", "a"),
        ("ConfigMap", "a"),
        ("Deployment", "web"),
    ]
    from_stdin = read_manifests(["-"], stdin=io.StringIO(json.dumps(DEPLOYMENT)))
    assert from_stdin == [DEPLOYMENT]


def test_manifest_errors_name_the_problem(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("metadata: {name: a}\n")
    with pytest.raises(ManifestError, match="apiVersion, kind not set"):
        read_manifests([str(tmp_path / "bad.yaml")])
    with pytest.raises(ManifestError, match="does not exist"):
        read_manifests([str(tmp_path / "missing.yaml")])


def test_output_formats() -> None:
    assert object_name(DEPLOYMENT) == "deployment.apps/web"
    assert format_objects([CONFIGMAP], "name", single=True) == "configmap/a\n"
    assert json.loads(format_objects([CONFIGMAP], "json", single=True)) == CONFIGMAP
    listed = json.loads(format_objects([CONFIGMAP, DEPLOYMENT], "json", single=False))
    assert listed["kind"] == "List" and listed["items"] == [CONFIGMAP, DEPLOYMENT]
    assert "kind: ConfigMap" in format_objects([CONFIGMAP], "yaml", single=True)


def test_table_columns_like_kubectl_and_wide_adds_priority_columns() -> None:
    table = {
        "columnDefinitions": [
            {"name": "Name", "priority": 0},
            {"name": "Ready", "priority": 0},
            {"name": "Node", "priority": 1},
        ],
        "rows": [{"cells": ["web-1", "1/1", None], "object": {"metadata": {"namespace": "ns1"}}}],
    }
    assert align(table_lines(table)) == "NAME    READY\nweb-1   1/1\n"
    assert align(table_lines(table, wide=True, with_namespace=True)) == (
        "NAMESPACE   NAME    READY   NODE\nns1         web-1   1/1     <none>\n"
    )


def test_client_side_apply_patch_is_three_way() -> None:
    original = {"data": {"a": "1", "gone": "x"}}
    modified = {"data": {"a": "2", "new": "y"}}
    current = {
        "data": {"a": "1", "gone": "x", "theirs": "z"},
        "spec": {"containers": [{"name": "c", "image": "i", "imagePullPolicy": "Always"}]},
    }
    assert three_way_patch(original, modified, current) == {"data": {"a": "2", "gone": None, "new": "y"}}
    # a list as applied plus server defaults inside its items is unchanged
    assert three_way_patch({}, {"spec": {"containers": [{"name": "c", "image": "i"}]}}, current) == {}
    assert three_way_patch({}, {"spec": {"containers": [{"name": "c", "image": "j"}]}}, current) == {
        "spec": {"containers": [{"name": "c", "image": "j"}]}
    }


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["get"])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit) as exit_info:
        main(["get", "pods", "-o", "xml"])
    assert exit_info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_missing_kubeconfig_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--kubeconfig", str(tmp_path / "none"), "get", "pods"]) == 1
    assert capsys.readouterr().err.startswith("error: ")


def test_missing_exec_plugin_shows_the_install_hint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config"
    config.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": "c",
                "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1"}}],
                "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
                "users": [
                    {
                        "name": "u",
                        "user": {
                            "exec": {
                                "apiVersion": f"{Naming().group('client.authentication')}/v1",
                                "command": "./no-such-plugin",
                                "interactiveMode": "Never",
                                "installHint": "get no-such-plugin from your administrator",
                            }
                        },
                    }
                ],
            }
        )
    )
    assert main(["--kubeconfig", str(config), "get", "pods"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "get no-such-plugin from your administrator" in err


@pytest.mark.parametrize(
    "command",
    [
        [],
        ["get"],
        ["watch"],
        ["create"],
        ["apply"],
        ["delete"],
        ["patch"],
        ["auth", "whoami"],
        ["auth", "can-i"],
        ["certificate"],
        ["bootstrap"],
        ["convert"],
    ],
)
def test_help_of_every_command(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*command, "--help"])
    assert exit_info.value.code == 0
    assert "usage: orchctl" in capsys.readouterr().out


def test_strategic_apply_patch_merges_lists_by_key() -> None:
    from orch_apiserver.orchctl.apply import schema_of, strategic_three_way_patch

    def deployment(*containers: dict, finalizers: tuple[str, ...] = ()) -> dict:
        return {
            **DEPLOYMENT,
            "metadata": {"name": "web", "finalizers": list(finalizers)},
            "spec": {"template": {"spec": {"containers": list(containers)}}},
        }

    original = deployment({"name": "a", "image": "1"}, {"name": "b", "image": "1"}, finalizers=("x/one",))
    modified = deployment({"name": "a", "image": "2"}, finalizers=("x/two",))
    current = deployment(
        {"name": "a", "image": "1", "imagePullPolicy": "Always"},
        {"name": "b", "image": "1"},
        {"name": "theirs", "image": "1"},
        finalizers=("x/one", "x/other"),
    )
    schema = schema_of(modified, Naming())
    assert schema is not None
    assert strategic_three_way_patch(original, modified, current, schema) == {
        "metadata": {"finalizers": ["x/two"], "$deleteFromPrimitiveList/finalizers": ["x/one"]},
        "spec": {
            "template": {"spec": {"containers": [{"name": "a", "image": "2"}, {"name": "b", "$patch": "delete"}]}}
        },
    }
