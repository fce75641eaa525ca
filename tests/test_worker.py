"""What the worker's loop reads from a request before any thread sees it: the request line, the in-flight class
(long-running requests are not counted, as the reference's long-running check), where the body ends, the
request's deadline, and what the app's chain makes of a head whose body has not come (the head check)."""

from __future__ import annotations

import json

import pytest
from flask import Flask
from orch_apiserver import cli, server
from orch_apiserver.auth.x509 import PEER_CERT_KEY
from orch_apiserver.deadlines import request_timeout
from orch_apiserver.observability import is_long_running, line_attributes, request_kind
from orch_apiserver.pipeline import check_head
from orch_apiserver.request_body import body_reader
from orch_apiserver.worker import request_line
from werkzeug.test import EnvironBuilder

from tests.observability.helpers import value


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


@pytest.mark.parametrize(
    ("received", "complete"),
    [
        (b"POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nab", False),
        (b"POST /x HTTP/1.1\r\ncontent-length:5\r\n\r\nabcde", True),
        (b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n", False),
        (b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n0\r\n\r\n", True),
        (b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nTrailer: x\r\n", False),
        (b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nTrailer: x\r\n\r\n", True),
        (b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n", None),  # gunicorn answers it
        (b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0x3\r\nabc\r\n", None),  # not hex digits alone
        (b"POST /x HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabc", None),
        (b"POST /x HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n", None),  # over the limit: 413 unread
        (b"POST /x HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", None),
    ],
)
def test_where_the_loop_sees_a_body_end(received: bytes, complete: bool | None) -> None:
    reader, _ = body_reader(received)
    assert reader is not None
    assert reader.complete(received) is complete


def test_a_body_completed_a_byte_at_a_time_is_seen_complete_once() -> None:
    message = b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
    reader, _ = body_reader(message[:48])
    assert reader is not None
    states = [reader.complete(message[:end]) for end in range(48, len(message) + 1)]
    assert states == [False] * (len(message) - 48) + [True]


def test_requests_without_a_body_and_the_continue_expectation() -> None:
    assert body_reader(b"GET /x HTTP/1.1\r\n\r\n") == (None, False)
    assert body_reader(b"POST /x HTTP/1.1\r\nContent-Length: 0\r\n\r\n") == (None, False)
    reader, expects = body_reader(b"PUT /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
    assert reader is not None and expects


@pytest.mark.parametrize(
    ("query", "seconds"),
    [
        ({}, 60.0),
        ({"timeout": "5s"}, 5.0),
        ({"timeout": "2m"}, 60.0),
        ({"timeout": "0"}, 60.0),
        ({"timeout": "-1s"}, 60.0),
    ],
)
def test_a_requests_deadline_is_its_timeout_parameter_capped_by_the_flag(query: dict, seconds: float) -> None:
    assert request_timeout(query, 60.0) == seconds


def test_an_invalid_timeout_parameter_has_the_reference_message() -> None:
    with pytest.raises(ValueError, match='^invalid timeout specified in the request URL - time: invalid duration "x"$'):
        request_timeout({"timeout": "x"}, 60.0)


def test_the_request_and_idle_deadlines_reach_the_worker() -> None:
    defaults = server.gunicorn_options(cli.parse_settings([], {}))
    assert defaults["worker_class"].request_timeout == 60.0  # the reference's --request-timeout
    assert defaults["keepalive"] == 90  # the reference's IdleTimeout
    options = server.gunicorn_options(cli.parse_settings(["--request-timeout", "5s", "--idle-timeout", "2.5s"], {}))
    assert options["worker_class"].request_timeout == 5.0
    assert options["keepalive"] == 3  # gunicorn counts whole seconds


def head_environ(method: str, path: str, peer_cert: bytes | None = None) -> dict:
    """What the worker's head check hands the app: the head's environ, without a body."""
    environ = EnvironBuilder(method=method, path=path, content_type="application/json").get_environ()
    environ["CONTENT_LENGTH"] = "0"
    if peer_cert is not None:
        environ[PEER_CERT_KEY] = peer_cert
    return environ


def test_an_allowed_head_is_not_served_nor_counted(app, client) -> None:
    client.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "kept"}})
    requests_before = value(client.get("/metrics").get_data(as_text=True), "apiserver_request_total", verb="DELETE")
    started: list[str] = []
    admin_cert = client.environ_base[PEER_CERT_KEY]  # the admin's, as the test client presents it
    environ = head_environ("DELETE", "/api/v1/namespaces/default/configmaps/kept", admin_cert)

    assert check_head(app, environ, lambda status, headers, exc_info=None: started.append(status)) is None
    assert started == []  # nothing answered: the request runs once its body is in
    assert client.get("/api/v1/namespaces/default/configmaps/kept").status_code == 200  # the handler never ran
    metrics = client.get("/metrics").get_data(as_text=True)
    assert value(metrics, "apiserver_request_total", verb="DELETE") == requests_before


def test_a_refused_head_gets_the_chains_answer(app) -> None:
    started: list[str] = []
    environ = head_environ("POST", "/api/v1/namespaces/default/configmaps")
    body = check_head(app, environ, lambda status, headers, exc_info=None: started.append(status))
    assert body is not None
    assert started == ["403 Forbidden"]
    assert json.loads(b"".join(body))["message"] == (
        'configmaps is forbidden: User "system:anonymous" cannot create resource "configmaps" in API group "" '
        'in the namespace "default"'
    )


def test_a_head_check_never_serves_a_request_of_an_app_without_the_chain() -> None:
    served: list[str] = []
    plain = Flask(__name__)

    @plain.post("/x")
    def view() -> str:
        served.append("POST /x")
        return ""

    assert check_head(plain, head_environ("POST", "/x"), lambda *args: None) is None
    assert served == []
