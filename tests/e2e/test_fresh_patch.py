"""A JSON patch's `test` and `remove` decide on the object the write reads, never on an older copy (issue 56).

The server runs two workers; each round writes through one connection and at once patches through a fresh
one, so the patch often lands on the other worker, whose watch memory may not have the write yet. The
`kubernetes` client is the one kopf uses for its finalizer removal (a `test` then a `remove`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from . import RunningServer, server_on

ROUNDS = 40
#: two workers, so a fresh connection may land on the one that did not see the last write yet
WORKERS = ["--workers", "2", "--threads", "8"]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def two_workers(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    with server_on(request.param, tmp_path_factory.mktemp(f"fresh-patch-{request.param}"), WORKERS) as running:
        yield running


def _client(server: RunningServer) -> Any:
    from kubernetes import client, config

    return client.CoreV1Api(config.new_client_from_config(config_file=str(server.kubeconfig)))


def _json_patch(api: Any, name: str, ops: list[dict]) -> Any:
    """A JSON patch through the client's generated method (it sends a list body as json-patch+json)."""
    return api.patch_namespaced_config_map(name, "default", ops)


def test_json_patch_test_op_sees_the_write_just_made(two_workers: RunningServer) -> None:
    writer = _client(two_workers)
    writer.create_namespaced_config_map("default", {"metadata": {"name": "fresh-test"}, "data": {"v": "0"}})
    for i in range(1, ROUNDS + 1):
        writer.patch_namespaced_config_map("fresh-test", "default", {"data": {"v": str(i)}})
        patcher = _client(two_workers)  # a new connection: either worker may take it
        try:
            patched = _json_patch(
                patcher,
                "fresh-test",
                [
                    {"op": "test", "path": "/data/v", "value": str(i)},
                    {"op": "replace", "path": "/data/v", "value": "p"},
                ],
            )
        finally:
            patcher.api_client.close()
        assert patched.data == {"v": "p"}, f"round {i}"
    writer.api_client.close()


def test_kopf_style_finalizer_removal_after_adding_it(two_workers: RunningServer) -> None:
    """kopf adds its finalizer, then removes it with `test` + `remove` on the index it saw."""
    writer = _client(two_workers)
    writer.create_namespaced_config_map("default", {"metadata": {"name": "fresh-finalizer"}})
    finalizer = "kopf.zalando.org/KopfFinalizerMarker"
    for i in range(ROUNDS):
        writer.patch_namespaced_config_map("fresh-finalizer", "default", {"metadata": {"finalizers": [finalizer]}})
        remover = _client(two_workers)
        try:
            removed = _json_patch(
                remover,
                "fresh-finalizer",
                [
                    {"op": "test", "path": "/metadata/finalizers/0", "value": finalizer},
                    {"op": "remove", "path": "/metadata/finalizers/0"},
                ],
            )
        finally:
            remover.api_client.close()
        assert not removed.metadata.finalizers, f"round {i}"
    writer.api_client.close()


def test_a_failing_test_op_answers_as_the_reference(two_workers: RunningServer) -> None:
    """The reference's patch handler wraps the library's error in NewGenericServerResponse(422, ...), which keeps
    its own message and drops the library's (`testing value /data/v failed`): no causes."""
    from kubernetes.client.rest import ApiException

    api = _client(two_workers)
    api.create_namespaced_config_map("default", {"metadata": {"name": "fresh-failing"}, "data": {"v": "1"}})
    with pytest.raises(ApiException) as caught:
        _json_patch(api, "fresh-failing", [{"op": "test", "path": "/data/v", "value": "2"}])
    api.api_client.close()
    assert caught.value.status == 422
    status = json.loads(caught.value.body)
    assert status["reason"] == "Invalid"
    assert status["message"] == "the server rejected our request due to an error in our request"
    assert status["details"] == {}
