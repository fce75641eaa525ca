"""How the reference's merge schema sees a declared type: scalar, struct, map or list, with its markers.

Built from `app.schema` declarations the way the reference converts its OpenAPI: lists are atomic
unless marked `set`/`map` (or, without a list type, carry a `merge` patch strategy: `map` keyed by
the merge key, `set` without one); maps and structs are granular unless marked atomic (a field's
marker wins over its type's). Anything undeclared is "deduced", as for schemaless custom resources:
objects are granular maps, lists and scalars are atomic leaves.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from typing import Any, Literal

from ..schema.meta import ObjectMeta
from ..schema.types import FIELDS_V1, OBJECT, RAW_EXTENSION, Field, ListOf, MapOf, Scalar, Struct, TypeSpec
from .fieldpath import PathElement, key_pe, value_pe
from .values import MISSING

Kind = Literal["scalar", "struct", "map", "list", "deduced"]

#: defaults the reference's OpenAPI declares for list-map key fields, used when an item omits the key.
KEY_DEFAULTS: dict[tuple[str, str], Any] = {
    ("ContainerPort", "protocol"): "TCP",
    ("ServicePort", "protocol"): "TCP",
    ("LocalObjectReference", "name"): "",
}
_FREE_FORM = (RAW_EXTENSION, OBJECT, FIELDS_V1)  # OpenAPI "type: object" without properties


class BadItem(ValueError):
    """A list item the list's markers cannot name (the reference's wording in the message)."""


class TypedError(ValueError):
    """An object that does not fit its schema (duplicate keys, missing keys, undeclared fields)."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems  # (path, message)
        super().__init__(self.render())

    def render(self) -> str:
        lines = [f"{path}: {msg}" if path else msg for path, msg in self.problems]
        return lines[0] if len(lines) == 1 else "errors:\n" + "\n".join("  " + line for line in lines)


@dataclass(frozen=True, eq=False)
class TypeNode:
    kind: Kind
    struct: Struct | None = None  # struct kinds (and top-level kinds)
    elem: TypeSpec | None = None  # map values / list items; None = deduced
    atomic: bool = False
    list_type: Literal["atomic", "set", "map"] = "atomic"
    keys: tuple[str, ...] = ()
    top_level: bool = False  # a top-level kind: `apiVersion` and `kind` are declared too
    open: bool = False  # undeclared fields are kept (deduced), as with x-orch-preserve-unknown-fields

    def child(self, key: str) -> TypeNode:
        """The type of a struct field / map value reached by `key`."""
        if self.kind == "struct":
            return self._children.get(key, DEDUCED)
        if self.kind == "map":
            return node_for(self.elem, None)
        return DEDUCED

    def declares(self, key: str) -> bool:
        """Whether `key` is a named struct field (the reference's FindField)."""
        return self.kind == "struct" and key in self._children

    @cached_property
    def _children(self) -> dict[str, TypeNode]:
        """A struct's fields by JSON key, kept on the node: walks ask for them once per object node."""
        assert self.struct is not None
        return _struct_children(self.struct, self.top_level)

    def item(self) -> TypeNode:
        return node_for(self.elem, None)

    @cached_property
    def plain(self) -> bool:
        """Whether no value of this type has fields its typed view fills in (no struct beneath): the view is the
        value itself, and walks that only fill can skip it."""
        if self.kind in ("scalar", "deduced"):
            return True
        return self.kind in ("map", "list") and self.item().plain

    def item_pe(self, item: Any) -> PathElement:
        """The element naming one item of an associative list (raises ValueError as the reference)."""
        if self.list_type == "map":
            if item is None:
                raise BadItem("associative list with keys may not have a null element")
            if not isinstance(item, dict):
                raise BadItem("associative list with keys may not have non-map elements")
            item_struct = self.item().struct
            fields: dict[str, Any] = {}
            for name in self.keys:
                if name in item:
                    fields[name] = item[name]
                elif item_struct is not None and (item_struct.name, name) in KEY_DEFAULTS:
                    fields[name] = KEY_DEFAULTS[(item_struct.name, name)]
            if not fields:
                quoted = "[" + " ".join(f'"{k}"' for k in self.keys) + "]"
                raise BadItem(
                    f"associative list with keys has an element that omits all key fields {quoted} "
                    "(and doesn't have default values for any key fields)"
                )
            return key_pe(fields)
        if isinstance(item, dict):
            raise BadItem("associative list without keys has an element that's a map type")
        if isinstance(item, list):
            raise BadItem("not supported: associative list with lists as elements")
        if item is None:
            raise BadItem("associative list without keys has an element that's an explicit null")
        return value_pe(item)


