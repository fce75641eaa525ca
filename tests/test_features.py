"""--feature-gates: the table's rules, start failures from the real CLI, and the gates that change lists."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from orch_apiserver import features
from orch_apiserver.cli import feature_gate_warnings, parse_settings

from tests.conftest import admin_app

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("APIListChunking=false", {"APIListChunking": False}),
        (" APIListChunking = false , RemainingItemCount=true,", {"APIListChunking": False, "RemainingItemCount": True}),
        ("OpenAPIV3=1,DryRun=T", {"OpenAPIV3": True, "DryRun": True}),
        ("WatchBookmark=true", {"WatchBookmark": True}),  # a locked gate may be set to its own value
        ("", {}),
    ],
)
def test_parse_accepts(text: str, expected: dict[str, bool]) -> None:
    assert features.parse(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("NoSuchGate=true", "unrecognized feature gate: NoSuchGate"),
        ("WatchBookmark=false", "cannot set feature gate WatchBookmark to false, feature is locked to true"),
        ("WarningHeaders=false", "cannot set feature gate WarningHeaders to false, feature is locked to true"),
        ("APIListChunking=maybe", "invalid value of APIListChunking=maybe"),
        ("APIListChunking", "missing bool value for APIListChunking"),
    ],
)
def test_parse_refuses(text: str, message: str) -> None:
    with pytest.raises(features.FeatureGateError, match=message):
        features.parse(text)


def test_defaults_follow_the_stage_and_all_alpha_all_beta() -> None:
    gates = features.FeatureGates()
    assert gates.enabled("APIListChunking") and gates.enabled("RemainingItemCount")  # beta: on
    assert gates.enabled("ServerSideApply")  # GA
    assert not gates.enabled("OpenAPIV3") and not gates.enabled("JobTrackingWithFinalizers")
    alpha = features.FeatureGates({"AllAlpha": True, "StorageVersionAPI": False})
    assert alpha.enabled("OpenAPIV3") and not alpha.enabled("StorageVersionAPI")  # a named gate wins
    assert features.FeatureGates({"AllBeta": True}).enabled("JobTrackingWithFinalizers")
    with pytest.raises(KeyError):
        gates.enabled("NoSuchGate")
    with pytest.raises(features.FeatureGateError):
        features.FeatureGates({"SelectorIndex": False})


def test_every_gate_is_consistent() -> None:
    for name, gate in features.GATES.items():
        assert not gate.locked or gate.stage is features.Stage.GA, name
        if gate.stage is features.Stage.ALPHA:
            assert gate.default is False, name


def test_deprecated_and_ga_gates_warn() -> None:
    settings = parse_settings(
        ["--feature-gates", "StreamingProxyRedirects=false,DryRun=true", "--feature-gates", "APIListChunking=false"],
        environ={},
    )
    assert feature_gate_warnings(settings) == [
        (
            "orch-apiserver: warning: Setting deprecated feature gate StreamingProxyRedirects=false. "
            "It will be removed in a future release."
        ),
        "orch-apiserver: warning: Setting GA feature gate DryRun=true. It will be removed in a future release.",
    ]
    assert parse_settings([], environ={"ORCH_FEATURE_GATES": "APIListChunking=false"}).feature_gates == (
        "APIListChunking=false",
    )


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "orch_apiserver.cli", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": "/usr/bin:/bin", **(env or {})},
    )


@pytest.mark.parametrize(
    ("gates", "message"),
    [
        ("APIListChunking=false,NoSuchGate=true", "argument --feature-gates: unrecognized feature gate: NoSuchGate"),
        (
            "WatchBookmark=false",
            ("argument --feature-gates: cannot set feature gate WatchBookmark to false, feature is locked to true"),
        ),
    ],
)
def test_cli_refuses_to_start(tmp_path: Path, gates: str, message: str) -> None:
    result = _cli("--data-dir", str(tmp_path), "--feature-gates", gates)
    assert result.returncode == 2
    assert message in result.stderr
    assert not (tmp_path / "pki").exists()  # nothing was prepared


def test_cli_prints_the_deprecated_gate_warning_at_start(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")  # the start then stops right after the warnings (data dir unusable): exit 1
    result = _cli("--data-dir", str(not_a_dir), "--feature-gates", "ValidateProxyRedirects=true")
    assert result.returncode == 1
    assert (
        "warning: Setting deprecated feature gate ValidateProxyRedirects=true. It will be removed in a future release."
    ) in result.stderr


# ---------------------------------------------------------------------------------------------
# Gates that change what a list answers


@pytest.fixture
def gated_client(request: pytest.FixtureRequest, sqlite_url: str, tmp_path: Path):
    flask_app = admin_app(sqlite_url, tmp_path, FEATURE_GATES=request.param)
    client = flask_app.test_client()
    for n in range(3):
        assert (
            client.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": f"cm-{n}"}}).status_code
            == 201
        )
    yield client
    flask_app.extensions["orch.stop"]()


PATH = "/api/v1/namespaces/default/configmaps?limit=1"


@pytest.mark.parametrize("gated_client", [{}], indirect=True)
def test_chunking_on_by_default(gated_client) -> None:
    page = gated_client.get(PATH).get_json()
    assert len(page["items"]) == 1
    assert page["metadata"]["continue"] and page["metadata"]["remainingItemCount"] == 2


@pytest.mark.parametrize("gated_client", [{"APIListChunking": False}], indirect=True)
def test_chunking_off_lists_everything_and_ignores_continue(gated_client) -> None:
    page = gated_client.get(PATH).get_json()
    assert [i["metadata"]["name"] for i in page["items"]] == ["cm-0", "cm-1", "cm-2"]
    assert "continue" not in page["metadata"] and "remainingItemCount" not in page["metadata"]
    again = gated_client.get(PATH + "&continue=not-even-a-token").get_json()
    assert len(again["items"]) == 3


@pytest.mark.parametrize("gated_client", [{"RemainingItemCount": False}], indirect=True)
def test_remaining_item_count_off(gated_client) -> None:
    page = gated_client.get(PATH).get_json()
    assert len(page["items"]) == 1 and page["metadata"]["continue"]
    assert "remainingItemCount" not in page["metadata"]


def test_app_refuses_unknown_gates(sqlite_url: str, tmp_path: Path) -> None:
    with pytest.raises(features.FeatureGateError, match="unrecognized feature gate: Nope"):
        admin_app(sqlite_url, tmp_path, FEATURE_GATES={"Nope": True})
