"""Answers about a CRD schema that depend on its content only (valid or not, has CEL rules or not), remembered by
a digest of that content: a no-op apply or an update that keeps the schema does not walk its ~10,000 nodes again.

Bounded (least recently used forgotten first). Decoded bodies hold no NaN or infinity (JSON, YAML and protobuf
decoding refuse them), so the JSON text of a schema tells its content exactly: 1 and 1.0, true and 1 differ."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any

import orjson

MAX_ENTRIES = 512


def digest(schema: Any) -> bytes | None:
    """The schema's content digest; None when it has no JSON text (then nothing is remembered)."""
    try:
        return hashlib.blake2b(orjson.dumps(schema), digest_size=20).digest()
    except (orjson.JSONEncodeError, TypeError):
        return None


class ContentMemo:
    """A bounded, thread-safe map from content keys to answers."""

    def __init__(self, size: int = MAX_ENTRIES) -> None:
        self._size = size
        self._entries: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[Any, ...]) -> tuple[bool, Any]:
        with self._lock:
            if key not in self._entries:
                return False, None
            self._entries.move_to_end(key)
            return True, self._entries[key]

    def put(self, key: tuple[Any, ...], value: Any) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)


MEMO = ContentMemo()
