"""Label and field selector parsing, matching, rendering and error wording."""

from __future__ import annotations

import pytest
from orch_apiserver.errors import BadRequest
from orch_apiserver.selectors import (
    FieldSelector,
    LabelSelector,
    label_selector_from_object,
    label_value_errors,
    parse_field_selector,
    parse_label_selector,
    qualified_name_errors,
)

# ----------------------------------------------------------------------------- label matching

LABEL_MATCH_CASES = [
    # (selector, labels, expected)
    ("", {}, True),
    ("", None, True),
    ("   ", {"a": "b"}, True),
    ("a=b", {"a": "b"}, True),
    ("a=b", {"a": "c"}, False),
    ("a=b", {}, False),
    ("a==b", {"a": "b"}, True),
    ("a==b", {"a": "c"}, False),
    ("a!=b", {"a": "c"}, True),
    ("a!=b", {"a": "b"}, False),
    ("a!=b", {}, True),  # missing key satisfies !=
    ("a!=b", None, True),
    ("a in (b,c)", {"a": "c"}, True),
    ("a in (b,c)", {"a": "d"}, False),
    ("a in (b,c)", {}, False),
    ("a notin (b,c)", {"a": "d"}, True),
    ("a notin (b,c)", {"a": "b"}, False),
    ("a notin (b,c)", {}, True),  # missing key satisfies notin
    ("a", {"a": ""}, True),
    ("a", {"b": "x"}, False),
    ("!a", {"b": "x"}, True),
    ("!a", {"a": "x"}, False),
    ("a>5", {"a": "6"}, True),
    ("a>5", {"a": "5"}, False),
    ("a>5", {"a": "x"}, False),  # non-integer label value never compares
    ("a>5", {}, False),
    ("a<5", {"a": "4"}, True),
    ("a<5", {"a": "5"}, False),
    ("a<5", {"a": "-7"}, True),
    ("a<5", {}, False),
    ("a>5", {"a": "99999999999999999999"}, False),  # beyond int64 is not an integer
    ("a=", {"a": ""}, True),  # empty exact value
    ("a=", {"a": "x"}, False),
    ("a=b,c=d", {"a": "b", "c": "d"}, True),
    ("a=b,c=d", {"a": "b", "c": "x"}, False),
    ("a=b,!c", {"a": "b"}, True),
    (" a = b , c in ( d , e ) ,  ! f ", {"a": "b", "c": "e"}, True),
    ("\ta\n=\rb", {"a": "b"}, True),
    ("in in (in)", {"in": "in"}, True),  # keywords are plain identifiers outside operator position
    ("a in (b,)", {"a": ""}, True),  # trailing comma adds the empty value
    ("example.com/app=web", {"example.com/app": "web"}, True),
    ("example.com/app=web", {"app": "web"}, False),
]


@pytest.mark.parametrize(("selector", "labels", "expected"), LABEL_MATCH_CASES)
def test_label_selector_matches(selector: str, labels: dict[str, str] | None, expected: bool) -> None:
    assert parse_label_selector(selector).matches(labels) is expected


# ----------------------------------------------------------------------------- label rendering

RENDER_CASES = [
    ("", ""),
    ("b=2,a=1", "a=1,b=2"),
    ("a == 1", "a==1"),
    ("x in (c, a, b, a)", "x in (a,b,c)"),
    ("x notin (z,y)", "x notin (y,z)"),
    ("  here ,  !gone ", "!gone,here"),  # sorted by key, not by text
    ("n > 10, m < 3", "m<3,n>10"),
    ("a!=", "a!="),
    ("a in (,b)", "a in (,b)"),
]


@pytest.mark.parametrize(("selector", "canonical"), RENDER_CASES)
def test_label_selector_renders_canonically(selector: str, canonical: str) -> None:
    parsed = parse_label_selector(selector)
    assert str(parsed) == canonical
    assert parse_label_selector(str(parsed)) == parsed  # the canonical text round-trips


def test_empty_property() -> None:
    assert parse_label_selector("").empty
    assert parse_label_selector("  ").empty
    assert not parse_label_selector("a").empty
    assert not LabelSelector.select_nothing().empty
    assert LabelSelector.everything().empty


# ----------------------------------------------------------------------------- label errors

