"""OpenAPI documents derived from the catalog: /openapi/v3 (index + one document per group-version)
and /openapi/v2 (one Swagger 2.0 document).

What kubectl needs (notes §5.4): for every kind, a PATCH operation carrying the GVK extension and a
`fieldValidation` query parameter, so `create/apply/replace/edit` validate on the server.

Schema names: `<reversed group or "core">.<version>.<Kind>`, e.g. `core.v1.ConfigMap`,
`apps.v1.Deployment`, `io.orch.certificates.v1.CertificateSigningRequest`; shared metadata types
live in the reversed meta group (`io.orch.meta.v1.ObjectMeta`). Kind schemas are permissive for
now: apiVersion, kind and metadata are described, everything else is a free object that
preserves unknown fields.
"""
from __future__ import annotations

import hashlib
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
from flask import Blueprint, Response, redirect, request

from app.api.discovery import git_version
from app.api.negotiation import parse_accept
from app.catalog import Catalog, ResourceType, Subresource
from app.context import services
from app.errors import NotAcceptable, RouteNotFound
from app.naming import CLIENT_GVK_EXTENSION, Naming

bp = Blueprint("openapi", __name__)

JSON = "application/json"
PATCH_TYPES = ("application/json-patch+json", "application/merge-patch+json",
               "application/strategic-merge-patch+json", "application/apply-patch+yaml")
#: kubectl builds strategic merge patches from the v3 schema when PATCH lists SMP; with permissive
#: schemas that fails ("unable to find api field") and prints a warning, so SMP is advertised only
#: once a kind has a full schema (kubectl then falls back to its compiled-in types, correctly).
ADVERTISE_SMP_WITH_PERMISSIVE_SCHEMAS = False
CACHE_NO = "no-cache, private"
CACHE_IMMUTABLE = "public, immutable"

Schema = dict[str, Any]
RefFn = Callable[[str], Schema]


# ---------------------------------------------------------------------------------------------
# Names


def reversed_group(group: str) -> str:
    return ".".join(reversed(group.split("."))) if group else "core"


def schema_name(group: str, version: str, kind: str) -> str:
    return f"{reversed_group(group)}.{version}.{kind}"


def meta_schema_name(naming: Naming, kind: str) -> str:
    return schema_name(naming.meta_group, "v1", kind)


def gv_path(group: str, version: str) -> str:
    """The key of a group-version in the /openapi/v3 index (`api/v1`, `apis/apps/v1`)."""
    return f"apis/{group}/{version}" if group else f"api/{version}"


def _camel(word: str) -> str:
    return word[:1].upper() + word[1:]


def _gv_word(naming: Naming, group: str, version: str) -> str:
    """`CoreV1`, `AppsV1`, `CertificatesV1`: the group-version part of an operationId."""
    if not group:
        return "Core" + _camel(version)
    suffix = "." + naming.domain
    short = group.removesuffix(suffix)
    parts = short.replace("-", ".").split(".")
    return "".join(_camel(p) for p in parts) + _camel(version)


def gvk(group: str, version: str, kind: str) -> dict[str, str]:
    return {"group": group, "version": version, "kind": kind}


def _gvk_extensions(naming: Naming, value: Any) -> dict[str, Any]:
    # Our spelling plus the one stock kubectl reads (it would otherwise find no operation).
    return {naming.openapi_extension("group-version-kind"): value, CLIENT_GVK_EXTENSION: value}


# ---------------------------------------------------------------------------------------------
# Schemas (JSON Schema fragments shared by v2 and v3; `ref` renders a reference per version)


def _free(naming: Naming, description: str = "") -> Schema:
    out: Schema = {"type": "object", naming.openapi_extension("preserve-unknown-fields"): True}
    if description:
        out["description"] = description
    return out


def _string(description: str = "", fmt: str = "") -> Schema:
    out: Schema = {"type": "string"}
    if fmt:
        out["format"] = fmt
    if description:
        out["description"] = description
    return out


def _integer(description: str = "", fmt: str = "int64") -> Schema:
    return {"type": "integer", "format": fmt, "description": description}


