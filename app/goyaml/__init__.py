"""YAML read as the reference reads it: sigs.k8s.io/yaml on go-yaml v2 (YAML 1.1 booleans, no base-60, timestamps as
strings, string map keys), then as JSON. One set of rules for the server's YAML bodies and orchctl's manifests."""

from __future__ import annotations

from typing import Any

import orjson
import yaml

from .bounds import YamlTooComplex, check_expansion
from .jsonfast import load_json
from .loader import new_loader
from .scalars import GoYamlError
from .values import to_json

__all__ = ["GoYamlError", "YamlTooComplex", "compose", "load", "load_all"]


def compose(text: str | bytes) -> yaml.Node | None:
    """The first document's node graph, measured; later documents are not read (go-yaml's Unmarshal)."""
    reader = new_loader(text)
    try:
        return _next_node(reader)
    finally:
        reader.dispose()


def load(text: str | bytes, float64: bool = False) -> Any:
    """The first document as JSON values (None when there is none); `float64` as values.to_json."""
    fast = load_json(text, float64)  # a JSON object (kubectl's apply bodies): no node graph needed
    if fast is not None:
        return fast
    node = compose(text)
    return None if node is None else _value(node, float64)


def load_all(text: str | bytes) -> list[Any]:
    """Every document, as kubectl reads a manifest stream (empty documents are None)."""
    reader = new_loader(text)
    try:
        out = []
        while reader.check_node():
            node = _next_node(reader)
            out.append(None if node is None else _value(node, False))
        return out
    finally:
        reader.dispose()


def _next_node(reader: Any) -> yaml.Node | None:
    try:
        node = reader.get_node() if reader.check_node() else None
    except RecursionError:
        raise YamlTooComplex("yaml: exceeded max depth") from None
    except yaml.MarkedYAMLError as err:  # newer libyaml bounds nesting in its scanner, in its own words
        if "nesting depth" in str(err.problem):
            raise YamlTooComplex("yaml: exceeded max depth") from None
        raise
    if node is not None and reader.anchored:  # no anchor, no alias: the graph is a tree of the document's size
        check_expansion(node)
    return node


def _value(node: yaml.Node, float64: bool) -> Any:
    try:
        value = to_json(node, float64)
    except RecursionError:
        raise YamlTooComplex("yaml: exceeded max depth") from None
    try:  # escapes can spell lone UTF-16 surrogates, which go-yaml refuses and no JSON encoder takes
        orjson.dumps(value)
    except orjson.JSONEncodeError as exc:
        raise GoYamlError(f"yaml: cannot convert to JSON: {exc}") from None
    return value
