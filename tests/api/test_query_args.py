"""Query parameters read the way werkzeug's do, absent names included (answered without raising inside)."""

from __future__ import annotations

from orch_apiserver import create_app
from orch_apiserver.api.wire import ApiRequest, QueryArgs


def test_get_answers_as_werkzeug_does() -> None:
    args = QueryArgs([("limit", "5"), ("watch", "true"), ("labelSelector", "a=b"), ("labelSelector", "c=d")])
    assert args.get("absent") is None
    assert args.get("absent", "default") == "default"
    assert args.get("limit", type=int) == 5
    assert args.get("watch", 0, type=int) == 0  # a value the type refuses: the default
    assert args.get("labelSelector") == "a=b"  # the first of repeated values
    assert args.getlist("labelSelector") == ["a=b", "c=d"]


def test_the_app_reads_queries_with_them(tmp_path) -> None:  # type: ignore[no-untyped-def]
    app = create_app({"DATA_DIR": str(tmp_path), "BACKGROUND": False})
    assert app.request_class is ApiRequest
    with app.test_request_context("/api/v1/pods?limit=2&dryRun=All"):
        from flask import request

        assert isinstance(request.args, QueryArgs)
        assert request.args.get("limit", type=int) == 2 and request.args.get("pretty") is None
