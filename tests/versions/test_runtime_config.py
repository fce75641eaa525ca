"""--runtime-config: parsing, the reference's precedence, and what a disabled or enabled version changes."""

from __future__ import annotations

from pathlib import Path

import orch_apiserver.resources
import pytest
from orch_apiserver.catalog import ResourceType
from orch_apiserver.cli import parse_settings
from orch_apiserver.naming import Naming
from orch_apiserver.resources import build_catalog
from orch_apiserver.versions import RuntimeConfigError, parse_runtime_config, served_keys

from tests.conftest import admin_app

PDB_V1BETA1 = ("policy", "v1beta1", "poddisruptionbudgets")
PDB_V1 = ("policy", "v1", "poddisruptionbudgets")
ALPHA_GROUP = "example.orch.io"
WIDGETS = (ALPHA_GROUP, "v1alpha1", "widgets")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("policy/v1beta1=false", (("policy/v1beta1", False),)),
        ("policy/v1beta1", (("policy/v1beta1", True),)),
        ("policy/v1beta1=", (("policy/v1beta1", True),)),
        (" api/beta=false , policy/v1beta1=true ", (("api/beta", False), ("policy/v1beta1", True))),
        ("api/all=0,api/v1=T", (("api/all", False), ("api/v1", True))),
        ("batch/v1/jobs=false", (("batch/v1/jobs", False),)),
        ("", ()),
        (",,", ()),
    ],
)
def test_parse(text: str, expected: tuple) -> None:
    assert parse_runtime_config(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("policy/v1beta1=maybe", "invalid value of policy/v1beta1"),
        ("=true", "missing key"),
        ("policy", "invalid key"),
        ("a/b/c/d=true", "invalid key"),
        ("policy//v1", "invalid key"),
    ],
)
def test_parse_refuses(text: str, message: str) -> None:
    with pytest.raises(RuntimeConfigError, match=message):
        parse_runtime_config(text)


def _served(text: str, catalog=None) -> set[tuple[str, str, str]]:
    naming = Naming()
    return served_keys(catalog or build_catalog(naming), parse_runtime_config(text), naming)


def _alpha_catalog():
    catalog = build_catalog(Naming())
    catalog.add(ResourceType(ALPHA_GROUP, "v1alpha1", "Widget", "widgets", True, enabled_by_default=False))
    return catalog


def test_defaults_serve_every_declared_non_alpha_version() -> None:
    served = _served("")
    assert {PDB_V1, PDB_V1BETA1} <= served
    assert WIDGETS not in _served("", _alpha_catalog())


def test_group_version_keys_override_api_keys() -> None:
    assert PDB_V1BETA1 not in _served("policy/v1beta1=false")
    assert PDB_V1BETA1 not in _served("api/beta=false")
    assert PDB_V1 in _served("api/beta=false")
    assert PDB_V1BETA1 in _served("api/beta=false,policy/v1beta1=true")
    # the order on the command line does not matter: api/* first, then group versions
    assert PDB_V1BETA1 in _served("policy/v1beta1=true,api/beta=false")
    assert PDB_V1BETA1 not in _served("api/all=true,policy/v1beta1=false")
    assert _served("api/all=false,policy/v1=true") >= {PDB_V1}
    assert PDB_V1BETA1 not in _served("api/all=false,policy/v1=true")


def test_core_v1_stays_and_cannot_be_disabled() -> None:
    assert ("", "v1", "namespaces") in _served("api/all=false")
    assert ("", "v1", "namespaces") in _served("api/v1=true")
    with pytest.raises(RuntimeConfigError, match="api/v1 cannot be disabled"):
        _served("api/v1=false")


def test_alpha_versions_are_enabled_by_name_or_by_api_alpha() -> None:
    assert WIDGETS in _served(f"{ALPHA_GROUP}/v1alpha1", _alpha_catalog())
    assert WIDGETS in _served("api/alpha=true", _alpha_catalog())
    assert WIDGETS in _served("api/all=true", _alpha_catalog())
    assert WIDGETS not in _served("api/beta=true", _alpha_catalog())


def test_unknown_and_removed_versions_fail() -> None:
    with pytest.raises(RuntimeConfigError, match="extensions/v1beta1 is not served: removed in v1.16"):
        _served("extensions/v1beta1=true")
    with pytest.raises(RuntimeConfigError, match="removed in v1.22"):
        _served("rbac.authorization.orch.io/v1beta1=true")
    with pytest.raises(RuntimeConfigError, match="unknown API group version policy/v9"):
        _served("policy/v9=false")


