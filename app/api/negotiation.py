"""Content negotiation for resource endpoints: which media type to answer in, how to read a body."""

from __future__ import annotations

from dataclasses import dataclass

import orjson
import yaml
from flask import Request

from ..errors import BadRequest, RequestEntityTooLarge, UnsupportedMediaType
from ..naming import CLIENT_PROTOBUF_MEDIA_TYPE, Naming
from . import yamldoc
from .render import JSON, YAML

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
    try:
        data = request.stream.read(MAX_BODY_BYTES + 1)
    except Exception as exc:  # noqa: BLE001 - the server's framing errors (bad chunked encoding) are the client's
        raise BadRequest(f"error reading the request body: {exc}") from None
    if len(data) > MAX_BODY_BYTES:
        raise RequestEntityTooLarge(f"Request entity too large: limit is {MAX_BODY_BYTES}")
    return data


def body_media_type(request: Request) -> str:
    return (request.mimetype or JSON).lower()


def decode_object(request: Request, body: bytes, kind: str, version: str, naming: Naming) -> object:
    """A POST/PUT body as JSON, YAML or (for kinds with a typed schema) protobuf."""
    media = body_media_type(request)
    protobuf_types = (naming.protobuf_media_type, CLIENT_PROTOBUF_MEDIA_TYPE)
    if media in protobuf_types:
        return _decode_protobuf(body, kind, version, naming)
    if media not in (JSON, YAML, "application/yml", "text/yaml"):
        raise UnsupportedMediaType([JSON, YAML, protobuf_types[0]])
    if not body.strip():
        raise BadRequest(f"the body of the request was empty; expected a {kind}")
    try:
        if media == JSON:
            return orjson.loads(body)
        return yamldoc.load(body)
    except (orjson.JSONDecodeError, yaml.YAMLError) as exc:
        raise BadRequest(f'{kind} in version "{version}" cannot be handled as a {kind}: {exc}') from None


def _decode_protobuf(body: bytes, kind: str, version: str, naming: Naming) -> dict:
    """Our protobuf, or a stock client's: its upstream group spelling is read as ours (kubectl create
    token sends an authentication.k8s.io TokenRequest); the object keeps the spelling it came with."""
    from ..schema import ProtobufError, UnknownKindError, decode_envelope, protobuf_available, schema_for
    from ..schema import decode as decode_message

    try:
        api_version, body_kind, raw = decode_envelope(body)
        if not protobuf_available(naming.from_client_api_version(api_version), body_kind, naming):
            raise UnknownKindError(f"{body_kind} is served as JSON and YAML only")
        struct = schema_for(naming.from_client_api_version(api_version), body_kind, naming)
        return {"apiVersion": api_version, "kind": body_kind, **decode_message(struct, raw)}
    except UnknownKindError as exc:
        raise UnsupportedMediaType([JSON, YAML]) from exc
    except ProtobufError as exc:
        raise BadRequest(f'{kind} in version "{version}" cannot be handled as a {kind}: {exc}') from None
