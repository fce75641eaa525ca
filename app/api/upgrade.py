"""Connect subresources that switch protocols (pods/exec, pods/attach, pods/portforward): the request, with its
Upgrade headers (SPDY or WebSocket, X-Stream-Protocol-Version), goes on to the node agent over TLS with the
server's node-agent client certificate; if the agent switches protocols, its answer and every byte after it
are passed between the two connections until either side closes. The client's connection is taken from the
worker (app/api/handoff.py); a server process that cannot hand it over answers 400."""

from __future__ import annotations

import contextlib
import selectors
import socket
import ssl
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

from flask import Response, current_app, request

from ..errors import BadRequest, InternalError
from ..registry.connect import NodeLocation
from .handoff import DETACH_KEY

CONNECT_TIMEOUT = 10.0
HEAD_LIMIT = 64 * 1024
#: request headers the agent needs to switch protocols (and those that describe the request)
_PASSED = (
    "upgrade",
    "connection",
    "sec-websocket-key",
    "sec-websocket-version",
    "sec-websocket-protocol",
    "sec-websocket-extensions",
    "x-stream-protocol-version",
    "user-agent",
    "origin",
)


UPGRADE_KEY = "orch.upgrade"


def websocket_routing(wsgi_app: Any) -> Any:
    """Werkzeug routes a WebSocket upgrade only to rules declared for WebSockets; this server passes such
    requests on (exec, attach), so the upgrade is kept aside where routing does not look."""

    def app(environ: dict[str, Any], start_response: Any) -> Any:
        if environ.get("HTTP_UPGRADE", "").lower() == "websocket":
            environ[UPGRADE_KEY] = environ.pop("HTTP_UPGRADE")
        return wsgi_app(environ, start_response)

    return app


def _upgrade() -> str:
    return request.headers.get("Upgrade") or request.environ.get(UPGRADE_KEY, "")


def upgrade_to_node(location: NodeLocation | None) -> Response:
    if not _upgrade():
        raise BadRequest("Upgrade request required")
    if location is None:
        raise BadRequest("pod is not assigned to a node yet")
    detach = request.environ.get(DETACH_KEY)
    if detach is None:
        raise BadRequest("this server process cannot pass protocol upgrades on")
    agent = _connect(location)
    try:
        agent.sendall(_request_head(location))
        head, extra = _read_head(agent)
    except OSError as err:
        agent.close()
        raise InternalError(f"error dialing backend: {err}") from None
    status, headers = _parse_head(head)
    if status != 101:  # the agent refused: its answer, as it gave it
        body = extra + _read_rest(agent, headers, len(extra))
        agent.close()
        kept = [(k, v) for k, v in headers if k.lower() not in ("connection", "transfer-encoding", "content-length")]
        return Response(body, status, headers=kept)

    def stream() -> Iterator[bytes]:
        try:
            handoff = detach(raw=True)
        except BaseException:
            agent.close()
            raise
        try:
            handoff.sock.setblocking(True)
            handoff.sock.sendall(head + extra)
            splice(handoff.sock, agent)
        except OSError:
            pass  # either side went away: the session is over
        finally:
            agent.close()
            handoff.release(False)
        yield from ()

    return Response(stream(), 200)


def _connect(location: NodeLocation) -> ssl.SSLSocket:
    config = current_app.config
    context = ssl.create_default_context(cafile=config.get("KUBELET_CERTIFICATE_AUTHORITY"))
    if not config.get("KUBELET_CERTIFICATE_AUTHORITY"):  # the reference's default: the agent is not verified
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    else:
        context.check_hostname = False  # agents' certificates name the node, not the address dialled
    if config.get("KUBELET_CLIENT_CERTIFICATE"):
        context.load_cert_chain(config["KUBELET_CLIENT_CERTIFICATE"], config.get("KUBELET_CLIENT_KEY"))
    try:
        raw = socket.create_connection((location.host, location.port), timeout=CONNECT_TIMEOUT)
        agent = context.wrap_socket(raw, server_hostname=location.host)
    except OSError as err:
        raise InternalError(f"error dialing backend: {err}") from None
    agent.settimeout(None)
    return agent


def _request_head(location: NodeLocation) -> bytes:
    target = location.call.path + (f"?{urlencode(location.call.query)}" if location.call.query else "")
    host = f"[{location.host}]" if ":" in location.host else location.host
    lines = [f"{request.method} {target} HTTP/1.1", f"Host: {host}:{location.port}", "Content-Length: 0"]
    lines += [f"{k}: {v}" for k, v in request.headers.items() if k.lower() in _PASSED and k.lower() != "upgrade"]
    lines.append(f"Upgrade: {_upgrade()}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _read_head(sock: ssl.SSLSocket) -> tuple[bytes, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk or len(data) > HEAD_LIMIT:
            raise ConnectionError("the node agent closed the connection before answering")
        data += chunk
    end = data.index(b"\r\n\r\n") + 4
    return data[:end], data[end:]


def _parse_head(head: bytes) -> tuple[int, list[tuple[str, str]]]:
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    try:
        status = int(parts[1])
    except (IndexError, ValueError):
        raise InternalError(f"the node agent answered {lines[0]!r}") from None
    headers = [(k.strip(), v.strip()) for k, _, v in (line.partition(":") for line in lines[1:] if line)]
    return status, headers


def _read_rest(sock: ssl.SSLSocket, headers: list[tuple[str, str]], have: int) -> bytes:
    length = next((int(v) for k, v in headers if k.lower() == "content-length" and v.isdigit()), None)
    data = b""
    sock.settimeout(CONNECT_TIMEOUT)
    with contextlib.suppress(OSError):
        while length is None or have + len(data) < length:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    return data


def splice(one: Any, other: Any) -> None:
    """Copy bytes both ways until either side closes; one thread, so neither TLS connection is used by two
    threads at once (TLS records already decrypted are drained through `pending()`)."""
    pairs = {one: other, other: one}
    for source, target in pairs.items():  # what was decrypted before the loop starts
        while getattr(source, "pending", lambda: 0)():
            target.sendall(source.recv(65536))
    with selectors.DefaultSelector() as selector:
        for sock in pairs:
            selector.register(sock, selectors.EVENT_READ)
        while True:
            for key, _ in selector.select():
                source = key.fileobj
                target = pairs[source]  # type: ignore[index]
                data = source.recv(65536)  # type: ignore[union-attr]
                if not data:
                    return
                target.sendall(data)
                while getattr(source, "pending", lambda: 0)():
                    target.sendall(source.recv(65536))  # type: ignore[union-attr]
