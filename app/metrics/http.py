"""`GET /metrics`: the Prometheus text format of every worker's metrics (a non-resource URL, authorized as any)."""

from __future__ import annotations

from flask import Blueprint, Response, current_app

from . import CONTENT_TYPE, EXTENSION_KEY

bp = Blueprint("metrics", __name__)


@bp.get("/metrics")
def metrics() -> Response:
    body = current_app.extensions[EXTENSION_KEY].render()
    return Response(body, status=200, headers={"Content-Type": CONTENT_TYPE})
