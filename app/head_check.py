"""The head check: a request whose body is still arriving is authenticated and authorized from its head alone, on a
pool thread, while the worker's loop goes on reading the body; a refused request is answered at once, its body
never read, as the reference's handler chain refuses a request before its handler reads the body.

The loop (app/worker.py) decides when to check and sends the answer; this module runs one check on a thread: it
parses the head as gunicorn does, builds the request's environ without a body, and asks the app's chain through
its one entry point (`pipeline.check_head`). See docs/connections.md.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from gunicorn.http import get_parser, wsgi

from .auth.x509 import PEER_CERT_KEY
from .pipeline import check_head


@dataclass(eq=False)
class HeadCheck:
    """One request's check, from the loop's side."""

    head: bytes  # the request head, up to its empty line
    peer_cert: bytes | None  # the verified client leaf (DER), read on the loop: an SSL object is not shared
    expects_continue: bool = False  # the client waits for `100 Continue` before it sends its body
    running: bool = False  # on a thread (else waiting for one of the worker's check slots)
    decided: bool = False  # allowed: the loop reads the body on, and dispatches the request when it is in
    body_in: bool = False  # the body was complete before the verdict: the request waits for it


class AnswerBuffer:
    """The socket a refusal is written to: the loop sends the bytes (its socket is not the thread's to write)."""

    def __init__(self) -> None:
        self.data = bytearray()

    def sendall(self, data: bytes) -> None:
        self.data += data

    def send(self, data: bytes) -> int:
        self.data += data
        return len(data)


def answer_before_body(app: Any, cfg: Any, check: HeadCheck, client: Any, server: Any) -> bytes | None:
    """On a pool thread: the whole answer (`Connection: close`) when the app's chain refuses the request of
    `check.head`, or None when it lets it through or cannot tell from the head (a head gunicorn's parser refuses
    included: the request's own thread answers it as ever)."""
    try:
        request = next(get_parser(cfg, [check.head], client))
    except Exception:  # noqa: BLE001 - gunicorn answers it when the request runs
        return None
    out = AnswerBuffer()
    response, environ = wsgi.create(request, out, client, server, cfg)
    out.data.clear()  # a `100 Continue` gunicorn writes: the loop has sent it already
    environ["wsgi.multithread"] = True
    environ["wsgi.input"] = io.BytesIO()  # the body is not read: the chain decides before any handler would
    environ["CONTENT_LENGTH"] = "0"
    environ.pop("HTTP_TRANSFER_ENCODING", None)
    if check.peer_cert:
        environ[PEER_CERT_KEY] = check.peer_cert
    response.force_close()  # the body was not read: the connection cannot carry another request
    body = check_head(app, environ, response.start_response)
    if body is None:
        return None
    try:
        for chunk in body:
            response.write(chunk)
        response.close()
    finally:
        close = getattr(body, "close", None)
        if close is not None:
            close()
    return bytes(out.data)
