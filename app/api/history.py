"""Reads of the past on a kind's own paths (docs/history.md): the same URL, the same authorization.

GET <object>?orch.io/history=true          the object's retained revisions (needs `get` on the kind)
GET <collection>?orch.io/history=true       the changes of the collection (needs `list` on the kind)
    &orch.io/since=<RFC 3339>&limit=N&continue=<revision>
GET <object or collection>?orch.io/asOf=<RFC 3339>
                                            the read at the revision the store had then (an Exact read)
"""

from __future__ import annotations

import dataclasses

import orjson
from flask import Response, request

from ..catalog import ResourceType
from ..context import services
from ..errors import BadRequest
from ..registry.options import ListOptions, parse_bool, query_int64

#: the most changes one history page holds (and what it holds without `limit`)
MAX_HISTORY_PAGE = 500


def param(name: str) -> str:
    """A query parameter of ours: under the API domain, so no future upstream parameter can collide."""
    return services().naming.api_key(name)


def wants_history() -> bool:
    return parse_bool(request.args.get(param("history")))


def history(rt: ResourceType, namespace: str | None, name: str | None) -> Response:
    """A RevisionList: the retained changes of the object or collection, oldest first, with who made them."""
    args = request.args
    limit = min(query_int64(args, "limit") or MAX_HISTORY_PAGE, MAX_HISTORY_PAGE)
    after = args.get("continue", "")
    if after and not after.isdigit():
        raise BadRequest(f"continue: invalid value {after!r}: a revision from a RevisionList")
    registry = services().registry
    since = args.get(param("since"), "")
    if since:  # changes since a time the kept history does not reach back to: 410, not a silently short list
        registry.revision_at(since, rt, namespace, name)
    items, mark = registry.history(rt, namespace, name, since=since, after=int(after or 0), limit=limit + 1)
    metadata: dict = {"compactedRevision": str(mark)}
    if len(items) > limit:
        items = items[:limit]
        metadata["continue"] = items[-1]["revision"]
    body = {
        "kind": "RevisionList",
        "apiVersion": f"{services().naming.group('history')}/v1",
        "metadata": metadata,
        "items": items,
    }
    return Response(orjson.dumps(body), 200, mimetype="application/json")


def as_of_revision(rt: ResourceType, namespace: str | None, name: str | None = None) -> str | None:
    """The revision `orch.io/asOf` names (None without it); 400 beside a resourceVersion, 410 before the kept
    history of the object or collection."""
    at = request.args.get(param("asOf"))
    if at is None:
        return None
    if request.args.get("resourceVersion") or request.args.get("resourceVersionMatch"):
        raise BadRequest(f"{param('asOf')} names a time: it may not be sent with resourceVersion")
    return services().registry.revision_at(at, rt, namespace, name)


def as_of_list_options(rt: ResourceType, namespace: str | None, opts: ListOptions) -> ListOptions:
    """A list's options read at the revision `orch.io/asOf` names (unchanged without it)."""
    revision = as_of_revision(rt, namespace)
    if revision is None:
        return opts
    return dataclasses.replace(opts, resource_version=revision, resource_version_match="Exact")
