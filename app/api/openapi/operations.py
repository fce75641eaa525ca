"""Operations (one model rendered as v3 and as v2) in the reference's path shapes and operationIds.

What kubectl needs (notes §5.4): for every kind, a PATCH operation carrying the GVK extension and a
`fieldValidation` query parameter, so `create/apply/replace/edit` validate on the server.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...catalog import ResourceType, Subresource
from ...naming import Naming
from .components import sub_gvk
from .names import camel, gv_word, gvk, meta_schema_name, schema_name

JSON = "application/json"
PATCH_TYPES = (
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
)
#: kubectl computes strategic merge patches client-side from the v3 schema (patch-merge-key and
#: patch-strategy in the stock spelling) when PATCH lists SMP; the server answers SMP with 415 until
#: it implements it, so SMP stays unadvertised and kubectl falls back to its compiled-in types.
ADVERTISE_STRATEGIC_MERGE_PATCH = False


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
    "fieldValidation": Param(
        "fieldValidation", "query", "How to treat unknown or duplicate fields: Ignore, Warn or Strict."
    ),
    "force": Param("force", "query", "Force an apply request, taking over conflicting fields.", "boolean"),
    "gracePeriodSeconds": Param("gracePeriodSeconds", "query", "Seconds before deletion.", "integer"),
    "orphanDependents": Param("orphanDependents", "query", "Deprecated: use propagationPolicy.", "boolean"),
    "propagationPolicy": Param("propagationPolicy", "query", "Orphan, Background or Foreground."),
    "allowWatchBookmarks": Param("allowWatchBookmarks", "query", "Ask for BOOKMARK watch events.", "boolean"),
    "continue": Param("continue", "query", "The token of the next page."),
    "fieldSelector": Param("fieldSelector", "query", "Restrict the list by fields."),
    "labelSelector": Param("labelSelector", "query", "Restrict the list by labels."),
    "limit": Param("limit", "query", "Maximum number of items to return.", "integer"),
    "resourceVersion": Param("resourceVersion", "query", "The revision to read or watch from."),
    "resourceVersionMatch": Param("resourceVersionMatch", "query", "Exact or NotOlderThan."),
    "sendInitialEvents": Param("sendInitialEvents", "query", "Start a watch with the current state.", "boolean"),
    "timeoutSeconds": Param("timeoutSeconds", "query", "Bound on the call's duration.", "integer"),
    "watch": Param("watch", "query", "Watch for changes instead of listing.", "boolean"),
}


def _query(*names: str) -> tuple[Param, ...]:
    return tuple(_Q[n] for n in names)


READ_PARAMS = _query("pretty")
WRITE_PARAMS = _query("dryRun", "fieldManager", "fieldValidation", "pretty")
PATCH_PARAMS = _query("dryRun", "fieldManager", "fieldValidation", "force", "pretty")
DELETE_PARAMS = _query("dryRun", "gracePeriodSeconds", "orphanDependents", "propagationPolicy", "pretty")
LIST_PARAMS = _query(
    "allowWatchBookmarks",
    "continue",
    "fieldSelector",
    "labelSelector",
    "limit",
    "resourceVersion",
    "resourceVersionMatch",
    "sendInitialEvents",
    "timeoutSeconds",
    "watch",
    "pretty",
)
DELETECOLLECTION_PARAMS = _query(
    "continue",
    "dryRun",
    "fieldSelector",
    "gracePeriodSeconds",
    "labelSelector",
    "limit",
    "orphanDependents",
    "propagationPolicy",
    "resourceVersion",
    "resourceVersionMatch",
    "sendInitialEvents",
    "timeoutSeconds",
    "pretty",
)


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
    base: tuple[str, ...] = (JSON, "application/yaml", naming.protobuf_media_type)
    if stream:
        base += (f"{JSON};stream=watch", f"{naming.protobuf_media_type};stream=watch")
    return base


def _patch_types() -> tuple[str, ...]:
    """The PATCH body types advertised for every kind."""
    if ADVERTISE_STRATEGIC_MERGE_PATCH:
        return PATCH_TYPES
    return tuple(t for t in PATCH_TYPES if t != "application/strategic-merge-patch+json")


class _OperationBuilder:
    """Builds the operations of one ResourceType in the reference's path shapes."""

    def __init__(self, naming: Naming, rt: ResourceType):
        self.naming, self.rt = naming, rt
        self.gv_word = gv_word(naming, rt.group, rt.version)
        self.tag = f"{self.gv_word[:1].lower()}{self.gv_word[1 : -len(rt.version)]}_{rt.version}"
        self.prefix = f"/apis/{rt.group}/{rt.version}" if rt.group else f"/api/{rt.version}"
        self.scope = "Namespaced" if rt.namespaced else ""
        self.kind_schema = schema_name(naming, rt.group, rt.version, rt.kind)
        self.list_schema = schema_name(naming, rt.group, rt.version, rt.list_kind)
        self.status_schema = meta_schema_name(naming, "Status")

    def _op(
        self,
        method: str,
        verb_word: str,
        action: str,
        params: tuple[Param, ...],
        *,
        kind: tuple[str, str, str] | None = None,
        body: str | None = None,
        body_required: bool = True,
        consumes: tuple[str, ...] = ("*/*",),
        responses: tuple[tuple[str, str, str | None], ...],
        stream: bool = False,
        suffix: str = "",
        id_middle: str | None = None,
    ) -> Operation:
        group, version, kind_name = kind or (self.rt.group, self.rt.version, self.rt.kind)
        middle = id_middle if id_middle is not None else f"{self.scope}{self.rt.kind}"
        return Operation(
            method=method,
            operation_id=f"{verb_word}{self.gv_word}{middle}{suffix}",
            action=action,
            gvk=gvk(group, version, kind_name),
            tag=self.tag,
            description=f"{action} {self.rt.kind}{suffix and ' ' + suffix}",
            params=params,
            body=body,
            body_required=body_required,
            consumes=consumes,
            responses=responses + (("401", "Unauthorized", None),),
            produces=_produces(self.naming, stream),
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
            ops.append(
                self._op(
                    "get",
                    "list",
                    "list",
                    LIST_PARAMS,
                    stream=True,
                    responses=(("200", "OK", self.list_schema),),
                )
            )
        if "create" in verbs:
            ops.append(
                self._op(
                    "post",
                    "create",
                    "post",
                    WRITE_PARAMS,
                    body=k,
                    responses=(("200", "OK", k), ("201", "Created", k), ("202", "Accepted", k)),
                )
            )
        if "deletecollection" in verbs:
            ops.append(
                self._op(
                    "delete",
                    "delete",
                    "deletecollection",
                    DELETECOLLECTION_PARAMS,
                    body=meta_schema_name(self.naming, "DeleteOptions"),
                    body_required=False,
                    responses=(("200", "OK", self.status_schema),),
                    id_middle=f"Collection{self.scope}{self.rt.kind}",
                )
            )
        return ops

    def _item_ops(self, verbs: set[str]) -> list[Operation]:
        k, ops = self.kind_schema, []
        if "get" in verbs:
            ops.append(self._op("get", "read", "get", READ_PARAMS, responses=(("200", "OK", k),)))
        if "update" in verbs:
            ops.append(
                self._op(
                    "put", "replace", "put", WRITE_PARAMS, body=k, responses=(("200", "OK", k), ("201", "Created", k))
                )
            )
        if "patch" in verbs:
            ops.append(self._patch(k))
        if "delete" in verbs:
            gone = k if self.rt.return_deleted_object else self.status_schema
            ops.append(
                self._op(
                    "delete",
                    "delete",
                    "delete",
                    DELETE_PARAMS,
                    body=meta_schema_name(self.naming, "DeleteOptions"),
                    body_required=False,
                    responses=(("200", "OK", gone), ("202", "Accepted", gone)),
                )
            )
        return ops

    def _patch(self, schema: str, kind: tuple[str, str, str] | None = None, suffix: str = "") -> Operation:
        return self._op(
            "patch",
            "patch",
            "patch",
            PATCH_PARAMS,
            kind=kind,
            suffix=suffix,
            body=meta_schema_name(self.naming, "Patch"),
            consumes=_patch_types(),
            responses=(("200", "OK", schema), ("201", "Created", schema)),
        )

    def _list_all(self) -> Operation:
        return self._op(
            "get",
            "list",
            "list",
            LIST_PARAMS,
            stream=True,
            id_middle=f"{self.rt.kind}ForAllNamespaces",
            responses=(("200", "OK", self.list_schema),),
        )

    def _sub_ops(self, sub: Subresource) -> list[Operation]:
        kind = sub_gvk(self.rt, sub)
        schema, suffix, verbs, ops = schema_name(self.naming, *kind), camel(sub.name), set(sub.verbs), []
        if "get" in verbs:
            ops.append(
                self._op(
                    "get", "read", "get", READ_PARAMS, kind=kind, suffix=suffix, responses=(("200", "OK", schema),)
                )
            )
        if "create" in verbs:
            ops.append(
                self._op(
                    "post",
                    "create",
                    "post",
                    WRITE_PARAMS,
                    kind=kind,
                    suffix=suffix,
                    body=schema,
                    responses=(("200", "OK", schema), ("201", "Created", schema), ("202", "Accepted", schema)),
                )
            )
        if "update" in verbs:
            ops.append(
                self._op(
                    "put",
                    "replace",
                    "put",
                    WRITE_PARAMS,
                    kind=kind,
                    suffix=suffix,
                    body=schema,
                    responses=(("200", "OK", schema), ("201", "Created", schema)),
                )
            )
        if "patch" in verbs:
            ops.append(self._patch(schema, kind, suffix))
        if "delete" in verbs:
            ops.append(
                self._op(
                    "delete",
                    "delete",
                    "delete",
                    DELETE_PARAMS,
                    kind=kind,
                    suffix=suffix,
                    body=meta_schema_name(self.naming, "DeleteOptions"),
                    body_required=False,
                    responses=(("200", "OK", self.status_schema),),
                )
            )
        return ops


def gv_path_items(naming: Naming, types: list[ResourceType]) -> list[PathItem]:
    items: list[PathItem] = []
    for rt in types:
        items.extend(_OperationBuilder(naming, rt).paths())
    return items
