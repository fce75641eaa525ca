"""Server-side apply: merge, ownership, conflicts, force, removal, list and map types, errors."""

from __future__ import annotations

import copy

import pytest
from orch_apiserver.apply import (
    ApplyConflict,
    ApplyInvalidObject,
    ApplyTypeMismatch,
    Conflict,
    ManagedFieldsInApply,
    apply,
    conflict_causes,
    conflict_message,
    make_path,
    record_update,
)
from orch_apiserver.apply.merge import merge
from orch_apiserver.apply.typeinfo import root_node

from tests.apply.helpers import (
    CONFIGMAP,
    DEPLOYMENT,
    T1,
    T2,
    T3,
    T4,
    WIDGET,
    WIDGET_VERSION,
    deployment,
    entries,
    entry,
    managers,
    owned_strings,
    widget,
    without_managed_fields,
)


def apply_dep(live: dict | None, cfg: dict, manager: str = "kubectl", force: bool = False, now: str = T1) -> dict:
    return apply(live, cfg, manager, DEPLOYMENT, "apps/v1", force, now)


def apply_w(live: dict | None, spec: dict, manager: str, force: bool = False, now: str = T1, **meta: object) -> dict:
    return apply(live, widget(spec, **meta), manager, WIDGET, WIDGET_VERSION, force, now)


APPLIED_DEPLOYMENT_FIELDS = {
    "f:metadata": {"f:labels": {"f:app": {}}},
    "f:spec": {
        "f:replicas": {},
        "f:selector": {},
        "f:template": {
            "f:metadata": {"f:labels": {"f:app": {}}},
            "f:spec": {"f:containers": {'k:{"name":"nginx"}': {".": {}, "f:image": {}, "f:name": {}}}},
        },
    },
}


def test_apply_creates() -> None:
    cfg = deployment()
    out = apply_dep(None, cfg)
    assert without_managed_fields(out) == cfg
    assert entries(out) == [
        {
            "manager": "kubectl",
            "operation": "Apply",
            "apiVersion": "apps/v1",
            "time": T1,
            "fieldsType": "FieldsV1",
            "fieldsV1": APPLIED_DEPLOYMENT_FIELDS,
        }
    ]


def test_reapplying_the_same_config_is_a_noop() -> None:
    out = apply_dep(None, deployment())
    assert apply_dep(out, deployment(), now=T2) == out


