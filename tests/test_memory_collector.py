"""A booted worker tunes Python's cyclic collector (app/memory.py `tune_collector`): what start-up made is frozen
out of every collection, and the youngest generation is collected per 10,000 allocations, not 700. At 1,000
simulated nodes the default thresholds ran full collections every 5-7 s, 200-330 ms each with the GIL held."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.e2e import REPO_ROOT

PROBE = """
import gc, json
import orch_apiserver.factory  # what a worker imports before it boots
from orch_apiserver.memory import tune_collector
before = {"threshold": gc.get_threshold(), "frozen": gc.get_freeze_count()}
tune_collector()
print(json.dumps({"before": before, "threshold": gc.get_threshold(), "frozen": gc.get_freeze_count()}))
"""


def test_start_up_objects_are_frozen_and_young_collections_are_rarer() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["before"] == {"threshold": [700, 10, 10], "frozen": 0}  # Python's defaults until the boot
    assert got["threshold"] == [10_000, 10, 10]
    assert got["frozen"] > 50_000  # the modules, schemas and catalogs start-up made: never scanned again
