"""Content negotiation for resource endpoints: which media type to answer in, how to read a body."""
from __future__ import annotations

from dataclasses import dataclass

import orjson
import yaml
from flask import Request

from app.api.render import JSON, YAML
from app.errors import (
    BadRequest,
    RequestEntityTooLarge,
    UnsupportedMediaType,
)

MAX_BODY_BYTES = 3 * 1024 * 1024


@dataclass(frozen=True)
class MediaRange:
    type: str
    params: dict[str, str]


def parse_accept(header: str) -> list[MediaRange]:
    ranges = []
    for part in header.split(","):
        part = part.strip()
        if not part:
            continue
        pieces = [p.strip() for p in part.split(";")]
        params = {}
        for p in pieces[1:]:
            k, _, v = p.partition("=")
            params[k.strip().lower()] = v.strip().strip('"')
        ranges.append(MediaRange(pieces[0].lower(), params))
    return ranges


def read_body(request: Request) -> bytes:
    length = request.content_length
    if length is not None and length > MAX_BODY_BYTES:
        raise RequestEntityTooLarge(f"Request entity too large: limit is {MAX_BODY_BYTES}")
    data = request.stream.read(MAX_BODY_BYTES + 1)
    if len(data) > MAX_BODY_BYTES:
        raise RequestEntityTooLarge(f"Request entity too large: limit is {MAX_BODY_BYTES}")
    return data


def body_media_type(request: Request) -> str:
    return (request.mimetype or JSON).lower()


def decode_object(request: Request, body: bytes, kind: str, version: str, protobuf_types: tuple[str, ...]) -> object:
    """A POST/PUT body as JSON, YAML or (for kinds with a typed schema) protobuf."""
    media = body_media_type(request)
    if media in protobuf_types:
        return _decode_protobuf(body, kind, version)
    if media not in (JSON, YAML, "application/yml", "text/yaml"):
        raise UnsupportedMediaType([JSON, YAML, protobuf_types[0]])
    if not body.strip():
        raise BadRequest(f"the body of the request was empty; expected a {kind}")
    try:
        if media == JSON:
            return orjson.loads(body)
        return yaml.safe_load(body)
    except (orjson.JSONDecodeError, yaml.YAMLError) as exc:
        raise BadRequest(f'{kind} in version "{version}" cannot be handled as a {kind}: {exc}') from None


def _decode_protobuf(body: bytes, kind: str, version: str) -> dict:
    from app.schema import ProtobufError, UnknownKindError
    from app.schema import decode_object as decode_protobuf

    try:
        return decode_protobuf(body)
    except UnknownKindError as exc:
        raise UnsupportedMediaType([JSON, YAML]) from exc
    except ProtobufError as exc:
        raise BadRequest(f'{kind} in version "{version}" cannot be handled as a {kind}: {exc}') from None
