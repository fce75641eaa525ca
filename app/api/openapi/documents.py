"""Rendering the operation model and the component schemas as OpenAPI v3 (per group-version) and v2."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from ...catalog import Catalog
from ...naming import Naming
from ..discovery import git_version
from .components import gv_schemas
from .dialect import V2, V3
from .names import gvk_extensions
from .operations import Operation, Param, gv_path_items


def _operation_extensions(naming: Naming, op: Operation) -> dict[str, Any]:
    return {naming.openapi_extension("action"): op.action, **gvk_extensions(naming, dict(op.gvk))}


def _v3_param(p: Param) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": p.name,
        "in": p.location,
        "description": p.description,
        "schema": {"type": p.type, "uniqueItems": True},
    }
    if p.required:
        out["required"] = True
    return out


def _v3_operation(naming: Naming, op: Operation) -> dict[str, Any]:
    out: dict[str, Any] = {
        "tags": [op.tag],
        "description": op.description,
        "operationId": op.operation_id,
        "parameters": [_v3_param(p) for p in op.params],
    }
    if op.body:
        out["requestBody"] = {
            "content": {ct: {"schema": V3.ref(op.body)} for ct in op.consumes},
            "required": op.body_required,
        }
    responses: dict[str, Any] = {}
    for code, description, schema in op.responses:
        responses[code] = {"description": description}
        if schema:
            responses[code]["content"] = {ct: {"schema": V3.ref(schema)} for ct in op.produces}
    out["responses"] = responses
    out.update(_operation_extensions(naming, op))
    return out


def _v2_param(p: Param) -> dict[str, Any]:
    out: dict[str, Any] = {
        "uniqueItems": True,
        "type": p.type,
        "description": p.description,
        "name": p.name,
        "in": p.location,
    }
    if p.required:
        out["required"] = True
    return out


def _v2_operation(naming: Naming, op: Operation) -> dict[str, Any]:
    params = [_v2_param(p) for p in op.params]
    if op.body:
        params.insert(0, {"name": "body", "in": "body", "required": op.body_required, "schema": V2.ref(op.body)})
    responses: dict[str, Any] = {}
    for code, description, schema in op.responses:
        responses[code] = {"description": description}
        if schema:
            responses[code]["schema"] = V2.ref(schema)
    out: dict[str, Any] = {
        "description": op.description,
        "consumes": list(op.consumes),
        "produces": list(op.produces),
        "schemes": ["https"],
        "tags": [op.tag],
        "operationId": op.operation_id,
        "parameters": params,
        "responses": responses,
    }
    out.update(_operation_extensions(naming, op))
    return out


def _info(naming: Naming) -> dict[str, str]:
    return {"title": naming.product.capitalize(), "version": git_version()}


_BEARER = {"type": "apiKey", "description": "Bearer Token authentication", "name": "authorization", "in": "header"}


def build_v3_document(catalog: Catalog, naming: Naming, group: str, version: str) -> dict[str, Any] | None:
    """The OpenAPI 3.0 document of one group-version, or None when it is not served."""
    types = catalog.resources(group, version)
    if not types:
        return None
    paths: dict[str, Any] = {}
    for item in gv_path_items(naming, types):
        entry: dict[str, Any] = {m.method: _v3_operation(naming, m) for m in item.operations}
        if item.params:
            entry["parameters"] = [_v3_param(p) for p in item.params]
        paths[item.path] = entry
    return {
        "openapi": "3.0.0",
        "info": _info(naming),
        "paths": paths,
        "components": {
            "schemas": gv_schemas(catalog, naming, V3, types),
            "securitySchemes": {"BearerToken": dict(_BEARER)},
        },
    }


def build_v2_document(catalog: Catalog, naming: Naming) -> dict[str, Any]:
    """One Swagger 2.0 document for every served kind."""
    types = list(catalog)
    paths: dict[str, Any] = {}
    for item in gv_path_items(naming, types):
        entry: dict[str, Any] = {m.method: _v2_operation(naming, m) for m in item.operations}
        if item.params:
            entry["parameters"] = [_v2_param(p) for p in item.params]
        paths[item.path] = entry
    return {
        "swagger": "2.0",
        "info": _info(naming),
        "paths": paths,
        "definitions": gv_schemas(catalog, naming, V2, types),
        "securityDefinitions": {"BearerToken": dict(_BEARER)},
        "security": [{"BearerToken": []}],
    }


def encode_document(doc: dict[str, Any]) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)  # sorted keys keep the hash stable


def document_hash(body: bytes) -> str:
    """Uppercase hex SHA-512, the reference's ETag and `?hash=` value."""
    return hashlib.sha512(body).hexdigest().upper()


def v3_index(hashes: dict[str, str]) -> dict[str, Any]:
    """The /openapi/v3 index from {gv path: document hash}."""
    return {"paths": {p: {"serverRelativeURL": f"/openapi/v3/{p}?hash={h}"} for p, h in hashes.items()}}
