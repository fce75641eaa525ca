"""The outbound client's connection pools: one per (CA bundle, server name), the oldest dropped past a bound."""

from __future__ import annotations

from orch_apiserver import outbound


def test_pools_are_reused_and_bounded(monkeypatch):
    monkeypatch.setattr(outbound, "_pools", type(outbound._pools)())
    first = outbound.pool_for("", "a.default.svc")
    assert outbound.pool_for("", "a.default.svc") is first
    for index in range(outbound.MAX_POOLS + 10):  # e.g. a configuration whose service changes again and again
        outbound.pool_for("", f"hook-{index}.default.svc")
    assert len(outbound._pools) == outbound.MAX_POOLS
    assert ("", "a.default.svc", False, None) not in outbound._pools  # the least recently used went first
    assert ("", f"hook-{outbound.MAX_POOLS + 9}.default.svc", False, None) in outbound._pools