def _string_map(description: str) -> Schema:
    return {"type": "object", "additionalProperties": {"type": "string"}, "description": description}


def _described(ref: Schema, description: str) -> Schema:
    # A $ref's siblings are ignored, so the description rides on an allOf (as the reference does).
    return {"allOf": [ref], "description": description, "default": {}}


def _type_fields() -> dict[str, Schema]:
    return {
        "apiVersion": _string("The versioned schema of this representation of an object."),
        "kind": _string("The REST resource this object represents."),
    }


def meta_schemas(naming: Naming, ref: RefFn) -> dict[str, Schema]:
    """ObjectMeta, ListMeta, Status, DeleteOptions, Patch and their parts."""
    name = lambda kind: meta_schema_name(naming, kind)
    owner = {
        "type": "object",
        "required": ["apiVersion", "kind", "name", "uid"],
        "properties": {
            **_type_fields(),
            "name": _string("Name of the referent."),
            "uid": _string("UID of the referent."),
            "controller": {"type": "boolean", "description": "The owner is the managing controller."},
            "blockOwnerDeletion": {"type": "boolean",
                                   "description": "The owner cannot be deleted before this object."},
        },
    }
    managed = {
        "type": "object",
        "properties": {
            "manager": _string("The workflow managing these fields."),
            "operation": _string("Apply or Update."),
            "apiVersion": _string("The version of the object the fields were set in."),
            "time": _string("When the entry was last changed.", "date-time"),
            "fieldsType": _string("The format of fieldsV1: always FieldsV1."),
            "fieldsV1": _free(naming, "The set of fields, in the FieldsV1 trie format."),
            "subresource": _string("The subresource the fields were written through."),
        },
    }
    object_meta = {
        "type": "object",
        "description": "Metadata every persisted object carries.",
        "properties": {
            "name": _string("Unique within a namespace."),
            "generateName": _string("Prefix for a server-generated name."),
            "namespace": _string("The namespace of a namespaced object."),
            "uid": _string("Unique in time and space; set by the server."),
            "resourceVersion": _string("Opaque version for optimistic concurrency and watches."),
            "generation": _integer("Sequence number of the desired state."),
            "creationTimestamp": _string("When the object was created.", "date-time"),
            "deletionTimestamp": _string("When the object will be deleted.", "date-time"),
            "deletionGracePeriodSeconds": _integer("Seconds allowed for graceful termination."),
            "labels": _string_map("Key/value pairs for selection."),
            "annotations": _string_map("Unstructured key/value data."),
            "ownerReferences": {"type": "array", "items": ref(name("OwnerReference")),
                                "description": "Objects this object depends on."},
            "finalizers": {"type": "array", "items": {"type": "string"},
                           "description": "Conditions to meet before deletion completes."},
            "managedFields": {"type": "array", "items": ref(name("ManagedFieldsEntry")),
                              "description": "Which manager owns which fields."},
            "selfLink": _string("Deprecated; never set."),
        },
    }
    list_meta = {
        "type": "object",
        "properties": {
            "resourceVersion": _string("The revision the list was read at."),
            "continue": _string("Token for the next page."),
            "remainingItemCount": _integer("Estimated number of items after this page."),
            "selfLink": _string("Deprecated; never set."),
        },
    }
    status = {
        "type": "object",
        "description": "The result of an operation that returns no object.",
        "properties": {
            **_type_fields(),
            "metadata": ref(name("ListMeta")),
            "status": _string("Success or Failure."),
            "message": _string("Human-readable description."),
            "reason": _string("Machine-readable reason."),
            "details": _free(naming, "Extended data about the reason."),
            "code": _integer("HTTP status code.", "int32"),
        },
    }
    delete_options = {
        "type": "object",
        "properties": {
            **_type_fields(),
            "gracePeriodSeconds": _integer("Seconds before the object is deleted."),
            "preconditions": {"type": "object", "properties": {
                "uid": _string("Target UID."), "resourceVersion": _string("Target resourceVersion.")}},
            "orphanDependents": {"type": "boolean", "description": "Deprecated: use propagationPolicy."},
            "propagationPolicy": _string("Orphan, Background or Foreground."),
            "dryRun": {"type": "array", "items": {"type": "string"}, "description": "All or empty."},
        },
    }
    patch = {"type": "object", "description": "A PATCH request body in one of the accepted patch formats."}
    return {
        name("ObjectMeta"): object_meta,
        name("OwnerReference"): owner,
        name("ManagedFieldsEntry"): managed,
        name("ListMeta"): list_meta,
        name("Status"): status,
        name("DeleteOptions"): delete_options,
        name("Patch"): patch,
    }


