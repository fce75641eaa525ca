"""Paths of repeated keys in a JSON or YAML body, spelled like the reference's strict decoder
(`spec.template.spec.containers[0].imagePullPolicy`)."""

from __future__ import annotations

import json
from typing import Any

import yaml

from .. import yamldoc


def join(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


class _Pairs(dict):
    """A JSON object that remembers which of its keys were repeated."""

    repeated: tuple[str, ...] = ()


def json_duplicates(body: bytes) -> list[str]:
    """Paths of repeated keys, in document order; [] for undecodable bodies (the decoder reports those)."""
    found = False

    def hook(pairs: list[tuple[str, Any]]) -> dict:
        nonlocal found
        obj = _Pairs(pairs)
        if len(obj) != len(pairs):
            found = True
            seen: set[str] = set()
            repeated: list[str] = []
            for key, _ in pairs:
                if key in seen and key not in repeated:
                    repeated.append(key)
                seen.add(key)
            obj.repeated = tuple(repeated)
        return obj

    try:
        tree = json.loads(body, object_pairs_hook=hook)
    except (ValueError, RecursionError):
        return []
    out: list[str] = []
    if found:
        _collect_json(tree, "", out)
    return out


def _collect_json(node: Any, path: str, out: list[str]) -> None:
    if isinstance(node, dict):
        repeated = getattr(node, "repeated", ())
        for key, value in node.items():
            here = join(path, key)
            if key in repeated:
                out.append(here)
            _collect_json(value, here, out)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _collect_json(value, f"{path}[{i}]", out)


def yaml_duplicates(body: bytes) -> list[str]:
    """Paths of repeated mapping keys in a YAML document, in document order."""
    try:
        root = yamldoc.compose(body)
    except yaml.YAMLError:
        return []
    out: list[str] = []
    _collect_yaml(root, "", out, set())
    return out


def _collect_yaml(node: yaml.Node | None, path: str, out: list[str], active: set[int]) -> None:
    if node is None or id(node) in active:
        return  # an alias of an enclosing node: already being walked
    active.add(id(node))
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value) if isinstance(key_node, yaml.ScalarNode) else ""
            here = join(path, key)
            if key in seen and here not in out:
                out.append(here)
            seen.add(key)
            _collect_yaml(value_node, here, out, active)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _collect_yaml(item, f"{path}[{i}]", out, active)
    active.discard(id(node))


def duplicates(body: bytes, media: str) -> list[str]:
    """Repeated keys of a text body (JSON or YAML); none for protobuf, which has no keys."""
    if media == "application/json":
        return json_duplicates(body)
    if "yaml" in media or "yml" in media:
        return yaml_duplicates(body)
    return []
