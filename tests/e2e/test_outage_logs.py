"""When the database goes away every request and every poll fails alike: clients get a 503 without the
database's internals, and the log says so once, with one traceback per distinct error, not one per request."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import psycopg
from orch_apiserver.storage.schema import ensure_schema

from . import psycopg_dsn, scratch_database, scratch_database_base_url, start_server


def test_an_outage_logs_each_error_once(tmp_path: Path):
    with scratch_database() as url:
        ensure_schema(url, upgrade=True)
        server = start_server(tmp_path, database_url=url)
        try:
            assert server.get("/api/v1/namespaces/default").status_code == 200
            name = url.rsplit("/", 1)[1]
            with psycopg.connect(psycopg_dsn(scratch_database_base_url()), autocommit=True) as admin:
                admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')  # gone for good: every request fails
            answers = [server.get(f"/api/v1/namespaces/default/configmaps/c{i}") for i in range(30)]
            assert {a.status_code for a in answers} == {503}, [a.text for a in answers][:3]
            status = answers[-1].json()
            assert status["reason"] == "ServiceUnavailable" and answers[-1].headers["Retry-After"] == "1"
            assert not any(word in status["message"] for word in ("127.0.0.1", "5432", "psycopg", "SELECT", name))
            log = server.log()
            assert log.count("unhandled error serving a request") == 1, log[-6000:]  # 30 failed requests
            problems = Counter(
                re.sub(r"^\[[^]]*\] \[\d+\] ", "", line)[:400]
                for line in log.splitlines()
                if re.match(r"^\[[^]]*\] \[\d+\] \[(ERROR|WARNING)\]", line)
            )
            assert problems and max(problems.values()) <= 2, problems  # each failure once (twice: two workers' loops)
        finally:
            server.stop()
