"""Many observations of one value at once (the watch writer's per-turn counting) equal as many single ones."""

from __future__ import annotations

from orch_apiserver.metrics import observe_many
from prometheus_client import CollectorRegistry, Histogram


def samples(registry: CollectorRegistry) -> dict:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in registry.collect()
        for s in family.samples
        if not s.name.endswith("_created")
    }


def test_observe_many_counts_like_repeated_observe() -> None:
    one_by_one, at_once = CollectorRegistry(), CollectorRegistry()
    single = Histogram("sizes", "s", ["kind"], buckets=[64, 512, 4096], registry=one_by_one).labels(kind="A")
    many = Histogram("sizes", "s", ["kind"], buckets=[64, 512, 4096], registry=at_once).labels(kind="A")
    for size, times in ((10, 3), (700, 2500), (99999, 4)):
        for _ in range(times):
            single.observe(size)
        observe_many(many, size, times)
    assert samples(one_by_one) == samples(at_once)
    assert samples(at_once)[("sizes_count", (("kind", "A"),))] == 2507
