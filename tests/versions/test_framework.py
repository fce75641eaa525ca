"""The served-versions machinery on a test-only kind whose versions spell a field differently: renames both
ways, the version's own checks, the storage strategy, field selectors in the served terms, namespace cleanup."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ClassVar

import orch_apiserver.resources
import pytest
from orch_apiserver.catalog import Conversion, FieldError, Obj, ResourceType, Strategy
from orch_apiserver.errors import forbidden, invalid
from orch_apiserver.naming import Naming

from tests.conftest import admin_app

GROUP = "example.orch.io"
V1 = f"/apis/{GROUP}/v1/namespaces/default/gadgets"
V1BETA1 = f"/apis/{GROUP}/v1beta1/namespaces/default/gadgets"


class GadgetStrategy(Strategy):
    field_selectors: ClassVar[dict[str, Callable[[Obj], str]]] = {
        "spec.color": lambda obj: str((obj.get("spec") or {}).get("color", ""))
    }

    def default(self, obj: Obj) -> None:
        obj.setdefault("spec", {}).setdefault("size", 1)

    def validate(self, obj: Obj) -> list[FieldError]:
        size = (obj.get("spec") or {}).get("size", 0)
        return [invalid("spec.size", size, "must be non-negative")] if size < 0 else []


class OldGadgetStrategy(GadgetStrategy):
    field_selectors: ClassVar[dict[str, Callable[[Obj], str]]] = {
        "spec.colour": lambda obj: str((obj.get("spec") or {}).get("colour", ""))
    }


def _rename(obj: Obj, api_version: str, old: str, new: str) -> Obj:
    out = copy.deepcopy(obj)
    out["apiVersion"] = api_version
    spec = out.get("spec")
    if isinstance(spec, dict) and old in spec:
        spec[new] = spec.pop(old)
    return out


def _no_legacy_on_create(obj: Obj, old: Obj | None) -> list[FieldError]:
    if old is None and "legacy" in (obj.get("spec") or {}):
        return [forbidden("spec.legacy", "may not be set on new gadgets")]
    return []


def gadget_types() -> list[ResourceType]:
    conversion = Conversion(
        GROUP,
        "v1",
        "gadgets",
        to_storage=lambda obj: _rename(obj, f"{GROUP}/v1", "colour", "color"),
        from_storage=lambda obj: _rename(obj, f"{GROUP}/v1beta1", "color", "colour"),
        validate=_no_legacy_on_create,
    )
    return [
        ResourceType(GROUP, "v1", "Gadget", "gadgets", True, strategy=GadgetStrategy()),
        ResourceType(GROUP, "v1beta1", "Gadget", "gadgets", True, strategy=OldGadgetStrategy(), conversion=conversion),
    ]


@pytest.fixture
def gadgets(sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator:
    build = orch_apiserver.resources.build_catalog

    def with_gadgets(naming: Naming):
        catalog = build(naming)
        for rt in gadget_types():
            catalog.add(rt)
        return catalog

    monkeypatch.setattr(orch_apiserver.resources, "build_catalog", with_gadgets)
    flask_app = admin_app(sqlite_url, tmp_path)
    yield flask_app.test_client()
    flask_app.extensions["orch.stop"]()


def gadget(name: str, **spec: object) -> dict:
    return {"apiVersion": f"{GROUP}/v1beta1", "kind": "Gadget", "metadata": {"name": name}, "spec": spec}


def test_renamed_field_round_trips_and_storage_defaults_apply(gadgets) -> None:
    created = gadgets.post(V1BETA1, json=gadget("g", colour="red"))
    assert created.status_code == 201, created.json
    assert created.json["spec"] == {"colour": "red", "size": 1}  # defaulted by the storage strategy
    assert gadgets.get(f"{V1}/g").json["spec"] == {"color": "red", "size": 1}
    assert gadgets.get(f"{V1BETA1}/g").json["spec"] == {"colour": "red", "size": 1}


def test_the_versions_own_checks_and_the_storage_validation(gadgets) -> None:
    refused = gadgets.post(V1BETA1, json=gadget("g", legacy=True))
    assert refused.status_code == 422
    assert refused.json["details"]["causes"][0]["field"] == "spec.legacy"
    assert refused.json["details"]["group"] == GROUP
    invalid_size = gadgets.post(V1BETA1, json=gadget("g", size=-1))
    assert invalid_size.status_code == 422
    assert "spec.size" in invalid_size.json["message"]


def test_field_selectors_use_the_served_versions_names(gadgets) -> None:
    gadgets.post(V1BETA1, json=gadget("red", colour="red"))
    gadgets.post(V1BETA1, json=gadget("blue", colour="blue"))
    old = gadgets.get(f"{V1BETA1}?fieldSelector=spec.colour%3Dred").json
    assert [i["metadata"]["name"] for i in old["items"]] == ["red"]
    new = gadgets.get(f"{V1}?fieldSelector=spec.color%3Dblue").json
    assert [i["metadata"]["name"] for i in new["items"]] == ["blue"]
    assert gadgets.get(f"{V1BETA1}?fieldSelector=spec.color%3Dred").status_code == 400
    watched = gadgets.get(f"{V1BETA1}?watch=true&resourceVersion=0&timeoutSeconds=1&fieldSelector=spec.colour%3Dblue")
    events = [json.loads(line) for line in watched.data.splitlines() if line.strip()]
    assert [(e["type"], e["object"]["spec"]["colour"]) for e in events] == [("ADDED", "blue")]


def test_merge_patch_speaks_the_served_version(gadgets) -> None:
    gadgets.post(V1BETA1, json=gadget("p", colour="red"))
    patched = gadgets.patch(
        f"{V1BETA1}/p", data=json.dumps({"spec": {"colour": "green"}}), content_type="application/merge-patch+json"
    )
    assert patched.status_code == 200, patched.json
    assert patched.json["spec"]["colour"] == "green"
    assert gadgets.get(f"{V1}/p").json["spec"]["color"] == "green"
    assert gadgets.get(f"{V1}/p").json["metadata"]["generation"] == 2


def test_namespace_deletion_removes_objects_of_every_version_once(gadgets) -> None:
    gadgets.post("/api/v1/namespaces", json={"metadata": {"name": "doomed"}})
    path = f"/apis/{GROUP}/v1beta1/namespaces/doomed/gadgets"
    assert gadgets.post(path, json=gadget("x", colour="red")).status_code == 201
    assert gadgets.delete("/api/v1/namespaces/doomed").status_code == 200
    deadline = time.monotonic() + 30
    while gadgets.get("/api/v1/namespaces/doomed").status_code != 404:
        assert time.monotonic() < deadline, gadgets.get("/api/v1/namespaces/doomed").json
        time.sleep(0.1)
    assert gadgets.get(f"/apis/{GROUP}/v1/namespaces/doomed/gadgets").json["items"] == []
