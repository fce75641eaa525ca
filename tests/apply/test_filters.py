"""The status/spec split and the metadata no manager owns."""

from __future__ import annotations

import copy

import pytest
from orch_apiserver.apply import FieldSet, ManagedFieldsUndecodable, apply, make_path, record_update, reset_fields

from tests.apply.helpers import T1, T2, owned_strings

PATHS = FieldSet(
    [
        make_path("spec", "replicas"),
        make_path("spec", "paused"),
        make_path("status", "replicas"),
        make_path("status"),
        make_path("metadata", "labels", "a"),
    ]
)


@pytest.mark.parametrize(
    ("has_status", "subresource", "kept"),
    [
        (True, None, [".metadata.labels.a", ".spec.paused", ".spec.replicas"]),
        (False, None, [".metadata.labels.a", ".spec.paused", ".spec.replicas", ".status", ".status.replicas"]),
        (True, "status", [".status", ".status.replicas"]),
        (True, "scale", [".spec.replicas"]),
        (True, "binding", [".metadata.labels.a", ".spec.paused", ".spec.replicas", ".status", ".status.replicas"]),
    ],
)
def test_reset_fields(has_status: bool, subresource: str | None, kept: list[str]) -> None:
    assert reset_fields(has_status, subresource)(PATHS).strings() == kept


THING = "x.orch.io/v1"


def thing(**spec: object) -> dict:
    return {"apiVersion": THING, "kind": "Thing", "metadata": {"name": "t"}, "spec": dict(spec), "status": {"ok": True}}


def test_schemaless_kinds_take_the_split_from_the_caller() -> None:
    obj = record_update(None, thing(a=1), "ctl", None, THING, T1)
    assert ".status.ok" in owned_strings(obj, "ctl")  # no schema, no filter: status is owned
    split = record_update(None, thing(a=1), "ctl", None, THING, T1, fields_filter=reset_fields(True))
    assert ".status.ok" not in owned_strings(split, "ctl")


def test_metadata_identity_fields_are_never_owned() -> None:
    cfg = thing(a=1)
    cfg["metadata"].update(namespace="ns", uid="u", resourceVersion="5", generation=2, labels={"x": "y"})
    obj = apply(None, cfg, "kubectl", None, THING, False, T1, kind="Thing", fields_filter=reset_fields(True))
    assert owned_strings(obj, "kubectl") == [".metadata.labels.x", ".spec", ".spec.a"]  # deduced: .spec too


def test_undecodable_live_managed_fields_fail_an_apply() -> None:
    live = thing(a=1)
    live["metadata"]["managedFields"] = [
        {"manager": "m", "operation": "Bogus", "apiVersion": THING, "fieldsType": "FieldsV1", "fieldsV1": {}}
    ]
    with pytest.raises(ManagedFieldsUndecodable) as caught:
        apply(live, thing(a=2), "kubectl", None, THING, False, T2, kind="Thing")
    assert caught.value.code == 500
    assert caught.value.message == "failed to decode managed fields: operation must be `Apply` or `Update`"


def test_undecodable_live_managed_fields_are_replaced_by_an_update() -> None:
    live = thing(a=1)
    live["metadata"]["managedFields"] = [{"manager": "m", "operation": "Bogus"}]
    new = copy.deepcopy(live)
    new["spec"]["a"] = 2
    out = record_update(live, new, "ctl", None, THING, T2, fields_filter=reset_fields(True))
    assert [e["manager"] for e in out["metadata"]["managedFields"]] == ["ctl"]
