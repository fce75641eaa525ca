"""YAML request bodies read as the reference reads them: sigs.k8s.io/yaml (yaml.go: YAMLToJSON, key conversion) on
go-yaml v2 (resolve.go: `resolve`, the plain-scalar rules; decode.go: `scalar`, timestamps kept as strings, `merge`),
then the apiserver's JSON decoding (sigs.k8s.io/json, internal/golang/encoding/json/decode.go `convertNumber`:
integers kept when they fit int64). Expected values below are derived from those files."""

from __future__ import annotations

from pathlib import Path

import pytest
from orch_apiserver.controllers.base import Context
from orch_apiserver.controllers.crd import CrdController

from tests.conftest import admin_app, wait_for
from tests.kinds import crd_body

YAML = {"Content-Type": "application/yaml"}
APPLY = {"Content-Type": "application/apply-patch+yaml"}
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
AMC_FILE = (
    Path(__file__).parents[1]
    / "e2e"
    / "data"
    / "alertmanagerconfigs"
    / "monitoring.coreos.com_alertmanagerconfigs.yaml"
)

CONFIGMAP = b"""\
apiVersion: v1
kind: ConfigMap
metadata:
  name: strings
data:
  date: 2001-12-14
  time: 12:30
  ts: 2001-12-14T21:59:43.10-05:00
  spaced: 2001-12-14 21:59:43.10 -5
  eq: =
  quoted: '0755'
  tagged: !!str 0755
  custom: !unknown kept as text
  binary: !!binary aGVsbG8=
  yes: on as a key is the boolean true
  1.5: a float key
"""

#: resolve.go: timestamps resolve to !!timestamp, which decode.go stores as the scalar's text; no base 60, no `=`
#: tag; unknown tags keep the text; yaml.go: a bool key becomes "true", a float key FormatFloat(k, 'g', -1, 32)
CONFIGMAP_DATA = {
    "date": "2001-12-14",
    "time": "12:30",
    "ts": "2001-12-14T21:59:43.10-05:00",
    "spaced": "2001-12-14 21:59:43.10 -5",
    "eq": "=",
    "quoted": "0755",
    "tagged": "0755",
    "custom": "kept as text",
    "binary": "hello",
    "true": "on as a key is the boolean true",
    "1.5": "a float key",
}

CRD = crd_body(
    "example.com",
    "values",
    "Value",
    {"type": "object", "properties": {"spec": {"type": "object", "x-orch-preserve-unknown-fields": True}}},
    names={"singular": "value", "listKind": "ValueList"},
)
VALUES = "/apis/example.com/v1/namespaces/default/values"

CUSTOM = b"""\
apiVersion: example.com/v1
kind: Value
metadata:
  name: typed
spec:
  ints: [0755, 0o17, 0x1F, 0b101, 1_000, +12, -0, 08, 9223372036854775807]
  beyondInt64: [9223372036854775808, -9223372036854775809]
  floats: [1.5, 1.0, 1e3, .5, -.5, 6.02e+23, 1e400]
  bools: [y, Yes, ON, true, n, NO, off, False]
  nulls:
  - ~
  - null
  - NULL
  -
  strings: [1:30, 12:30:45, 0x, =, <<, .5e, 1e, 'yes', y_, 2001-12-14]
  keys: {1: int, 0x10: hex, 1.5: float, 1e7: big float, .inf: infinity, true: bool, 2001-12-14: date}
  base: &base {a: 1, b: 2}
  merged:
    a: 0
    <<: *base
    c: 3
  mergedList:
    <<: [{p: 1}, {p: 2, q: 2}]
"""

#: resolve.go: ParseInt(s, 0, 64) after dropping "_" (08 is no octal: the float 8, which json.Marshal writes as 8);
#: beyond int64, ParseUint's uint64 and the float64 fallback are read back as float64 (convertNumber); 1e400 is out
#: of ParseFloat's range: a string; y/n/on/off are booleans; a merge's keys replace keys set before it (decode.go)
CUSTOM_SPEC = {
    "ints": [493, 15, 31, 5, 1000, 12, 0, 8, 9223372036854775807],
    "beyondInt64": [9223372036854775808.0, -9223372036854775808],
    "floats": [1.5, 1, 1000, 0.5, -0.5, 6.02e23, "1e400"],
    "bools": [True, True, True, True, False, False, False, False],
    "nulls": [None, None, None, None],
    "strings": ["1:30", "12:30:45", "0x", "=", "<<", ".5e", "1e", "yes", "y_", "2001-12-14"],
    "keys": {
        "1": "int",
        "16": "hex",
        "1.5": "float",
        "1e+07": "big float",
        ".inf": "infinity",
        "true": "bool",
        "2001-12-14": "date",
    },
    "base": {"a": 1, "b": 2},
    "merged": {"a": 1, "b": 2, "c": 3},
    "mergedList": {"p": 1, "q": 2},
}


def served(client, path: str) -> bool:
    return client.get(path).status_code == 200


def establish(flask_app, path: str) -> None:
    """Test apps run no controllers: the crd controller's one pass accepts the names, then the CRD is served."""
    svc = flask_app.extensions["orch"]
    CrdController(Context(svc.registry, svc.naming, svc.hub, settings=dict(flask_app.config))).sync()
    wait_for(lambda: served(flask_app.test_client(), path))


@pytest.fixture
def values(any_app, any_client):
    assert any_client.post("/apis/apiextensions.orch.io/v1/customresourcedefinitions", json=CRD).status_code == 201
    establish(any_app, VALUES)
    return any_client