def _example_field(naming: Naming, value: Any) -> Schema | None:
    """A loose schema for a top-level field, typed by its value in the kind's example."""
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string"}
    if isinstance(value, list):
        return {"type": "array", "items": {naming.openapi_extension("preserve-unknown-fields"): True}}
    if isinstance(value, dict):
        return _free(naming)
    return None


def kind_schema(naming: Naming, ref: RefFn, group: str, version: str, kind: str,
                example: dict | None = None) -> Schema:
    """The permissive schema of one kind, carrying its GVK (as a list, like the reference)."""
    props: dict[str, Schema] = {
        **_type_fields(),
        "metadata": _described(ref(meta_schema_name(naming, "ObjectMeta")), "Standard object metadata."),
        "spec": _free(naming, "The desired state (not described yet)."),
        "status": _free(naming, "The observed state (not described yet)."),
        "data": _free(naming, "Data fields (not described yet)."),
    }
    for key, value in (example or {}).items():
        if key not in props and (fragment := _example_field(naming, value)) is not None:
            props[key] = fragment
    gv = f"{group}/{version}" if group else version
    return {
        "description": f"{kind} ({gv}). Fields other than apiVersion, kind and metadata are not described yet.",
        "type": "object",
        "properties": props,
        naming.openapi_extension("preserve-unknown-fields"): True,
        **_gvk_extensions(naming, [gvk(group, version, kind)]),
    }


def list_schema(naming: Naming, ref: RefFn, group: str, version: str, kind: str) -> Schema:
    return {
        "description": f"A list of {kind} objects.",
        "type": "object",
        "required": ["items"],
        "properties": {
            **_type_fields(),
            "items": {"type": "array", "items": ref(schema_name(group, version, kind))},
            "metadata": _described(ref(meta_schema_name(naming, "ListMeta")), "Standard list metadata."),
        },
        **_gvk_extensions(naming, [gvk(group, version, kind + "List")]),
    }


def _sub_gvk(rt: ResourceType, sub: Subresource) -> tuple[str, str, str]:
    """The type a subresource reads and writes: its own (scale: autoscaling/v1 Scale) or the parent's."""
    if sub.kind is None:
        return rt.group, rt.version, rt.kind
    group = sub.group if sub.group is not None else rt.group
    return group, sub.version or rt.version, sub.kind


def gv_schemas(catalog: Catalog, naming: Naming, ref: RefFn, types: list[ResourceType]) -> dict[str, Schema]:
    """Every schema the operations of `types` reference."""
    out = meta_schemas(naming, ref)
    for rt in types:
        out[schema_name(rt.group, rt.version, rt.kind)] = kind_schema(
            naming, ref, rt.group, rt.version, rt.kind, rt.example)
        out[schema_name(rt.group, rt.version, rt.list_kind)] = list_schema(
            naming, ref, rt.group, rt.version, rt.kind)
        for sub in rt.subresources:
            g, v, k = _sub_gvk(rt, sub)
            name = schema_name(g, v, k)
            if name not in out:
                other = catalog.by_kind(g, k)
                example = other.example if other is not None and other.version == v else None
                out[name] = kind_schema(naming, ref, g, v, k, example)
    return out


# ---------------------------------------------------------------------------------------------
# Operations (one model rendered as v3 and as v2)


@dataclass(frozen=True)
class Param:
    name: str
    location: str  # "query" or "path"
    description: str
    type: str = "string"
    required: bool = False


