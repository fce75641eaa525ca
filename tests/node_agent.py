"""A stand-in node agent for the tests: HTTPS with client certificates required, answering `/containerLogs/...`
as the kubelet does (plain text; with `follow=true` a chunked body that goes on until the test lets it end)."""
from __future__ import annotations

import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from app import pki


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
    pki.write_pair(pki.issue_client_cert(ca, "apiserver-kubelet-client", ["system:masters"]),
                   tmp / "kubelet-client.crt", tmp / "kubelet-client.key")
    return AgentCertificates(tmp / "agent-ca.crt", tmp / "kubelet-client.crt", tmp / "kubelet-client.key", ca)


@contextmanager
def node_agent(certs: AgentCertificates, tmp: Path, host: str = "127.0.0.1") -> Iterator[NodeAgent]:
    pki.write_pair(pki.issue_serving_cert(certs.client_ca, "node-1", ["127.0.0.1", "node-1"]),
                   tmp / "agent.crt", tmp / "agent.key")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp / "agent.crt", tmp / "agent.key")
    context.verify_mode = ssl.CERT_REQUIRED
    context.load_verify_locations(cafile=str(certs.ca_file))
    agent = NodeAgent(0)

    class Handle(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_: object) -> None:
            pass

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = parse_qs(parts.query)
            peer = self.connection.getpeercert() or {}  # type: ignore[attr-defined]
            subject = ",".join(f"{k}={v}" for rdn in peer.get("subject", ()) for k, v in rdn)
            agent.calls.append((parts.path, query, subject))
            lines = agent.logs.get(parts.path.removeprefix("/containerLogs/"))
            if lines is None:
                self._send(404, b"container not found\n")
                return
            if query.get("follow") != ["true"]:
                self._send(200, "".join(lines).encode())
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

        def _send(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer((host, 0), Handle)
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    agent.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield agent
    finally:
        agent.release.set()
        server.shutdown()
        server.server_close()


def node(name: str, port: int, address: str = "127.0.0.1") -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"addresses": [{"type": "InternalIP", "address": address}],
                       "daemonEndpoints": {"kubeletEndpoint": {"Port": port}}}}
