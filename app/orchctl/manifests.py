"""Reading manifests: files, directories, `-` (stdin); several YAML documents, JSON, and `List` kinds."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TextIO

import yaml

from .. import goyaml

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


class ManifestError(Exception):
    """A manifest that cannot be read or is not an object with apiVersion and kind."""


def read_manifests(sources: Iterable[str], *, recursive: bool = False, stdin: TextIO | None = None) -> list[dict]:
    """Every object in the given files/directories/`-`, in order, with `List` kinds expanded."""
    objects: list[dict] = []
    for source in sources:
        for name, text in _texts(source, recursive, stdin or sys.stdin):
            for doc in parse_documents(text, name):
                objects.extend(expand_lists(doc, name))
    return objects


def _texts(source: str, recursive: bool, stdin: TextIO) -> Iterator[tuple[str, str]]:
    if source == "-":
        yield "STDIN", stdin.read()
        return
    path = Path(source)
    if path.is_dir():
        pattern = "**/*" if recursive else "*"
        for child in sorted(path.glob(pattern)):
            if child.is_file() and child.suffix in MANIFEST_SUFFIXES:
                yield str(child), _read(child)
        return
    yield source, _read(path)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError as err:
        raise ManifestError(f'the path "{path}" does not exist' if not path.exists() else f"{path}: {err}") from err


def parse_documents(text: str, name: str = "") -> list[dict]:
    """JSON (one value) or YAML (`---`-separated documents, read as kubectl reads them); empty ones are skipped."""
    stripped = text.lstrip()
    try:
        if stripped.startswith(("{", "[")):
            try:
                docs: list = [json.loads(text)]
            except json.JSONDecodeError:
                docs = goyaml.load_all(text)
        else:
            docs = goyaml.load_all(text)
    except yaml.YAMLError as err:
        raise ManifestError(f"error parsing {name}: {err}") from err
    out = []
    for doc in docs:
        if doc is None:
            continue
        if isinstance(doc, list):  # a bare JSON array of objects
            out.extend(doc)
            continue
        out.append(doc)
    for doc in out:
        if not isinstance(doc, dict):
            raise ManifestError(f"error validating {name}: a document is not an object")
        missing = [key for key in ("apiVersion", "kind") if not doc.get(key)]
        if missing:
            raise ManifestError(f"error validating data from {name}: {', '.join(missing)} not set")
    return out


def expand_lists(doc: dict, name: str = "") -> list[dict]:
    """`kind: List` (and any `<Kind>List` with items) become their items, recursively."""
    if doc.get("kind", "").endswith("List") and isinstance(doc.get("items"), list):
        out: list[dict] = []
        for item in doc["items"]:
            if not isinstance(item, dict) or not item.get("apiVersion") or not item.get("kind"):
                raise ManifestError(f"error validating data from {name}: a List item lacks apiVersion or kind")
            out.extend(expand_lists(item, name))
        return out
    return [doc]
