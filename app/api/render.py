"""Encoding responses: JSON (compact, or indented with ?pretty) and YAML."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import orjson
import yaml
from flask import Response, current_app, request

from ..memory import ListMemory

JSON = "application/json"
YAML = "application/yaml"
LIST_MEMORY_KEY = "orch.list_memory"  # app.extensions: the process's ListMemory (absent: no budget)

Result = TypeVar("Result")


def wants_pretty() -> bool:
    value = request.args.get("pretty")
    if value is not None:
        return value.lower() not in ("false", "0")
    agent = request.headers.get("User-Agent", "")
    return agent.startswith(("curl", "Wget", "Mozilla/5.0"))


def encode(obj: Any, media_type: str = JSON, pretty: bool = False) -> bytes:
    if media_type == YAML:
        return yaml.safe_dump(orjson.loads(orjson.dumps(obj)), sort_keys=False).encode()
    if pretty:
        return orjson.dumps(obj, option=orjson.OPT_INDENT_2) + b"\n"
    return orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE)  # the reference's encoder ends every body so


def json_response(obj: Any, code: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON response (YAML when the client asked only for YAML), honouring ?pretty."""
    media = YAML if _prefers_yaml() else JSON
    body = encode(obj, media, wants_pretty())
    resp = Response(body, status=code, mimetype=media)
    resp.headers["Content-Type"] = media
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def _prefers_yaml() -> bool:
    accept = request.headers.get("Accept", "")
    return bool(accept) and accept.split(",")[0].split(";")[0].strip() == YAML


def within_list_memory(
    collection: Hashable,
    decoded: bool,
    load: Callable[[], Result],
    rows: Callable[[Result], list[str]],
    respond: Callable[[Result], Response],
) -> Response:
    """Load and encode a list once its estimated memory fits the budget; the reservation lasts until the
    response is closed (sent or abandoned). `decoded`: the encoding turns every row into Python objects."""
    budget: ListMemory | None = current_app.extensions.get(LIST_MEMORY_KEY)
    if budget is None:
        return respond(load())
    reservation = budget.begin(collection, decoded)
    try:
        result = load()
        reservation.measured(sum(map(len, rows(result))))
        response = respond(result)
    except BaseException:
        reservation.release()
        raise
    response.call_on_close(reservation.release)
    weakref.finalize(response, reservation.release)  # a server that never closes the response still gives it back
    return response
