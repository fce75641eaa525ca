"""Reading core objects (secrets, service accounts, pods, nodes) for authenticators, through the registry."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import NotFound

if TYPE_CHECKING:
    from ..registry.store import Registry


@dataclass(frozen=True)
class CoreObjects:
    registry: Registry

    def get(self, plural: str, namespace: str | None, name: str) -> dict | None:
        """The object, or None when it does not exist (or the kind is not served)."""
        rt = self.registry.catalog.lookup("", "v1", plural)
        if rt is None or not name:
            return None
        try:
            return self.registry.get(rt, namespace, name)
        except NotFound:
            return None


def secret_value(secret: dict, key: str) -> str:
    """data[key] of a secret, base64-decoded; empty when missing or malformed."""
    data = secret.get("data")
    raw = data.get(key) if isinstance(data, dict) else None
    if not isinstance(raw, str):
        return ""
    try:
        return base64.b64decode(raw, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return ""


def metadata(obj: dict) -> dict:
    md = obj.get("metadata")
    return md if isinstance(md, dict) else {}
