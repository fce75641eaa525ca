"""bench/cluster_sim.py's restart report: after a restart, the SLOs are judged per 10-s window by the p99 of the
calls begun in it (SIG Scalability states its SLOs as percentiles), so a call sent during the downtime and
answered a minute later counts against the restart, not against the minute it ended in."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cluster_sim() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cluster_sim_under_test", REPO_ROOT / "bench" / "cluster_sim.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


RESTART_AT = 100.0


def record_with(cluster_sim: ModuleType, calls: dict[tuple[str, str], list[tuple[float, float]]]) -> object:
    """A run's record holding `calls`: (verb, resource) -> [(time answered, seconds taken)]."""
    record = cluster_sim.Record()
    for key, values in calls.items():
        record.calls[key].extend(values)
    return record


def steady_leases(start: float, stop: float, seconds: float = 0.05) -> list[tuple[float, float]]:
    """A Lease PUT begun every 0.1 s from `start` to `stop`, each taking `seconds`."""
    return [(start + i / 10 + seconds, seconds) for i in range(int((stop - start) * 10))]


def test_a_call_sent_during_the_downtime_counts_against_the_window_it_began_in(cluster_sim: ModuleType) -> None:
    slow_during_restart = [(RESTART_AT + 5 + 60, 60.0)] * 50  # begun at +5 s, answered at +65 s
    record = record_with(cluster_sim, {("PUT", "leases"): steady_leases(RESTART_AT + 10, RESTART_AT + 90)})
    record.calls[("PUT", "leases")].extend(slow_during_restart)

    got = cluster_sim.recovery_by_window(record, RESTART_AT, RESTART_AT + 90, watches_back=RESTART_AT + 8)

    assert got["p99_within_slos_again_after_s"] == 10
    first, *rest = got["windows"]
    assert (first["from_s"], first["calls"], first["over_slo"]) == (0, 50, 50)
    assert first["worst"] == "PUT leases" and first["worst_p99_of_slo"] == 60.0
    assert [w["from_s"] for w in rest] == list(range(10, 90, 10))
    assert all(w["calls"] == 100 and w["over_slo"] == 0 for w in rest)


def test_a_later_window_over_its_slo_moves_the_recovery_past_it(cluster_sim: ModuleType) -> None:
    calls = steady_leases(RESTART_AT, RESTART_AT + 90)
    calls += [(RESTART_AT + 55 + 32, 32.0)] * 5  # begun at +55 s, refused with Retry-After: 32
    record = record_with(cluster_sim, {("PUT", "leases"): calls})

    got = cluster_sim.recovery_by_window(record, RESTART_AT, RESTART_AT + 90, watches_back=RESTART_AT + 8)

    assert got["p99_within_slos_again_after_s"] == 60
    assert [w["over_slo"] for w in got["windows"]] == [0, 0, 0, 0, 0, 5, 0, 0, 0]


def test_the_recovery_waits_for_the_last_watch_and_ignores_the_re_lists(cluster_sim: ModuleType) -> None:
    record = record_with(
        cluster_sim,
        {
            ("PUT", "leases"): steady_leases(RESTART_AT, RESTART_AT + 60),
            ("LIST", "informer"): [(RESTART_AT + 40, 35.0)] * 20,  # watches' re-lists: judged by the watches' return
        },
    )

    got = cluster_sim.recovery_by_window(record, RESTART_AT, RESTART_AT + 60, watches_back=RESTART_AT + 33.5)

    assert got["p99_within_slos_again_after_s"] == 33.5
    assert [w["calls"] for w in got["windows"]] == [100] * 6


def test_no_recovery_when_the_last_window_breaks_an_slo(cluster_sim: ModuleType) -> None:
    calls = steady_leases(RESTART_AT, RESTART_AT + 30) + [(RESTART_AT + 25 + 3, 3.0)] * 20
    record = record_with(cluster_sim, {("PATCH", "nodes/status"): calls})

    got = cluster_sim.recovery_by_window(record, RESTART_AT, RESTART_AT + 30, watches_back=RESTART_AT + 5)

    assert got["p99_within_slos_again_after_s"] is None
    assert got["windows"][-1]["worst"] == "PATCH nodes/status"
