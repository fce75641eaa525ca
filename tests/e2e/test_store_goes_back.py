"""The database goes back in time under a running server (what a failover to a standby that lagged, or a restore
of an older copy, does): the server never hands out a resourceVersion twice, a LIST never answers an older
resourceVersion than one already handed out, and every watcher gets 410 Expired and re-lists (issue 55)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.storage.going_back import go_back, keep

from . import RunningServer, poll, server_on

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def _create(server: RunningServer, name: str) -> requests.Response:
    return server.session.post(CONFIGMAPS, json={"metadata": {"name": name}, "data": {"n": name}})


def _created_revision(server: RunningServer, name: str) -> int:
    """Create, retrying the 503s the store going back answers while the revisions move on."""
    answer = poll(lambda: (r := _create(server, name)).status_code != 503 and r, timeout=30)
    assert answer.status_code == 201, answer.text
    return int(answer.json()["metadata"]["resourceVersion"])


class RawWatch:
    """A watch over HTTP from `revision`, its events collected by a thread until the stream ends."""

    def __init__(self, server: RunningServer, revision: int) -> None:
        self.events: list[dict] = []
        self.ended = threading.Event()
        self.response = server.new_session().get(
            CONFIGMAPS, params={"watch": "1", "resourceVersion": str(revision)}, stream=True, timeout=60
        )
        assert self.response.status_code == 200, self.response.text
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for line in self.response.iter_lines():
                if line:
                    self.events.append(json.loads(line))
        except requests.RequestException:
            pass
        finally:
            self.ended.set()


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_after_the_store_went_back_revisions_move_on_and_every_watcher_gets_410(store: str, tmp_path: Path) -> None:
    with server_on(store, tmp_path / "server") as server:
        url = server.database_url or f"sqlite:///{server.data_dir / 'orch.db'}"
        for i in range(3):
            _created_revision(server, f"kept-{i}")
        kept = keep(url, tmp_path)
        start = int(server.get(CONFIGMAPS).json()["metadata"]["resourceVersion"])
        raw = RawWatch(server, start)
        client_watch = ClientWatch(server, start)
        handed_out = [_created_revision(server, f"lost-{i}") for i in range(5)]
        poll(lambda: len([e for e in raw.events if e["type"] == "ADDED"]) == 5)
        newest_listed = int(server.get(CONFIGMAPS).json()["metadata"]["resourceVersion"])
        assert newest_listed >= max(handed_out)

        go_back(kept)

        after = [_created_revision(server, f"after-{i}") for i in range(5)]
        assert min(after) > max(handed_out) and len(set(after)) == len(after)
        listed = server.get(CONFIGMAPS).json()
        assert int(listed["metadata"]["resourceVersion"]) >= max(after)
        assert {item["metadata"]["name"] for item in listed["items"]} >= {
            *(f"kept-{i}" for i in range(3)),
            *(f"after-{i}" for i in range(5)),
        }
        assert not any(item["metadata"]["name"].startswith("lost-") for item in listed["items"])

        assert raw.ended.wait(30), raw.events[-3:]
        error = raw.events[-1]
        assert error["type"] == "ERROR", raw.events[-3:]
        assert error["object"]["code"] == 410 and error["object"]["reason"] == "Expired"
        assert client_watch.done.wait(60)
        assert client_watch.status == 410, client_watch.failure  # the official client re-watched, then gave up

        # resuming from any revision handed out before the jump re-lists
        again = server.get(CONFIGMAPS, params={"watch": "1", "resourceVersion": str(max(handed_out))}, stream=True)
        first = json.loads(next(again.iter_lines()))
        again.close()
        assert first["type"] == "ERROR" and first["object"]["code"] == 410
        exact = server.get(CONFIGMAPS, params={"resourceVersion": str(start), "resourceVersionMatch": "Exact"})
        assert exact.status_code == 410 and exact.json()["reason"] == "Expired"
        # 503s while the revisions move on, never an internal error (/readyz answers 500 until the server is ready)
        internal = [line for line in server.log().splitlines() if "resp=500" in line and "/readyz" not in line]
        assert not internal, internal[:3]


class ClientWatch:
    """The official kubernetes client's watch of the configmaps from `revision`, in a thread: the status of the
    ApiException that ended it (None: it ended without one)."""

    def __init__(self, server: RunningServer, revision: int) -> None:
        from kubernetes import client, config, watch

        self.api_client: Any = config.new_client_from_config(config_file=str(server.kubeconfig))
        self.api = client.CoreV1Api(self.api_client)
        self.watch = watch.Watch()
        self.status: int | None = None
        self.failure = ""
        self.done = threading.Event()
        self.opened = threading.Event()
        threading.Thread(target=self._run, args=(revision,), daemon=True).start()

    def _run(self, revision: int) -> None:
        from kubernetes.client.rest import ApiException

        try:
            for _event in self.watch.stream(
                self.api.list_namespaced_config_map, "default", resource_version=str(revision), timeout_seconds=60
            ):
                pass
        except ApiException as err:
            self.status, self.failure = err.status, str(err)
        except Exception as err:  # noqa: BLE001 - reported by the test's assertion
            self.failure = repr(err)
        finally:
            self.api_client.close()
            self.done.set()
