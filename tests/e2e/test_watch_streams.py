"""A watch's stream as a client sees it (issue 55 item 0): a store that cannot be reached when the watch opens is a 503
Status, not a 200 that breaks; a BOOKMARK never names a revision below an event already sent on the stream (a
reflector resuming from it would receive events twice)."""

from __future__ import annotations

import json
import threading
import uuid
from pathlib import Path

import psycopg
from orch_apiserver.storage.schema import ensure_schema

from . import RunningServer, psycopg_dsn, scratch_database, scratch_database_base_url, start_server

WATCHES = 6
BOOKMARK_WATCH_SECONDS = 3  # the final bookmark comes 2 s before the deadline


def test_a_watch_opened_while_the_database_is_unreachable_is_a_503(tmp_path: Path) -> None:
    with scratch_database() as url:
        ensure_schema(url, upgrade=True)
        # priority and fairness would read its configuration first (and answer the 503 itself)
        server = start_server(tmp_path, ["--enable-priority-and-fairness=false"], database_url=url)
        try:
            listed = server.get("/api/v1/configmaps")
            revision = listed.json()["metadata"]["resourceVersion"]
            name = url.rsplit("/", 1)[1]
            with psycopg.connect(psycopg_dsn(scratch_database_base_url()), autocommit=True) as admin:
                admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            for params in ({"watch": "1"}, {"watch": "1", "resourceVersion": revision}):
                answer = server.get("/api/v1/configmaps", params=params, timeout=30)
                assert answer.status_code == 503, answer.text
                status = answer.json()
                assert status["kind"] == "Status" and status["reason"] == "ServiceUnavailable"
                assert answer.headers["Retry-After"] == "1"
                assert name not in status["message"] and "5432" not in status["message"]
        finally:
            server.stop()


def test_a_bookmark_never_goes_below_an_event_sent_before_it(any_server: RunningServer) -> None:
    namespace = f"bookmarks-{uuid.uuid4().hex[:8]}"
    made = any_server.session.post("/api/v1/namespaces", json={"metadata": {"name": namespace}})
    assert made.status_code == 201, made.text
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    stop = threading.Event()

    def write() -> None:
        session = any_server.new_session()
        i = 0
        while not stop.is_set():
            session.post(path, json={"metadata": {"name": f"c{i}"}})
            i += 1

    streams: list[list[dict]] = [[] for _ in range(WATCHES)]

    def watch(events: list[dict]) -> None:
        params = {"watch": "1", "allowWatchBookmarks": "true", "timeoutSeconds": str(BOOKMARK_WATCH_SECONDS)}
        with any_server.new_session().get(path, params=params, stream=True, timeout=30) as answer:
            events.extend(json.loads(line) for line in answer.iter_lines() if line)

    writers = [threading.Thread(target=write) for _ in range(2)]
    for writer in writers:
        writer.start()
    try:
        watchers = [threading.Thread(target=watch, args=(events,)) for events in streams]
        for watcher in watchers:
            watcher.start()
        for watcher in watchers:
            watcher.join()
    finally:
        stop.set()
        for writer in writers:
            writer.join()
    bookmarks = 0
    for events in streams:
        newest = 0
        for event in events:
            revision = int(event["object"]["metadata"]["resourceVersion"])
            if event["type"] == "BOOKMARK":
                bookmarks += 1
                assert revision >= newest, f"BOOKMARK at {revision} after an event at {newest}"
            newest = max(newest, revision)
    assert bookmarks >= 1  # the final bookmark of each watch that lived to see it
