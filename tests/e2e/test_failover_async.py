"""A failover to an asynchronous standby that lagged (issue 55): the standby stops receiving while writers go on,
the primary is killed (-9) and the lagging standby promoted, so the database comes back without the writes the
standby missed. The server must not lie about them: no resourceVersion is acknowledged twice, no LIST answers a
resourceVersion below an earlier one, every watcher beyond the new primary ends with 410 Expired, writes resume
(503 with Retry-After only in the gap) at revisions above everything acknowledged before."""

from __future__ import annotations

import itertools
import threading
import time
from pathlib import Path

import pytest
import requests

from . import RunningServer, poll
from .test_failover import Ledger, WatchOutcome, _watch, _write_until, server_on_pair
from .test_python_client import new_api_client

pytestmark = pytest.mark.e2e

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
LAG = 300  # acknowledged writes the standby misses
WATCHERS = 4  # the first through the official client, the others raw HTTP


def _client_watch(server: RunningServer, revision: str, outcome: WatchOutcome, stop: threading.Event) -> None:
    """The official client's watch: after an ERROR 410 it retries once from its last resourceVersion, which the
    store no longer holds, so it must raise ApiException 410 (a reflector then re-lists)."""
    from kubernetes import client, watch
    from kubernetes.client.exceptions import ApiException

    api_client = new_api_client(server)
    v1 = client.CoreV1Api(api_client)
    try:
        stream = watch.Watch().stream(
            v1.list_namespaced_config_map, "default", resource_version=revision, timeout_seconds=90
        )
        for event in stream:
            outcome.events.append(event)
            if stop.is_set():
                return
        outcome.ended = "closed"
    except ApiException as err:
        outcome.ended = str(err.status)
    finally:
        api_client.close()


def _poll_lists(server: RunningServer, stop: threading.Event, answers: list[int]) -> None:
    """LISTs throughout, as informers re-listing would: the resourceVersion of each 200, in order."""
    session = server.new_session()
    while not stop.wait(0.05):
        try:
            response = session.get(CONFIGMAPS, params={"limit": "1"}, timeout=30)
        except requests.RequestException:
            continue
        if response.status_code == 200:
            answers.append(int(response.json()["metadata"]["resourceVersion"]))


def test_failover_to_a_lagging_asynchronous_standby_never_lies(tmp_path: Path) -> None:
    with server_on_pair(tmp_path, synchronous=False) as (server, pair):
        ledger, stop = Ledger(), threading.Event()
        start_rv = server.get(CONFIGMAPS).json()["metadata"]["resourceVersion"]
        watches = [WatchOutcome() for _ in range(WATCHERS)]
        watch_stop = threading.Event()
        for watch in watches[1:]:
            threading.Thread(target=_watch, args=(server, start_rv, watch, watch_stop), daemon=True).start()
        threading.Thread(target=_client_watch, args=(server, start_rv, watches[0], watch_stop), daemon=True).start()
        list_answers: list[int] = []
        threads = [threading.Thread(target=_write_until, args=(server, stop, ledger, str(n))) for n in range(3)]
        threads.append(threading.Thread(target=_poll_lists, args=(server, stop, list_answers)))
        for thread in threads:
            thread.start()
        try:
            poll(lambda: len(ledger.acked) >= 50, timeout=60)
            pair.stop_standby()
            with ledger.lock:
                replicated = len(ledger.acked)  # at most these reached the standby
            poll(lambda: len(ledger.acked) >= replicated + LAG, timeout=60)
            pair.kill_primary()
            killed = time.monotonic()
            with ledger.lock:
                acked_before = dict(ledger.acked)
            pair.start_standby()
            pair.promote()
            promoted = time.monotonic()
            poll(lambda: len([at for at in ledger.acked_at if at > promoted]) >= 50, timeout=60)
            with ledger.lock:
                resumed = min(at for at in ledger.acked_at if at > promoted) - promoted
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=60)

        # the watchers saw writes the new primary lost: each must end with 410, none may stay silently open
        poll(lambda: all(watch.ended for watch in watches), timeout=30)
        watch_stop.set()
        endings = [watch.ended for watch in watches]
        assert endings == ["410"] * WATCHERS, f"watchers beyond the new primary ended with {endings}"

        assert not ledger.others, f"answers other than 201 and 503: {ledger.others[:5]}"
        for refusal in ledger.refusals:
            assert refusal.headers.get("Retry-After"), "a 503 without Retry-After"
            assert refusal.json()["code"] == 503

        revisions = list(ledger.acked.values())
        assert len(set(revisions)) == len(revisions), "a resourceVersion was acknowledged twice"
        after = [rv for name, rv in ledger.acked.items() if name not in acked_before]
        assert after and min(after) > max(acked_before.values()), "a revision after the jump is not above the old"
        regressions = [(a, b) for a, b in itertools.pairwise(list_answers) if b < a]
        assert not regressions, f"LIST resourceVersion went back: {regressions[:5]}"

        listed = server.get(CONFIGMAPS).json()["items"]
        stored = {item["metadata"]["name"] for item in listed}
        lost = [name for name in acked_before if name not in stored]
        assert lost, "the lagging standby lost nothing: the scenario did not happen"
        print(
            f"async failover: {len(acked_before)} acknowledged before the kill, {len(lost)} lost, "
            f"{len(ledger.refusals)} 503s, writes resumed {resumed:.3f} s after the promotion "
            f"({promoted - killed + resumed:.1f} s after the kill), {len(list_answers)} LISTs, "
            f"{endings.count('410')}/{WATCHERS} watchers ended with 410"
        )
