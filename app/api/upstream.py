"""Requests the server passes on to another HTTP server (extension API servers, pods, services, node agents):
the client's request less its hop-by-hop and credential headers, the answer streamed back as it arrives."""

from __future__ import annotations

from collections.abc import Iterator

import urllib3
from flask import Response, request

from ..durations import parse_duration
from ..errors import ApiError, ServiceUnavailable
from .upgrade import UPGRADE_KEY

CONNECT_TIMEOUT = 10.0
DEFAULT_TIMEOUT = 60.0  # the reference's --request-timeout
#: request headers that describe the hop or the caller's credentials, never passed on
_DROPPED = frozenset(
    {
        "host",
        "authorization",
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "content-length",
        "proxy-authorization",
    }
)
_DROPPED_ANSWER = frozenset({"connection", "keep-alive", "transfer-encoding", "trailer", "upgrade"})


class Timeout(ApiError):
    def __init__(self) -> None:
        super().__init__(
            504, "Timeout", "Timeout: request did not complete within requested timeout - context deadline exceeded", {}
        )


def client_headers(also_dropped: tuple[str, ...] = ()) -> urllib3.HTTPHeaderDict:
    """The request's headers to pass on: no hop-by-hop, credential or impersonation headers, nor those starting
    with any of `also_dropped` (lower case)."""
    headers = urllib3.HTTPHeaderDict()
    for key, value in request.headers.items():
        lower = key.lower()
        if lower in _DROPPED or lower.startswith(("impersonate-", *also_dropped)):
            continue
        headers.add(key, value)
    return headers


def forward(pool: urllib3.PoolManager, url: str, headers: urllib3.HTTPHeaderDict) -> Response:
    """The request sent on to `url`; its answer as a streamed response. Watches and followed logs wait for
    ever; other requests DEFAULT_TIMEOUT or the request's shorter `?timeout=` (then 504)."""
    if request.headers.get("Upgrade") or request.environ.get(UPGRADE_KEY):
        raise ApiError(400, "BadRequest", "upgrade requests are not proxied here", {})
    try:
        upstream = pool.request(
            request.method,
            url,
            body=request.get_data() or None,
            headers=headers,
            preload_content=False,
            redirect=False,
            decode_content=False,
            timeout=urllib3.Timeout(connect=CONNECT_TIMEOUT, read=None if _is_stream() else _timeout()),
        )
    except urllib3.exceptions.ReadTimeoutError:
        raise Timeout() from None
    except (urllib3.exceptions.HTTPError, OSError) as err:
        raise ServiceUnavailable(f"error trying to reach service: {getattr(err, 'reason', None) or err}") from None
    answer = [(k, v) for k, v in upstream.headers.items() if k.lower() not in _DROPPED_ANSWER]
    response = Response(_body(upstream), upstream.status, headers=answer)
    response.headers["X-Accel-Buffering"] = "no"
    return response


def _is_stream() -> bool:
    args = request.args
    return (
        args.get("watch") in ("1", "true", "True") or args.get("follow") in ("1", "true") or "/watch/" in request.path
    )


def _timeout() -> float:
    text = request.args.get("timeout")
    if text:
        try:
            return min(parse_duration(text), DEFAULT_TIMEOUT) or DEFAULT_TIMEOUT
        except ValueError:
            pass
    return DEFAULT_TIMEOUT


def _body(upstream: urllib3.BaseHTTPResponse) -> Iterator[bytes]:
    """What the other server sent, as it arrives (read1: a long answer without chunks is not held back); an
    answer cut short aborts this one too, so the client sees the break instead of a shorter body."""
    try:
        if upstream.chunked:
            yield from upstream.stream(64 * 1024, decode_content=False)
        else:
            while data := upstream.read1(64 * 1024, decode_content=False):
                yield data
    except (urllib3.exceptions.HTTPError, OSError):
        raise ConnectionAbortedError("the other server closed the connection mid-answer") from None
    finally:
        upstream.release_conn()
