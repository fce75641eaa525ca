"""Connections the server holds without a thread each: open watches, slow request heads, stalled TLS handshakes.

Each server here has one worker with 4 threads, so every scenario holds far more connections than threads.
"""

from __future__ import annotations

import http.client
import resource
import selectors
import socket
import sqlite3
import ssl
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from . import RunningServer, closed_by_server, poll, start_server

WATCHES = 500
SLOW = 300
FEW_THREADS = ["--workers", "1", "--threads", "4"]


@pytest.fixture(scope="module", autouse=True)
def enough_descriptors() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 4 * WATCHES:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8 * WATCHES), hard))


def tls_context(server: RunningServer, with_cert: bool = True) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(server.ca_file))
    if with_cert:
        context.load_cert_chain(*server.client_cert)
    return context


def open_tls(server: RunningServer, context: ssl.SSLContext) -> ssl.SSLSocket:
    raw = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    return context.wrap_socket(raw, server_hostname="127.0.0.1")


def read_all_until(socks: list[ssl.SSLSocket], marker: bytes, timeout: float) -> list[bytes]:
    """Read every socket until its bytes contain `marker` (or the time is up); returns what each got."""
    got = dict.fromkeys(socks, b"")
    waiting = set(socks)
    with selectors.DefaultSelector() as selector:
        for s in socks:
            s.setblocking(False)
            selector.register(s, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        while waiting and time.monotonic() < deadline:
            for key, _ in selector.select(0.5):
                s = key.fileobj
                try:
                    while True:
                        data = s.recv(65536)  # type: ignore[union-attr]
                        if not data:
                            break
                        got[s] += data  # type: ignore[index]
                except (ssl.SSLWantReadError, BlockingIOError):
                    pass
                if marker in got[s]:  # type: ignore[index]
                    waiting.discard(s)  # type: ignore[arg-type]
                    selector.unregister(s)
    return [got[s] for s in socks]


@pytest.fixture(params=["sqlite", "postgresql"])
def few_threads_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RunningServer]:
    if request.param == "sqlite":
        running = start_server(tmp_path, FEW_THREADS)
        yield running
        running.stop()
        return
    from orch_apiserver.storage.schema import ensure_schema

    from . import scratch_database

    with scratch_database() as url:
        ensure_schema(url, upgrade=True)
        running = start_server(tmp_path, FEW_THREADS, database_url=url)
        yield running
        running.stop()


def test_hundreds_of_open_watches_leave_the_server_answering_and_all_get_their_events(
    few_threads_server: RunningServer,
) -> None:
    server = few_threads_server
    ns = f"w-{uuid.uuid4().hex[:8]}"
    assert server.session.post("/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
    rv = server.get(f"/api/v1/namespaces/{ns}/configmaps").json()["metadata"]["resourceVersion"]
    context = tls_context(server)
    watches = []
    for _ in range(WATCHES):
        sock = open_tls(server, context)
        sock.sendall(
            f"GET /api/v1/namespaces/{ns}/configmaps?watch=1&resourceVersion={rv}&timeoutSeconds=300 "
            "HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n".encode()
        )
        watches.append(sock)
    try:
        heads = read_all_until(watches, b"\r\n\r\n", timeout=60)
        assert all(h.startswith(b"HTTP/1.1 200") for h in heads), [
            h[:100] for h in heads if not h.startswith(b"HTTP/1.1 200")
        ][:3]
        # 500 open watches on 4 threads: an ordinary request is still served
        assert server.get("/api/v1/namespaces", timeout=20).status_code == 200
        marker = f"marker-{uuid.uuid4().hex[:8]}"
        created = server.session.post(f"/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": marker}})
        assert created.status_code == 201
        bodies = read_all_until(watches, marker.encode(), timeout=60)
        missing = sum(marker.encode() not in b for b in bodies)
        assert missing == 0, f"{missing} of {WATCHES} watches did not get the ADDED event"
        assert all(b'"type":"ADDED"' in b for b in bodies)
    finally:
        for sock in watches:
            sock.close()
    # the closed watches are let go: the server still answers, and new watches still work
    assert server.get("/api/v1/namespaces", timeout=20).status_code == 200