LABEL_ERROR_CASES = [
    # (selector, fragments the message must contain)
    ("a in (b", ["found ''", "expected: ',' or ')'", '"a in (b"']),
    ("a in b)", ["unable to parse requirement", "found 'b' expected: '('"]),
    ("a in (b))", ["found ')'", "expected: ',' or 'end of string'"]),
    ("a in (b c)", ["found 'c'", "expected: ',' or ')'"]),
    ("a in", ["found ''", '"a in"']),
    ("a in ()", ["unable to parse requirement", "values set can't be empty"]),
    ("a notin ()", ["values set can't be empty"]),
    ("k>abc", ["unable to parse requirement", '"abc"', "must be an integer"]),
    ("k<1.5", ['"1.5"', "must be an integer"]),
    ("k>", ['""', "must be an integer"]),
    ("-bad=x", ['unable to parse requirement: <nil>: Invalid value: "-bad"', "name part must consist"]),
    ("a b", ["found 'b'", "expected: in, notin, =, ==, !=, gt, lt"]),
    ("a/b/c=d", ['"a/b/c"', "a qualified name must consist"]),
    ("Upper.Com/x=y", ['"Upper.Com/x"', "prefix part a lowercase RFC 1123 subdomain"]),
    ("/x=y", ['"/x"', "prefix part must be non-empty"]),
    ("x" * 64 + "=y", ["name part must be no more than 63 characters"]),
    ("a=" + "v" * 64, ["values[0][a]", "must be no more than 63 characters"]),
    ("a=-v", ['values[0][a]: Invalid value: "-v"', "a valid label must be an empty string"]),
    ("a,", ["found ''", "identifier after ','", '"a,"']),
    (",a", ["found ','", "expected: !, identifier, or 'end of string'"]),
    ("a=b=c", ["found '='", "expected: ',' or 'end of string'"]),
    ("!", ["found ''", "expected: identifier"]),
    ("!a=b", ["found '='"]),
    ("(a)", ["found '('"]),
    ("a==(", ["found '('", "expected: identifier"]),
]


@pytest.mark.parametrize(("selector", "fragments"), LABEL_ERROR_CASES)
def test_label_selector_errors(selector: str, fragments: list[str]) -> None:
    with pytest.raises(BadRequest) as caught:
        parse_label_selector(selector)
    assert caught.value.code == 400
    for fragment in fragments:
        assert fragment in caught.value.message


def test_aggregated_requirement_errors() -> None:
    # an integer check and a label-value check both fail: reported together, bracketed
    with pytest.raises(BadRequest) as caught:
        parse_label_selector("k>-x")
    message = caught.value.message
    assert message.startswith("unable to parse requirement: [values[0]: ")
    assert "must be an integer" in message and "a valid label must be" in message


# ----------------------------------------------------------------------------- validators


@pytest.mark.parametrize(
    ("key", "ok"),
    [
        ("a", True),
        ("a.b-c_D9", True),
        ("example.com/name", True),
        ("x" * 63, True),
        ("x" * 64, False),
        ("", False),
        ("-a", False),
        ("a-", False),
        ("a/b/c", False),
        ("Ex.com/a", False),
        ("/a", False),
        ("ex.com/", False),
    ],
)
def test_qualified_name_errors(key: str, ok: bool) -> None:
    assert (qualified_name_errors(key) == []) is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("", True),
        ("v", True),
        ("My_value.1-2", True),
        ("v" * 63, True),
        ("v" * 64, False),
        ("-v", False),
        ("a b", False),
        ("a/b", False),
    ],
)
def test_label_value_errors(value: str, ok: bool) -> None:
    assert (label_value_errors(value) == []) is ok


# ----------------------------------------------------------------------------- structured selectors

STRUCTURED_CASES = [
    # (selector object, labels, expected)
    (None, {"a": "b"}, False),  # None selects nothing
    (None, {}, False),
    ({}, {"a": "b"}, True),  # {} selects everything
    ({"matchLabels": {}, "matchExpressions": []}, {}, True),
    ({"matchLabels": {"a": "b"}}, {"a": "b", "x": "y"}, True),
    ({"matchLabels": {"a": "b"}}, {"a": "c"}, False),
    ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["b", "c"]}]}, {"a": "c"}, True),
    ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["b", "c"]}]}, {"a": "d"}, False),
    ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["b"]}]}, {}, True),
    ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["b"]}]}, {"a": "b"}, False),
    ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"a": ""}, True),
    ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {}, False),
    ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, {}, True),
    ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, {"a": "x"}, False),
    ({"matchLabels": {"a": "b"}, "matchExpressions": [{"key": "c", "operator": "Exists"}]}, {"a": "b"}, False),
]


@pytest.mark.parametrize(("sel", "labels", "expected"), STRUCTURED_CASES)
def test_structured_selector_matches(sel: dict | None, labels: dict[str, str], expected: bool) -> None:
    assert label_selector_from_object(sel).matches(labels) is expected


def test_structured_selector_renders_like_parsed() -> None:
    sel = label_selector_from_object(
        {
            "matchLabels": {"z": "1", "a": "2"},
            "matchExpressions": [
                {"key": "m", "operator": "NotIn", "values": ["q", "p"]},
                {"key": "gone", "operator": "DoesNotExist"},
            ],
        }
    )
    assert str(sel) == "a=2,!gone,m notin (p,q),z=1"
    assert sel == parse_label_selector(str(sel))
    assert label_selector_from_object(None).empty is False
    assert label_selector_from_object({}).empty is True