_Q = {
    "pretty": Param("pretty", "query", "If 'true', the output is pretty printed."),
    "dryRun": Param("dryRun", "query", "When present (only 'All'), modifications are not persisted."),
    "fieldManager": Param("fieldManager", "query", "The name of the actor making the change."),
    "fieldValidation": Param("fieldValidation", "query",
                             "How to treat unknown or duplicate fields: Ignore, Warn or Strict."),
    "force": Param("force", "query", "Force an apply request, taking over conflicting fields.", "boolean"),
    "gracePeriodSeconds": Param("gracePeriodSeconds", "query", "Seconds before deletion.", "integer"),
    "orphanDependents": Param("orphanDependents", "query", "Deprecated: use propagationPolicy.",
                              "boolean"),
    "propagationPolicy": Param("propagationPolicy", "query", "Orphan, Background or Foreground."),
    "allowWatchBookmarks": Param("allowWatchBookmarks", "query", "Ask for BOOKMARK watch events.",
                                 "boolean"),
    "continue": Param("continue", "query", "The token of the next page."),
    "fieldSelector": Param("fieldSelector", "query", "Restrict the list by fields."),
    "labelSelector": Param("labelSelector", "query", "Restrict the list by labels."),
    "limit": Param("limit", "query", "Maximum number of items to return.", "integer"),
    "resourceVersion": Param("resourceVersion", "query", "The revision to read or watch from."),
    "resourceVersionMatch": Param("resourceVersionMatch", "query", "Exact or NotOlderThan."),
    "sendInitialEvents": Param("sendInitialEvents", "query", "Start a watch with the current state.",
                               "boolean"),
    "timeoutSeconds": Param("timeoutSeconds", "query", "Bound on the call's duration.", "integer"),
    "watch": Param("watch", "query", "Watch for changes instead of listing.", "boolean"),
}


def _query(*names: str) -> tuple[Param, ...]:
    return tuple(_Q[n] for n in names)


READ_PARAMS = _query("pretty")
WRITE_PARAMS = _query("dryRun", "fieldManager", "fieldValidation", "pretty")
PATCH_PARAMS = _query("dryRun", "fieldManager", "fieldValidation", "force", "pretty")
DELETE_PARAMS = _query("dryRun", "gracePeriodSeconds", "orphanDependents", "propagationPolicy", "pretty")
LIST_PARAMS = _query("allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit",
                     "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds",
                     "watch", "pretty")
DELETECOLLECTION_PARAMS = _query("continue", "dryRun", "fieldSelector", "gracePeriodSeconds",
                                 "labelSelector", "limit", "orphanDependents", "propagationPolicy",
                                 "resourceVersion", "resourceVersionMatch", "sendInitialEvents",
                                 "timeoutSeconds", "pretty")


@dataclass(frozen=True)
class Operation:
    method: str  # get, put, post, patch, delete
    operation_id: str
    action: str  # get, list, post, put, patch, delete, deletecollection
    gvk: dict[str, str]
    tag: str
    description: str
    params: tuple[Param, ...]
    body: str | None  # schema name of the request body
    body_required: bool
    consumes: tuple[str, ...]
    responses: tuple[tuple[str, str, str | None], ...]  # (code, description, schema name)
    produces: tuple[str, ...]


@dataclass
class PathItem:
    path: str
    params: tuple[Param, ...]
    operations: list[Operation] = field(default_factory=list)


def _produces(naming: Naming, stream: bool = False) -> tuple[str, ...]:
    base = (JSON, "application/yaml", naming.protobuf_media_type)
    if stream:
        base += (f"{JSON};stream=watch", f"{naming.protobuf_media_type};stream=watch")
    return base


def _patch_types(rt: ResourceType) -> tuple[str, ...]:
    """The PATCH body types advertised for a kind (per kind: full schemas will re-enable SMP)."""
    if ADVERTISE_SMP_WITH_PERMISSIVE_SCHEMAS:
        return PATCH_TYPES
    return tuple(t for t in PATCH_TYPES if t != "application/strategic-merge-patch+json")


