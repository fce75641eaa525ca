"""What the tests' stand-in servers (node agent, extension API server, plain HTTP targets) share: a quiet
handler with one way to answer, and a threaded server on a free port for the length of a `with` block."""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class QuietHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_: object) -> None:
        pass

    def client_subject(self) -> str:
        """The client certificate's subject (`commonName=...`), "" without one."""
        peer = self.connection.getpeercert() or {}  # type: ignore[attr-defined]
        return ",".join(f"{k}={v}" for rdn in peer.get("subject", ()) for k, v in rdn)

    def reply(self, status: int, body: bytes, content_type: str = "text/plain") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def reply_json(self, status: int, doc: Any) -> None:
        self.reply(status, json.dumps(doc).encode(), "application/json")


@contextmanager
def serving(
    handler: type[BaseHTTPRequestHandler], host: str = "127.0.0.1", context: ssl.SSLContext | None = None
) -> Iterator[int]:
    """Serve `handler` (over TLS with `context`) on a free port of `host`; yields the port."""
    server = ThreadingHTTPServer((host, 0), handler)
    server.daemon_threads = True
    if context is not None:
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
