"""apply() shares no dict or list with its inputs (the registry passes the request's object to every retry uncopied,
and merges reuse the applied values instead of copying them)."""

from __future__ import annotations

import copy
from typing import Any

from orch_apiserver.apply import apply

from tests.apply.helpers import DEPLOYMENT, T1, T2, deployment


def _containers(obj: Any) -> list[int]:
    """The ids of every dict and list in a value."""
    if isinstance(obj, dict):
        return [id(obj), *(i for v in obj.values() for i in _containers(v))]
    if isinstance(obj, list):
        return [id(obj), *(i for v in obj for i in _containers(v))]
    return []


def test_the_result_shares_nothing_with_live_or_applied() -> None:
    first = deployment()
    live = apply(None, first, "a", DEPLOYMENT, "apps/v1", False, T1)
    for applied in (deployment(), deployment(replicas=5, image="nginx:1.26"), deployment(paused=True)):
        before_live, before_applied = copy.deepcopy(live), copy.deepcopy(applied)
        result = apply(live, applied, "a", DEPLOYMENT, "apps/v1", False, T2)
        assert live == before_live and applied == before_applied
        assert not set(_containers(result)) & set(_containers(live) + _containers(applied))
        live = result
