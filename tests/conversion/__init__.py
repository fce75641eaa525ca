"""Served-version conversion tests; helpers shared by the modules."""

from __future__ import annotations

import copy
from typing import Any

from orch_apiserver.catalog import ResourceType


def to_storage(rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """rt's conversion to the stored version, checking it never mutates its input."""
    assert rt.conversion is not None
    before = copy.deepcopy(obj)
    out = rt.conversion.to_storage(obj)
    assert obj == before
    return out


def from_storage(rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """rt's conversion from the stored version, checking it never mutates its input."""
    assert rt.conversion is not None
    before = copy.deepcopy(obj)
    out = rt.conversion.from_storage(obj)
    assert obj == before
    return out
