"""Node graphs from YAML text: libyaml's parser when present (composing stays in Python, whose recursion limit
bounds nesting where libyaml's own composer would overflow the C stack), every scalar tagged for go-yaml's rules."""

from __future__ import annotations

from typing import Any

import yaml
from yaml.composer import Composer
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import BaseResolver
from yaml.scanner import Scanner

from .scalars import PLAIN, STR

try:
    from yaml._yaml import CParser

    LIBYAML = True
except ImportError:  # PyYAML built without libyaml
    LIBYAML = False


class _GoResolver(BaseResolver):
    """Plain scalars are left to go-yaml's rules (scalars.resolve), quoted ones are strings. PyYAML reports a
    scalar tagged `!` as plain too: go-yaml keeps its text (`! 12` is "12" there, 12 here)."""

    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        if kind is yaml.ScalarNode:
            return PLAIN if implicit[0] else STR
        return super().resolve(kind, value, implicit)


class _AnchorComposer(Composer):
    """Records whether the last composed document defined an anchor: without one it has no alias, so its node graph
    is a tree whose expanded size is its size (bounds.check_expansion can be skipped)."""

    anchored = False

    def compose_document(self) -> Any:
        self.get_event()  # type: ignore[attr-defined]  # the parser's, mixed in beside
        node = self.compose_node(None, None)  # type: ignore[arg-type]
        self.get_event()  # type: ignore[attr-defined]
        self.anchored = bool(self.anchors)
        self.anchors = {}
        return node


class _PureLoader(Reader, Scanner, Parser, _AnchorComposer, _GoResolver):
    def __init__(self, stream: str | bytes) -> None:
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        _AnchorComposer.__init__(self)
        _GoResolver.__init__(self)


if LIBYAML:

    class _FastLoader(_AnchorComposer, CParser, _GoResolver):  # Composer first: its methods replace libyaml's
        def __init__(self, stream: str | bytes) -> None:
            CParser.__init__(self, stream)
            _AnchorComposer.__init__(self)
            _GoResolver.__init__(self)


def new_loader(stream: str | bytes) -> Any:
    """A loader whose get_node()/check_node() compose one document at a time; dispose() it after."""
    return _FastLoader(stream) if LIBYAML else _PureLoader(stream)
