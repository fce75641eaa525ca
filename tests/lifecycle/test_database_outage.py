"""A real 2-worker server on PostgreSQL: idle, it holds no more connections than docs/operations.md says; through a
short database outage its background loops log one line each when they start failing and one when they recover,
without a traceback, and it serves again afterwards."""

from __future__ import annotations

import re
import time
from pathlib import Path

import psycopg
import pytest

from tests.e2e import poll, psycopg_dsn, scratch_database, scratch_database_base_url, start_server

WORKERS = 2
POOL_SIZE = 2
#: docs/operations.md: idle, each worker keeps --database-pool-size plus its LISTEN and NOTIFY connections
IDLE_LIMIT = WORKERS * (POOL_SIZE + 2)
OUTAGE_SECONDS = 6.0


def _connections(admin: psycopg.Connection, database: str) -> int:
    row = admin.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (database,)).fetchone()
    return int(row[0]) if row else 0


@pytest.fixture
def server_on_scratch(tmp_path: Path):
    from orch_apiserver.storage.schema import ensure_schema

    with scratch_database() as url:
        ensure_schema(url, upgrade=True)
        database = url.rsplit("/", 1)[1]
        args = ["--workers", str(WORKERS), "--threads", "8", "--database-pool-size", str(POOL_SIZE)]
        server = start_server(tmp_path, args, database_url=url)
        try:
            with psycopg.connect(psycopg_dsn(scratch_database_base_url()), autocommit=True) as admin:
                yield server, admin, database
        finally:
            server.stop()


def test_idle_connections_then_an_outage_logged_once_per_loop(server_on_scratch) -> None:
    server, admin, database = server_on_scratch
    poll(lambda: all(server.new_session().get("/readyz").status_code == 200 for _ in range(4)), timeout=60)
    # the start-up burst (bootstrap objects, every controller's first round) has returned its connections
    poll(lambda: _connections(admin, database) <= IDLE_LIMIT, timeout=60, interval=0.5)
    for _ in range(6):
        assert _connections(admin, database) <= IDLE_LIMIT
        time.sleep(0.5)

    before = len(server.log())
    admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS false')
    try:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (database,))
        time.sleep(OUTAGE_SECONDS)  # the outage itself: nothing to poll for
    finally:
        admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')
    poll(lambda: server.new_session().get("/api/v1/namespaces/default").status_code == 200, timeout=60)
    poll(lambda: "recovered after" in server.log()[before:], timeout=60)
    time.sleep(3)  # the loops that retry later recover too
    log = server.log()[before:]

    failing = re.findall(r"^.*? (\S.*?) failing: .*$", log, re.MULTILINE)
    recovered = re.findall(r"^.*? (\S.*?) recovered after \d+ failed rounds", log, re.MULTILINE)
    assert failing, log[-4000:]
    lines = log.splitlines()
    records = [i for i, line in enumerate(lines) if line.startswith("[")]  # a record's first line
    traced = {lines[max(r for r in records if r < i)] for i, line in enumerate(lines) if line.startswith("Traceback")}
    # an outage is no bug: one line per loop and no stack
    assert not traced, traced
    # one line per loop (and worker) when it starts failing: never one per round
    for what in set(failing):
        assert failing.count(what) <= WORKERS, (what, log[-4000:])
    assert recovered, log[-4000:]
