"""Wire details clients compare with the reference: bodies end with a newline, Go's reason phrases, one
/version for every worker, base64 with line breaks, and Status bodies for errors found below the app."""

from __future__ import annotations

import base64
import json
import socket
import ssl
from collections.abc import Iterator

import pytest
import yaml
from orch_apiserver.naming import Naming

from . import RunningServer, start_server

NAMING = Naming()


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = start_server(tmp_path_factory.mktemp("wire"), ["--workers", "2"])
    yield running
    running.stop()


def raw_exchange(server: RunningServer, request: bytes) -> tuple[str, dict[str, str], bytes]:
    """Send bytes as they are over TLS (no client library to tidy them) and read the whole answer."""
    context = ssl.create_default_context(cafile=str(server.ca_file))
    context.load_cert_chain(*server.client_cert)
    with (
        socket.create_connection(("127.0.0.1", server.port), timeout=15) as raw,
        context.wrap_socket(raw, server_hostname="127.0.0.1") as tls,
    ):
        tls.sendall(request)
        data = b""
        while chunk := tls.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return status, headers, body


def test_json_bodies_end_with_a_newline(any_server: RunningServer):
    session = any_server.session
    name = f"nl-{any_server.port}"
    created = session.post(
        "/api/v1/namespaces/default/configmaps", json={"metadata": {"name": name}, "data": {"a": "b"}}
    )
    answers = [
        created,
        session.get(f"/api/v1/namespaces/default/configmaps/{name}"),
        session.get("/api/v1/namespaces/default/configmaps"),
        session.get("/api/v1/namespaces/default/configmaps/nope"),
        session.get("/version"),
        session.get("/apis"),
    ]
    assert [r.status_code for r in answers] == [201, 200, 200, 404, 200, 200]
    for response in answers:
        assert response.headers["Content-Type"].startswith("application/json")
        assert response.content.endswith(b"}\n") and not response.content.endswith(b"\n\n"), response.content[-20:]
        json.loads(response.content)


def test_reason_phrases_are_go_s(server: RunningServer):
    status, _, _ = raw_exchange(
        server, b"GET /api/v1/namespaces/default/configmaps/nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    assert status == "HTTP/1.1 404 Not Found"
    body = json.dumps({"metadata": {"name": "default"}}).encode()
    status, _, _ = raw_exchange(
        server,
        b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body),
    )
    assert status == "HTTP/1.1 409 Conflict"
    status, _, _ = raw_exchange(server, b"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert status == "HTTP/1.1 200 OK"


def test_version_is_the_same_on_every_worker_and_replica(two_workers: RunningServer, server: RunningServer):
    seen = {server.get("/version").text}  # a replica started at another time
    for _ in range(20):  # fresh connections land on both workers
        session = two_workers.new_session()
        seen.add(session.get("/version").text)
        session.close()
    assert len(seen) == 1, seen
    info = json.loads(seen.pop())
    assert info["buildDate"].endswith("Z") and info["gitVersion"].startswith("v1.23.")


def test_base64_with_line_breaks_is_accepted_like_go_does(any_server: RunningServer, kubectl: str):
    payload = bytes(range(256)) * 3
    wrapped = base64.encodebytes(payload).decode().replace("\n", "\r\n")  # 76-character lines, CRLF
    assert "\r\n" in wrapped.strip()
    name = f"wrapped-{any_server.port}"
    created = any_server.session.post(
        "/api/v1/namespaces/default/secrets", json={"metadata": {"name": name}, "data": {"blob": wrapped}}
    )
    assert created.status_code == 201, created.text
    stored = any_server.session.get(f"/api/v1/namespaces/default/secrets/{name}").json()
    assert stored["data"]["blob"] == base64.b64encode(payload).decode()  # normalised, as Go re-encodes it
    # the common case: a YAML block scalar, sent by kubectl
    manifest = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "
        + name
        + "\nbinaryData:\n  blob: |\n"
        + "".join(f"    {line}\n" for line in base64.encodebytes(payload).decode().splitlines())
    )
    import subprocess

    done = subprocess.run(
        [kubectl, "--kubeconfig", str(any_server.kubeconfig), "apply", "-f", "-"],
        input=manifest,
        text=True,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    shown = yaml.safe_load(
        subprocess.run(
            [kubectl, "--kubeconfig", str(any_server.kubeconfig), "get", "configmap", name, "-o", "yaml"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    assert base64.b64decode(shown["binaryData"]["blob"]) == payload


def _status(body: bytes) -> dict:
    status = json.loads(body)
    assert (status["kind"], status["apiVersion"], status["status"]) == ("Status", "v1", "Failure"), status
    assert body.endswith(b"\n")
    return status


@pytest.mark.parametrize(
    ("request_bytes", "code"),
    [
        (b"GET /api/v1/" + b"a" * (1 << 20) + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
        (b"GET /version HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(200)) + b"\r\n", 431),
        (b"GET /version HTTP/1.1\r\nHost: x\r\nX-Big: " + b"v" * 9000 + b"\r\n\r\n", 431),
        (b"FOO BAR\r\n\r\n", 400),
        (b"GET /version HTTP/9.1\r\nHost: x\r\n\r\n", 400),
        (
            (
                b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                b"Content-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"
            ),
            400,
        ),
    ],
    ids=["uri-too-long", "too-many-headers", "header-too-large", "bad-request-line", "bad-version", "bad-chunk"],
)
def test_errors_below_the_app_are_status_bodies(server: RunningServer, request_bytes: bytes, code: int):
    status_line, headers, body = raw_exchange(server, request_bytes)
    assert status_line.split(" ", 2)[1] == str(code), (status_line, body[:300])
    assert headers["content-type"] == "application/json"
    status = _status(body)
    assert status["code"] == code and status["message"]
    # the worker still answers afterwards
    assert server.session.get("/version").status_code == 200


def test_a_long_label_selector_is_served_as_the_reference_serves_it(server: RunningServer):
    """Request lines up to the reference's 1 MiB header limit: a 200 KB selector (a real case: `in (...)` over
    thousands of names) is answered, not refused with 414."""
    names = ",".join(f"name-{i:05d}" for i in range(20000))
    listed = server.session.get("/api/v1/namespaces/default/configmaps", params={"labelSelector": f"app in ({names})"})
    assert len(listed.request.url) > 200_000
    assert listed.status_code == 200, listed.text[:300]
    assert listed.json()["items"] == []
