"""Inputs that used to hang a thread, answer 500 or leak internals, sent to a real server as an attacker or an
unlucky client would: each is a 4xx `Status` now, answered at once, and the server keeps serving."""

from __future__ import annotations

import json
import time

import pytest

from . import RunningServer

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def _status(response, code: int, reason: str = "") -> dict:
    assert response.status_code == code, response.text[:500]
    status = response.json()
    assert status["kind"] == "Status" and status["code"] == code
    if reason:
        assert status.get("reason") == reason, status
    return status


def billion_laughs() -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for previous, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
    return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: laughs\nlaughs:\n" + "".join(
        f"  {line}\n" for line in lines
    )


@pytest.mark.parametrize("validation", ["Strict", "Warn", "Ignore"])
def test_a_yaml_alias_bomb_is_refused_at_once(any_server: RunningServer, validation: str):
    body = billion_laughs()
    assert len(body) < 500
    started = time.monotonic()
    response = any_server.session.post(
        f"{CONFIGMAPS}?fieldValidation={validation}",
        data=body,
        headers={"Content-Type": "application/yaml"},
        timeout=10,
    )
    status = _status(response, 400, "BadRequest")
    assert "excessive aliasing" in status["message"]
    assert time.monotonic() - started < 2
    applied = any_server.session.patch(
        f"{CONFIGMAPS}/laughs?fieldManager=bomber",
        data=body,
        headers={"Content-Type": "application/apply-patch+yaml"},
        timeout=10,
    )
    _status(applied, 400, "BadRequest")
    assert any_server.get("/version").status_code == 200


def test_deep_yaml_is_a_bad_request(server: RunningServer):
    body = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata: " + "[" * 50_000 + "]" * 50_000
    response = server.session.post(CONFIGMAPS, data=body, headers={"Content-Type": "application/yaml"})
    assert "max depth" in _status(response, 400, "BadRequest")["message"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"preconditions": "x"},
            ("json: cannot unmarshal string into Go struct field DeleteOptions.preconditions of type v1.Preconditions"),
        ),
        ({"preconditions": [1]}, "json: cannot unmarshal array into Go struct field DeleteOptions.preconditions"),
        ({"preconditions": 7}, "json: cannot unmarshal number into Go struct field DeleteOptions.preconditions"),
        (
            {"gracePeriodSeconds": "x"},
            ("json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64"),
        ),
        ({"dryRun": "All"}, "json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string"),
    ],
)
def test_delete_options_of_the_wrong_type_are_bad_requests_and_delete_nothing(
    server: RunningServer, options: dict, message: str
):
    name = f"keep-{abs(hash(json.dumps(options))) % 10**8}"
    assert server.session.post(CONFIGMAPS, json={"metadata": {"name": name}}).status_code == 201
    response = server.session.delete(f"{CONFIGMAPS}/{name}", json=options)
    assert message in _status(response, 400, "BadRequest")["message"]
    assert server.get(f"{CONFIGMAPS}/{name}").status_code == 200  # nothing deleted


@pytest.mark.parametrize(
    "query",
    [
        "limit=99999999999999999999999",
        "limit=x",
        "timeoutSeconds=1e9",
        "gracePeriodSeconds=x",
        "gracePeriodSeconds=99999999999999999999",
    ],
)
def test_out_of_range_or_malformed_integers_are_bad_requests(any_server: RunningServer, query: str):
    path = f"{CONFIGMAPS}/nope" if "grace" in query else CONFIGMAPS
    method = any_server.session.delete if "grace" in query else any_server.session.get
    status = _status(method(f"{path}?{query}"), 400, "BadRequest")
    assert "SELECT" not in status["message"] and "sqlite" not in status["message"].lower()


def test_server_side_apply_with_an_unknown_field_names_it(server: RunningServer):
    body = json.dumps(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "ssa-unknown"},
            "data": {"a": "b"},
            "spec": {"bogus": 1},
        }
    )
    response = server.session.patch(
        f"{CONFIGMAPS}/ssa-unknown?fieldManager=me&fieldValidation=Strict",
        data=body,
        headers={"Content-Type": "application/apply-patch+yaml"},
    )
    assert 400 <= response.status_code < 500, response.text
    assert "spec" in response.json()["message"]


@pytest.mark.parametrize("key", ["\u001f", "é✓"], ids=["control", "non-latin-1"])
def test_an_unknown_field_with_any_name_is_warned_about_in_a_valid_header(server: RunningServer, key: str):
    """Found by the fuzz test: a Warning naming a field with a control character made gunicorn refuse the
    response header (500). The name is escaped as JSON escapes it; other characters go as UTF-8."""
    name = f"warn-{int(time.time() * 1000)}"
    body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, key: None}})
    made = server.session.post(
        "/api/v1/namespaces/default/configmaps",
        params={"fieldValidation": "Warn"},
        data=body,
        headers={"Content-Type": "application/json"},
    )
    assert made.status_code == 201, made.text
    warning = made.raw.headers["Warning"].encode("latin-1").decode()
    expected = key.replace("\u001f", "\\u001f")
    assert warning == f'299 - "unknown field \\"metadata.{expected}\\""'


@pytest.mark.parametrize(
    ("path", "body"),
    [("configmaps", {"binaryData": {"k": "é"}}), ("secrets", {"data": {"k": "AAé="}})],
    ids=["configmap", "secret"],
)
def test_base64_with_characters_outside_ascii_is_invalid_not_a_crash(server: RunningServer, path: str, body: dict):
    """Found by bench/fuzz.py: Python's base64 decoder refuses non-ASCII text with a ValueError of its own."""
    made = server.session.post(f"/api/v1/namespaces/default/{path}", json={"metadata": {"name": "b64"}, **body})
    assert made.status_code == 400, made.text  # a decode error, as Go's base64 decoder reports it
    assert "illegal base64 data at input byte" in made.json()["message"], made.text


def test_names_with_a_nul_character_are_not_found_or_invalid(any_server: RunningServer):
    """PostgreSQL text cannot hold a NUL: such a name is looked up as the nothing it is, never sent to the store."""
    session = any_server.session
    _status(session.get(f"{CONFIGMAPS}/a%00b"), 404, "NotFound")
    _status(
        session.put(
            "/api/v1/namespaces/a%00b", json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a\x00b"}}
        ),
        404,
        "NotFound",
    )
    listed = session.get("/api/v1/namespaces/a%00b/configmaps")
    assert listed.status_code == 200 and listed.json()["items"] == []
    _status(
        session.post(CONFIGMAPS, json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a\x00b"}}),
        422,
        "Invalid",
    )
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "e\x00v"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
        "reason": "R",
        "message": "m",
    }
    status = _status(session.post("/api/v1/namespaces/default/events", json=event), 422, "Invalid")
    assert "may not contain a NUL character" in status["message"] or "metadata.name" in status["message"]
    assert session.get("/readyz").status_code == 200
