"""A request that authentication or authorization refuses is answered before its body is read: while a body is
still arriving, the worker has the request's head authenticated and authorized, and a refused client gets its
401 or 403 (the Status the chain always renders, `Connection: close`) while it still holds back the rest of its
body; an allowed one is served once its body is in, counted and audited once.

The server has one worker with 4 threads (one head check at a time) and a 30 s request timeout: a refusal that
waited for the body would be the 504 of the deadline instead.
"""

from __future__ import annotations

import json
import socket
import ssl
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from orch_apiserver import pki
from orch_apiserver.request_body import MAX_BODY_BYTES

from . import RunningServer, closed_by_server, poll, start_server

#: --max-request-body-buffer of the server below: room for four bodies of the largest size
BODY_BUFFER = 4 * MAX_BODY_BYTES

PATH = "/api/v1/namespaces/default/configmaps"
BODY_LENGTH = 100_000  # announced; the clients send a first part and hold back the rest
SLOW = 200
POLICY = "apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n- level: Request\n"


@dataclass(frozen=True)
class Caller:
    """How a test client presents itself: a client certificate, an Authorization header, or nothing."""

    cert: tuple[str, str] | None = None
    authorization: str = ""


@dataclass(frozen=True)
class World:
    server: RunningServer
    admin: Caller
    no_rights_cert: Caller
    no_rights_token: Caller


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    tmp = tmp_path_factory.mktemp("refused-before-body")
    (tmp / "tokens.csv").write_text("no-rights-token,tokenless,3001,\n")
    (tmp / "policy.yaml").write_text(POLICY)
    server = start_server(
        tmp / "data",
        [
            *("--workers", "1", "--threads", "4", "--request-timeout", "30s"),
            *("--max-request-body-buffer", str(BODY_BUFFER)),
            *("--token-auth-file", str(tmp / "tokens.csv")),
            *("--audit-policy-file", str(tmp / "policy.yaml"), "--audit-log-path", str(tmp / "audit.log")),
        ],
    )
    settled_priority_and_fairness(server)
    ca = pki.load_pair(server.data_dir / "pki" / "ca.crt", server.data_dir / "pki" / "ca.key")
    pki.write_pair(pki.issue_client_cert(ca, "nobody", ["team"]), tmp / "nobody.crt", tmp / "nobody.key")
    try:
        yield World(
            server,
            Caller(cert=server.client_cert),
            Caller(cert=(str(tmp / "nobody.crt"), str(tmp / "nobody.key"))),
            Caller(authorization="Bearer no-rights-token"),
        )
    finally:
        server.stop()


def settled_priority_and_fairness(server: RunningServer) -> None:
    """Until the bootstrap FlowSchemas exist (moments after start) anonymous requests are classified to an imagined
    catch-all: wait until they carry global-default's, so that answers compared here are classified alike."""
    flow_schemas = "/apis/flowcontrol.apiserver.orch.io/v1beta2/flowschemas"
    with server.new_session(cert=None) as anonymous:

        def settled() -> bool:
            schema = server.get(f"{flow_schemas}/global-default")
            seen = anonymous.get(PATH).headers.get("X-Orch-PF-FlowSchema-UID")
            return schema.status_code == 200 and seen == schema.json()["metadata"]["uid"]

        poll(settled)


def connect(server: RunningServer, caller: Caller) -> ssl.SSLSocket:
    context = ssl.create_default_context(cafile=str(server.ca_file))
    if caller.cert is not None:
        context.load_cert_chain(*caller.cert)
    raw = socket.create_connection(("127.0.0.1", server.port), timeout=60)
    return context.wrap_socket(raw, server_hostname="127.0.0.1")


def configmap(name: str) -> bytes:
    return json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}).encode()


