"""A stand-in node agent for the tests: HTTPS with client certificates required, answering `/containerLogs/...`
as the kubelet does (plain text; with `follow=true` a chunked body that goes on until the test lets it end)."""

from __future__ import annotations

import base64
import hashlib
import json
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from orch_apiserver import pki

from tests.stand_in import QuietHandler, serving


@dataclass
class NodeAgent:
    port: int
    #: (path, query, client certificate subject) of each request
    calls: list[tuple[str, dict[str, list[str]], str]] = field(default_factory=list)
    #: container path -> log lines
    logs: dict[str, list[str]] = field(default_factory=dict)
    #: set by a test to end a followed log (the agent then writes `later` and closes the body)
    release: threading.Event = field(default_factory=threading.Event)
    later: str = "line after follow\n"
    #: the commands run by exec
    executed: list[list[str]] = field(default_factory=list)


@dataclass
class AgentCertificates:
    """The CA of the agents' serving certificates, and the API server's client certificate for them."""

    ca_file: Path
    client_cert: Path
    client_key: Path
    client_ca: pki.CertKey


def agent_certificates(tmp: Path) -> AgentCertificates:
    ca = pki.create_ca("node-agent-ca")
    pki.write_file(tmp / "agent-ca.crt", ca.cert_pem)
    pki.write_pair(
        pki.issue_client_cert(ca, "apiserver-kubelet-client", ["system:masters"]),
        tmp / "kubelet-client.crt",
        tmp / "kubelet-client.key",
    )
    return AgentCertificates(tmp / "agent-ca.crt", tmp / "kubelet-client.crt", tmp / "kubelet-client.key", ca)


@contextmanager
def node_agent(certs: AgentCertificates, tmp: Path, host: str = "127.0.0.1") -> Iterator[NodeAgent]:
    pki.write_pair(
        pki.issue_serving_cert(certs.client_ca, "node-1", ["127.0.0.1", "node-1"]), tmp / "agent.crt", tmp / "agent.key"
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp / "agent.crt", tmp / "agent.key")
    context.verify_mode = ssl.CERT_REQUIRED
    context.load_verify_locations(cafile=str(certs.ca_file))
    agent = NodeAgent(0)

    class Handle(QuietHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = parse_qs(parts.query)
            agent.calls.append((parts.path, query, self.client_subject()))
            if parts.path.startswith("/exec/"):
                self._exec(query)
                return
            lines = agent.logs.get(parts.path.removeprefix("/containerLogs/"))
            if lines is None:
                self.reply(404, b"container not found\n")
                return
            if query.get("follow") != ["true"]:
                self.reply(200, "".join(lines).encode())
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for text in (*lines, None):
                if text is None:
                    agent.release.wait(30)
                    text = agent.later
                data = text.encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")

        do_POST = do_GET

        def _exec(self, query: dict[str, list[str]]) -> None:
            """`echo` run over the WebSocket channel protocol (v5 or v4.channel.k8s.io), as the node agent does:
            its output on channel 1, then a Success status on channel 3, then the close frame."""
            offered = [p.strip() for p in self.headers.get("Sec-WebSocket-Protocol", "").split(",")]
            protocol = next((p for p in ("v5.channel.k8s.io", "v4.channel.k8s.io") if p in offered), None)
            key = self.headers.get("Sec-WebSocket-Key", "")
            if self.headers.get("Upgrade", "").lower() != "websocket" or protocol is None or not key:
                self.reply(400, b"only WebSocket exec (v5 or v4.channel.k8s.io) is spoken here\n")
                return
            accept = base64.b64encode(hashlib.sha1((key + WEBSOCKET_GUID).encode()).digest()).decode()
            self.wfile.write(
                (
                    f"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    f"Sec-WebSocket-Accept: {accept}\r\nSec-WebSocket-Protocol: {protocol}\r\n\r\n"
                ).encode()
            )
            command = query.get("command", [])
            output = " ".join(command[1:]) + "\n" if command[:1] == ["echo"] else ""
            agent.executed.append(command)
            self.wfile.write(_frame(b"\x01" + output.encode()))
            self.wfile.write(_frame(b"\x03" + json.dumps({"metadata": {}, "status": "Success"}).encode()))
            self.wfile.write(b"\x88\x02\x03\xe8")  # close, 1000: normal closure
            self.wfile.flush()
            self.close_connection = True

    with serving(Handle, host, context) as port:
        agent.port = port
        try:
            yield agent
        finally:
            agent.release.set()


WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def _frame(payload: bytes) -> bytes:
    """One unmasked binary WebSocket frame (a server's)."""
    size = len(payload)
    if size < 126:
        return bytes([0x82, size]) + payload
    return bytes([0x82, 126]) + size.to_bytes(2, "big") + payload


def node(name: str, port: int, address: str = "127.0.0.1") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {
            "addresses": [{"type": "InternalIP", "address": address}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": port}},
        },
    }
