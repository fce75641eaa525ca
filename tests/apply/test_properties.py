"""Property tests: apply is idempotent, ownership always points at existing fields, FieldsV1 round-trips."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from orch_apiserver.apply import (
    ApplyConflict,
    FieldSet,
    apply,
    decode_fields_v1,
    encode_fields_v1,
    field_pe,
    fieldset_from_object,
    record_update,
)
from orch_apiserver.apply.typeinfo import TypeNode, root_node

from tests.apply.helpers import DEPLOYMENT, T1, T2, T3, T4, entries, entry, missing_paths, owned, without_managed_fields

SETTINGS = settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

_env = st.fixed_dictionaries({"name": st.sampled_from(["A", "B", "C"]), "value": st.sampled_from(["1", "2"])})
_port = st.fixed_dictionaries(
    {"containerPort": st.sampled_from([80, 443, 8080])},
    optional={"protocol": st.sampled_from(["TCP", "UDP"]), "name": st.just("p")},
)
_container = st.fixed_dictionaries(
    {"name": st.sampled_from(["app", "sidecar", "init"]), "image": st.sampled_from(["nginx:1", "nginx:2"])},
    optional={
        "env": st.lists(_env, unique_by=lambda e: e["name"], max_size=3),
        "ports": st.lists(_port, unique_by=lambda p: (p["containerPort"], p.get("protocol", "TCP")), max_size=2),
        "args": st.lists(st.sampled_from(["-v", "-q"]), max_size=2),
    },
)


@st.composite
def configs(draw: st.DrawFn) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "web", "namespace": "default"}
    labels = draw(st.dictionaries(st.sampled_from(["app", "tier", "team"]), st.sampled_from(["x", "y"]), max_size=3))
    if labels:
        meta["labels"] = labels
    finalizers = draw(st.lists(st.sampled_from(["x.io/a", "x.io/b"]), unique=True, max_size=2))
    if finalizers:
        meta["finalizers"] = finalizers
    spec: dict[str, Any] = {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": draw(st.lists(_container, unique_by=lambda c: c["name"], min_size=1, max_size=3))},
        },
    }
    replicas = draw(st.none() | st.integers(0, 5))
    if replicas is not None:
        spec["replicas"] = replicas
    if draw(st.booleans()):
        spec["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": draw(st.sampled_from([1, "25%"]))}}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": spec}


def do_apply(live: dict | None, cfg: dict, manager: str, now: str, force: bool = False) -> dict:
    return apply(live, cfg, manager, DEPLOYMENT, "apps/v1", force, now)


def extract(value: Any, fs: FieldSet, node: TypeNode) -> Any:
    """The parts of `value` named by `fs` (the configuration a manager's fields describe)."""
    if isinstance(value, dict):
        out = {}
        for key, child in value.items():
            pe = field_pe(key)
            sub = fs.with_prefix(pe)
            if sub:
                out[key] = extract(child, sub, node.child(key))
            elif (pe,) in fs:
                out[key] = copy.deepcopy(child)
        return out
    if isinstance(value, list) and node.kind == "list" and node.list_type != "atomic":
        items = []
        for item in value:
            pe = node.item_pe(item)
            sub = fs.with_prefix(pe)
            if sub:
                items.append(extract(item, sub, node.item()))
            elif (pe,) in fs:
                items.append(copy.deepcopy(item))
        return items
    return copy.deepcopy(value)


@SETTINGS
@given(configs())
def test_applying_the_same_config_twice_is_a_noop(cfg: dict) -> None:
    once = do_apply(None, cfg, "kubectl", T1)
    assert without_managed_fields(once) == cfg
    assert do_apply(once, cfg, "kubectl", T2) == once


@SETTINGS
@given(configs())
def test_reapplying_the_extracted_config_keeps_the_object(cfg: dict) -> None:
    live = do_apply(None, cfg, "kubectl", T1)
    mine = extract(without_managed_fields(live), owned(live, "kubectl"), root_node(DEPLOYMENT))
    mine.update(apiVersion="apps/v1", kind="Deployment")
    mine.setdefault("metadata", {}).update(name="web", namespace="default")
    assert do_apply(live, mine, "kubectl", T2) == live


@SETTINGS
@given(configs(), configs(), st.booleans())
def test_owned_fields_always_exist(first: dict, second: dict, force: bool) -> None:
    obj = do_apply(None, first, "one", T1)
    try:
        obj = do_apply(obj, second, "two", T2, force=force)
    except ApplyConflict:
        assert not force  # a conflict leaves the object as it was
    edited = copy.deepcopy(obj)
    edited["spec"]["replicas"] = 7
    edited["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:edited"
    obj = record_update(obj, edited, "editor", DEPLOYMENT, "apps/v1", T3)
    obj = do_apply(obj, first, "one", T4, force=True)
    bare = without_managed_fields(obj)
    for e in entries(obj):
        fs = decode_fields_v1(e["fieldsV1"])
        assert fs, e  # empty managers are dropped
        assert missing_paths(bare, fs) == [], e["manager"]


@SETTINGS
@given(configs())
def test_force_reapply_after_an_update_restores_the_config(cfg: dict) -> None:
    cfg["spec"]["replicas"] = 2
    live = do_apply(None, cfg, "kubectl", T1)
    scaled = copy.deepcopy(live)
    scaled["spec"]["replicas"] = 9
    scaled = record_update(live, scaled, "hpa", DEPLOYMENT, "apps/v1", T2)
    back = do_apply(scaled, cfg, "kubectl", T3, force=True)
    assert without_managed_fields(back) == without_managed_fields(live)
    assert entry(back, "hpa") is None


@SETTINGS
@given(configs())
def test_noop_updates_keep_managed_fields(cfg: dict) -> None:
    live = record_update(None, cfg, "creator", DEPLOYMENT, "apps/v1", T1)
    assert record_update(live, copy.deepcopy(live), "other", DEPLOYMENT, "apps/v1", T2) == live


@SETTINGS
@given(configs())
def test_fields_v1_round_trips(cfg: dict) -> None:
    fs = fieldset_from_object(cfg, DEPLOYMENT)
    tree = encode_fields_v1(fs)
    assert decode_fields_v1(tree) == fs
    assert encode_fields_v1(decode_fields_v1(tree)) == tree
