"""A document may not cost more than its size suggests.

Aliases are expanded when objects are built (go-yaml copies them too), and everything after (field validation,
JSON encoding, storage) walks them expanded, so a "billion laughs" document of a few hundred bytes would pin a
thread for good. The node graph is measured first: its expanded size and recursive aliases are refused as the
reference refuses them (400)."""

from __future__ import annotations

import yaml

#: expanded nodes allowed whatever the document's size (go-yaml's threshold), and per distinct node beyond it
MIN_EXPANDED_NODES = 400_000
EXPANSION_RATIO = 10


class YamlTooComplex(yaml.YAMLError):
    """A document whose expansion or nesting is out of bounds."""


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def check_expansion(root: yaml.Node) -> None:
    """Count the nodes a full walk would visit (aliases expanded), without walking them: each distinct node once."""
    expanded: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    distinct = 0
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            on_path.discard(key)
            total = 1 + sum(expanded[id(child)] for child in _children(node))
            if total > max(MIN_EXPANDED_NODES, EXPANSION_RATIO * distinct):
                raise YamlTooComplex("yaml: document contains excessive aliasing")
            expanded[key] = total
            continue
        if key in expanded:
            continue
        if key in on_path:
            raise YamlTooComplex("yaml: document contains a recursive alias")
        distinct += 1
        on_path.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in expanded)
