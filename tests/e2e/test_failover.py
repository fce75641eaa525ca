"""A database failover under load (issue 55): the server on a libpq multi-host URL over a PostgreSQL primary and a
synchronous standby, writers running; the primary is killed (-9) and the standby promoted. No acknowledged write
is lost, revisions never repeat, writes come back after the promotion, the gap answers clean 503s with
Retry-After, /readyz is false in it, and a watch either goes on or ends (410 or closed) — it never hangs."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests

from . import SHARED_SERVER_ARGS, RunningServer, poll, start_server
from .pg_pair import PgPair, pg_pair

pytestmark = pytest.mark.e2e

#: the bound the issue sets for writes to come back after a promotion
RESUME_BOUND = 10.0
GAP = 2.0  # seconds between the kill and the promotion: the outage clients see


@dataclass
class Ledger:
    """What the writers were told."""

    acked: dict[str, int] = field(default_factory=dict)  # name -> resourceVersion of its 201
    acked_at: list[float] = field(default_factory=list)
    refusals: list[requests.Response] = field(default_factory=list)
    others: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _write_until(server: RunningServer, stop: threading.Event, ledger: Ledger, tag: str) -> None:
    session = server.new_session()
    i = 0
    while not stop.is_set():
        name = f"w-{tag}-{i}"
        i += 1
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"i": str(i)}}
        try:
            response = session.post("/api/v1/namespaces/default/configmaps", json=body, timeout=30)
        except requests.RequestException as err:
            with ledger.lock:
                ledger.others.append(f"{name}: {err!r}")
            continue
        with ledger.lock:
            if response.status_code == 201:
                ledger.acked[name] = int(response.json()["metadata"]["resourceVersion"])
                ledger.acked_at.append(time.monotonic())
            elif response.status_code == 503:
                ledger.refusals.append(response)
                stop.wait(0.05)  # as a client backs off (a real one honours Retry-After)
            else:
                ledger.others.append(f"{name}: {response.status_code} {response.text[:300]}")


@dataclass
class WatchOutcome:
    events: list[dict] = field(default_factory=list)
    ended: str = ""  # "": still open; "closed"; "410"; or the error


def _watch(server: RunningServer, revision: str, outcome: WatchOutcome, stop: threading.Event) -> None:
    session = server.new_session()
    path = f"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={revision}&allowWatchBookmarks=true"
    try:
        with session.get(path, stream=True, timeout=(10, 60)) as response:
            for line in response.iter_lines():
                if stop.is_set():
                    return
                event = json.loads(line)
                outcome.events.append(event)
                if event["type"] == "ERROR":
                    outcome.ended = str(event["object"].get("code"))
                    return
        outcome.ended = "closed"
    except requests.RequestException as err:
        outcome.ended = repr(err)


def _multi_host_url(pair: PgPair, database: str) -> str:
    hosts = f"host=127.0.0.1:{pair.primary.port}&host=127.0.0.1:{pair.standby.port}"
    return f"postgresql+psycopg://postgres@/{database}?{hosts}&target_session_attrs=read-write&connect_timeout=3"


@contextlib.contextmanager
def server_on_pair(tmp_path: Path, synchronous: bool) -> Iterator[tuple[RunningServer, PgPair]]:
    """A primary and a standby, a database on them, and a server on the multi-host URL of both."""
    import psycopg
    from orch_apiserver.storage.schema import upgrade

    with pg_pair(synchronous=synchronous) as pair:
        with psycopg.connect(f"host=127.0.0.1 port={pair.primary.port} user=postgres", autocommit=True) as admin:
            admin.execute("CREATE DATABASE orch")
        url = _multi_host_url(pair, "orch")
        upgrade(url)
        server = start_server(tmp_path / "data", SHARED_SERVER_ARGS, database_url=url)
        try:
            yield server, pair
        finally:
            server.stop()


def test_failover_with_synchronous_replication_loses_nothing(tmp_path: Path):
    with server_on_pair(tmp_path, synchronous=True) as (server, pair):
        _fail_over(server, pair)


def _fail_over(server: RunningServer, pair: PgPair) -> None:
    ledger, stop = Ledger(), threading.Event()
    start_rv = server.get("/api/v1/namespaces/default/configmaps").json()["metadata"]["resourceVersion"]
    watch, watch_stop = WatchOutcome(), threading.Event()
    watcher = threading.Thread(target=_watch, args=(server, start_rv, watch, watch_stop), daemon=True)
    watcher.start()
    writers = [threading.Thread(target=_write_until, args=(server, stop, ledger, str(n))) for n in range(3)]
    for writer in writers:
        writer.start()
    try:
        poll(lambda: len(ledger.acked) >= 200, timeout=60)
        pair.kill_primary()
        killed = time.monotonic()
        not_ready = poll(lambda: server.get("/readyz", timeout=10).status_code != 200, timeout=20)
        assert not_ready
        time.sleep(max(0.0, killed + GAP - time.monotonic()))  # the outage lasts until someone promotes
        assert server.get("/readyz", timeout=10).status_code != 200, "/readyz passed with no writable database"
        pair.promote()
        promoted = time.monotonic()
        poll(lambda: any(at > promoted for at in ledger.acked_at), timeout=RESUME_BOUND)
        with ledger.lock:
            resumed = min(at for at in ledger.acked_at if at > promoted) - promoted
        poll(lambda: server.get("/readyz", timeout=10).status_code == 200, timeout=RESUME_BOUND)
        poll(lambda: len([at for at in ledger.acked_at if at > promoted]) >= 100, timeout=60)
    finally:
        stop.set()
        for writer in writers:
            writer.join(timeout=60)

    assert not ledger.others, f"answers other than 201 and 503: {ledger.others[:5]}"
    for refusal in ledger.refusals:
        assert refusal.headers.get("Retry-After"), "a 503 without Retry-After"
        status = refusal.json()
        assert status["kind"] == "Status" and status["code"] == 503
        for secret in ("Traceback", "127.0.0.1", str(pair.primary.port), str(pair.standby.port), "psycopg"):
            assert secret not in refusal.text, f"a 503 body shows {secret!r}: {refusal.text[:300]}"

    # nothing acknowledged is lost, and no revision was handed out twice
    listed = server.get("/api/v1/namespaces/default/configmaps").json()
    stored = {item["metadata"]["name"]: int(item["metadata"]["resourceVersion"]) for item in listed["items"]}
    lost = sorted(name for name in ledger.acked if name not in stored)
    assert not lost, f"{len(lost)} acknowledged writes lost, e.g. {lost[:5]}"
    assert all(stored[name] == rv for name, rv in ledger.acked.items())
    assert len(set(ledger.acked.values())) == len(ledger.acked), "a resourceVersion was acknowledged twice"

    # the watch went on through the failover, or ended in a way a client recovers from (410, or closed: re-watch)
    last_write = max(ledger.acked.values())
    poll(lambda: watch.ended or _seen(watch, last_write), timeout=30)
    watch_stop.set()
    if watch.ended:
        assert watch.ended in ("410", "closed"), f"the watch ended with {watch.ended}"
    else:
        seen = [e["object"]["metadata"]["name"] for e in watch.events if e["type"] == "ADDED"]
        missing = set(ledger.acked) - set(seen)
        assert not missing, f"a watch kept through the failover missed {len(missing)} acknowledged writes"
    print(
        f"failover: {len(ledger.acked)} acknowledged writes, none lost, {len(ledger.refusals)} 503s, writes resumed "
        f"{resumed:.3f} s after the promotion ({promoted - killed + resumed:.1f} s after the kill), the watch "
        f"{'ended: ' + watch.ended if watch.ended else 'went on'}"
    )


def _seen(watch: WatchOutcome, revision: int) -> bool:
    return any(int(e["object"]["metadata"]["resourceVersion"]) >= revision for e in list(watch.events))
