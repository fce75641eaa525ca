"""`v1` ComponentStatus: computed at read time, read-only, deprecated with the reference's warning."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import admin_app

URL = "/api/v1/componentstatuses"
WARNING = '299 - "v1 ComponentStatus is deprecated in v1.19+"'


def test_the_store_is_reported_and_the_kind_is_read_only(client) -> None:
    listed = client.get(URL)
    assert listed.status_code == 200 and listed.headers["Warning"] == WARNING
    body = listed.get_json()
    assert body["kind"] == "ComponentStatusList" and int(body["metadata"]["resourceVersion"]) > 0
    storage = {item["metadata"]["name"]: item for item in body["items"]}["storage-0"]
    assert storage["conditions"] == [{"type": "Healthy", "status": "True", "message": "ok"}]
    assert client.get(f"{URL}/storage-0").get_json()["conditions"][0]["status"] == "True"
    assert client.get(f"{URL}/nothing").status_code == 404
    assert client.post(URL, json={"metadata": {"name": "x"}}).status_code == 405
    assert client.delete(f"{URL}/storage-0").status_code == 405
    assert client.get(f"{URL}?watch=1").status_code == 405
    table = client.get(URL, headers={"Accept": "application/json;as=Table;v=v1;g=meta.orch.io"}).get_json()
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Status", "Message", "Error"]
    assert ["storage-0", "Healthy", "ok", ""] in [row["cells"] for row in table["rows"]]


def test_controllers_are_reported_unhealthy_until_they_run(sqlite_url: str, tmp_path: Path) -> None:
    app = admin_app(sqlite_url, tmp_path, CONTROLLERS="*", BACKGROUND=False)  # the controllers never start
    try:
        items = {item["metadata"]["name"]: item for item in app.test_client().get(URL).get_json()["items"]}
        condition = items["controller-manager"]["conditions"][0]
        assert condition["status"] == "False" and condition["error"].startswith("not running: ")
    finally:
        app.extensions["orch.stop"]()
