"""Slow request bodies and request deadlines: the worker's loop reads a body before any thread sees it, so
clients that send their bodies slowly hold no thread, and a body or a handler that is not done by
--request-timeout (or the `timeout` parameter) gets the reference's 504 (a request refused from its head alone
is answered at once: tests/e2e/test_refused_before_body.py).

Each server has one worker with 4 threads: every scenario holds far more connections than threads.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import ssl
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e import RunningServer, closed_by_server, poll, start_server

SLOW = 100
FEW_THREADS = ["--workers", "1", "--threads", "4"]
REFERENCE_TIMEOUT_BODY = (
    b'{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout",'
    b'"reason":"Timeout","details":{},"code":504}\n'
)


def configmap(name: str) -> bytes:
    return json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}).encode()


def connect(server: RunningServer, with_cert: bool) -> ssl.SSLSocket:
    context = ssl.create_default_context(cafile=str(server.ca_file))
    if with_cert:
        context.load_cert_chain(*server.client_cert)
    return context.wrap_socket(socket.create_connection(("127.0.0.1", server.port)), server_hostname="127.0.0.1")


def post_head(path: str, length: int) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


def read_answer(sock: ssl.SSLSocket, timeout: float = 30.0) -> bytes:
    """Everything the server sends until it closes the connection."""
    sock.settimeout(timeout)
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def ordinary_get(server: RunningServer) -> int:
    with server.new_session() as session:  # a new connection each time: the TLS handshake included
        return session.get("/api/v1/namespaces/default", timeout=10).status_code


@pytest.fixture
def short_deadline_server(tmp_path: Path) -> Iterator[RunningServer]:
    server = start_server(tmp_path, [*FEW_THREADS, "--request-timeout", "4s"])
    yield server
    server.stop()


def test_slow_bodies_hold_no_thread_and_end_with_the_reference_504_at_the_request_timeout(
    short_deadline_server: RunningServer,
) -> None:
    server = short_deadline_server
    body = configmap("slow")
    slow = []
    for index in range(SLOW):  # half with the admin's certificate, half anonymous
        sock = connect(server, with_cert=index % 2 == 0)
        sock.sendall(post_head("/api/v1/namespaces/default/configmaps", 100_000) + body[:1])
        slow.append(sock)
    opened = time.monotonic()

    assert [ordinary_get(server) for _ in range(10)] == [200] * 10  # 100 bodies in flight, 4 threads

    answers = [read_answer(sock) for sock in slow]
    assert time.monotonic() - opened < 30
    for index, answer in enumerate(answers):
        head, _, payload = answer.partition(b"\r\n\r\n")
        if index % 2:  # anonymous: refused from its head, before its body (tests/e2e/test_refused_before_body.py)
            assert head.startswith(b"HTTP/1.1 403 Forbidden\r\n")
            continue
        assert head.startswith(b"HTTP/1.1 504 Gateway Timeout\r\n")
        assert payload == REFERENCE_TIMEOUT_BODY
    assert all(closed_by_server(sock) for sock in slow)
    for sock in slow:
        sock.close()
    assert ordinary_get(server) == 200
    timed_out = server.metric("apiserver_request_terminations_total", code="504", resource="configmaps")
    assert timed_out == SLOW // 2


def test_a_body_sent_in_pieces_is_served_whole_content_length_or_chunked(short_deadline_server: RunningServer) -> None:
    server = short_deadline_server
    path = "/api/v1/namespaces/default/configmaps"
    sized, chunked = configmap("sent-slowly"), configmap("sent-in-chunks")
    by_length = connect(server, with_cert=True)
    by_length.sendall(post_head(path, len(sized)) + sized[:7])
    by_chunks = connect(server, with_cert=True)
    by_chunks.sendall(
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
        "Expect: 100-continue\r\n\r\n".encode()
    )
    by_chunks.settimeout(10)
    assert by_chunks.recv(64).startswith(b"HTTP/1.1 100 Continue\r\n")  # told to go on by the loop
    time.sleep(0.3)
    by_length.sendall(sized[7:20])
    by_chunks.sendall(b"%x\r\n%s\r\n" % (10, chunked[:10]))
    time.sleep(0.3)
    by_length.sendall(sized[20:])
    by_chunks.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(chunked) - 10, chunked[10:]))
    for sock in (by_length, by_chunks):
        sock.settimeout(10)
        head = b""
        while b"\r\n\r\n" not in head.replace(b"HTTP/1.1 100 Continue\r\n\r\n", b""):
            head += sock.recv(65536)
        assert b"HTTP/1.1 201 Created\r\n" in head
        sock.close()
    for name in ("sent-slowly", "sent-in-chunks"):
        assert server.get(f"/api/v1/namespaces/default/configmaps/{name}").status_code == 200


def test_requests_in_turn_on_one_connection_whose_next_body_is_slow(short_deadline_server: RunningServer) -> None:
    """The thread that answered a request may read the client's next head itself; a body still to come then goes
    back to the loop, and the request is served when it is complete."""
    path = "/api/v1/namespaces/default/configmaps"
    sock = connect(short_deadline_server, with_cert=True)
    sock.settimeout(10)
    for index in range(5):
        body = configmap(f"in-turn-{index}")
        sock.sendall(post_head(path, len(body)) + body[:9])
        time.sleep(0.2)
        sock.sendall(body[9:])
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += sock.recv(65536)
        head, _, rest = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 201 Created\r\n")
        length = int(next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))[15:])
        while len(rest) < length:
            rest += sock.recv(65536)
    sock.close()


@pytest.fixture
def locked_database(short_deadline_server: RunningServer) -> Iterator[sqlite3.Connection]:
    """The server's SQLite database with its write lock held by the test: every write waits for it."""
    holder = sqlite3.connect(short_deadline_server.data_dir / "orch.db", timeout=30, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    yield holder
    holder.execute("ROLLBACK")
    holder.close()


def test_a_handler_slower_than_the_request_timeout_gets_504_and_its_late_answer_is_dropped(
    short_deadline_server: RunningServer, locked_database: sqlite3.Connection
) -> None:
    server = short_deadline_server
    path = "/api/v1/namespaces/default/configmaps"
    stuck = connect(server, with_cert=True)
    body = configmap("late")
    started = time.monotonic()
    stuck.sendall(post_head(path, len(body)) + body)
    answer = read_answer(stuck)
    waited = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 504 Gateway Timeout\r\n"), answer[:200]
    assert answer.endswith(b"\r\n\r\n" + REFERENCE_TIMEOUT_BODY)  # the whole answer: nothing of the late one
    assert waited >= 3.5  # not before the deadline (4s)

    # the `timeout` parameter shortens the deadline, and the server still answers reads meanwhile
    shorter = connect(server, with_cert=True)
    started = time.monotonic()
    later = configmap("later")
    shorter.sendall(post_head(path + "?timeout=1s", len(later)) + later)
    assert read_answer(shorter).startswith(b"HTTP/1.1 504 Gateway Timeout\r\n")
    assert time.monotonic() - started < 3.5
    assert ordinary_get(server) == 200

    locked_database.execute("ROLLBACK")  # the stuck handlers go on and write; their answers go nowhere
    locked_database.execute("BEGIN")
    poll(lambda: server.get(f"{path}/late").status_code == 200)
    stuck.close()
    shorter.close()
    assert "Error handling request" not in server.log()


def test_an_invalid_timeout_parameter_is_refused_as_the_reference_does(short_deadline_server: RunningServer) -> None:
    response = short_deadline_server.get("/api/v1/namespaces/default?timeout=soon")
    assert response.status_code == 400
    assert response.json()["message"] == 'invalid timeout specified in the request URL - time: invalid duration "soon"'
    assert response.json()["reason"] == "BadRequest"
    assert short_deadline_server.get("/api/v1/namespaces/default?timeout=0s").status_code == 200


def test_watches_are_not_cut_by_the_request_timeout(short_deadline_server: RunningServer) -> None:
    server = short_deadline_server
    with server.new_session() as session:
        watch = session.get("/api/v1/namespaces/default/configmaps?watch=true", stream=True, timeout=30)
        assert watch.status_code == 200
        time.sleep(5)  # past the 4 s request timeout
        assert server.session.post("/api/v1/namespaces/default/configmaps", data=configmap("seen")).ok
        for line in watch.iter_lines():
            if b'"name":"seen"' in line:
                break
        watch.close()
