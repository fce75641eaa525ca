"""Rendering every failure once, as a `Status` (never an HTML page or a traceback)."""

from __future__ import annotations

import logging

import orjson
from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException

from ..errors import (
    ApiError,
    InternalError,
    MethodNotAllowed,
    PlainTextError,
    RequestEntityTooLarge,
    ServiceUnavailable,
)
from ..logs import RepeatedErrors
from ..storage import failures

log = logging.getLogger(__name__)
repeated = RepeatedErrors(log)  # an outage fails every request alike: one traceback, then counts
RESOURCE_PREFIXES = ("/api/", "/apis/")


PLAIN_TEXT_HEADERS = {"Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff"}


def status_response(error: ApiError) -> Response:
    if isinstance(error, PlainTextError):
        return Response(f"{error.message}\n", status=error.code, headers={**PLAIN_TEXT_HEADERS, **error.headers})
    body, media = _status_body(error.status())
    resp = Response(body, status=error.code)
    # exactly application/json: some clients parse Status bodies only then
    resp.headers["Content-Type"] = media
    for k, v in error.headers.items():
        resp.headers[k] = v
    return resp


def _status_body(status: dict) -> tuple[bytes, str]:
    """A protobuf Status for clients that asked for our protobuf first, JSON for everyone else."""
    from ..context import services
    from .representation import negotiate

    try:
        naming = services().naming
        rep = negotiate(request.headers.get("Accept"), naming, table=False, protobuf=True)
    except Exception:  # noqa: BLE001 - no app context or an unusable Accept: fall back to JSON
        return orjson.dumps(status, option=orjson.OPT_APPEND_NEWLINE), "application/json"
    if rep.is_protobuf(naming):
        from ..schema import encode_status

        return encode_status(status), rep.media_type
    return orjson.dumps(status, option=orjson.OPT_APPEND_NEWLINE), "application/json"


def install_error_handlers(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def _api_error(error: ApiError) -> Response:
        return status_response(error)

    @app.errorhandler(HTTPException)
    def _http_error(error: HTTPException) -> Response:
        if error.code == 404:
            path = request.path
            if path.startswith(RESOURCE_PREFIXES) or path in ("/api", "/apis"):
                return status_response(
                    ApiError(404, "NotFound", "the server could not find the requested resource", {})
                )
            return Response("404 page not found\n", status=404, headers=PLAIN_TEXT_HEADERS)
        if error.code == 405:
            return status_response(MethodNotAllowed())
        if error.code == 413:
            return status_response(RequestEntityTooLarge("Request entity too large: limit is 3145728"))
        return status_response(ApiError(error.code or 500, "", error.description or error.name))

    @app.errorhandler(Exception)
    def _unexpected(error: Exception) -> Response:
        if failures.went_back(error):  # expected once per failover or restore, and logged by the store
            return status_response(
                ServiceUnavailable(
                    "the server is currently unable to handle the request: the storage backend went back in time "
                    "and its revisions were moved on; retry, and re-list what you watch"
                )
            )
        repeated.log(
            logging.ERROR, "unhandled error serving a request", error=error, context=f"{request.method} {request.path}"
        )
        if failures.is_unavailable(error):  # the log has the driver's words; the client gets no internals
            return status_response(
                ServiceUnavailable(
                    "the server is currently unable to handle the request: the storage backend is unavailable"
                )
            )
        if failures.is_database_error(error):
            return status_response(InternalError("a storage request failed"))
        if failures.is_unreadable(error):  # a value no configured key can read: that object's request fails
            return status_response(InternalError(str(error)))
        return status_response(InternalError(f"{type(error).__name__}: {error}"))
