"""What changed between two versions of an object, as sets of removed, modified and added fields.

The reference's comparison: leaves (scalars, atomic values, and lists or maps empty on both
sides) are compared by value; a granular node that appears or disappears is itself added or
removed; associative-list items are matched by key, and duplicated keys are compared as a whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .fieldpath import FieldSet, Path, PathElement, field_pe
from .typed import item_pes
from .typeinfo import TypeNode, effective
from .values import MISSING, same


@dataclass(frozen=True)
class Comparison:
    removed: FieldSet
    modified: FieldSet
    added: FieldSet

    @property
    def changed(self) -> FieldSet:
        """Modified and added: what a write takes over."""
        return self.modified | self.added

    def is_same(self) -> bool:
        return not (self.removed or self.modified or self.added)

    def filtered(self, keep: Any) -> Comparison:
        """Each set passed through `keep` (a FieldSet -> FieldSet filter)."""
        return Comparison(keep(self.removed), keep(self.modified), keep(self.added))


def compare(lhs: Any, rhs: Any, node: TypeNode) -> Comparison:
    """Compare `lhs` (old) with `rhs` (new); raises TypedError for an unkeyable list item."""
    out: tuple[set[Path], set[Path], set[Path]] = (set(), set(), set())
    _compare(lhs, rhs, node, (), out)
    return Comparison(FieldSet(out[0]), FieldSet(out[1]), FieldSet(out[2]))


def _compare(lhs: Any, rhs: Any, node: TypeNode, path: Path, out: tuple[set[Path], ...]) -> None:
    removed, modified, added = out
    how = effective(node, lhs, rhs)
    if how == "list" and not _nonempty(lhs) and not _nonempty(rhs):
        how = "leaf"  # empty or null on both sides: keep the empty/null distinction
    if how == "map" and not _nonempty(lhs) and not _nonempty(rhs):
        how = "leaf"
    if how == "leaf":
        if lhs is MISSING:
            added.add(path)
        elif rhs is MISSING:
            removed.add(path)
        elif not same(lhs, rhs):
            modified.add(path)
        return
    if how == "list":
        _compare_items(lhs, rhs, node, path, out)
    else:
        left = lhs if isinstance(lhs, dict) else {}
        right = rhs if isinstance(rhs, dict) else {}
        for key in [*left, *(k for k in right if k not in left)]:
            _compare(left.get(key, MISSING), right.get(key, MISSING), node.child(key), path + (field_pe(key),), out)
    if lhs is MISSING:
        added.add(path)
    elif rhs is MISSING:
        removed.add(path)


def _nonempty(value: Any) -> bool:
    return isinstance(value, (dict, list)) and len(value) > 0


def _compare_items(lhs: Any, rhs: Any, node: TypeNode, path: Path, out: tuple[set[Path], ...]) -> None:
    removed, modified, added = out
    left = lhs if isinstance(lhs, list) else []
    right = rhs if isinstance(rhs, list) else []
    order: list[PathElement] = []
    left_items: dict[PathElement, list[Any]] = {}
    right_items: dict[PathElement, list[Any]] = {}
    for pe, item in zip(item_pes(node, left, path), left):
        if pe not in left_items:
            order.append(pe)
        left_items.setdefault(pe, []).append(item)
    for pe, item in zip(item_pes(node, right, path), right):
        if pe not in right_items and pe not in left_items:
            order.append(pe)
        right_items.setdefault(pe, []).append(item)
    item_node = node.item()
    for pe in order:
        ls, rs = left_items.get(pe, []), right_items.get(pe, [])
        item_path = path + (pe,)
        if len(ls) <= 1 and len(rs) <= 1:
            _compare(ls[0] if ls else MISSING, rs[0] if rs else MISSING, item_node, item_path, out)
        elif len(ls) >= 2 and len(rs) >= 2:
            if not same(ls, rs):
                modified.add(item_path)
        elif len(ls) >= 2:  # duplicates resolved: the new single item is compared from scratch
            if rs:
                _compare(MISSING, rs[0], item_node, item_path, out)
            removed.add(item_path)
        else:  # duplicates introduced
            if ls:
                _compare(ls[0], MISSING, item_node, item_path, out)
            added.add(item_path)
