"""batch/v1beta1 CronJob, discovery v1beta1 EndpointSlice and node v1beta1 RuntimeClass onto their v1."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from orch_apiserver.catalog import ResourceType
from orch_apiserver.resources import build_catalog

from tests.conversion import from_storage, to_storage
from tests.conversion.objects import NAMING, objects

CATALOG = build_catalog(NAMING)
DISCOVERY, NODE = NAMING.group("discovery"), NAMING.group("node")
HOSTNAME, ZONE = NAMING.key("hostname"), f"topology.{NAMING.domain}/zone"


def _rt(group: str, version: str, plural: str) -> ResourceType:
    found = CATALOG.lookup(group, version, plural)
    assert found is not None, (group, version, plural)
    return found


CRONJOB = _rt("batch", "v1beta1", "cronjobs")
SLICE = _rt(DISCOVERY, "v1beta1", "endpointslices")
RUNTIME_CLASS = _rt(NODE, "v1beta1", "runtimeclasses")
OLDER = [CRONJOB, SLICE, RUNTIME_CLASS]


@pytest.mark.parametrize(
    ("rt", "deprecated", "replacement"),
    [
        (CRONJOB, "1.21", "batch/v1 CronJob"),
        (SLICE, "1.21", f"{DISCOVERY}/v1 EndpointSlice"),
        (RUNTIME_CLASS, "1.22", f"{NODE}/v1 RuntimeClass"),  # the spec's removal table names v1
    ],
    ids=lambda v: getattr(v, "group_version", None),
)
def test_older_versions_are_deprecated_and_stored_as_v1(rt: ResourceType, deprecated: str, replacement: str) -> None:
    storage = CATALOG.storage_type(rt)
    assert (storage.group, storage.version, storage.plural, storage.conversion) == (rt.group, "v1", rt.plural, None)
    assert rt.deprecation is not None
    assert (rt.deprecation.deprecated_in, rt.deprecation.removed_in, rt.deprecation.replacement) == (
        deprecated,
        "1.25",
        replacement,
    )
    assert (rt.kind, rt.namespaced, rt.short_names) == (storage.kind, storage.namespaced, storage.short_names)


# ----------------------------------------------------------------------------------- same-shape versions


@pytest.mark.parametrize("rt", [CRONJOB, RUNTIME_CLASS], ids=lambda rt: rt.group_version)
def test_same_shape_versions_only_change_the_api_version(rt: ResourceType) -> None:
    obj = {"apiVersion": rt.group_version, "kind": rt.kind, "metadata": {"name": "x"}, **copy.deepcopy(rt.example)}
    stored = to_storage(rt, obj)
    assert stored == {**obj, "apiVersion": CATALOG.storage_type(rt).group_version}
    assert next(iter(stored)) == "apiVersion"
    assert from_storage(rt, stored) == obj


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_same_shape_versions_round_trip_both_ways(data: st.DataObject) -> None:
    for rt in (CRONJOB, RUNTIME_CLASS):
        storage = CATALOG.storage_type(rt)
        older = data.draw(objects(rt.group_version, rt.kind))
        assert from_storage(rt, to_storage(rt, older)) == older
        stored = data.draw(objects(storage.group_version, storage.kind))
        assert to_storage(rt, from_storage(rt, stored)) == stored


# ----------------------------------------------------------------------------------- EndpointSlice topology


def _beta_slice(*endpoints: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": f"{DISCOVERY}/v1beta1",
        "kind": "EndpointSlice",
        "metadata": {"name": "s"},
        "addressType": "IPv4",
        "endpoints": [{"addresses": ["10.0.0.1"], **e} for e in endpoints],
    }


def _v1_slice(*endpoints: dict[str, Any]) -> dict[str, Any]:
    return {**_beta_slice(*endpoints), "apiVersion": f"{DISCOVERY}/v1"}


def test_topology_becomes_zone_and_deprecated_topology() -> None:
    beta = _beta_slice({"nodeName": "n1", "topology": {HOSTNAME: "n1", ZONE: "z1", "rack": "r7"}})
    assert to_storage(SLICE, beta) == _v1_slice({"nodeName": "n1", "zone": "z1", "deprecatedTopology": {"rack": "r7"}})
    assert from_storage(SLICE, to_storage(SLICE, beta)) == beta


def test_v1_node_name_and_zone_show_as_topology() -> None:
    v1 = _v1_slice({"nodeName": "n1", "zone": "z1"}, {"addresses": ["10.0.0.2"]})
    beta = from_storage(SLICE, v1)
    assert beta["endpoints"] == [
        {"addresses": ["10.0.0.1"], "nodeName": "n1", "topology": {ZONE: "z1", HOSTNAME: "n1"}},
        {"addresses": ["10.0.0.2"]},
    ]
    assert to_storage(SLICE, beta) == v1


def test_a_hostname_label_other_than_the_node_name_is_kept() -> None:
    beta = _beta_slice({"nodeName": "n1", "topology": {HOSTNAME: "other"}})
    stored = to_storage(SLICE, beta)
    assert stored["endpoints"][0]["deprecatedTopology"] == {HOSTNAME: "other"}
    assert from_storage(SLICE, stored) == beta


def test_a_node_name_without_hostname_label_gains_it_as_the_reference_does() -> None:
    # v1beta1 readers always see the node name in topology; converting again changes nothing more
    beta = _beta_slice({"nodeName": "n1"})
    once = from_storage(SLICE, to_storage(SLICE, beta))
    assert once == _beta_slice({"nodeName": "n1", "topology": {HOSTNAME: "n1"}})
    assert to_storage(SLICE, once) == to_storage(SLICE, beta)


def test_the_topology_keys_follow_the_api_domain() -> None:
    from orch_apiserver.naming import Naming
    from orch_apiserver.resources.discovery import topology_keys

    assert topology_keys(Naming("example.net")) == ("example.net/hostname", "topology.example.net/zone")


def test_v1_writes_drop_deprecated_topology_entries_that_zone_and_node_name_say() -> None:
    storage = CATALOG.storage_type(SLICE)
    obj = _v1_slice(
        {"nodeName": "n1", "zone": "z1", "deprecatedTopology": {HOSTNAME: "n1", ZONE: "z0", "rack": "r"}},
        {"deprecatedTopology": {ZONE: "z0"}},
    )
    storage.strategy.default(obj)
    assert [e.get("deprecatedTopology") for e in obj["endpoints"]] == [{"rack": "r"}, None]


_KEYS = st.sampled_from([HOSTNAME, ZONE, "rack", "region"])
_NAMES = st.sampled_from(["n1", "n2"])


@st.composite
def beta_endpoints(draw: st.DrawFn) -> dict[str, Any]:
    endpoint: dict[str, Any] = {"addresses": ["10.0.0.1"]}
    node_name = draw(st.none() | _NAMES)
    if node_name is not None:
        endpoint["nodeName"] = node_name
    topology = draw(st.dictionaries(_KEYS, _NAMES, max_size=3))
    if node_name is not None:
        topology[HOSTNAME] = draw(st.just(node_name) | _NAMES)  # the reference always shows it (see above)
    if topology:
        endpoint["topology"] = topology
    if draw(st.booleans()):
        endpoint["conditions"] = {"ready": draw(st.booleans())}
    return endpoint


@st.composite
def v1_endpoints(draw: st.DrawFn) -> dict[str, Any]:
    endpoint: dict[str, Any] = {"addresses": ["10.0.0.1"]}
    for key in ("nodeName", "zone"):
        value = draw(st.none() | _NAMES)
        if value is not None:
            endpoint[key] = value
    deprecated = draw(st.dictionaries(_KEYS, _NAMES, max_size=3))
    if deprecated:
        endpoint["deprecatedTopology"] = deprecated
    return endpoint


@settings(max_examples=100, deadline=None)
@given(st.lists(beta_endpoints(), max_size=3))
def test_v1beta1_slices_round_trip(endpoints: list[dict[str, Any]]) -> None:
    beta = _beta_slice(*endpoints)
    assert from_storage(SLICE, to_storage(SLICE, beta)) == beta


@settings(max_examples=100, deadline=None)
@given(st.lists(v1_endpoints(), max_size=3))
def test_stored_v1_slices_round_trip_through_v1beta1(endpoints: list[dict[str, Any]]) -> None:
    stored = _v1_slice(*endpoints)
    CATALOG.storage_type(SLICE).strategy.default(stored)  # as stored: after v1's defaulting
    assert to_storage(SLICE, from_storage(SLICE, stored)) == stored


@settings(max_examples=40, deadline=None)
@given(objects(f"{DISCOVERY}/v1", "EndpointSlice"))
def test_any_stored_v1_slice_round_trips(stored: dict[str, Any]) -> None:
    CATALOG.storage_type(SLICE).strategy.default(stored)
    assert to_storage(SLICE, from_storage(SLICE, stored)) == stored