def test_slow_request_heads_and_stalled_handshakes_do_not_hold_the_server(tmp_path: Path) -> None:
    server = start_server(tmp_path, [*FEW_THREADS, "--read-header-timeout", "3s"])
    slow_heads: list[socket.socket] = []
    stalled: list[socket.socket] = []
    try:
        anonymous = tls_context(server, with_cert=False)
        for _ in range(SLOW):
            slow_heads.append(open_tls(server, anonymous))
            slow_heads[-1].sendall(b"GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # the head never ends
        for _ in range(SLOW):
            stalled.append(socket.create_connection(("127.0.0.1", server.port), timeout=30))
        for sock in stalled[: SLOW // 2]:
            sock.sendall(b"\x16\x03\x01\x02\x00\x01")  # the first bytes of a ClientHello, then nothing
        answered = server.get("/api/v1/namespaces", timeout=20)
        assert answered.status_code == 200
        # the slow ones are closed once the head deadline passes
        poll(lambda: all(closed_by_server(s) for s in slow_heads + stalled), timeout=30, interval=0.5)
        assert server.get("/api/v1/namespaces", timeout=20).status_code == 200
        assert "Traceback" not in server.log()
    finally:
        for sock in slow_heads + stalled:
            sock.close()
        server.stop()


def test_a_finished_watch_leaves_its_connection_open_for_the_next_request(tmp_path: Path) -> None:
    server = start_server(tmp_path, FEW_THREADS)
    try:
        conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=tls_context(server), timeout=30)
        conn.request("GET", "/api/v1/namespaces?watch=1&timeoutSeconds=1")
        watch = conn.getresponse()
        assert watch.status == 200 and watch.getheader("Transfer-Encoding") == "chunked"
        body = watch.read()  # the chunked body ends by itself after timeoutSeconds
        assert b'"type":"ADDED"' in body
        sock = conn.sock
        conn.request("GET", "/api/v1/namespaces/default")  # kubectl and client-go reuse the connection
        again = conn.getresponse()
        assert again.status == 200 and conn.sock is sock
        again.read()
        conn.close()

        # HTTP/1.0: no chunked framing, the end of the body is the end of the connection
        raw = open_tls(server, tls_context(server))
        raw.sendall(b"GET /api/v1/namespaces?watch=1&timeoutSeconds=1 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        data = b""
        while chunk := raw.recv(65536):
            data += chunk
        raw.close()
        head, _, rest = data.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.0 200") and b"chunked" not in head.lower()
        assert rest.startswith(b'{"type":"ADDED"') and rest.endswith(b"}\n")
    finally:
        server.stop()


def test_requests_beyond_the_in_flight_limit_are_refused_with_429_and_watches_do_not_count(tmp_path: Path) -> None:
    server = start_server(
        tmp_path,
        [
            "--workers",
            "1",
            "--threads",
            "2",
            "--max-mutating-requests-inflight",
            "1",
            "--enable-priority-and-fairness=false",
        ],
    )
    watch = open_tls(server, tls_context(server))
    held = open_tls(server, tls_context(server))
    try:
        # a watch is long-running: not counted against the limits
        watch.sendall(b"GET /api/v1/namespaces?watch=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert read_all_until([watch], b'"type":"ADDED"', timeout=30)[0].startswith(b"HTTP/1.1 200")
        body = b'{"metadata":{"name":"held"}}'
        # a create whose handler waits for the database's write lock (held here): one mutating request in flight
        # (a body still arriving is not one: the loop reads it before the request counts)
        database_lock = sqlite3.connect(server.data_dir / "orch.db", timeout=30, isolation_level=None)
        database_lock.execute("BEGIN EXCLUSIVE")
        held.sendall(
            b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body
        )
        time.sleep(0.5)  # counted by the loop as soon as its body is in

        def refused() -> list:  # a one-item list: a 4xx Response itself is falsy
            answer = server.session.post(
                "/api/v1/namespaces/default/configmaps", json={"metadata": {"name": f"c-{uuid.uuid4().hex[:6]}"}}
            )
            return [answer] if answer.status_code == 429 else []

        [answer] = poll(refused, timeout=20)
        assert answer.headers["Retry-After"] == "1"
        assert answer.text == "Too many requests, please try again later.\n"  # plain text, as the reference
        assert server.get("/api/v1/namespaces/default").status_code == 200  # read-only requests have their own
        refused = [
            sample
            for family in text_string_to_metric_families(server.get("/metrics").text)
            for sample in family.samples
            if sample.name == "apiserver_request_terminations_total"
        ]
        assert any(
            s.labels["code"] == "429"
            and s.labels["verb"] == "POST"
            and s.labels["resource"] == "configmaps"
            and s.value >= 1
            for s in refused
        ), refused
        database_lock.execute("ROLLBACK")
        database_lock.close()
        assert read_all_until([held], b"\r\n\r\n", timeout=30)[0].startswith(b"HTTP/1.1 201")
        # the slot is free again (a client honouring Retry-After gets in)
        poll(
            lambda: (
                server.session.post(
                    "/api/v1/namespaces/default/configmaps",
                    json={"metadata": {"name": f"after-{uuid.uuid4().hex[:6]}"}},
                ).status_code
                == 201
            ),
            timeout=10,
        )
    finally:
        for sock in (held, watch):
            sock.close()
        server.stop()


def test_plain_http_on_the_tls_port_gets_the_reference_answer(tmp_path: Path) -> None:
    server = start_server(tmp_path, FEW_THREADS)
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as plain:
            plain.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = b""
            while data := plain.recv(1024):
                answer += data
        assert answer == b"HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"
    finally:
        server.stop()


def read_response(sock: ssl.SSLSocket) -> bytes:
    """One whole response with a Content-Length body, read from a blocking socket."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(
        next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    )
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


def test_a_client_sending_requests_in_turn_is_answered_however_its_heads_arrive(tmp_path: Path) -> None:
    """The thread that answered a lone client waits a moment for its next head; a head that arrives in parts,
    or late, or never ends, is treated as the loop treats it."""
    server = start_server(tmp_path, [*FEW_THREADS, "--read-header-timeout", "2s"])
    get = b"GET /api/v1/namespaces/default HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    try:
        sock = open_tls(server, tls_context(server))
        for _ in range(50):  # in turn, as kubectl and client-go send them: each answered on the same connection
            sock.sendall(get)
            assert read_response(sock).startswith(b"HTTP/1.1 200")
        sock.sendall(get[:20])  # the next head starts at once, then stops for longer than a thread waits
        time.sleep(0.3)
        sock.sendall(get[20:])
        assert read_response(sock).startswith(b"HTTP/1.1 200")
        sock.sendall(get[:20])  # and one that never ends is closed at the head deadline
        poll(lambda: closed_by_server(sock), timeout=15, interval=0.2)
        sock.close()
        assert server.get("/api/v1/namespaces/default").status_code == 200
        assert "Traceback" not in server.log()
    finally:
        server.stop()