class _OperationBuilder:
    """Builds the operations of one ResourceType in the reference's path shapes."""

    def __init__(self, naming: Naming, rt: ResourceType):
        self.naming, self.rt = naming, rt
        self.gv_word = _gv_word(naming, rt.group, rt.version)
        self.tag = f"{self.gv_word[:1].lower()}{self.gv_word[1:-len(rt.version)]}_{rt.version}"
        self.prefix = f"/apis/{rt.group}/{rt.version}" if rt.group else f"/api/{rt.version}"
        self.scope = "Namespaced" if rt.namespaced else ""
        self.kind_schema = schema_name(rt.group, rt.version, rt.kind)
        self.status_schema = meta_schema_name(naming, "Status")

    def _op(self, method: str, verb_word: str, action: str, params: tuple[Param, ...], *,
            kind: tuple[str, str, str] | None = None, body: str | None = None, body_required: bool = True,
            consumes: tuple[str, ...] = ("*/*",), responses: tuple[tuple[str, str, str | None], ...],
            stream: bool = False, suffix: str = "", id_middle: str | None = None) -> Operation:
        group, version, kind_name = kind or (self.rt.group, self.rt.version, self.rt.kind)
        middle = id_middle if id_middle is not None else f"{self.scope}{self.rt.kind}"
        return Operation(
            method=method, operation_id=f"{verb_word}{self.gv_word}{middle}{suffix}", action=action,
            gvk=gvk(group, version, kind_name), tag=self.tag,
            description=f"{action} {self.rt.kind}{suffix and ' ' + suffix}",
            params=params, body=body, body_required=body_required, consumes=consumes,
            responses=responses + (("401", "Unauthorized", None),), produces=_produces(self.naming, stream),
        )

    def paths(self) -> list[PathItem]:
        rt, verbs = self.rt, set(self.rt.verbs)
        ns = (Param("namespace", "path", "object name and auth scope", required=True),) if rt.namespaced else ()
        name = (Param("name", "path", f"name of the {rt.kind}", required=True),)
        base = f"{self.prefix}/namespaces/{{namespace}}/{rt.plural}" if rt.namespaced else f"{self.prefix}/{rt.plural}"
        out: list[PathItem] = []
        coll = PathItem(base, ns, self._collection_ops(verbs))
        item = PathItem(base + "/{name}", ns + name, self._item_ops(verbs))
        out += [p for p in (coll, item) if p.operations]
        if rt.namespaced and "list" in verbs:
            out.append(PathItem(f"{self.prefix}/{rt.plural}", (), [self._list_all()]))
        for sub in rt.subresources:
            sub_item = PathItem(f"{base}/{{name}}/{sub.name}", ns + name, self._sub_ops(sub))
            if sub_item.operations:
                out.append(sub_item)
        return out

    def _collection_ops(self, verbs: set[str]) -> list[Operation]:
        k, ops = self.kind_schema, []
        if "list" in verbs:
            ops.append(self._op("get", "list", "list", LIST_PARAMS, stream=True,
                                responses=(("200", "OK", schema_name(self.rt.group, self.rt.version,
                                                                     self.rt.list_kind)),)))
        if "create" in verbs:
            ops.append(self._op("post", "create", "post", WRITE_PARAMS, body=k,
                                responses=(("200", "OK", k), ("201", "Created", k), ("202", "Accepted", k))))
        if "deletecollection" in verbs:
            ops.append(self._op("delete", "delete", "deletecollection", DELETECOLLECTION_PARAMS,
                                body=meta_schema_name(self.naming, "DeleteOptions"), body_required=False,
                                responses=(("200", "OK", self.status_schema),),
                                id_middle=f"Collection{self.scope}{self.rt.kind}"))
        return ops

    def _item_ops(self, verbs: set[str]) -> list[Operation]:
        k, ops = self.kind_schema, []
        if "get" in verbs:
            ops.append(self._op("get", "read", "get", READ_PARAMS, responses=(("200", "OK", k),)))
        if "update" in verbs:
            ops.append(self._op("put", "replace", "put", WRITE_PARAMS, body=k,
                                responses=(("200", "OK", k), ("201", "Created", k))))
        if "patch" in verbs:
            ops.append(self._patch(k))
        if "delete" in verbs:
            gone = k if self.rt.return_deleted_object else self.status_schema
            ops.append(self._op("delete", "delete", "delete", DELETE_PARAMS,
                                body=meta_schema_name(self.naming, "DeleteOptions"), body_required=False,
                                responses=(("200", "OK", gone), ("202", "Accepted", gone))))
        return ops

    def _patch(self, schema: str, kind: tuple[str, str, str] | None = None, suffix: str = "") -> Operation:
        return self._op("patch", "patch", "patch", PATCH_PARAMS, kind=kind, suffix=suffix,
                        body=meta_schema_name(self.naming, "Patch"), consumes=_patch_types(self.rt),
                        responses=(("200", "OK", schema), ("201", "Created", schema)))

    def _list_all(self) -> Operation:
        return self._op("get", "list", "list", LIST_PARAMS, stream=True,
                        id_middle=f"{self.rt.kind}ForAllNamespaces",
                        responses=(("200", "OK", schema_name(self.rt.group, self.rt.version, self.rt.list_kind)),))

    def _sub_ops(self, sub: Subresource) -> list[Operation]:
        kind = _sub_gvk(self.rt, sub)
        schema, suffix, verbs, ops = schema_name(*kind), _camel(sub.name), set(sub.verbs), []
        if "get" in verbs:
            ops.append(self._op("get", "read", "get", READ_PARAMS, kind=kind, suffix=suffix,
                                responses=(("200", "OK", schema),)))
        if "create" in verbs:
            ops.append(self._op("post", "create", "post", WRITE_PARAMS, kind=kind, suffix=suffix, body=schema,
                                responses=(("200", "OK", schema), ("201", "Created", schema),
                                           ("202", "Accepted", schema))))
        if "update" in verbs:
            ops.append(self._op("put", "replace", "put", WRITE_PARAMS, kind=kind, suffix=suffix, body=schema,
                                responses=(("200", "OK", schema), ("201", "Created", schema))))
        if "patch" in verbs:
            ops.append(self._patch(schema, kind, suffix))
        if "delete" in verbs:
            ops.append(self._op("delete", "delete", "delete", DELETE_PARAMS, kind=kind, suffix=suffix,
                                body=meta_schema_name(self.naming, "DeleteOptions"), body_required=False,
                                responses=(("200", "OK", self.status_schema),)))
        return ops