SCALAR = TypeNode("scalar")
DEDUCED = TypeNode("deduced")


#: a schemaless object (an unstructured custom resource): typed metadata, everything else deduced.
UNSTRUCTURED = Struct("orch.io/unstructured", "Unstructured", [Field("metadata", 1, ObjectMeta)], kind=True)


def root_node(struct: Struct | None) -> TypeNode:
    """The type of a whole object (None: a schemaless object)."""
    if struct is None:
        return TypeNode("struct", struct=UNSTRUCTURED, top_level=True, open=True)
    return TypeNode("struct", struct=struct, atomic=struct.struct_type == "atomic", top_level=True)


@cache
def _scalar_node(spec: Scalar) -> TypeNode:
    """A leaf that knows its type, so an applied value of another JSON type is refused (typed/validate.go)."""
    return TypeNode("scalar", elem=spec)


@lru_cache(maxsize=4096)
def node_for(spec: TypeSpec | None, field: Field | None) -> TypeNode:
    """The node of a value of type `spec`, declared by `field` (None: a map value or list item)."""
    if spec is None or spec in _FREE_FORM:
        return DEDUCED
    if isinstance(spec, Scalar):
        return _scalar_node(spec)
    marker = field.map_type if field is not None else None
    if isinstance(spec, Struct):
        atomic = marker == "atomic" or (marker is None and spec.struct_type == "atomic")
        if not spec.fields:  # an object with no properties: free-form values
            return TypeNode("map", atomic=atomic)
        return TypeNode("struct", struct=spec, atomic=atomic)
    if isinstance(spec, MapOf):
        return TypeNode("map", elem=spec.value, atomic=marker == "atomic")
    if isinstance(spec, ListOf):
        list_type, keys = _list_markers(field)
        return TypeNode("list", elem=spec.item, atomic=list_type == "atomic", list_type=list_type, keys=keys)
    return DEDUCED


def _list_markers(field: Field | None) -> tuple[Literal["atomic", "set", "map"], tuple[str, ...]]:
    if field is None:
        return "atomic", ()
    if field.list_type == "map":
        return "map", tuple(field.list_map_keys)
    if field.list_type in ("set", "atomic"):
        return field.list_type, ()
    if field.patch_strategy in ("merge", "merge,retainKeys"):  # rule 7: a merge strategy reads as a list type
        return ("map", (field.patch_merge_key,)) if field.patch_merge_key else ("set", ())
    return "atomic", ()


@lru_cache(maxsize=1024)
def _struct_children(struct: Struct, top_level: bool) -> dict[str, TypeNode]:
    children = {key: node_for(path[-1].type, path[-1]) for key, path in struct.json_fields.items()}
    if top_level or struct.kind:
        children.setdefault("apiVersion", SCALAR)
        children.setdefault("kind", SCALAR)
    return children


def shape(value: Any) -> str | None:
    """map / list / scalar, or None for null and absent."""
    if value is None or value is MISSING:
        return None
    if isinstance(value, dict):
        return "map"
    return "list" if isinstance(value, list) else "scalar"


def effective(node: TypeNode, *values: Any) -> str:
    """How a node is walked for these values: `leaf`, `map` or `list` (shape mismatches are leaves)."""
    shapes = {shape(v) for v in values} - {None}
    if node.kind == "scalar":
        return "leaf"
    if node.kind == "deduced":
        return "map" if shapes == {"map"} else "leaf"
    want = "list" if node.kind == "list" else "map"
    if shapes - {want}:
        return "leaf"
    return "leaf" if node.atomic else want
