"""A YAML body that is JSON reads the same through the JSON fast path (app/goyaml/jsonfast.py) as through the YAML
reader: values, number handling (apply's float64 and the general rules), duplicate keys, errors."""

from __future__ import annotations

import json

import orjson
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from orch_apiserver.goyaml import compose
from orch_apiserver.goyaml.__init__ import _value
from orch_apiserver.goyaml.jsonfast import load_json

from tests.kinds import crd_body

CRD = "/apis/apiextensions.orch.io/v1/customresourcedefinitions"

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(1 << 70), max_value=1 << 70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
keys = st.text(max_size=8) | st.sampled_from(["<<", "a", "true", "1", "~", "null", " x", "\u2028"])
documents = st.dictionaries(
    keys, st.recursive(scalars, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(keys, kids, max_size=4))
)


def _yaml_path(text: str, float64: bool) -> tuple[str, object]:
    try:
        node = compose(text)
        return "ok", None if node is None else _value(node, float64)
    except yaml.YAMLError as exc:
        return "error", str(exc)


def _same(text: str, float64: bool) -> None:
    fast = load_json(text, float64)
    if fast is not None:
        assert ("ok", fast) == _yaml_path(text, float64)
        assert orjson.dumps(fast) == orjson.dumps(_yaml_path(text, float64)[1])  # int and float kept apart


@settings(max_examples=300, deadline=None)
@given(documents, st.booleans(), st.booleans())
def test_random_json_reads_alike(doc: dict, float64: bool, ascii_only: bool) -> None:
    _same(json.dumps(doc, ensure_ascii=ascii_only), float64)
    _same(json.dumps(doc, ensure_ascii=ascii_only, indent=1), float64)


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2, "b": {"c": 1, "c": [1e5, -0.0, 1.5e-3, 1E+2]}}',
        '{"big": 9223372036854775807, "bigger": 18446744073709551615, "huge": 1e400}',
        '{"k": "\\ud83d\\ude00", "s": "a\\/b", "t": "\\t"}',
        '{"a"\n: 1}',
        '{"' + "k" * 1500 + '": 1}',
        '{"a": 1}\n---\n{"b": 2}',
        '  {"<<": {"x": 1}}',
        '{"d": ' + "[" * 300 + "]" * 300 + "}",
    ],
)
@pytest.mark.parametrize("float64", [True, False])
def test_edge_cases_read_alike(text: str, float64: bool) -> None:
    _same(text, float64)


def test_apply_of_json_body_matches_yaml_body(any_client) -> None:
    crd = crd_body("example.com", "widgets", "Widget", {"type": "object", "properties": {"n": {"type": "number"}}})
    headers = {"Content-Type": "application/apply-patch+yaml"}
    url = f"{CRD}/widgets.example.com?fieldManager=me"
    first = any_client.patch(url, data=json.dumps(crd), headers=headers)
    assert first.status_code == 201, first.get_json()
    again = any_client.patch(url, data=json.dumps(crd), headers=headers)
    assert again.status_code == 200
    assert again.get_json()["metadata"]["resourceVersion"] == first.get_json()["metadata"]["resourceVersion"]
    assert again.get_json()["spec"] == first.get_json()["spec"]
