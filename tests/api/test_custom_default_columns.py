"""Tables of custom kinds over HTTP on both stores: a version without additionalPrinterColumns is served with Name
and Age (the reference's serveDefaultColumnsIfEmpty), a column without a description gets the reference's one."""

from __future__ import annotations

from typing import Any

from orch_apiserver.controllers.base import Context
from orch_apiserver.controllers.crd import CrdController
from orch_apiserver.tables.columns import CREATED_DESCRIPTION

from tests.conftest import wait_for

CRDS = "/apis/apiextensions.orch.io/v1/customresourcedefinitions"
TABLE = "application/json;as=Table;v=v1;g=meta.orch.io"
SCHEMA = {"openAPIV3Schema": {"type": "object", "x-orch-preserve-unknown-fields": True}}


def crd(plural: str, columns: list[dict] | None) -> dict:
    version: dict[str, Any] = {"name": "v1", "served": True, "storage": True, "schema": SCHEMA}
    if columns is not None:
        version["additionalPrinterColumns"] = columns
    kind = plural.capitalize()[:-1]
    return {
        "apiVersion": "apiextensions.orch.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": plural, "kind": kind},
            "versions": [version],
        },
    }


def serve(app, client, plural: str, columns: list[dict] | None, *objects: dict) -> str:
    """Create the CRD, let the crd controller (test apps run none) accept it, create the objects; their URL."""
    assert client.post(CRDS, json=crd(plural, columns)).status_code == 201
    svc = app.extensions["orch"]
    CrdController(Context(svc.registry, svc.naming, svc.hub, settings=dict(app.config))).sync()
    url = f"/apis/example.com/v1/namespaces/default/{plural}"
    wait_for(lambda: client.get(url).status_code == 200)
    kind = plural.capitalize()[:-1]
    for obj in objects:
        created = client.post(url, json={"apiVersion": "example.com/v1", "kind": kind, **obj})
        assert created.status_code == 201, created.get_data(as_text=True)
    return url


def test_no_printer_columns_means_name_and_age(any_app, any_client) -> None:
    url = serve(any_app, any_client, "plains", None, {"metadata": {"name": "one"}})
    table = any_client.get(url, headers={"Accept": TABLE}).get_json()
    assert table["columnDefinitions"][1] == {
        "name": "Age",
        "type": "date",
        "format": "",
        "description": CREATED_DESCRIPTION,
        "priority": 0,
    }
    assert table["columnDefinitions"][0]["name"] == "Name" and table["columnDefinitions"][0]["format"] == "name"
    [row] = table["rows"]
    assert row["cells"][0] == "one"
    assert row["cells"][1][0].isdigit() and not row["cells"][1].endswith("Z")  # an age ("0s"), not a timestamp


def test_printer_columns_without_description_and_bad_dates(any_app, any_client) -> None:
    columns = [{"name": "When", "type": "date", "jsonPath": ".spec.when"}]
    objects = [{"metadata": {"name": n}, "spec": {"when": w}} for n, w in (("a", "yesterday"), ("b", ""))]
    url = serve(any_app, any_client, "timeds", columns, *objects)
    table = any_client.get(url, headers={"Accept": TABLE}).get_json()
    assert [(c["name"], c["description"]) for c in table["columnDefinitions"]][1:] == [
        ("When", "Custom resource definition column (in JSONPath format): .spec.when")
    ]
    # the reference's cells: an unparseable time is <invalid>, an empty one the zero time, <unknown>
    assert [row["cells"] for row in table["rows"]] == [["a", "<invalid>"], ["b", "<unknown>"]]
