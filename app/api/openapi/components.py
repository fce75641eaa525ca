"""The component schemas of one document: typed where a declaration exists, permissive otherwise."""

from __future__ import annotations

from ...catalog import Catalog, ResourceType, Subresource
from ...naming import Naming
from ...schema import has_schema, meta, schema_for
from . import permissive
from .dialect import Dialect
from .names import Schema, meta_schema_name, schema_name
from .typed import TypedSchemas

#: meta types every document refers to from its operations (list metadata, Status, DeleteOptions).
SHARED_META = (meta.ObjectMeta, meta.ListMeta, meta.Status, meta.DeleteOptions)


def sub_gvk(rt: ResourceType, sub: Subresource) -> tuple[str, str, str]:
    """The type a subresource reads and writes: its own (scale: autoscaling/v1 Scale) or the parent's."""
    if sub.kind is None:
        return rt.group, rt.version, rt.kind
    group = sub.group if sub.group is not None else rt.group
    return group, sub.version or rt.version, sub.kind


class _Components:
    def __init__(self, catalog: Catalog, naming: Naming, dialect: Dialect):
        self.catalog, self.naming, self.dialect = catalog, naming, dialect
        self.out: dict[str, Schema] = {}
        self.typed = TypedSchemas(naming, dialect, self.out)
        for struct in SHARED_META:
            self.typed.add(struct)
        self.out[meta_schema_name(naming, "Patch")] = dict(permissive.PATCH)

    def _declared(self, group: str, version: str, kind: str) -> bool:
        """Add the typed schema of a kind under the name operations use; False when undeclared."""
        api_version = f"{group}/{version}" if group else version
        if not has_schema(api_version, kind, self.naming):
            return False
        wanted = schema_name(self.naming, group, version, kind)
        name = self.typed.add(schema_for(api_version, kind, self.naming))
        if name != wanted:  # a declaration package named apart from its served group: alias it
            self.out[wanted] = self.dialect.ref(name)
        return True

    def kind(self, group: str, version: str, kind: str, example: dict | None) -> None:
        if schema_name(self.naming, group, version, kind) in self.out or self._declared(group, version, kind):
            return
        self.out[schema_name(self.naming, group, version, kind)] = permissive.kind_schema(
            self.naming, self.dialect, group, version, kind, example
        )

    def list(self, group: str, version: str, kind: str, list_kind: str) -> None:
        if schema_name(self.naming, group, version, list_kind) in self.out or self._declared(group, version, list_kind):
            return
        self.out[schema_name(self.naming, group, version, list_kind)] = permissive.list_schema(
            self.naming, self.dialect, group, version, kind, list_kind
        )

    def resource(self, rt: ResourceType) -> None:
        if rt.custom is not None and schema_name(self.naming, rt.group, rt.version, rt.kind) not in self.out:
            self.out[schema_name(self.naming, rt.group, rt.version, rt.kind)] = permissive.custom_kind_schema(
                self.naming, self.dialect, rt.group, rt.version, rt.kind, rt.custom.schema
            )
        self.kind(rt.group, rt.version, rt.kind, rt.example)
        self.list(rt.group, rt.version, rt.kind, rt.list_kind)
        for sub in rt.subresources:
            g, v, k = sub_gvk(rt, sub)
            other = self.catalog.by_kind(g, k)
            self.kind(g, v, k, other.example if other is not None and other.version == v else None)


def gv_schemas(catalog: Catalog, naming: Naming, dialect: Dialect, types: list[ResourceType]) -> dict[str, Schema]:
    """Every schema the operations of `types` reference, and every schema those reach."""
    components = _Components(catalog, naming, dialect)
    for rt in types:
        components.resource(rt)
    return components.out
