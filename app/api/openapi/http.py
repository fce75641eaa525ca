"""HTTP: /openapi/v2 (JSON or gnostic protobuf: v2http), the /openapi/v3 index and one /openapi/v3/<group path>
document per group-version."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import orjson
from flask import Blueprint, Response, redirect, request
from werkzeug.wrappers import Response as BaseResponse

from ...context import services
from ...errors import NotAcceptable, RouteNotFound
from ..aggregation import aggregated_openapi_v2, aggregated_v3_paths, proxy, remote_for_v3_path
from ..negotiation import parse_accept
from .cache import Encoded, v2_document, v3_documents
from .operations import JSON
from .v2http import serve_v2

bp = Blueprint("openapi", __name__)

CACHE_NO = "no-cache, private"
CACHE_IMMUTABLE = "public, immutable"


def _wants_only_protobuf() -> bool:
    """True when every acceptable type in Accept is a protobuf encoding (gnostic v3 or ours)."""
    ranges = [r for r in parse_accept(request.headers.get("Accept", "")) if r.params.get("q") != "0"]
    return bool(ranges) and all(r.type.endswith("protobuf") for r in ranges)


def _serve(doc: Encoded, cache_control: str = CACHE_NO) -> Response:
    if _wants_only_protobuf():
        raise NotAcceptable([JSON])  # v3 is JSON only
    etag = f'"{doc.hash}"'
    headers = {"ETag": etag, "Vary": "Accept", "Cache-Control": cache_control}
    if request.if_none_match.contains_weak(doc.hash):
        return Response(status=304, headers=headers)
    resp = Response(doc.body, status=200, headers=headers)
    resp.headers["Content-Type"] = JSON
    return resp


@bp.get("/openapi/v2")
def get_v2() -> Response:
    s = services()
    return serve_v2(with_extensions(v2_document(s.catalog, s.naming), aggregated_openapi_v2()))


_merged: dict[tuple, Encoded] = {}


def with_extensions(local: Encoded, extensions: dict[str, dict]) -> Encoded:
    """The local document with the extension servers' paths and definitions (the local ones win), built once
    per combination of documents."""
    if not extensions:
        return local
    key = (local.hash, *sorted((name, doc["hash"]) for name, doc in extensions.items()))
    found = _merged.get(key)
    if found is None:
        merged = orjson.loads(local.body)
        for doc in extensions.values():
            merged["paths"].update({p: v for p, v in doc["paths"].items() if p not in merged["paths"]})
            merged.setdefault("definitions", {}).update(
                {n: v for n, v in doc["definitions"].items() if n not in merged["definitions"]}
            )
        _merged.clear()  # one combination is current; older ones are never asked for again
        found = _merged[key] = Encoded.of(merged)
    return found


@bp.get("/openapi/v3")
@bp.get("/openapi/v3/")
def get_v3_index() -> Response:
    s = services()
    index = v3_documents(s.catalog, s.naming).index
    assert index is not None  # filled by v3_documents
    remotes = aggregated_v3_paths()
    if remotes:  # extension servers' group versions: their documents are fetched from them (get_v3_document)
        merged = orjson.loads(index.body)
        merged["paths"].update({path: {"serverRelativeURL": f"/openapi/v3/{path}"} for path in remotes})
        index = Encoded.of(merged)
    return _serve(index)


@bp.get("/openapi/v3/<path:gv>")
def get_v3_document(gv: str) -> BaseResponse:
    s = services()
    doc = v3_documents(s.catalog, s.naming).v3.get(gv.strip("/"))
    if doc is None:
        remote = remote_for_v3_path(gv.strip("/"))
        if remote is not None:
            return proxy(remote)
        raise RouteNotFound()
    wanted = request.args.get("hash")
    if wanted is None:
        return _serve(doc)
    if wanted != doc.hash:
        # A stale link: send the client to the current document, as the reference does.
        return redirect(f"/openapi/v3/{gv.strip('/')}?hash={doc.hash}", code=301)
    resp = _serve(doc, CACHE_IMMUTABLE)
    expires = datetime.now(UTC) + timedelta(days=365)
    resp.headers["Expires"] = expires.strftime("%a, %d %b %Y %H:%M:%S GMT")
    return resp
