"""The descriptions `kubectl explain` shows (app/api/openapi/descriptions.py): every entry names a real kind, type
and field, every kind is described, and the OpenAPI documents carry them."""

from __future__ import annotations

from orch_apiserver.api.openapi import descriptions as d
from orch_apiserver.schema import types as t
from orch_apiserver.schema.objects import MODULES


def _structs() -> dict[str, list[t.Struct]]:
    """Declared types by name and by qualname (a name may stand for types of several groups)."""
    out: dict[str, list[t.Struct]] = {}
    for module in MODULES:
        for value in vars(module).values():
            if isinstance(value, t.Struct):
                out.setdefault(value.name, []).append(value)
                out.setdefault(value.qualname, []).append(value)
    return out


def _kind_names() -> set[str]:
    return {struct.name for module in MODULES for struct in module.KINDS.values()}


def test_every_described_field_exists() -> None:
    structs = _structs()
    missing = [key for key in d.FIELDS if not any(key[1] in s.json_fields for s in structs.get(key[0], []))]
    assert missing == []
    used = {key for same in structs.values() for struct in same for key in struct.json_fields}
    assert sorted(set(d.COMMON_FIELDS) - used) == []
    assert sorted(set(d.STRUCT_DESCRIPTIONS) - set(structs)) == []


def test_every_kind_and_every_list_is_described() -> None:
    kinds = _kind_names()
    assert sorted(k for k in kinds if not d.kind_description(k)) == []
    assert sorted(set(d.KIND_DESCRIPTIONS) - kinds) == []
    assert d.kind_description("DeploymentList") == "A list of Deployment objects."


def test_a_types_own_description_wins_over_a_common_one() -> None:
    assert d.field_description("DeploymentStatus", "apps/v1.DeploymentStatus", "replicas", False) == (
        "The number of pods this deployment manages."
    )
    assert (
        d.field_description("StatefulSetStatus", "apps/v1.StatefulSetStatus", "replicas", False)
        == (d.COMMON_FIELDS["replicas"])
    )
    assert d.field_description("Anything", "x/v1.Anything", "spec", True) == d.KIND_FIELD_DESCRIPTIONS["spec"]
    assert d.field_description("Anything", "x/v1.Anything", "spec", False) == ""


def test_the_openapi_documents_carry_them(client) -> None:
    doc = client.get("/openapi/v3/apis/apps/v1").get_json()
    schemas = doc["components"]["schemas"]
    assert schemas["apps.v1.Deployment"]["description"] == d.KIND_DESCRIPTIONS["Deployment"]
    assert schemas["apps.v1.DeploymentList"]["description"] == "A list of Deployment objects."
    paused = schemas["apps.v1.DeploymentSpec"]["properties"]["paused"]
    assert paused["description"] == "Stop rolling out template changes while true."


def test_every_declared_type_and_field_is_described() -> None:
    """A field added to a declaration without a description fails here: kubectl explain would show <empty>."""
    undescribed: list[str] = []
    for same in _structs().values():
        for struct in same:
            if not d.struct_description(struct.name, struct.qualname):
                undescribed.append(struct.qualname)
            undescribed += [
                f"{struct.qualname}.{key}"
                for key in struct.json_fields
                if not d.field_description(struct.name, struct.qualname, key, struct.kind)
            ]
    assert sorted(set(undescribed)) == []