def test_configmap_strings_stay_strings(any_client) -> None:
    created = any_client.post(CONFIGMAPS, data=CONFIGMAP, headers=YAML)
    assert created.status_code == 201, created.get_json()
    assert any_client.get(f"{CONFIGMAPS}/strings").get_json()["data"] == CONFIGMAP_DATA
    update = CONFIGMAP.replace(b"  name: strings\n", b"  name: strings\n  annotations: {at: 2001-12-15}\n")
    updated = any_client.put(f"{CONFIGMAPS}/strings", data=update.replace(b"12:30", b"23:59"), headers=YAML)
    assert updated.status_code == 200, updated.get_json()
    stored = any_client.get(f"{CONFIGMAPS}/strings").get_json()
    assert stored["metadata"]["annotations"] == {"at": "2001-12-15"} and stored["data"]["time"] == "23:59"
    octal = CONFIGMAP.replace(b"name: strings", b"name: octal").replace(b"'0755'", b"0755")  # the integer 493
    refused = any_client.post(CONFIGMAPS, data=octal, headers=YAML)
    assert refused.status_code == 400 and "cannot unmarshal number" in refused.get_json()["message"]


def test_numbers_booleans_keys_and_merges_as_the_reference_stores_them(values) -> None:
    created = values.post(VALUES, data=CUSTOM, headers=YAML)
    assert created.status_code == 201, created.get_json()
    assert values.get(f"{VALUES}/typed").get_json()["spec"] == CUSTOM_SPEC


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("nan: .nan", "json: unsupported value: NaN"),  # json.Marshal refuses NaN and infinities
        ("inf: -.Inf", "json: unsupported value: -Inf"),
        ("~: null key", "unsupported map key of type: <nil>"),  # yaml.go: only string, int, float, bool keys
        ("18446744073709551615: uint64 key", "unsupported map key of type: uint64"),
        ("bad: !!int twelve", "cannot decode !!str `twelve` as a !!int"),  # resolve.go: an explicit tag must fit
        ("bad: !!binary not*base64", "!!binary value contains invalid base64 data"),
        ("<<: [1]", "map merge requires map or sequence of maps as the value"),
    ],
)
def test_what_the_reference_cannot_convert_is_a_400(values, line: str, message: str) -> None:
    body = f"apiVersion: example.com/v1\nkind: Value\nmetadata: {{name: bad}}\nspec:\n  {line}\n"
    resp = values.post(VALUES, data=body.encode(), headers=YAML)
    assert resp.status_code == 400
    assert message in resp.get_json()["message"]


def test_only_the_first_document_of_a_body_counts(any_client) -> None:
    body = CONFIGMAP + b"---\nnot: [valid\n"  # go-yaml's Unmarshal reads one document
    assert any_client.post(CONFIGMAPS, data=body, headers=YAML).status_code == 201


def test_apply_bodies_follow_the_same_rules(values) -> None:
    """The apply patch is sigs.k8s.io/yaml.Unmarshal'd into a map (handlers/patch.go, applyPatcher): JSON numbers
    become float64 there, so an integer past 2^53 is rounded."""
    body = CUSTOM.replace(b"name: typed", b"name: applied") + b"  rounded: 9007199254740993\n"
    resp = values.patch(f"{VALUES}/applied?fieldManager=yaml-test", data=body, headers=APPLY)
    assert resp.status_code == 201, resp.get_json()
    spec = values.get(f"{VALUES}/applied").get_json()["spec"]
    assert spec == {
        **CUSTOM_SPEC,
        "ints": [*CUSTOM_SPEC["ints"][:-1], 9223372036854775808.0],
        "rounded": 9007199254740992,
    }
    configmap = CONFIGMAP.replace(b"2001-12-14\n", b"2001-12-24\n", 1)
    applied = values.patch(f"{CONFIGMAPS}/strings?fieldManager=yaml-test", data=configmap, headers=APPLY)
    assert applied.status_code == 201, applied.get_json()
    assert applied.get_json()["data"] == {**CONFIGMAP_DATA, "date": "2001-12-24"}


@pytest.fixture
def k8s_domain_app(database_url: str, tmp_path: Path):
    """The app of the reference's domain: real-world CRD files name apiextensions.k8s.io."""
    flask_app = admin_app(database_url, tmp_path, API_DOMAIN="k8s.io")
    yield flask_app
    flask_app.extensions["orch.stop"]()


def test_the_alertmanagerconfigs_crd_keeps_its_equals_enum(k8s_domain_app) -> None:
    client = k8s_domain_app.test_client()
    created = client.post(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", data=AMC_FILE.read_bytes(), headers=YAML
    )
    assert created.status_code == 201, created.get_json()
    schema = created.get_json()["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    matcher = schema["properties"]["spec"]["properties"]["inhibitRules"]["items"]["properties"]["sourceMatch"]
    assert matcher["items"]["properties"]["matchType"]["enum"] == ["!=", "=", "=~", "!~"]
    path = "/apis/monitoring.coreos.com/v1alpha1/namespaces/default/alertmanagerconfigs"
    establish(k8s_domain_app, path)
    config = b"""\
apiVersion: monitoring.coreos.com/v1alpha1
kind: AlertmanagerConfig
metadata: {name: inhibit}
spec:
  inhibitRules:
  - sourceMatch: [{name: severity, value: critical, matchType: =}]
    targetMatch: [{name: severity, value: warning, matchType: '!='}]
"""
    made = client.post(path, data=config, headers=YAML)
    assert made.status_code == 201, made.get_json()
    rule = made.get_json()["spec"]["inhibitRules"][0]
    assert rule["sourceMatch"][0]["matchType"] == "="
    refused = client.post(path, data=config.replace(b"matchType: =}", b"matchType: ==}"), headers=YAML)
    assert refused.status_code == 422 and "matchType" in refused.get_json()["message"]