def post_head(caller: Caller, length: int, audit_id: str = "") -> bytes:
    lines = [f"POST {PATH} HTTP/1.1", "Host: x", "Content-Type: application/json", f"Content-Length: {length}"]
    if caller.authorization:
        lines.append(f"Authorization: {caller.authorization}")
    if audit_id:
        lines.append(f"Audit-ID: {audit_id}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def start_slow_post(server: RunningServer, caller: Caller, audit_id: str = "") -> ssl.SSLSocket:
    """The head and the first part of a body that never completes: the rest is held back for good."""
    sock = connect(server, caller)
    sock.sendall(post_head(caller, BODY_LENGTH, audit_id) + configmap("never-sent") + b" " * 1000)
    return sock


def read_until_closed(sock: ssl.SSLSocket) -> bytes:
    """What the server sends until it closes the connection (the client sends nothing more meanwhile)."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def split(answer: bytes) -> tuple[str, dict[str, str], dict]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return status, headers, json.loads(body)


def whole_post(server: RunningServer, caller: Caller) -> bytes:
    """The same POST with its whole body at once (a thread's from the start), asking to close after the answer."""
    sock = connect(server, caller)
    body = configmap("sent-whole")
    sock.sendall(post_head(caller, len(body)).replace(b"Host: x", b"Host: x\r\nConnection: close") + body)
    answer = read_until_closed(sock)
    sock.close()
    return answer


REFUSALS = {
    "anonymous": (403, 'User \\"system:anonymous\\" cannot create resource \\"configmaps\\"'),
    "a bad bearer token": (401, "Unauthorized"),
    "a token without rights": (403, 'User \\"tokenless\\" cannot create resource \\"configmaps\\"'),
    "a client certificate without rights": (403, 'User \\"nobody\\" cannot create resource \\"configmaps\\"'),
}


def caller_named(world: World, name: str) -> Caller:
    return {
        "anonymous": Caller(),
        "a bad bearer token": Caller(authorization="Bearer not-a-token"),
        "a token without rights": world.no_rights_token,
        "a client certificate without rights": world.no_rights_cert,
    }[name]


@pytest.mark.parametrize("who", list(REFUSALS))
def test_a_refused_slow_post_is_answered_while_its_body_is_held_back(world: World, who: str) -> None:
    caller = caller_named(world, who)
    code, words = REFUSALS[who]
    sock = start_slow_post(world.server, caller)
    answer = read_until_closed(sock)  # nothing more is sent: the answer comes without the rest of the body
    sock.close()
    status, headers, status_body = split(answer)
    assert status.startswith(f"HTTP/1.1 {code} "), answer[:300]  # not the deadline's 504
    assert headers["connection"] == "close"  # the body was not read: the connection cannot go on
    assert words in json.dumps(status_body)

    # the answer a thread gives the same request when its body comes whole: the same Status, the same headers
    w_status, w_headers, w_body = split(whole_post(world.server, caller))
    assert (status, status_body) == (w_status, w_body)
    del headers["date"], headers["audit-id"], w_headers["date"], w_headers["audit-id"]
    assert headers == w_headers  # with `Connection: close` asked for, the thread closes after it too


def test_a_refused_client_waiting_for_100_continue_is_never_told_to_send_its_body(world: World) -> None:
    sock = connect(world.server, Caller())
    sock.sendall(
        f"POST {PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
        "Expect: 100-continue\r\n\r\n".encode()
    )
    answer = read_until_closed(sock)
    sock.close()
    assert answer.startswith(b"HTTP/1.1 403 Forbidden\r\n"), answer[:300]  # as Go: no `100 Continue` before it


def test_an_allowed_slow_post_is_served_when_its_body_arrives(world: World) -> None:
    server = world.server
    body = configmap("slow-but-allowed")
    sock = connect(server, world.admin)
    sock.sendall(post_head(world.admin, len(body), "allowed-slow") + body[:10])
    time.sleep(0.5)  # pacing, not a measure: the head check is done, the server waits for the body
    assert not closed_by_server(sock)  # and has answered nothing
    sock.setblocking(True)
    sock.sendall(body[10:])
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 201 Created\r\n"), answer[:300]
    sock.close()
    assert server.get(f"{PATH}/slow-but-allowed").status_code == 200
    assert poll(lambda: audit_stages(world, "allowed-slow")) == ["RequestReceived", "ResponseComplete"]


def test_a_refusal_before_the_body_is_counted_and_audited_once_and_runs_on_no_seat(world: World) -> None:
    server = world.server
    before, seated_before = forbidden_posts(server), anonymous_seats(server)
    socks = [start_slow_post(server, Caller(), f"refused-{index}") for index in range(5)]
    for sock in socks:
        assert read_until_closed(sock).startswith(b"HTTP/1.1 403 Forbidden\r\n")
        sock.close()
    assert forbidden_posts(server) == before + 5
    assert anonymous_seats(server) == seated_before  # answered from its head: no priority level's seat taken
    for index in range(5):
        assert poll(lambda index=index: audit_stages(world, f"refused-{index}")) == [
            "RequestReceived",
            "ResponseComplete",
        ]


def test_many_anonymous_slow_bodies_are_all_refused_while_others_are_served(world: World) -> None:
    server = world.server
    slow = [start_slow_post(server, Caller()) for _ in range(SLOW)]
    with server.new_session() as session:  # a new connection: its TLS handshake is the loop's work too
        assert session.get("/api/v1/namespaces/default", timeout=30).status_code == 200
    answers = [read_until_closed(sock) for sock in slow]
    for sock in slow:
        sock.close()
    assert [answer.split(b"\r\n", 1)[0] for answer in answers] == [b"HTTP/1.1 403 Forbidden"] * SLOW
    assert server.get("/api/v1/namespaces/default").status_code == 200


def forbidden_posts(server: RunningServer) -> float:
    return server.metric("apiserver_request_total", code="403", verb="POST", resource="configmaps")


def anonymous_seats(server: RunningServer) -> float:
    """Requests API Priority and Fairness ran in the level anonymous requests go to (global-default)."""
    return server.metric("apiserver_flowcontrol_dispatched_requests_total", priority_level="global-default")


def audit_stages(world: World, audit_id: str) -> list[str] | None:
    """The stages the audit log has for `audit_id` once its last one (ResponseComplete) is there."""
    log = world.server.data_dir.parent / "audit.log"
    try:
        lines = log.read_text().splitlines()
    except OSError:
        return None
    stages = [event["stage"] for event in map(json.loads, lines) if event.get("auditID") == audit_id]
    return stages if "ResponseComplete" in stages else None


def test_a_body_beyond_the_workers_buffer_budget_is_turned_away_at_once(world: World) -> None:
    """The loop reserves a body's announced length when its head ends; once its worker's budget is spent
    (--max-request-body-buffer with one worker), a further slow body gets the in-flight limit's 429 at once."""
    room = BODY_BUFFER // MAX_BODY_BYTES
    held = []
    for _ in range(room + 1):  # allowed ones: they keep their room until their deadline
        sock = connect(world.server, world.admin)
        sock.sendall(post_head(world.admin, MAX_BODY_BYTES) + b"{")
        held.append(sock)
    answers = poll(lambda: {sock: answer for sock in held if (answer := sent_so_far(sock))})
    assert len(answers) == 1
    [(turned_away, answer)] = answers.items()
    assert answer.startswith(b"HTTP/1.1 429 Too Many Requests\r\n")
    assert not any(closed_by_server(sock) for sock in held if sock is not turned_away)
    for sock in held:
        sock.close()

    def slow_post_served() -> bool:  # the room is back once the server has seen them go
        body = configmap(f"after-the-budget-{time.monotonic_ns()}")
        sock = connect(world.server, world.admin)
        sock.sendall(post_head(world.admin, len(body)) + body[:1])
        time.sleep(0.2)  # pacing: the head is in before the body
        try:
            sock.sendall(body[1:])
        except OSError:
            pass
        answer = read_until_closed_or_answered(sock)
        sock.close()
        return answer.startswith(b"HTTP/1.1 201 Created\r\n")

    poll(slow_post_served, interval=0.5)


def sent_so_far(sock: ssl.SSLSocket) -> bytes:
    """What the server has sent on `sock` by now, without waiting (a TLS 1.3 session ticket is not an answer)."""
    sock.setblocking(False)
    try:
        return sock.recv(65536)
    except (BlockingIOError, ssl.SSLWantReadError):
        return b""
    finally:
        sock.setblocking(True)


def read_until_closed_or_answered(sock: ssl.SSLSocket) -> bytes:
    received = b""
    while b"\r\n\r\n" not in received and (chunk := sock.recv(65536)):
        received += chunk
    return received