def gv_path_items(naming: Naming, types: list[ResourceType]) -> list[PathItem]:
    items: list[PathItem] = []
    for rt in types:
        items.extend(_OperationBuilder(naming, rt).paths())
    return items


# ---------------------------------------------------------------------------------------------
# Rendering


def _v3_ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def _v2_ref(name: str) -> Schema:
    return {"$ref": f"#/definitions/{name}"}


def _operation_extensions(naming: Naming, op: Operation) -> dict[str, Any]:
    return {naming.openapi_extension("action"): op.action, **_gvk_extensions(naming, dict(op.gvk))}


def _v3_param(p: Param) -> dict[str, Any]:
    out: dict[str, Any] = {"name": p.name, "in": p.location, "description": p.description,
                           "schema": {"type": p.type, "uniqueItems": True}}
    if p.required:
        out["required"] = True
    return out


def _v3_operation(naming: Naming, op: Operation) -> dict[str, Any]:
    out: dict[str, Any] = {"tags": [op.tag], "description": op.description, "operationId": op.operation_id,
                           "parameters": [_v3_param(p) for p in op.params]}
    if op.body:
        out["requestBody"] = {"content": {ct: {"schema": _v3_ref(op.body)} for ct in op.consumes},
                              "required": op.body_required}
    responses: dict[str, Any] = {}
    for code, description, schema in op.responses:
        responses[code] = {"description": description}
        if schema:
            responses[code]["content"] = {ct: {"schema": _v3_ref(schema)} for ct in op.produces}
    out["responses"] = responses
    out.update(_operation_extensions(naming, op))
    return out


def _v2_param(p: Param) -> dict[str, Any]:
    out: dict[str, Any] = {"uniqueItems": True, "type": p.type, "description": p.description,
                           "name": p.name, "in": p.location}
    if p.required:
        out["required"] = True
    return out


