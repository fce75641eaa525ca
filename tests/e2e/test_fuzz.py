"""Generated and mutated requests against a real server with the admin certificate: whatever arrives, the answer
is never a 5xx, never slow, and every error is a `Status`. CI runs a bounded number of cases; `bench/fuzz.py`
runs the long version by hand."""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.kinds import crd_body

from . import RunningServer, poll

#: (collection path, kind, apiVersion) of the kinds fuzzed: core configmaps, secrets, namespaces; apps deployments
TARGETS = [
    ("/api/v1/namespaces/default/configmaps", "ConfigMap", "v1"),
    ("/api/v1/namespaces/default/secrets", "Secret", "v1"),
    ("/api/v1/namespaces", "Namespace", "v1"),
    ("/apis/apps/v1/namespaces/default/deployments", "Deployment", "apps/v1"),
]
#: a custom kind (its definition: FUZZ_CRD), fuzzed beside the built-in ones
CUSTOM_TARGET = ("/apis/fuzz.example.com/v1/namespaces/default/widgets", "Widget", "fuzz.example.com/v1")
FUZZ_CRD = crd_body(
    "fuzz.example.com",
    "widgets",
    "Widget",
    {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "replicas": {"type": "integer", "maximum": 10, "default": 1},
                    "selector": {"type": "string", "pattern": "^[a-z]+$"},
                    "template": {"type": "object", "x-orch-preserve-unknown-fields": True},
                    "items": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                },
            },
            "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}},
        },
    },
    subresources={"status": {}},
)
SLOW = 5.0

json_leaf = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)
names = st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True) | st.text(max_size=15)
fields = st.sampled_from(
    [
        "metadata",
        "data",
        "stringData",
        "binaryData",
        "spec",
        "status",
        "type",
        "immutable",
        "kind",
        "apiVersion",
        "items",
        "selector",
        "replicas",
        "template",
        "finalizers",
    ]
)


@st.composite
def bodies(draw: Any, kind: str, api_version: str) -> bytes:
    """An object that is nearly right: the kind's shape with generated names and values and some noise."""
    obj: dict[str, Any] = {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": draw(names), "labels": draw(st.dictionaries(names, names, max_size=2))},
    }
    for _ in range(draw(st.integers(0, 3))):
        obj[draw(fields)] = draw(json_values)
    if kind == "Deployment" and draw(st.booleans()):
        obj["spec"] = {
            "replicas": draw(json_leaf),
            "selector": {"matchLabels": {"a": "b"}},
            "template": {
                "metadata": {"labels": {"a": "b"}},
                "spec": {"containers": [{"name": draw(names), "image": draw(json_leaf)}]},
            },
        }
    text = json.dumps(obj).encode()
    if draw(st.integers(0, 9)) == 0:  # now and then a broken document
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(st.binary(max_size=8)) + text[cut:]
    return text


queries = st.dictionaries(
    st.sampled_from(
        [
            "limit",
            "continue",
            "labelSelector",
            "fieldSelector",
            "resourceVersion",
            "timeoutSeconds",
            "dryRun",
            "fieldValidation",
            "fieldManager",
            "gracePeriodSeconds",
            "propagationPolicy",
            "pretty",
            "watch",
        ]
    ),
    st.text(max_size=30),
    max_size=3,
)
content_types = st.sampled_from(
    [
        "application/json",
        "application/yaml",
        "application/merge-patch+json",
        "application/strategic-merge-patch+json",
        "application/json-patch+json",
        "application/apply-patch+yaml",
        "text/plain",
    ]
)


def check(response: Any, elapsed: float) -> None:
    assert response.status_code < 500, (response.status_code, response.text[:500])
    assert elapsed < SLOW, elapsed
    if response.status_code >= 400:
        status = response.json()
        assert status["kind"] == "Status" and status["code"] == response.status_code, status


def install_fuzz_crd(server: RunningServer) -> None:
    made = server.session.post("/apis/apiextensions.orch.io/v1/customresourcedefinitions", json=FUZZ_CRD)
    assert made.status_code in (201, 409), made.text
    poll(lambda: server.get("/apis/fuzz.example.com/v1").status_code == 200)


@pytest.mark.parametrize(
    ("path", "kind", "api_version"), [*TARGETS, CUSTOM_TARGET], ids=[t[1] for t in [*TARGETS, CUSTOM_TARGET]]
)
def test_generated_requests_never_fail_the_server(server: RunningServer, path: str, kind: str, api_version: str):
    session = server.session
    if (path, kind, api_version) == CUSTOM_TARGET:
        install_fuzz_crd(server)

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(data=st.data())
    def one(data: Any) -> None:
        method = data.draw(st.sampled_from(["POST", "PUT", "PATCH", "GET", "DELETE"]))
        body = data.draw(bodies(kind, api_version))
        params = {k: v.replace("\x00", "") for k, v in data.draw(queries).items() if k != "watch"}
        name = data.draw(names)
        target = (
            path
            if method == "POST" or (method == "GET" and data.draw(st.booleans()))
            else f"{path}/{quote(name, safe='') or 'x'}"
        )
        if method == "GET":
            params.pop("timeoutSeconds", None)
        content_type = (
            data.draw(content_types)
            if method == "PATCH"
            else data.draw(st.sampled_from(["application/json", "application/yaml"]))
        )
        started = time.monotonic()
        response = session.request(
            method,
            target,
            params=params,
            data=body if method != "GET" else None,
            headers={"Content-Type": content_type},
            timeout=SLOW * 2,
        )
        check(response, time.monotonic() - started)

    one()
