"""OpenAPI documents derived from the catalog and the typed declarations: /openapi/v3 (index + one
document per group-version) and /openapi/v2 (one Swagger 2.0 document).

Modules: `names` (schema names, GVK extensions), `typed` (schemas from `app.schema` declarations),
`permissive` (kinds without a declaration), `components` (the schemas of one document),
`operations` (paths and operations kubectl needs), `documents` (v3/v2 rendering), `gnostic` (v2 as gnostic
protobuf), `cache`, `v2http` (/openapi/v2 negotiation), `http`.
"""

from __future__ import annotations

from .cache import Encoded, v2_document, v3_documents
from .components import gv_schemas
from .dialect import V2, V3, Dialect
from .documents import build_v2_document, build_v3_document, document_hash, encode_document, v3_index
from .http import bp
from .names import gv_path, gvk, meta_schema_name, reversed_group, schema_name
from .operations import ADVERTISE_STRATEGIC_MERGE_PATCH, PATCH_TYPES
from .typed import struct_name

__all__ = [
    "ADVERTISE_STRATEGIC_MERGE_PATCH",
    "PATCH_TYPES",
    "V2",
    "V3",
    "Dialect",
    "Encoded",
    "bp",
    "build_v2_document",
    "build_v3_document",
    "document_hash",
    "encode_document",
    "gv_path",
    "gv_schemas",
    "gvk",
    "meta_schema_name",
    "reversed_group",
    "schema_name",
    "struct_name",
    "v2_document",
    "v3_documents",
    "v3_index",
]
