"""Serving /openapi/v2 as the reference's kube-openapi handler does: JSON or gnostic protobuf by Accept, one ETag
for both (Vary: Accept), Last-Modified and conditional requests, gzip when the client accepts it."""

from __future__ import annotations

import gzip
from email.utils import formatdate, parsedate_to_datetime

import orjson
from flask import Response, request

from ...errors import NotAcceptable
from ..negotiation import MediaRange, parse_accept
from .cache import Encoded
from .gnostic import encode_document as gnostic_document
from .operations import JSON

GNOSTIC_V2 = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
GNOSTIC_V2_DEPRECATED = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"  # what kubectl asks for
# (offered type, Content-Type answered): both protobuf names are answered with the current one
OFFERS = ((JSON, JSON), (GNOSTIC_V2_DEPRECATED, GNOSTIC_V2), (GNOSTIC_V2, GNOSTIC_V2))
GZIP_MIN_SIZE = 1400  # the reference's gziphandler leaves smaller bodies as they are
CACHE_CONTROL = "no-cache, private"


def _quality(r: MediaRange) -> float:
    try:
        return float(r.params.get("q", "1"))
    except ValueError:
        return 0.0


def negotiate(accept: str) -> str | None:
    """The Content-Type to answer with: clauses by quality, then exact before wildcard types; the first offer the
    first clause matches wins (JSON for */*). None when nothing is acceptable."""
    ranges = [r for r in parse_accept(accept or "*/*") if _quality(r) > 0]
    split = [(r, *(r.type.split("/", 1) if "/" in r.type else (r.type, "*"))) for r in ranges]
    split.sort(key=lambda item: (-_quality(item[0]), item[1] == "*", item[2] == "*"))
    for _, main, sub in split:
        for offered, answered in OFFERS:
            offered_main, offered_sub = offered.split("/", 1)
            if main in ("*", offered_main) and sub in ("*", offered_sub):
                return answered
    return None


def _accepts_gzip() -> bool:
    return any(r.type == "gzip" and _quality(r) > 0 for r in parse_accept(request.headers.get("Accept-Encoding", "")))


def _not_modified(doc: Encoded) -> bool:
    if request.headers.get("If-None-Match") is not None:
        return request.if_none_match.contains_weak(doc.hash)
    since = request.headers.get("If-Modified-Since")
    if since is None:
        return False
    try:
        return int(doc.modified) <= parsedate_to_datetime(since).timestamp()
    except (TypeError, ValueError):
        return False  # an unreadable date is ignored, as Go's ServeContent does


def serve_v2(doc: Encoded) -> Response:
    content_type = negotiate(request.headers.get("Accept", ""))
    if content_type is None:
        raise NotAcceptable([JSON, GNOSTIC_V2])
    headers = {
        "ETag": f'"{doc.hash}"',
        "Vary": "Accept, Accept-Encoding",
        "Cache-Control": CACHE_CONTROL,
        "Last-Modified": formatdate(int(doc.modified), usegmt=True),
    }
    if _not_modified(doc):
        return Response(status=304, headers=headers)
    body = doc.body
    if content_type != JSON:
        body = doc.form("gnostic", lambda: gnostic_document(orjson.loads(doc.body)))
    if len(body) >= GZIP_MIN_SIZE and _accepts_gzip():
        plain = body
        body = doc.form(f"{content_type}+gzip", lambda: gzip.compress(plain, compresslevel=6, mtime=0))
        headers["Content-Encoding"] = "gzip"
    resp = Response(body, status=200, headers=headers)
    resp.headers["Content-Type"] = content_type
    return resp
