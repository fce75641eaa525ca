"""Built documents, cached per catalog: rebuilt only when the catalog's set of types changes (the v3 documents
only for the groups whose types changed). One generation is kept: a catalog change drops the previous documents
and every encoding made of them (protobuf, gzip)."""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...catalog import Catalog, ResourceType
from ...naming import Naming
from .documents import build_v2_document, build_v3_document, document_hash, encode_document, v3_index
from .names import gv_path


@dataclass(frozen=True)
class Encoded:
    """One document as JSON, its hash (the ETag of every encoding) and when it was built (Last-Modified)."""

    body: bytes
    hash: str
    modified: float = field(default_factory=time.time, compare=False)
    forms: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, doc: dict[str, Any]) -> Encoded:
        body = encode_document(doc)
        return cls(body, document_hash(body))

    def form(self, name: str, make: Callable[[], bytes]) -> bytes:
        """Another encoding of the same content (gnostic protobuf, gzip), made once and kept beside the JSON."""
        found = self.forms.get(name)
        if found is None:
            with _forms_lock:  # one thread encodes; concurrent first requests wait for its result
                found = self.forms.get(name)
                if found is None:
                    found = self.forms[name] = make()
        return found


_forms_lock = threading.Lock()


@dataclass
class _Built:
    types: tuple[ResourceType, ...]
    domain: str
    v3: dict[str, Encoded] = field(default_factory=dict)
    index: Encoded | None = None
    v2: Encoded | None = None

    def matches(self, types: tuple[ResourceType, ...], domain: str) -> bool:
        return domain == self.domain and _same(types, self.types)


def _same(a: tuple[ResourceType, ...], b: tuple[ResourceType, ...]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


@dataclass
class _GroupVersions:
    """The v3 documents of one group's versions, kept while the group's types stay the same objects: a CRD change
    rebuilds its own group's documents, not the ~40 built-in ones (a kind's document may name a sibling version)."""

    types: tuple[ResourceType, ...]
    docs: dict[str, Encoded | None] = field(default_factory=dict)


_cache: weakref.WeakKeyDictionary[Catalog, _Built] = weakref.WeakKeyDictionary()
#: per catalog and domain: group -> its documents; groups no longer served are dropped at the next build
_v3_groups: weakref.WeakKeyDictionary[Catalog, dict[tuple[str, str], _GroupVersions]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _built(catalog: Catalog, naming: Naming) -> _Built:
    types = tuple(catalog)
    with _lock:
        entry = _cache.get(catalog)
        if entry is None or not entry.matches(types, naming.domain):
            entry = _cache[catalog] = _Built(types, naming.domain)
        return entry


def v3_documents(catalog: Catalog, naming: Naming) -> _Built:
    entry = _built(catalog, naming)
    if entry.index is None:
        with _lock:
            previous = _v3_groups.get(catalog, {})
        groups: dict[tuple[str, str], _GroupVersions] = {}
        for group, versions in catalog.group_versions().items():
            members = tuple(rt for rt in entry.types if rt.group == group)
            kept = previous.get((naming.domain, group))
            built = kept if kept is not None and _same(members, kept.types) else _GroupVersions(members)
            groups[(naming.domain, group)] = built
            for version in versions:
                path = gv_path(group, version)
                if path not in built.docs:
                    doc = build_v3_document(catalog, naming, group, version)
                    built.docs[path] = None if doc is None else Encoded.of(doc)
                if (encoded := built.docs[path]) is not None:
                    entry.v3[path] = encoded
        with _lock:
            _v3_groups[catalog] = {**{k: v for k, v in previous.items() if k[0] != naming.domain}, **groups}
        entry.index = Encoded.of(v3_index({p: e.hash for p, e in entry.v3.items()}))
    return entry


def v2_document(catalog: Catalog, naming: Naming) -> Encoded:
    entry = _built(catalog, naming)
    if entry.v2 is None:
        entry.v2 = Encoded.of(build_v2_document(catalog, naming))
    return entry.v2
