"""Classification by the bootstrap FlowSchemas, and the worker's share of seats, without a server."""

from __future__ import annotations

import pytest
from orch_apiserver.auth.authz import Attributes
from orch_apiserver.controllers.apfbootstrap import flow_schemas, priority_levels
from orch_apiserver.flowcontrol import PriorityAndFairness, RequestRejected, WorkerShare
from orch_apiserver.naming import Naming
from orch_apiserver.user import UserInfo

NAMING = Naming()
AUTHENTICATED = "system:authenticated"


DEFAULT_SHARE = WorkerShare(16, 8)  # 2 workers x 32 threads with the default in-flight limits


def _apf(share: WorkerShare = DEFAULT_SHARE, with_bootstrap: bool = True) -> PriorityAndFairness:
    mandatory_levels, suggested_levels = priority_levels(NAMING)
    mandatory_schemas, suggested_schemas = flow_schemas(NAMING)
    levels = (*mandatory_levels, *suggested_levels) if with_bootstrap else ()
    schemas = (*mandatory_schemas, *suggested_schemas) if with_bootstrap else ()
    return PriorityAndFairness(NAMING, lambda: schemas, lambda: levels, share)


def _user(name: str, *groups: str) -> UserInfo:
    return UserInfo(name, groups=(*groups, AUTHENTICATED))


def _resource(user: UserInfo, verb: str, group: str, resource: str, namespace: str = "", sub: str = "") -> Attributes:
    return Attributes(user, verb, group=group, version="v1", resource=resource, subresource=sub, namespace=namespace)


COORDINATION = NAMING.group("coordination")


@pytest.mark.parametrize(
    ("attrs", "schema", "level"),
    [
        (_resource(_user("admin", "system:masters"), "list", "", "pods"), "exempt", "exempt"),
        (
            _resource(_user("system:node:n1", "system:nodes"), "update", COORDINATION, "leases", "orch-node-lease"),
            "system-node-high",
            "node-high",
        ),
        (
            _resource(_user("system:node:n1", "system:nodes"), "patch", "", "nodes", sub="status"),
            "system-node-high",
            "node-high",
        ),
        (_resource(_user("system:node:n1", "system:nodes"), "list", "", "pods"), "system-nodes", "system"),
        (
            _resource(_user("system:orch-controller-manager"), "update", "", "configmaps", "orch-system"),
            "system-leader-election",
            "leader-election",
        ),
        (
            _resource(_user("system:orch-controller-manager"), "list", "", "pods"),
            "orch-controller-manager",
            "workload-high",
        ),
        (
            _resource(_user("system:serviceaccount:orch-system:foo", "system:serviceaccounts"), "list", "", "pods"),
            "orch-system-service-accounts",
            "workload-high",
        ),
        (
            _resource(_user("system:serviceaccount:team:bot", "system:serviceaccounts"), "list", "", "pods", "team"),
            "service-accounts",
            "workload-low",
        ),
        (_resource(_user("jane"), "create", "", "configmaps", "default"), "global-default", "global-default"),
        (
            Attributes(UserInfo("system:anonymous", groups=("system:unauthenticated",)), "get", False, path="/livez"),
            "probes",
            "exempt",
        ),
        (Attributes(_user("jane"), "get", False, path="/version"), "global-default", "global-default"),
    ],
)
def test_the_bootstrap_schemas_classify_as_the_reference_s(attrs: Attributes, schema: str, level: str) -> None:
    found, found_level, _flow = _apf().classify(attrs)
    assert (found.name, found_level.name) == (schema, level)


def test_without_any_object_the_mandatory_ones_are_imagined() -> None:
    apf = _apf(with_bootstrap=False)
    schema, level, flow = apf.classify(_resource(_user("jane"), "get", "", "pods", "default"))
    assert (schema.name, level.name, flow, schema.uid) == ("catch-all", "catch-all", "jane", "")
    schema, level, _ = apf.classify(_resource(_user("admin", "system:masters"), "get", "", "pods", "default"))
    assert (schema.name, level.name) == ("exempt", "exempt")


def test_seats_are_shared_by_concurrency_shares() -> None:
    levels = _apf().config().levels
    seats = {name: lv.queues.config.concurrency_limit for name, lv in levels.items() if lv.queues is not None}
    # 16 seats x shares / 245 shares, rounded up
    assert seats == {
        "catch-all": 1,
        "system": 2,
        "node-high": 3,
        "leader-election": 1,
        "workload-high": 3,
        "workload-low": 7,
        "global-default": 2,
    }
    assert levels["exempt"].queues is None
    lendable = {name: lv.queues.config.lendable for name, lv in levels.items() if lv.queues is not None}
    # the reference's lendablePercent (v1.26+) of those seats, rounded
    assert lendable == {
        "catch-all": 0,
        "system": 1,
        "node-high": 1,
        "leader-election": 0,
        "workload-high": 2,
        "workload-low": 6,
        "global-default": 1,
    }


def test_node_heartbeats_beyond_node_high_s_seats_run_on_seats_idle_levels_lend() -> None:
    apf = _apf()
    renew = _resource(_user("system:node:n1", "system:nodes"), "update", COORDINATION, "leases", "orch-node-lease")
    seats = [apf.admit(renew) for _ in range(13)]  # node-high's 2 kept seats + all 11 lendable ones: none waits
    node_high = apf.config().levels["node-high"].queues
    assert node_high is not None and node_high.executing == 13 and node_high.waiting == 0
    for seat in seats:
        apf.release(seat)
    assert node_high.executing == 0


def test_a_worker_s_share_follows_the_in_flight_limits_and_its_threads() -> None:
    # seats: at most half the threads; waiting: a quarter of them and the waiting threads (8 x --threads)
    assert WorkerShare.of(400, 200, 2, 32) == WorkerShare(16, 8 + 256)
    assert WorkerShare.of(10, 2, 2, 32) == WorkerShare(6, 8 + 256)  # the limits split across workers
    assert WorkerShare.of(0, 0, 1, 8) == WorkerShare(4, 2 + 64)  # no limits: the threads decide
    assert WorkerShare.of(400, 200, 2, 32, waiting=40) == WorkerShare(16, 8 + 40)  # --apf-waiting-threads
    assert WorkerShare.of(400, 200, 2, 32, waiting=0) == WorkerShare(16, 8)


def test_the_catch_all_level_rejects_at_once_when_its_seat_is_taken() -> None:
    apf = _apf(with_bootstrap=False)
    jane = _resource(_user("jane"), "get", "", "pods", "default")
    seats = [apf.admit(jane) for _ in range(16)]  # the imagined catch-all is the only Limited level: every seat
    with pytest.raises(RequestRejected) as refused:
        apf.admit(jane)
    assert refused.value.reason == "concurrency-limit"
    apf.release(seats[0])
    apf.release(seats[0])  # twice is once
    apf.admit(jane)
