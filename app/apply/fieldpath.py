"""Field paths and sets of them, ordered and compared as the reference orders them.

A path element selects a child: a struct field or map key (`f:`), an associative-list item by its
key fields (`k:`), a set item by value (`v:`) or a list item by index (`i:`). A `FieldSet` is a
plain set of paths; parents are not implied (the reference's `.` marks a parent that is itself a
member).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from .values import to_string, unwrap, wrap

FIELD, KEY, VALUE, INDEX = range(4)  # the reference's order: field < key < value < index


class PathElement(NamedTuple):
    kind: int
    data: Any  # FIELD: str; KEY: tuple[(name, Val), ...] sorted by name; VALUE: Val; INDEX: int

    def __str__(self) -> str:
        if self.kind == FIELD:
            return "." + self.data
        if self.kind == KEY:
            return "[" + ",".join(f"{name}={to_string(unwrap(v))}" for name, v in self.data) + "]"
        if self.kind == VALUE:
            return f"[={to_string(unwrap(self.data))}]"
        return f"[{self.data}]"

    @property
    def key_fields(self) -> dict[str, Any]:
        """KEY elements: the key fields as plain values."""
        return {name: unwrap(v) for name, v in self.data}

    @property
    def value(self) -> Any:
        """VALUE elements: the set item as a plain value."""
        return unwrap(self.data)


Path = tuple[PathElement, ...]


def field_pe(name: str) -> PathElement:
    return PathElement(FIELD, name)


def key_pe(fields: Mapping[str, Any]) -> PathElement:
    return PathElement(KEY, tuple(sorted((name, wrap(v)) for name, v in fields.items())))


def value_pe(value: Any) -> PathElement:
    return PathElement(VALUE, wrap(value))


def index_pe(index: int) -> PathElement:
    return PathElement(INDEX, index)


def make_path(*parts: Any) -> Path:
    """A path from parts: str = field, dict = list-map key, int = index, PathElement as is."""
    out: list[PathElement] = []
    for part in parts:
        if isinstance(part, PathElement):
            out.append(part)
        elif isinstance(part, str):
            out.append(field_pe(part))
        elif isinstance(part, dict):
            out.append(key_pe(part))
        elif isinstance(part, int) and not isinstance(part, bool):
            out.append(index_pe(part))
        else:
            raise TypeError(f"cannot make a path element of {part!r}")
    return tuple(out)


def path_string(path: Path) -> str:
    """The reference's rendering, e.g. `.spec.template.spec.containers[name="nginx"].image`."""
    return "".join(str(pe) for pe in path)


class FieldSet:
    """An immutable set of field paths."""

    __slots__ = ("_children", "_paths")

    def __init__(self, paths: Iterable[Path] = ()) -> None:
        self._paths: frozenset[Path] = frozenset(tuple(p) for p in paths)
        self._children: dict[PathElement, FieldSet] | None = None

    # -- set protocol -------------------------------------------------------------------------
    def __contains__(self, path: object) -> bool:
        return path in self._paths

    def __iter__(self) -> Iterator[Path]:
        return iter(sorted(self._paths))

    def __len__(self) -> int:
        return len(self._paths)

    def __bool__(self) -> bool:
        return bool(self._paths)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FieldSet) and self._paths == other._paths

    def __hash__(self) -> int:
        return hash(self._paths)

    def __repr__(self) -> str:
        return "FieldSet({" + ", ".join(repr(path_string(p)) for p in self) + "})"

    @property
    def paths(self) -> frozenset[Path]:
        return self._paths

    def __or__(self, other: FieldSet) -> FieldSet:
        return FieldSet(self._paths | other._paths)

    def __and__(self, other: FieldSet) -> FieldSet:
        return FieldSet(self._paths & other._paths)

    def __sub__(self, other: FieldSet) -> FieldSet:
        return FieldSet(self._paths - other._paths)

    union = __or__
    intersection = __and__
    difference = __sub__

    def recursive_difference(self, other: FieldSet) -> FieldSet:
        """Drop every path that is, or lies beneath, a member of `other`."""
        return FieldSet(p for p in self._paths if not any(p[:i] in other._paths for i in range(1, len(p) + 1)))

    def only_under(self, roots: FieldSet) -> FieldSet:
        """Keep the paths that are, or lie beneath, a member of `roots`."""
        return FieldSet(p for p in self._paths if any(p[:i] in roots._paths for i in range(1, len(p) + 1)))

    # -- trie view ----------------------------------------------------------------------------
    def children(self) -> dict[PathElement, FieldSet]:
        """First element -> the set of the rest of the paths below it (members excluded)."""
        if self._children is None:
            groups: dict[PathElement, list[Path]] = {}
            for p in self._paths:
                if len(p) > 1:
                    groups.setdefault(p[0], []).append(p[1:])
            self._children = {pe: FieldSet(rest) for pe, rest in groups.items()}
        return self._children

    def members(self) -> set[PathElement]:
        """The one-element paths, as elements."""
        return {p[0] for p in self._paths if len(p) == 1}

    def with_prefix(self, pe: PathElement) -> FieldSet:
        return self.children().get(pe, EMPTY)

    def prefixed(self, prefix: Path) -> FieldSet:
        return FieldSet(prefix + p for p in self._paths)

    def leaves(self) -> FieldSet:
        """The paths with nothing beneath them in this set."""
        parents = {p[:i] for p in self._paths for i in range(1, len(p))}
        return FieldSet(p for p in self._paths if p not in parents)

    def strings(self) -> list[str]:
        return [path_string(p) for p in self]


EMPTY = FieldSet()