def test_resource_keys_are_ignored_as_the_reference_outside_extensions() -> None:
    assert PDB_V1BETA1 in _served("policy/v1beta1/poddisruptionbudgets=false")


@pytest.mark.parametrize(
    "flag", ["extensions/v1beta1=true", "apps/v1beta2", "nosuch.orch.io/v1=false", "policy/v1beta1=perhaps"]
)
def test_bad_runtime_config_exits_2(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        parse_settings(["--runtime-config", flag], environ={})
    assert exited.value.code == 2
    assert "runtime" in capsys.readouterr().err


def test_flag_is_repeatable_and_reaches_the_app_config() -> None:
    from orch_apiserver.config import flask_config

    settings = parse_settings(["--runtime-config", "api/beta=false", "--runtime-config", "policy/v1beta1"], environ={})
    assert flask_config(settings)["RUNTIME_CONFIG"] == (("api/beta", False), ("policy/v1beta1", True))


@pytest.fixture
def configured_app(sqlite_url: str, tmp_path: Path):
    made = []

    def make(runtime_config: str):
        flask_app = admin_app(sqlite_url, tmp_path, RUNTIME_CONFIG=parse_runtime_config(runtime_config))
        made.append(flask_app)
        return flask_app.test_client()

    yield make
    for flask_app in made:
        flask_app.extensions["orch.stop"]()


def test_disabled_version_is_gone_but_its_objects_stay_readable(configured_app) -> None:
    client = configured_app("policy/v1beta1=false")
    path = "/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets"
    missing = client.get(path)
    assert missing.status_code == 404
    assert missing.json["kind"] == "Status"
    assert client.get("/apis/policy/v1beta1").status_code == 404
    group = client.get("/apis/policy").json
    assert [v["version"] for v in group["versions"]] == ["v1"]
    groups = {g["name"]: g for g in client.get("/apis").json["groups"]}
    assert [v["version"] for v in groups["policy"]["versions"]] == ["v1"]
    assert "apis/policy/v1beta1" not in client.get("/openapi/v3").json["paths"]
    assert not [p for p in client.get("/openapi/v2").json["paths"] if p.startswith("/apis/policy/v1beta1/")]
    created = client.post(
        "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
        json={"metadata": {"name": "kept"}, "spec": {"minAvailable": 1, "selector": {}}},
    )
    assert created.status_code == 201


def test_disabled_storage_version_still_stores_the_served_one(configured_app) -> None:
    client = configured_app("policy/v1=false")
    assert client.get("/apis/policy/v1/namespaces/default/poddisruptionbudgets").status_code == 404
    path = "/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets"
    created = client.post(path, json={"metadata": {"name": "old"}, "spec": {"minAvailable": 1, "selector": {}}})
    assert created.status_code == 201, created.json
    assert client.get(f"{path}/old").json["spec"]["selector"] == {}
    assert client.get("/apis/policy").json["preferredVersion"]["version"] == "v1beta1"


def test_api_beta_false_turns_every_beta_version_off(configured_app) -> None:
    client = configured_app("api/beta=false")
    groups = client.get("/apis").json["groups"]
    versions = [v["version"] for g in groups for v in g["versions"]]
    assert versions and not [v for v in versions if "beta" in v]
    assert client.get("/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets").status_code == 404


def test_enabling_an_alpha_version_serves_it(configured_app, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(orch_apiserver.resources, "build_catalog", lambda naming: _alpha_catalog())
    off = configured_app("")
    assert off.get(f"/apis/{ALPHA_GROUP}/v1alpha1/namespaces/default/widgets").status_code == 404
    assert ALPHA_GROUP not in {g["name"] for g in off.get("/apis").json["groups"]}
    on = configured_app(f"{ALPHA_GROUP}/v1alpha1=true")
    created = on.post(f"/apis/{ALPHA_GROUP}/v1alpha1/namespaces/default/widgets", json={"metadata": {"name": "w"}})
    assert created.status_code == 201, created.json
    group = on.get(f"/apis/{ALPHA_GROUP}").json
    assert group["preferredVersion"]["version"] == "v1alpha1"
