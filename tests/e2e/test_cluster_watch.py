"""A small simulated cluster (bench/cluster_sim.py) on each store: 100 hollow nodes, each watching its own pods
by spec.nodeName and Services and EndpointSlices cluster-wide, pods created bound to them and churned, and a
server restart in the middle. Checked: what a node agent notices (every bound pod reaches its node's watch and is
seen Running there, no node is given another node's pod, every watch comes back after the restart), never how
fast (the SLO figures are bench/'s, run by hand)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from . import REPO_ROOT

NODES = 100
LIMIT = 600  # seconds: ~40 on a quiet machine; a loaded one is slower, never a failure by itself


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_hollow_nodes_see_their_pods_run_and_resume_after_a_restart(store: str, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    command = [
        sys.executable,
        str(REPO_ROOT / "bench" / "cluster_sim.py"),
        "--backend",
        store,
        "--nodes",
        str(NODES),
        "--join-rate",
        "50",
        "--pods",
        "200",
        "--fill-rate",
        "40",
        "--churn",
        "4",
        "--services",
        "5",
        "--duration",
        "12",
        "--restart-at",
        "4",
        "--drain",
        "5",
        "--json",
        str(out),
    ]
    sim = subprocess.Popen(command, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = sim.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        sim.terminate()  # SIGTERM: the simulator stops the server it started and drops its database
        stdout, stderr = sim.communicate(timeout=60)
    assert out.exists(), stdout[-3000:] + stderr[-3000:]
    report = json.loads(out.read_text())["report"]
    context = stdout[-3000:]
    assert report["pods_created"] >= 200, context
    assert report["lost_by_node_watch"] == 0, context  # every bound pod reached its node's watch
    assert report["never_seen_running"] == 0, context  # by the separate observer watch too
    assert report["other_nodes_events"] == 0, context  # no node was given another node's pod
    assert report["watches_down_at_end"] == 0, context
    restart = report["restart"]
    assert restart["watches_resumed"] >= 3 * NODES + 1, context  # every node's three watches and the observer's
    assert report["proxy_events"] > 0, context
    # across the restart too: a bookmark never passes a queued change (tests/storage/test_hub.py), so a node's
    # resumed watch has every Running update of its pods
    assert report["never_seen_running_by_node"] == 0, context