def _v2_operation(naming: Naming, op: Operation) -> dict[str, Any]:
    params = [_v2_param(p) for p in op.params]
    if op.body:
        params.insert(0, {"name": "body", "in": "body", "required": op.body_required,
                          "schema": _v2_ref(op.body)})
    responses: dict[str, Any] = {}
    for code, description, schema in op.responses:
        responses[code] = {"description": description}
        if schema:
            responses[code]["schema"] = _v2_ref(schema)
    out: dict[str, Any] = {"description": op.description, "consumes": list(op.consumes),
                           "produces": list(op.produces), "schemes": ["https"], "tags": [op.tag],
                           "operationId": op.operation_id, "parameters": params, "responses": responses}
    out.update(_operation_extensions(naming, op))
    return out


def _info(naming: Naming) -> dict[str, str]:
    return {"title": naming.short.capitalize(), "version": git_version()}


_BEARER = {"type": "apiKey", "description": "Bearer Token authentication", "name": "authorization",
           "in": "header"}


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
        "components": {"schemas": gv_schemas(catalog, naming, _v3_ref, types),
                       "securitySchemes": {"BearerToken": dict(_BEARER)}},
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
        "definitions": gv_schemas(catalog, naming, _v2_ref, types),
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


# ---------------------------------------------------------------------------------------------
# Cache: documents are rebuilt only when the catalog's set of types changes


@dataclass(frozen=True)
class Encoded:
    body: bytes
    hash: str

    @classmethod
    def of(cls, doc: dict[str, Any]) -> Encoded:
        body = encode_document(doc)
        return cls(body, document_hash(body))


@dataclass
class _Built:
    types: tuple[ResourceType, ...]
    domain: str
    v3: dict[str, Encoded] = field(default_factory=dict)
    index: Encoded | None = None
    v2: Encoded | None = None

    def matches(self, types: tuple[ResourceType, ...], domain: str) -> bool:
        return domain == self.domain and len(types) == len(self.types) and all(
            a is b for a, b in zip(types, self.types))


_cache: weakref.WeakKeyDictionary[Catalog, _Built] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _built(catalog: Catalog, naming: Naming) -> _Built:
    types = tuple(catalog)
    with _lock:
        entry = _cache.get(catalog)
        if entry is None or not entry.matches(types, naming.domain):
            entry = _cache[catalog] = _Built(types, naming.domain)
        return entry


def v3_documents(catalog: Catalog, naming: Naming) -> _Built:
    entry = _built(catalog, naming)
    if entry.index is None:
        for group, versions in catalog.group_versions().items():
            for version in versions:
                doc = build_v3_document(catalog, naming, group, version)
                if doc is not None:
                    entry.v3[gv_path(group, version)] = Encoded.of(doc)
        entry.index = Encoded.of(v3_index({p: e.hash for p, e in entry.v3.items()}))
    return entry


def v2_document(catalog: Catalog, naming: Naming) -> Encoded:
    entry = _built(catalog, naming)
    if entry.v2 is None:
        entry.v2 = Encoded.of(build_v2_document(catalog, naming))
    return entry.v2


# ---------------------------------------------------------------------------------------------
# HTTP


def _wants_only_protobuf() -> bool:
    """True when every acceptable type in Accept is a protobuf encoding (gnostic or ours)."""
    ranges = [r for r in parse_accept(request.headers.get("Accept", "")) if r.params.get("q") != "0"]
    return bool(ranges) and all(r.type.endswith("protobuf") for r in ranges)


def _serve(doc: Encoded, cache_control: str = CACHE_NO) -> Response:
    if _wants_only_protobuf():
        raise NotAcceptable([JSON])  # gnostic protobuf is not encoded; kubectl then uses v3
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
    return _serve(v2_document(s.catalog, s.naming))


@bp.get("/openapi/v3")
@bp.get("/openapi/v3/")
def get_v3_index() -> Response:
    s = services()
    index = v3_documents(s.catalog, s.naming).index
    assert index is not None  # filled by v3_documents
    return _serve(index)


@bp.get("/openapi/v3/<path:gv>")
def get_v3_document(gv: str) -> Response:
    s = services()
    doc = v3_documents(s.catalog, s.naming).v3.get(gv.strip("/"))
    if doc is None:
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
