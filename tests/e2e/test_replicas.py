"""Two server processes on one PostgreSQL database: each sees every write, watches included."""

from __future__ import annotations

import json
import time
from pathlib import Path

from orch_apiserver.storage.schema import ensure_schema

from . import scratch_database, start_server

CM = "/api/v1/namespaces/default/configmaps"


def test_two_replicas_share_state_and_watch_events(tmp_path: Path) -> None:
    with scratch_database() as url:
        ensure_schema(url, upgrade=True)
        first = start_server(tmp_path / "shared", database_url=url)
        second = start_server(tmp_path / "shared", database_url=url)  # same data dir: same CA and admin cert
        try:
            rv = second.get(CM).json()["metadata"]["resourceVersion"]
            watch = second.session.get(
                f"{second.url}{CM}?watch=1&resourceVersion={rv}&timeoutSeconds=20", stream=True, timeout=30
            )
            sent = time.monotonic()
            made = first.session.post(
                f"{first.url}{CM}",
                json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "from-first"}, "data": {"a": "b"}},
            )
            assert made.status_code == 201
            line = next(watch.iter_lines(chunk_size=1))  # the default 512 would wait for more bytes
            waited = time.monotonic() - sent
            event = json.loads(line)
            assert event["type"] == "ADDED" and event["object"]["metadata"]["name"] == "from-first"
            assert event["object"]["metadata"]["resourceVersion"] == made.json()["metadata"]["resourceVersion"]
            assert waited < 10  # delivered by LISTEN/NOTIFY, not at the end of the watch
            watch.close()
            assert second.get(f"{CM}/from-first").json()["data"] == {"a": "b"}
        finally:
            second.stop()
            first.stop()
