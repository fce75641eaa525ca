"""HTTP wire details as the reference's Go server writes them: reason phrases and Status bodies for
errors found before the application sees a request; the request class whose query parameters every handler
reads."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import orjson
from flask import Request
from werkzeug.datastructures import ImmutableMultiDict

#: Go's net/http StatusText (the phrase after the code in every status line the reference writes).
GO_STATUS_TEXT = {
    100: "Continue",
    101: "Switching Protocols",
    102: "Processing",
    103: "Early Hints",
    200: "OK",
    201: "Created",
    202: "Accepted",
    203: "Non-Authoritative Information",
    204: "No Content",
    205: "Reset Content",
    206: "Partial Content",
    207: "Multi-Status",
    208: "Already Reported",
    226: "IM Used",
    300: "Multiple Choices",
    301: "Moved Permanently",
    302: "Found",
    303: "See Other",
    304: "Not Modified",
    305: "Use Proxy",
    307: "Temporary Redirect",
    308: "Permanent Redirect",
    400: "Bad Request",
    401: "Unauthorized",
    402: "Payment Required",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    406: "Not Acceptable",
    407: "Proxy Authentication Required",
    408: "Request Timeout",
    409: "Conflict",
    410: "Gone",
    411: "Length Required",
    412: "Precondition Failed",
    413: "Request Entity Too Large",
    414: "Request URI Too Long",
    415: "Unsupported Media Type",
    416: "Requested Range Not Satisfiable",
    417: "Expectation Failed",
    418: "I'm a teapot",
    421: "Misdirected Request",
    422: "Unprocessable Entity",
    423: "Locked",
    424: "Failed Dependency",
    425: "Too Early",
    426: "Upgrade Required",
    428: "Precondition Required",
    429: "Too Many Requests",
    431: "Request Header Fields Too Large",
    451: "Unavailable For Legal Reasons",
    500: "Internal Server Error",
    501: "Not Implemented",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
    505: "HTTP Version Not Supported",
    506: "Variant Also Negotiates",
    507: "Insufficient Storage",
    508: "Loop Detected",
    510: "Not Extended",
    511: "Network Authentication Required",
}
#: Status.reason for the codes an error below the application can have (the reference's StatusReason values)
STATUS_REASONS = {
    400: "BadRequest",
    403: "Forbidden",
    413: "RequestEntityTooLarge",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
}

StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict, StartResponse], Iterable[bytes]]


def status_line(code: int) -> str:
    return f"{code} {GO_STATUS_TEXT.get(code, f'status code {code}')}"


def go_reason_phrases(app: WSGIApp) -> WSGIApp:
    """Rewrite the framework's status line (`404 NOT FOUND`) as Go writes it (`404 Not Found`)."""

    def wsgi(environ: dict, start_response: StartResponse) -> Iterable[bytes]:
        def start(status: str, headers: list, exc_info: Any = None) -> Any:
            code = status[:3]
            return start_response(status_line(int(code)) if code.isdigit() else status, headers, exc_info)

        return app(environ, start)

    return wsgi


def status_body(code: int, message: str) -> bytes:
    """A failure `Status` as JSON, ending with a newline like every body the reference writes."""
    status = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": STATUS_REASONS.get(code, ""),
        "code": code,
    }
    if not status["reason"]:
        del status["reason"]
    return orjson.dumps(status, option=orjson.OPT_APPEND_NEWLINE)


def error_response(code: int, message: str) -> bytes:
    """A whole HTTP/1.1 response carrying a Status, for a connection the application never saw."""
    body = status_body(code, message)
    head = (
        f"HTTP/1.1 {status_line(code)}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body


class QueryArgs(ImmutableMultiDict):
    """Query parameters whose get() of an absent name returns the default at once: werkzeug's raises and catches
    a KeyError subclass each time (~5 µs), and a request asks for several absent ones (dryRun, pretty, watch...)."""

    def get(self, key: Any, default: Any = None, type: Any = None) -> Any:  # type: ignore[override]
        if key not in self:
            return default
        return super().get(key, default, type)


class ApiRequest(Request):
    parameter_storage_class = QueryArgs
