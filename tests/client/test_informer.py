"""The informer: list then watch, handlers, resume when the server ends a stream, re-list after 410 Gone."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from orch_apiserver.client import ApiError, Client, Informer, load_config

from tests.client.conftest import QUIET_CONTROLLERS
from tests.e2e import RunningServer, start_server

pytestmark = pytest.mark.e2e


def wait_until(predicate: Callable[[], object], timeout: float = 30.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def configmap(name: str, **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


class Recorder:
    def __init__(self, informer: Informer) -> None:
        self.events: list[tuple[str, str]] = []
        informer.add_handlers(
            on_add=lambda obj: self.events.append(("add", obj["metadata"]["name"])),
            on_update=lambda old, new: self.events.append(("update", new["metadata"]["name"])),
            on_delete=lambda obj: self.events.append(("delete", obj["metadata"]["name"])),
        )

    def saw(self, *events: tuple[str, str]) -> Callable[[], bool]:
        return lambda: all(event in self.events for event in events)


def make_namespace(client: Client, name: str) -> str:
    client.create("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    return name


@pytest.fixture(scope="module")
def short_history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A server that forgets watch history after 2 seconds, so a paused informer meets 410 Gone."""
    running = start_server(
        tmp_path_factory.mktemp("short-history"), args=["--history-window", "2s", "--controllers", QUIET_CONTROLLERS]
    )
    yield running
    running.stop()


def test_handlers_and_resume_after_the_server_ends_each_watch(api_server: RunningServer) -> None:
    client = Client(load_config(str(api_server.kubeconfig), environ={}))
    namespace = make_namespace(client, "informer-resume")
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    client.create(path, configmap("a", v="1"))
    informer = Informer(client, "/api/v1/configmaps", namespace=namespace, watch_timeout_seconds=1)
    recorder = Recorder(informer)
    informer.start()
    try:
        assert informer.wait_for_sync(30)
        assert recorder.events == [("add", "a")]
        client.patch(f"{path}/a", {"data": {"v": "2"}}, "merge")
        client.create(path, configmap("b"))
        client.delete(f"{path}/a")
        wait_until(recorder.saw(("update", "a"), ("add", "b"), ("delete", "a")), what="the first changes")
        # every stream lasts one second: after the server ended some, changes still arrive, without a re-list
        wait_until(lambda: informer.streams >= 3, what="the informer to resume its watch")
        client.create(path, configmap("c"))
        wait_until(recorder.saw(("add", "c")), what="a change after resuming")
        assert recorder.events == [("add", "a"), ("update", "a"), ("add", "b"), ("delete", "a"), ("add", "c")]
        assert informer.lists == 1
        assert set(informer.cache) == {f"{namespace}/b", f"{namespace}/c"}
        assert informer.cache[f"{namespace}/b"]["metadata"]["name"] == "b"
    finally:
        informer.stop()


def history_expired(client: Client, path: str, version: str) -> bool:
    try:
        for event in client.watch(path, resource_version=version, timeout_seconds=1):
            if event.get("type") == "ERROR" and event["object"].get("code") == 410:
                return True
    except ApiError as err:
        return err.status == 410
    return False


def test_a_410_clears_the_cache_lists_again_and_synthesizes_deletes(
    short_history: RunningServer, tmp_path: Path
) -> None:
    client = Client(load_config(str(short_history.kubeconfig), environ={}))
    namespace = make_namespace(client, "informer-gone")
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    client.create(path, configmap("stays"))
    client.create(path, configmap("goes"))
    informer = Informer(client, path, watch_timeout_seconds=1)
    recorder = Recorder(informer)
    informer.start()
    assert informer.wait_for_sync(30)
    informer.stop()  # a long disconnect: changes happen and the history moves past the informer's version
    client.delete(f"{path}/goes")
    client.create(path, configmap("new"))
    last_seen = informer.resource_version
    assert last_seen is not None
    wait_until(lambda: history_expired(client, path, last_seen), what="the history to be compacted")
    informer.start()
    try:
        wait_until(recorder.saw(("delete", "goes"), ("add", "new")), what="the re-list after 410")
        assert informer.lists == 2
        assert set(informer.cache) == {f"{namespace}/stays", f"{namespace}/new"}
        client.create(path, configmap("later"))  # and it watches again from the new list's version
        wait_until(recorder.saw(("add", "later")), what="a change after the re-list")
    finally:
        informer.stop()


def test_selectors_filter_and_bookmarks_move_the_resume_version(api_server: RunningServer) -> None:
    client = Client(load_config(str(api_server.kubeconfig), environ={}))
    namespace = make_namespace(client, "informer-selected")
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    web = {**configmap("web"), "metadata": {"name": "web", "labels": {"app": "web"}}}
    client.create(path, web)
    client.create(path, {**configmap("db"), "metadata": {"name": "db", "labels": {"app": "db"}}})
    informer = Informer(client, path, label_selector="app=web", watch_timeout_seconds=3)
    recorder = Recorder(informer)
    informer.start()
    try:
        assert informer.wait_for_sync(30)
        listed_version = informer.resource_version
        client.create(path, {**configmap("db2"), "metadata": {"name": "db2", "labels": {"app": "db"}}})
        # no matching event arrives, but the bookmark the server sends before a stream's end moves the version
        wait_until(lambda: informer.resource_version != listed_version, what="a bookmark")
        assert recorder.events == [("add", "web")]
        assert set(informer.cache) == {f"{namespace}/web"}
    finally:
        informer.stop()
