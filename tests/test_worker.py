"""What the worker's loop reads from a request head before any thread sees it: the request line and the
in-flight class (long-running requests are not counted, as the reference's long-running check)."""

from __future__ import annotations

import pytest
from orch_apiserver.observability import is_long_running, line_attributes, request_kind
from orch_apiserver.worker import request_line


def in_flight_class(head: bytes) -> str | None:
    method, target = request_line(head)
    attrs, _ = line_attributes(method, target)
    return None if is_long_running(attrs) else request_kind(method)


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b"GET /api/v1/namespaces/a/pods HTTP/1.1\r\nHost: x\r\n\r\n", "readOnly"),
        (b"\r\nGET /api/v1/pods?watch=true HTTP/1.1\r\n\r\n", None),
        (b"GET /apis/apps/v1/namespaces/a/deployments?watch=1&resourceVersion=5 HTTP/1.1\r\n\r\n", None),
        (b"GET /api/v1/namespaces/a/pods/p/log?follow=true HTTP/1.1\r\n\r\n", None),
        (b"GET /api/v1/namespaces/a/pods/p/log HTTP/1.1\r\n\r\n", None),  # the reference counts every log as long
        (b"POST /api/v1/namespaces/a/pods/p/exec?command=ls HTTP/1.1\r\n\r\n", None),
        (b"GET /api/v1/namespaces/a/services/s/proxy/x HTTP/1.1\r\n\r\n", None),
        (b"GET /api/v1/namespaces/watch HTTP/1.1\r\n\r\n", "readOnly"),  # a namespace named "watch"
        (b"PATCH /apis/apps/v1/namespaces/a/deployments/d HTTP/1.1\r\n\r\n", "mutating"),
        (b"DELETE /api/v1/namespaces/a/configmaps HTTP/1.0\n\n", "mutating"),
        (b"GET /healthz HTTP/1.1\r\n\r\n", "readOnly"),
    ],
)
def test_in_flight_class_of_a_request_head(head: bytes, expected: str | None) -> None:
    assert in_flight_class(head) == expected


def test_the_request_line_is_split_as_gunicorn_reads_it() -> None:
    assert request_line(b"GET /api?labelSelector=a%20b HTTP/1.1\r\nHost: x\r\n\r\n") == (
        "GET",
        "/api?labelSelector=a%20b",
    )
    assert request_line(b"garbage\r\n\r\n") == ("garbage", "")