def test_apply_updates_and_refreshes_its_time() -> None:
    out = apply_dep(apply_dep(None, deployment()), deployment(image="nginx:1.26"), now=T2)
    assert out["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.26"
    assert entry(out, "kubectl")["time"] == T2


def test_same_value_shares_ownership_and_a_later_change_conflicts() -> None:
    out = apply_dep(None, deployment(replicas=3), "alice")
    out = apply_dep(out, deployment(replicas=3), "bob", now=T2)
    assert ".spec.replicas" in owned_strings(out, "alice") and ".spec.replicas" in owned_strings(out, "bob")
    assert entry(out, "bob").get("time") is None  # nothing changed: the reference stamps no time
    with pytest.raises(ApplyConflict) as caught:
        apply_dep(out, deployment(replicas=4), "alice", now=T3)
    assert [(c.manager, c.field) for c in caught.value.conflicts] == [("bob", ".spec.replicas")]


def scaled() -> dict:
    obj = apply_dep(None, deployment(replicas=3))
    new = copy.deepcopy(obj)
    new["spec"]["replicas"] = 5
    return record_update(obj, new, "hpa", DEPLOYMENT, "apps/v1", T2)


def test_conflict_error_is_the_reference_409() -> None:
    with pytest.raises(ApplyConflict) as caught:
        apply_dep(scaled(), deployment(replicas=3), now=T3)
    status = caught.value.status()
    assert status["code"] == 409 and status["reason"] == "Conflict"
    assert status["message"] == 'Apply failed with 1 conflict: conflict with "hpa" using apps/v1: .spec.replicas'
    assert status["details"] == {
        "causes": [
            {
                "reason": "FieldManagerConflict",
                "message": 'conflict with "hpa" using apps/v1',
                "field": ".spec.replicas",
            }
        ]
    }


def test_several_conflicts_are_grouped_by_manager() -> None:
    conflicts = [
        Conflict("b", "Apply", "apps/v1", "", make_path("spec", "replicas"), '{"manager":"b","operation":"Apply"}'),
        Conflict(
            "a",
            "Update",
            "apps/v1",
            "status",
            make_path("status", "x"),
            '{"manager":"a","operation":"Update","apiVersion":"apps/v1","subresource":"status"}',
        ),
        Conflict(
            "a",
            "Update",
            "apps/v1",
            "status",
            make_path("status", "y"),
            '{"manager":"a","operation":"Update","apiVersion":"apps/v1","subresource":"status"}',
        ),
    ]
    assert conflict_message(conflicts) == (
        'Apply failed with 3 conflicts: conflicts with "a" with subresource "status" using apps/v1:\n'
        "- .status.x\n- .status.y\n"
        'conflicts with "b":\n- .spec.replicas'
    )
    assert conflict_causes(conflicts)[0] == {
        "reason": "FieldManagerConflict",
        "message": 'conflict with "b"',
        "field": ".spec.replicas",
    }


def test_force_takes_ownership_and_drops_a_manager_left_with_nothing() -> None:
    out = apply_dep(scaled(), deployment(replicas=3), force=True, now=T3)
    assert out["spec"]["replicas"] == 3
    assert ".spec.replicas" in owned_strings(out, "kubectl")
    assert entry(out, "hpa") is None


def test_resolving_by_sharing_the_live_value() -> None:
    out = apply_dep(scaled(), deployment(replicas=5), now=T3)
    assert out["spec"]["replicas"] == 5
    assert ".spec.replicas" in owned_strings(out, "kubectl") and owned_strings(out, "hpa") == [".spec.replicas"]


def test_resolving_by_dropping_the_field_keeps_the_other_managers_value() -> None:
    out = apply_dep(scaled(), deployment(replicas=None), now=T3)
    assert out["spec"]["replicas"] == 5
    assert ".spec.replicas" not in owned_strings(out, "kubectl")


def test_removed_owned_fields_items_and_keys_are_deleted() -> None:
    cfg = deployment(replicas=3)
    cfg["metadata"]["labels"]["tier"] = "web"
    cfg["spec"]["template"]["spec"]["hostname"] = "h"
    cfg["spec"]["template"]["spec"]["containers"].append({"name": "sidecar", "image": "busybox"})
    out = apply_dep(None, cfg)
    out = apply_dep(out, deployment(replicas=None), now=T2)
    assert "replicas" not in out["spec"]
    assert out["metadata"]["labels"] == {"app": "nginx"}
    assert "hostname" not in out["spec"]["template"]["spec"]
    assert [c["name"] for c in out["spec"]["template"]["spec"]["containers"]] == ["nginx"]


def test_a_field_an_updater_took_over_survives_its_removal_from_the_config() -> None:
    out = apply_dep(scaled(), deployment(replicas=None), now=T3)  # the reference's transfer-to-controller case
    assert out["spec"]["replicas"] == 5
    assert owned_strings(out, "hpa") == [".spec.replicas"]


def test_an_owned_list_item_goes_even_when_a_controller_changed_it() -> None:
    obj = apply_dep(None, deployment())
    new = copy.deepcopy(obj)
    new["spec"]["template"]["spec"]["containers"][0]["workingDir"] = "/srv"
    obj = record_update(obj, new, "controller", DEPLOYMENT, "apps/v1", T2)
    cfg = deployment()
    cfg["spec"]["template"]["spec"]["containers"] = [{"name": "other", "image": "nginx"}]
    out = apply_dep(obj, cfg, now=T3)
    assert [c["name"] for c in out["spec"]["template"]["spec"]["containers"]] == ["other"]
    assert entry(out, "controller") is None


def test_a_defaulted_key_field_identifies_the_item() -> None:
    cfg = deployment()
    cfg["spec"]["template"]["spec"]["containers"][0]["ports"] = [{"name": "foo", "containerPort": 80}]
    obj = apply_dep(None, cfg, "first")
    other = deployment()
    other["spec"]["template"]["spec"]["containers"][0]["ports"] = [
        {"name": "bar", "containerPort": 80, "protocol": "TCP"}
    ]
    with pytest.raises(ApplyConflict) as caught:
        apply_dep(obj, other, "second", now=T2)
    assert [c.field for c in caught.value.conflicts] == [
        '.spec.template.spec.containers[name="nginx"].ports[containerPort=80,protocol="TCP"].name'
    ]


# -- several appliers on one keyed list (the reference's multiple-applier cases) ----------------------


def names(obj: dict) -> list[str]:
    return [item["name"] for item in obj["spec"]["list"]]


def test_appliers_remove_only_their_own_items() -> None:
    obj = apply_w(None, {"list": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}, "one")
    obj = apply_w(obj, {"list": [{"name": "c"}, {"name": "d"}]}, "two", now=T2)
    obj = apply_w(obj, {"list": [{"name": "a"}]}, "one", now=T3)
    assert names(obj) == ["a", "c", "d"]
    assert owned_strings(obj, "one") == ['.spec.list[name="a"]', '.spec.list[name="a"].name']
    assert owned_strings(obj, "two") == [
        '.spec.list[name="c"]',
        '.spec.list[name="c"].name',
        '.spec.list[name="d"]',
        '.spec.list[name="d"].name',
    ]


def test_appliers_share_an_item_value_until_one_changes_it() -> None:
    obj = apply_w(None, {"list": [{"name": "a", "value": 0}]}, "one")
    obj = apply_w(obj, {"list": [{"name": "a", "value": 0}]}, "two", now=T2)
    assert owned_strings(obj, "one") == owned_strings(obj, "two")
    with pytest.raises(ApplyConflict) as caught:
        apply_w(obj, {"list": [{"name": "a", "value": 1}]}, "two", now=T3)
    assert {(c.manager, c.field) for c in caught.value.conflicts} == {("one", '.spec.list[name="a"].value')}


MERGE_ORDER_CASES = [  # (live names, applied names, merged names): live-only items keep their place
    (["a", "b", "c"], ["c", "b"], ["a", "c", "b"]),
    (["a", "b", "c"], ["c", "a"], ["b", "c", "a"]),
    (["b"], ["a", "b", "c"], ["a", "b", "c"]),
    (["a", "b", "c", "d"], ["d", "e", "f", "a"], ["b", "c", "d", "e", "f", "a"]),
]


@pytest.mark.parametrize(("live", "applied", "merged"), MERGE_ORDER_CASES)
def test_keyed_list_merge_order(live: list[str], applied: list[str], merged: list[str]) -> None:
    obj = apply_w(None, {"list": [{"name": n} for n in live]}, "one")
    out = apply_w(obj, {"list": [{"name": n} for n in applied]}, "two", now=T2)
    assert names(out) == merged


def run(ops: list[tuple[str, str, dict]]) -> dict:
    """Apply or update the Widget's spec in turn; returns the final object."""
    obj: dict | None = None
    for i, (op, manager, spec) in enumerate(ops):
        now = f"2024-05-0{i + 1}T10:00:00Z"
        if op == "apply":
            obj = apply_w(obj, spec, manager, now=now)
        else:
            new = copy.deepcopy(obj) if obj is not None else widget()
            new["spec"] = spec
            obj = record_update(obj, new, manager, WIDGET, WIDGET_VERSION, now)
    assert obj is not None
    return obj


UNSET_CASES = [  # (ops, resulting spec, owners of .spec.config.b)
    pytest.param(
        [("apply", "one", {"config": {"a": "x", "b": "y"}}), ("apply", "one", {"config": {"a": "x"}})],
        {"config": {"a": "x"}},
        [],
        id="sole owner: the field goes",
    ),
    pytest.param(
        [
            ("apply", "one", {"config": {"a": "x", "b": "y"}}),
            ("apply", "two", {"config": {"b": "y"}}),
            ("apply", "one", {"config": {"a": "x"}}),
        ],
        {"config": {"a": "x", "b": "y"}},
        ["two"],
        id="shared with another applier: it stays",
    ),
    pytest.param(
        [
            ("update", "updater", {"config": {"a": "x", "b": "y"}}),
            ("apply", "applier", {"config": {"a": "x", "b": "y"}}),
            ("apply", "applier", {"config": {"a": "x"}}),
        ],
        {"config": {"a": "x", "b": "y"}},
        ["updater"],
        id="shared with an updater: it stays",
    ),
    pytest.param(
        [
            ("apply", "applier", {"config": {"a": "x", "b": "y"}}),
            ("update", "updater", {"config": {"a": "x", "b": "z"}}),
        ],
        {"config": {"a": "x", "b": "z"}},
        ["updater"],
        id="an updater claims the field it changes",
    ),
    pytest.param(
        [("apply", "default", {"config": {"a": "x"}}), ("apply", "default", {"config": None})],
        {},
        [],
        id="an explicit null empties the struct, which is dropped",
    ),
    pytest.param(
        [
            ("apply", "default", {"config": {"a": "x"}}),
            ("update", "controller", {"config": {"a": "x", "b": "1"}}),
            ("apply", "default", {}),
        ],
        {"config": {"b": "1"}},
        ["controller"],
        id="the controller's part of a struct survives",
    ),
    pytest.param(
        [
            ("apply", "default", {"config": {"a": "x"}}),
            ("update", "controller", {"config": {"a": "x", "b": "1"}}),
            ("apply", "default", {"config": {}}),
        ],
        {"config": {"b": "1"}},
        ["controller"],
        id="applying an empty struct drops only my part",
    ),
    pytest.param(
        [
            ("apply", "default", {"config": {"a": "x"}}),
            ("update", "controller", {"config": {"a": "y", "b": "1"}}),
            ("apply", "default", {"config": None}),
        ],
        {"config": {"a": "y", "b": "1"}},
        ["controller"],
        id="a field taken over is not mine to remove",
    ),
]


@pytest.mark.parametrize(("ops", "spec", "owners"), UNSET_CASES)
def test_unsetting_fields(ops: list, spec: dict, owners: list[str]) -> None:
    obj = run(ops)
    assert obj["spec"] == spec
    assert [
        e["manager"] for e in entries(obj) if ".spec.config.b" in owned_strings(obj, e["manager"], e["operation"])
    ] == owners


# -- set, atomic and map types ---------------------------------------------------------------------------


def test_set_items_are_owned_by_value() -> None:
    obj = apply_w(None, {"tags": ["a"]}, "one")
    obj = apply_w(obj, {"tags": ["b"]}, "two", now=T2)
    assert obj["spec"]["tags"] == ["a", "b"]
    obj = apply_w(obj, {}, "one", now=T3)
    assert obj["spec"]["tags"] == ["b"]


SET_OWNERSHIP_CASES = [  # an applier and a controller sharing a set (the reference's cases)
    pytest.param(
        ["a", "aprime", "c", "cprime"],
        ["a", "b", "aprime", "c", "d", "cprime"],
        ["a", "aprime", "c", "cprime"],
        id="no overlap",
    ),
    pytest.param(["a", "b", "c"], ["a", "b", "c", "d"], ["a", "b", "c"], id="overlap is shared"),
]


@pytest.mark.parametrize(("second", "merged", "mine"), SET_OWNERSHIP_CASES)
def test_set_shared_with_a_controller(second: list[str], merged: list[str], mine: list[str]) -> None:
    obj = run(
        [
            ("apply", "default", {"tags": ["a", "c"]}),
            ("update", "controller", {"tags": ["a", "b", "c", "d"]}),
            ("apply", "default", {"tags": second}),
        ]
    )
    assert obj["spec"]["tags"] == merged
    assert owned_strings(obj, "default") == [f'.spec.tags[="{v}"]' for v in mine]
    assert owned_strings(obj, "controller") == ['.spec.tags[="b"]', '.spec.tags[="d"]']


SET_MERGE_CASES = [  # (live, applied, merged): the reference's set merge order, duplicates in live included
    ("a b c", "a b", "a b c"),
    ("a b", "b a", "b a"),
    ("a b c g f", "c d e f", "a b c g d e f"),
    ("c d e f", "a c e", "a c d e f"),
    ("a b c d", "d e f a", "b c d e f a"),
    ("c d e f g h i j", "2 h 3 e 4 k l", "c d f g 2 h i j 3 e 4 k l"),
    ("a b b", "c", "a b b c"),
    ("a b b", "b", "a b"),
    ("a b c d e c", "1 b 2 c e d", "a 1 b 2 c e d"),
    ("a a b b", "b c d", "a a b c d"),
    ("c a g f c a", "c f a g", "c f a g"),
]


@pytest.mark.parametrize(("live", "applied", "merged"), SET_MERGE_CASES)
def test_set_merge_order(live: str, applied: str, merged: str) -> None:
    node = root_node(WIDGET)
    out = merge({"spec": {"tags": live.split()}}, {"spec": {"tags": applied.split()}}, node)
    assert out["spec"]["tags"] == merged.split()


@pytest.mark.parametrize("field", ["atomicList", "plainList", "atomicMap", "selector", "atomicConfig"])
def test_atomic_values_are_owned_and_replaced_whole(field: str) -> None:
    first, second = (["x", "y"], ["x"]) if "List" in field else ({"a": "1", "b": "2"}, {"a": "1"})
    obj = apply_w(None, {field: first}, "one")
    with pytest.raises(ApplyConflict) as caught:
        apply_w(obj, {field: second}, "two", now=T2)
    assert [c.field for c in caught.value.conflicts] == [f".spec.{field}"]
    out = apply_w(obj, {field: second}, "two", force=True, now=T2)
    assert out["spec"][field] == second
    assert entry(out, "one") is None


@pytest.mark.parametrize("field", ["labels", "config", "granularSelector"])
def test_granular_maps_and_structs_merge_key_by_key(field: str) -> None:
    obj = apply_w(None, {field: {"a": "1"}}, "one")
    out = apply_w(obj, {field: {"b": "2"}}, "two", now=T2)
    assert out["spec"][field] == {"a": "1", "b": "2"}
    assert owned_strings(out, "two") == [f".spec.{field}.b"]


def test_atomic_schema_change_makes_old_owners_own_the_whole_value() -> None:
    live = widget({"selector": {"a": "1"}})
    live["metadata"]["managedFields"] = [
        {
            "manager": "legacy",
            "operation": "Update",
            "apiVersion": WIDGET_VERSION,
            "time": T1,
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": {"f:selector": {"f:a": {}}}},
        }
    ]
    with pytest.raises(ApplyConflict) as caught:
        apply_w(live, {"selector": {"a": "1", "b": "2"}}, "new", now=T2)
    assert [c.field for c in caught.value.conflicts] == [".spec.selector"]


# -- status / spec split, subresources, first apply -------------------------------------------------


def test_apply_to_the_main_resource_never_owns_status() -> None:
    cfg = deployment()
    cfg["status"] = {"replicas": 1}
    out = apply_dep(None, cfg)
    assert not any(s.startswith(".status") for s in owned_strings(out, "kubectl"))


def test_apply_to_status_owns_only_status() -> None:
    obj = apply_dep(None, deployment())
    cfg = deployment(replicas=9)
    cfg["status"] = {"replicas": 1}
    out = apply(obj, cfg, "ctl", DEPLOYMENT, "apps/v1", False, T2, subresource="status")
    assert entry(out, "ctl")["subresource"] == "status"
    assert owned_strings(out, "ctl") == [".status.replicas"]


def test_fields_set_before_the_first_apply_get_an_owner() -> None:
    live = deployment(replicas=2)  # stored without any managedFields
    out = apply_dep(live, deployment(replicas=2), now=T2)
    assert managers(out) == [("kubectl", "Apply"), ("before-first-apply", "Update")]
    assert ".spec.replicas" in owned_strings(out, "before-first-apply")
    with pytest.raises(ApplyConflict) as caught:
        apply_dep(live, deployment(replicas=2, image="nginx:2"), now=T2)
    assert [(c.manager, c.field) for c in caught.value.conflicts] == [
        ("before-first-apply", '.spec.template.spec.containers[name="nginx"].image')
    ]


def test_schemaless_objects_apply_with_deduced_types() -> None:
    cfg = {
        "apiVersion": "x.orch.io/v1",
        "kind": "Thing",
        "metadata": {"name": "t"},
        "spec": {"size": 1, "list": [1, 2], "map": {"a": 1}},
    }
    obj = apply(None, cfg, "one", None, "x.orch.io/v1", False, T1, kind="Thing")
    out = apply(obj, {**cfg, "spec": {"map": {"b": 2}}}, "two", None, "x.orch.io/v1", False, T2, kind="Thing")
    assert out["spec"] == {"size": 1, "list": [1, 2], "map": {"a": 1, "b": 2}}


def test_configmap_data_keys_are_granular() -> None:
    cfg = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1", "b": "2"}}
    obj = apply(None, cfg, "one", CONFIGMAP, "v1", False, T1)
    out = apply(obj, {**cfg, "data": {"a": "1"}}, "one", CONFIGMAP, "v1", False, T4)
    assert out["data"] == {"a": "1"}


# -- refusals --------------------------------------------------------------------------------------------


def test_managed_fields_in_the_config_are_refused() -> None:
    cfg = deployment()
    cfg["metadata"]["managedFields"] = []
    with pytest.raises(ManagedFieldsInApply) as caught:
        apply_dep(None, cfg)
    assert (caught.value.code, caught.value.message) == (400, "metadata.managedFields must be nil")


@pytest.mark.parametrize(
    ("api_version", "kind", "message"),
    [
        ("apps/v1beta1", "Deployment", "invalid object type: apps/v1beta1, Kind=Deployment"),
        ("apps/v1", "StatefulSet", "invalid object type: apps/v1, Kind=StatefulSet"),
        ("v1", "Deployment", "invalid object type: /v1, Kind=Deployment"),
    ],
)
def test_type_mismatch_is_refused(api_version: str, kind: str, message: str) -> None:
    with pytest.raises(ApplyTypeMismatch) as caught:
        apply_dep(None, {**deployment(), "apiVersion": api_version, "kind": kind})
    assert (caught.value.code, caught.value.message) == (400, message)


@pytest.mark.parametrize(
    ("mutate", "detail"),
    [
        (
            lambda c: c["spec"]["template"]["spec"]["containers"].append({"name": "nginx"}),
            '.spec.template.spec.containers: duplicate entries for key [name="nginx"]',
        ),
        (lambda c: c["spec"].update(replicass=1), ".spec.replicass: field not declared in schema"),
        # structured-merge-diff typed/validate.go and helpers.go, Go's fmt verbs on the value's wrapper
        (lambda c: c["spec"].update(replicas="3"), ".spec.replicas: expected numeric (int or float), got string"),
        (lambda c: c["spec"].update(paused=1), ".spec.paused: expected boolean, got &{1}"),
        (
            lambda c: c["spec"]["template"]["spec"]["containers"][0].update(image=7),
            '.spec.template.spec.containers[name="nginx"].image: expected string, '
            "got &value.valueUnstructured{Value:7}",
        ),
        (lambda c: c["spec"].update(selector="app=web"), ".spec.selector: expected map, got &{app=web}"),
        (
            lambda c: c["spec"].update(strategy={"rollingUpdate": {"maxSurge": [1]}}),
            ".spec.strategy.rollingUpdate.maxSurge: expected any scalar, got &{[1]}",
        ),
        (
            lambda c: c["spec"]["template"]["spec"]["containers"].append({"image": "x"}),
            (
                ".spec.template.spec.containers: element 1: associative list with keys has an element that omits all "
                'key fields ["name"] (and doesn\'t have default values for any key fields)'
            ),
        ),
    ],
)
def test_configs_that_do_not_fit_the_schema_are_refused(mutate: object, detail: str) -> None:
    cfg = deployment()
    mutate(cfg)  # type: ignore[operator]
    with pytest.raises(ApplyInvalidObject) as caught:
        apply_dep(None, cfg)
    assert (caught.value.code, caught.value.reason) == (400, "BadRequest")
    assert (
        caught.value.message == f"failed to create typed patch object (default/web; apps/v1, Kind=Deployment): {detail}"
    )