STRUCTURED_ERROR_CASES = [
    (
        {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]},
        '"Gt" is not a valid label selector operator',
    ),
    ({"matchExpressions": [{"key": "a", "operator": "In", "values": []}]}, "values set can't be empty"),
    ({"matchExpressions": [{"key": "a", "operator": "In"}]}, "values set can't be empty"),
    (
        {"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]},
        "values set must be empty for exists and does not exist",
    ),
    ({"matchExpressions": [{"key": "-a", "operator": "Exists"}]}, 'key: Invalid value: "-a"'),
    ({"matchLabels": {"a": "-b"}}, 'values[0][a]: Invalid value: "-b"'),
    ({"matchLabels": {"a": 1}}, "matchLabels[a] must be a string"),
    ({"matchLabels": ["a"]}, "matchLabels must be an object"),
    ({"matchExpressions": {"key": "a"}}, "matchExpressions must be a list"),
    ({"matchExpressions": ["a"]}, "matchExpressions entry must be an object"),
    ({"matchExpressions": [{"key": "a", "operator": "In", "values": "b"}]}, "values must be a list"),
    ("a=b", "expected an object"),
]


@pytest.mark.parametrize(("sel", "fragment"), STRUCTURED_ERROR_CASES)
def test_structured_selector_errors(sel: object, fragment: str) -> None:
    with pytest.raises(BadRequest) as caught:
        label_selector_from_object(sel)  # type: ignore[arg-type]
    assert fragment in caught.value.message


# ----------------------------------------------------------------------------- field selectors


def _getter(fields: dict[str, str]):
    return lambda name: fields.get(name)


FIELD_MATCH_CASES = [
    ("", {}, True),
    ("metadata.name=foo", {"metadata.name": "foo"}, True),
    ("metadata.name=foo", {"metadata.name": "bar"}, False),
    ("metadata.name==foo", {"metadata.name": "foo"}, True),
    ("metadata.name!=foo", {"metadata.name": "bar"}, True),
    ("metadata.name!=foo", {"metadata.name": "foo"}, False),
    ("spec.nodeName=", {}, True),  # missing counts as ""
    ("spec.nodeName!=", {}, False),
    ("spec.nodeName!=", {"spec.nodeName": "n1"}, True),
    ("a=1,b!=2", {"a": "1", "b": "3"}, True),
    ("a=1,b!=2", {"a": "1", "b": "2"}, False),
    (r"a=x\,y", {"a": "x,y"}, True),
    (r"a=x\=y", {"a": "x=y"}, True),
    (r"a=x\\y", {"a": "x\\y"}, True),
    (r"a=x\,y,b=z", {"a": "x,y", "b": "z"}, True),
    ("a=1,", {"a": "1"}, True),  # empty terms are skipped
]


@pytest.mark.parametrize(("selector", "fields", "expected"), FIELD_MATCH_CASES)
def test_field_selector_matches(selector: str, fields: dict[str, str], expected: bool) -> None:
    assert parse_field_selector(selector).matches(_getter(fields)) is expected


def test_field_selector_requirements_and_rendering() -> None:
    sel = parse_field_selector(r"status.phase!=Running,metadata.name==a\,b")
    assert sel.requirements == (("metadata.name", "=", "a,b"), ("status.phase", "!=", "Running"))
    assert sel.fields == {"metadata.name", "status.phase"}
    assert str(sel) == r"metadata.name=a\,b,status.phase!=Running"
    assert parse_field_selector(str(sel)) == sel
    assert parse_field_selector("").empty and not sel.empty


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        ("metadata.name", "invalid selector: 'metadata.name'; can't understand 'metadata.name'"),
        ("a=1,bogus", "invalid selector: 'a=1,bogus'; can't understand 'bogus'"),
        ("a<1", "invalid selector: 'a<1'; can't understand 'a<1'"),
        (r"a=x\y", r"invalid field selector: invalid escape sequence: \y"),
        ("a=x\\", "invalid field selector: invalid escape sequence: \\"),
        ("a=b=c", "invalid field selector: unescaped character in value: '='"),
    ],
)
def test_field_selector_errors(selector: str, message: str) -> None:
    with pytest.raises(BadRequest) as caught:
        parse_field_selector(selector)
    assert caught.value.message == message


def test_field_selector_check_supported() -> None:
    generic = ("metadata.name", "metadata.namespace")
    parse_field_selector("metadata.name=a,metadata.namespace!=b").check_supported(generic, generic_only=True)
    with pytest.raises(BadRequest) as caught:
        parse_field_selector("spec.x=1").check_supported(generic, generic_only=True)
    assert caught.value.message == (
        '"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"'
    )
    with pytest.raises(BadRequest) as caught:
        parse_field_selector("spec.y=1").check_supported([*generic, "spec.x"], generic_only=False)
    assert caught.value.message == "field label not supported: spec.y"


@pytest.mark.parametrize(
    ("selector", "field", "expected"),
    [
        ("metadata.name=foo", "metadata.name", "foo"),
        ("metadata.name==foo,status.phase=Up", "metadata.name", "foo"),
        ("metadata.name!=foo", "metadata.name", None),
        ("status.phase=Up", "metadata.name", None),
        ("", "metadata.name", None),
        ("metadata.name=", "metadata.name", ""),
    ],
)
def test_field_selector_exact_value(selector: str, field: str, expected: str | None) -> None:
    assert parse_field_selector(selector).exact_value(field) == expected


def test_field_selector_is_a_value() -> None:
    assert FieldSelector() == parse_field_selector("")
    assert hash(parse_field_selector("a=1")) == hash(parse_field_selector("a==1"))
