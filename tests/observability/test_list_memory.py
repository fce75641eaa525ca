"""--max-list-memory: concurrent large lists wait for their share of the budget instead of all holding their rows and
bodies at once; every list still answers whole, and the budget is given back when the responses are sent."""

from __future__ import annotations

import threading
from pathlib import Path

import orjson
import pytest
from orch_apiserver.api.render import LIST_MEMORY_KEY
from orch_apiserver.errors import TooManyRequests
from orch_apiserver.memory import RAW_COST_FACTOR, ListMemory, parse_byte_size

from tests.conftest import admin_app, wait_for

OBJECTS = 60
PAYLOAD = 4000  # bytes of data per ConfigMap: ~250 KB of rows per full list
CONCURRENT = 8


@pytest.fixture
def budget_app(database_url: str, tmp_path: Path):
    # room for about two of these lists at once (each costs its rows' text times RAW_COST_FACTOR)
    capacity = 2 * OBJECTS * (PAYLOAD + 400) * RAW_COST_FACTOR
    flask_app = admin_app(database_url, tmp_path, MAX_LIST_MEMORY=capacity)
    yield flask_app
    flask_app.extensions["orch.stop"]()


def _create_configmaps(client, count: int) -> None:
    for i in range(count):
        body = {"metadata": {"name": f"cm-{i:03d}"}, "data": {"payload": "x" * PAYLOAD}}
        resp = client.post("/api/v1/namespaces/default/configmaps", json=body)
        assert resp.status_code == 201, resp.get_data(as_text=True)


def test_concurrent_lists_stay_within_the_budget_and_all_answer_whole(budget_app) -> None:
    client = budget_app.test_client()
    _create_configmaps(client, OBJECTS)
    budget: ListMemory = budget_app.extensions[LIST_MEMORY_KEY]
    _get_json(client, "/api/v1/namespaces/default/configmaps")  # learns the collection's size
    budget.peak = 0
    answers: list[tuple[int, int]] = []

    def list_all() -> None:
        with budget_app.test_client().get("/api/v1/namespaces/default/configmaps") as resp:
            answers.append((resp.status_code, len(orjson.loads(resp.get_data())["items"])))

    threads = [threading.Thread(target=list_all) for _ in range(CONCURRENT)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert answers == [(200, OBJECTS)] * CONCURRENT
    assert 0 < budget.peak <= budget.capacity
    wait_for(lambda: budget.in_flight == 0)  # every response gave its share back


def _get_json(client, path: str, accept: str = "application/json") -> dict:
    with client.get(path, headers={"Accept": accept}) as resp:  # closed: its share goes back, as a server's does
        assert resp.status_code == 200, resp.get_data(as_text=True)
        return resp.get_json()


def test_table_and_paged_lists_are_whole_under_the_budget(budget_app) -> None:
    client = budget_app.test_client()
    _create_configmaps(client, 5)
    meta = budget_app.extensions["orch"].naming.meta_group
    table = _get_json(client, "/api/v1/namespaces/default/configmaps", f"application/json;as=Table;v=v1;g={meta}")
    assert len(table["rows"]) == 5
    page = _get_json(client, "/api/v1/namespaces/default/configmaps?limit=2")
    assert [i["metadata"]["name"] for i in page["items"]] == ["cm-000", "cm-001"] and page["metadata"]["continue"]
    assert _get_json(client, "/api/v1/namespaces/kube-public/configmaps?labelSelector=none%3Dhere")["items"] == []
    assert budget_app.extensions[LIST_MEMORY_KEY].in_flight == 0


def test_a_list_that_cannot_get_its_share_in_time_is_answered_429() -> None:
    budget = ListMemory(1000, wait=0.2)
    held = budget.reserve(800)
    with pytest.raises(TooManyRequests) as refused:
        budget.reserve(500)
    assert refused.value.code == 429 and refused.value.headers["Retry-After"] == "1"
    held.release()
    budget.reserve(5000).release()  # bigger than the whole budget: runs alone
    assert budget.in_flight == 0


def test_a_waiting_list_starts_when_another_gives_its_share_back() -> None:
    budget = ListMemory(1000, wait=30)
    held = budget.reserve(900)
    started = threading.Event()
    threading.Thread(target=lambda: (budget.reserve(900), started.set()), daemon=True).start()
    assert not started.wait(0.2)
    held.release()
    assert started.wait(10)


def test_sizes_read_as_kubernetes_quantities() -> None:
    assert parse_byte_size("512Mi") == 512 << 20
    assert parse_byte_size("2Gi") == 2 << 30
    assert parse_byte_size("500M") == 500_000_000
    assert parse_byte_size("0") == 0
    for bad in ("", "12MB", "-1Mi", "1.5Gi"):
        with pytest.raises(ValueError):
            parse_byte_size(bad)


def test_lists_of_a_collection_never_measured_go_one_at_a_time_until_the_first_has_read_its_rows() -> None:
    budget = ListMemory(100 << 20, wait=30)
    first = budget.begin("configmaps", decoded=False)
    second_started = threading.Event()

    def second() -> None:
        budget.begin("configmaps", decoded=False)
        second_started.set()

    threading.Thread(target=second, daemon=True).start()
    budget.begin("secrets", decoded=False).release()  # other collections are not held up
    assert not second_started.wait(0.2)
    first.measured(10 << 20)  # 10 MiB of rows: the second list now reserves what they cost
    assert second_started.wait(10)
    assert budget.in_flight == 2 * 10 * RAW_COST_FACTOR << 20
