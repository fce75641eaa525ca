"""API Priority and Fairness on a real server: the bootstrap configuration and its upkeep, classification headers,
a noisy tenant turned away while node heartbeats and system:masters are served, a one-seat level's 429, the
metrics."""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.e2e import RunningServer, poll, server_on

FC = "/apis/flowcontrol.apiserver.orch.io/v1beta2"
SCHEMA_HEADER = "X-Orch-PF-FlowSchema-UID"
LEVEL_HEADER = "X-Orch-PF-PriorityLevel-UID"
TOKENS = {"noisy": "noisy-token", "tiny": "tiny-token", "system:node:n1": "node-token"}
MANDATORY_LEVELS = {"exempt", "catch-all"}
SUGGESTED_LEVELS = {"system", "node-high", "leader-election", "workload-high", "workload-low", "global-default"}
MANDATORY_SCHEMAS = {"exempt", "catch-all"}
SUGGESTED_SCHEMAS = {
    "system-nodes",
    "system-node-high",
    "probes",
    "system-leader-election",
    "workload-leader-election",
    "orch-controller-manager",
    "orch-scheduler",
    "orch-system-service-accounts",
    "service-accounts",
    "global-default",
}


@contextlib.contextmanager
def started(store: str, data_dir: Path, args: tuple[str, ...] = ()) -> Iterator[RunningServer]:
    tokens = data_dir / "tokens.csv"
    data_dir.mkdir(parents=True, exist_ok=True)
    tokens.write_text('noisy-token,noisy,1001\ntiny-token,tiny,1002\nnode-token,system:node:n1,1003,"system:nodes"\n')
    with server_on(store, data_dir, ["--token-auth-file", str(tokens), *args]) as server:
        admin = server.session
        # every user here may do anything: what APF does is the question, not RBAC
        admin.post(
            "/apis/rbac.authorization.orch.io/v1/clusterrolebindings",
            json={
                "metadata": {"name": "apf-test-users"},
                "roleRef": {"apiGroup": "rbac.authorization.orch.io", "kind": "ClusterRole", "name": "cluster-admin"},
                "subjects": [
                    {"apiGroup": "rbac.authorization.orch.io", "kind": "User", "name": "noisy"},
                    {"apiGroup": "rbac.authorization.orch.io", "kind": "User", "name": "tiny"},
                    {"apiGroup": "rbac.authorization.orch.io", "kind": "Group", "name": "system:nodes"},
                ],
            },
        ).raise_for_status()
        poll(lambda: _names(server, "flowschemas") >= MANDATORY_SCHEMAS | SUGGESTED_SCHEMAS, timeout=60)
        yield server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    # 32 waiting threads (not 8 x the tests' 16): the noisy tenant's 64 clients outnumber seats and waiting places
    with started("sqlite", tmp_path_factory.mktemp("apf"), ("--apf-waiting-threads", "32")) as running:
        yield running


def _names(server: RunningServer, plural: str) -> set[str]:
    answer = server.get(f"{FC}/{plural}")
    return {item["metadata"]["name"] for item in answer.json().get("items", [])} if answer.ok else set()


def _as(server: RunningServer, user: str) -> requests.Session:
    session = server.new_session(cert=None)
    session.headers["Authorization"] = f"Bearer {TOKENS[user]}"
    return session


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_bootstrap_objects_are_the_reference_s_and_mandatory_ones_come_back(store: str, tmp_path: Path) -> None:
    with started(store, tmp_path) as server:
        assert _names(server, "prioritylevelconfigurations") == MANDATORY_LEVELS | SUGGESTED_LEVELS
        assert _names(server, "flowschemas") == MANDATORY_SCHEMAS | SUGGESTED_SCHEMAS
        exempt = server.get(f"{FC}/flowschemas/exempt").json()
        assert exempt["metadata"]["annotations"]["apf.orch.io/autoupdate-spec"] == "true"
        assert exempt["spec"]["matchingPrecedence"] == 1
        assert exempt["spec"]["priorityLevelConfiguration"] == {"name": "exempt"}
        assert exempt["spec"]["rules"][0]["subjects"] == [{"kind": "Group", "group": {"name": "system:masters"}}]
        level = server.get(f"{FC}/prioritylevelconfigurations/global-default").json()["spec"]
        assert level["limited"]["assuredConcurrencyShares"] == 20
        assert level["limited"]["limitResponse"] == {
            "type": "Queue",
            "queuing": {"queues": 128, "handSize": 6, "queueLengthLimit": 50},
        }
        catch_all = server.get(f"{FC}/prioritylevelconfigurations/catch-all").json()["spec"]
        assert catch_all["limited"]["assuredConcurrencyShares"] == 5
        assert catch_all["limited"]["limitResponse"] == {"type": "Reject"}

        # a deleted mandatory object is created again
        old_uid = server.get(f"{FC}/flowschemas/catch-all").json()["metadata"]["uid"]
        assert server.session.delete(f"{FC}/flowschemas/catch-all").status_code == 200

        def recreated() -> bool:
            answer = server.get(f"{FC}/flowschemas/catch-all")
            return answer.status_code == 200 and answer.json()["metadata"]["uid"] != old_uid

        poll(recreated, timeout=60)

        # a changed mandatory spec is put back, whatever the annotation says
        exempt_level = server.get(f"{FC}/prioritylevelconfigurations/catch-all").json()
        exempt_level["metadata"]["annotations"]["apf.orch.io/autoupdate-spec"] = "false"
        exempt_level["spec"]["limited"]["assuredConcurrencyShares"] = 99
        server.session.put(f"{FC}/prioritylevelconfigurations/catch-all", json=exempt_level).raise_for_status()
        poll(
            lambda: (
                server.get(f"{FC}/prioritylevelconfigurations/catch-all").json()["spec"]["limited"][
                    "assuredConcurrencyShares"
                ]
                == 5
            ),
            timeout=60,
        )

        # a suggested object is kept by the user when it says autoupdate-spec: "false", put back otherwise
        for name, autoupdate in (("workload-low", "false"), ("workload-high", "true")):
            obj = server.get(f"{FC}/prioritylevelconfigurations/{name}").json()
            obj["metadata"]["annotations"]["apf.orch.io/autoupdate-spec"] = autoupdate
            obj["spec"]["limited"]["assuredConcurrencyShares"] = 7
            server.session.put(f"{FC}/prioritylevelconfigurations/{name}", json=obj).raise_for_status()

        def shares(name: str) -> int:
            return server.get(f"{FC}/prioritylevelconfigurations/{name}").json()["spec"]["limited"][
                "assuredConcurrencyShares"
            ]

        poll(lambda: shares("workload-high") == 40, timeout=60)
        assert shares("workload-low") == 7  # the same sync that restored workload-high left it alone


def test_responses_name_the_flow_schema_and_priority_level(server: RunningServer) -> None:
    uids = {
        (plural, item["metadata"]["name"]): item["metadata"]["uid"]
        for plural in ("flowschemas", "prioritylevelconfigurations")
        for item in server.get(f"{FC}/{plural}").json()["items"]
    }
    answer = server.get("/api/v1/namespaces/default")
    assert answer.headers[SCHEMA_HEADER] == uids[("flowschemas", "exempt")]
    assert answer.headers[LEVEL_HEADER] == uids[("prioritylevelconfigurations", "exempt")]
    answer = _as(server, "noisy").get("/api/v1/namespaces/default/configmaps")
    assert answer.status_code == 200
    assert answer.headers[SCHEMA_HEADER] == uids[("flowschemas", "global-default")]
    assert answer.headers[LEVEL_HEADER] == uids[("prioritylevelconfigurations", "global-default")]
    answer = _as(server, "system:node:n1").get("/api/v1/nodes")
    assert answer.headers[SCHEMA_HEADER] == uids[("flowschemas", "system-node-high")]
    answer = server.new_session(cert=None).get("/livez")
    assert answer.headers[SCHEMA_HEADER] == uids[("flowschemas", "probes")]


def test_a_noisy_tenant_gets_429_while_node_heartbeats_and_masters_are_served(server: RunningServer) -> None:
    node = _as(server, "system:node:n1")
    lease_path = "/apis/coordination.orch.io/v1/namespaces/orch-node-lease/leases/n1"
    node.post(
        "/apis/coordination.orch.io/v1/namespaces/orch-node-lease/leases",
        json={"metadata": {"name": "n1"}, "spec": {"holderIdentity": "n1", "leaseDurationSeconds": 40}},
    )
    stop = threading.Event()
    noisy_codes: Counter[int] = Counter()
    retry_afters: list[int] = []
    lock = threading.Lock()

    def flood(worker: int) -> None:
        session = _as(server, "noisy")
        n = 0
        while not stop.is_set():
            n += 1
            if n % 2:
                answer = session.get("/api/v1/namespaces/default/configmaps")
            else:
                answer = session.post(
                    "/api/v1/namespaces/default/configmaps",
                    json={"metadata": {"name": f"noisy-{worker}-{n}-{uuid.uuid4().hex[:4]}"}, "data": {"k": "v"}},
                )
            with lock:
                noisy_codes[answer.status_code] += 1
            if answer.status_code == 429:
                with lock:
                    retry_afters.append(int(answer.headers["Retry-After"]))
                assert answer.text == "Too many requests, please try again later.\n"

    # more than the worker's seats and waiting places (8 + 4 + 32 with the tests' 16 threads and
    # --apf-waiting-threads 32): the rest is turned away
    flooders = [threading.Thread(target=flood, args=(i,), daemon=True) for i in range(64)]
    for thread in flooders:
        thread.start()
    heartbeats, masters = [], []
    try:
        poll(lambda: noisy_codes[429] > 0, timeout=60)  # the flood is on and APF turns some of it away
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            lease = node.get(lease_path)
            lease_json = lease.json()
            lease_json["spec"]["renewTime"] = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())
            heartbeats.append(node.put(lease_path, json=lease_json).status_code)
            masters.append(server.get("/api/v1/namespaces/default").status_code)
    finally:
        stop.set()
        for thread in flooders:
            thread.join(60)
    assert heartbeats and set(heartbeats) == {200}, heartbeats
    assert masters and set(masters) == {200}, masters
    assert noisy_codes[429] > 0 and (noisy_codes[200] + noisy_codes[201]) > 0, noisy_codes
    assert set(noisy_codes) <= {200, 201, 429}, noisy_codes  # turned away, never a timeout or a 5xx
    # 1 s at first; while the flood goes on the level's Retry-After doubles (the reference's v1.28+), so that
    # clients which wait what it says (client-go) do not all come back together a second later
    assert retry_afters[0] == 1 and max(retry_afters) >= 2 and max(retry_afters) <= 32, retry_afters[
        :: max(1, len(retry_afters) // 50)
    ]


def _one_seat_level(admin: requests.Session, user: str, queue_length: int) -> tuple[dict, dict]:
    """A level with one seat and one queue of `queue_length`, and the FlowSchema sending `user` there (as soon as
    the user's requests name it)."""
    level = admin.post(
        f"{FC}/prioritylevelconfigurations",
        json={
            "metadata": {"name": f"{user}-level"},
            "spec": {
                "type": "Limited",
                "limited": {
                    "assuredConcurrencyShares": 1,
                    "limitResponse": {
                        "type": "Queue",
                        "queuing": {"queues": 1, "handSize": 1, "queueLengthLimit": queue_length},
                    },
                },
            },
        },
    ).json()
    schema = admin.post(
        f"{FC}/flowschemas",
        json={
            "metadata": {"name": user},
            "spec": {
                "priorityLevelConfiguration": {"name": f"{user}-level"},
                "matchingPrecedence": 100,
                "distinguisherMethod": {"type": "ByUser"},
                "rules": [
                    {
                        "subjects": [{"kind": "User", "user": {"name": user}}],
                        "resourceRules": [
                            {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "namespaces": ["*"]}
                        ],
                    }
                ],
            },
        },
    ).json()
    return level, schema


def test_a_one_seat_level_queues_one_request_and_refuses_the_next(server: RunningServer) -> None:
    admin = server.session
    level, schema = _one_seat_level(admin, "tiny", 1)
    tiny = _as(server, "tiny")
    poll(
        lambda: (
            tiny.get("/api/v1/namespaces/default/configmaps").headers.get(SCHEMA_HEADER) == schema["metadata"]["uid"]
        )
    )
    # several clients at once: one runs on the level's seat, one waits in its only queue, the rest are refused
    stop = threading.Event()
    answers: list[requests.Response] = []

    def client() -> None:
        session = _as(server, "tiny")
        while not stop.is_set():
            answer = session.get("/api/v1/namespaces/default/configmaps")
            answers.append(answer)

    clients = [threading.Thread(target=client, daemon=True) for _ in range(8)]
    for thread in clients:
        thread.start()
    try:
        poll(lambda: any(a.status_code == 429 for a in answers), timeout=60)
    finally:
        stop.set()
        for thread in clients:
            thread.join(60)
    refused = next(a for a in answers if a.status_code == 429)
    assert refused.headers["Retry-After"] == "1"
    assert refused.headers[SCHEMA_HEADER] == schema["metadata"]["uid"]
    assert refused.headers[LEVEL_HEADER] == level["metadata"]["uid"]
    assert refused.text == "Too many requests, please try again later.\n"
    assert {a.status_code for a in answers} <= {200, 429}
    assert (
        server.metric(
            "apiserver_flowcontrol_rejected_requests_total",
            flow_schema="tiny",
            priority_level="tiny-level",
            reason="queue-full",
        )
        >= 1
    )
    assert server.metric("apiserver_flowcontrol_dispatched_requests_total", flow_schema="tiny") >= 3
    assert server.metric("apiserver_flowcontrol_dispatched_requests_total", flow_schema="exempt") >= 1


def test_a_burst_beyond_the_worker_s_threads_waits_in_its_level_s_queue_and_is_served(tmp_path: Path) -> None:
    # 4 threads: 2 seats, 1 of them the level's; a waiting request holds a thread, and the worker has 32 more for
    # waiting (without them 1 request could wait and the rest of a burst got 429 with the queue nearly empty)
    with started("sqlite", tmp_path, ("--threads", "4")) as server:
        admin = server.session
        for k in range(200):  # a list long enough that the level's one seat is taken while the burst arrives
            admin.post(
                "/api/v1/namespaces/default/configmaps", json={"metadata": {"name": f"c{k}"}, "data": {"k": "v"}}
            )
        _level, schema = _one_seat_level(admin, "tiny", 50)
        tiny = _as(server, "tiny")
        path = "/api/v1/namespaces/default/configmaps"
        poll(lambda: tiny.get(path).headers.get(SCHEMA_HEADER) == schema["metadata"]["uid"])
        codes: Counter[int] = Counter()
        lock = threading.Lock()
        stop = threading.Event()

        def client() -> None:
            session = _as(server, "tiny")
            while not stop.is_set():
                code = session.get(path).status_code
                with lock:
                    codes[code] += 1

        clients = [threading.Thread(target=client, daemon=True) for _ in range(8)]
        for thread in clients:
            thread.start()
        waiting_seen = 0.0

        def several_waiting() -> bool:  # the clients go on until the burst is seen waiting (a loaded machine is slow)
            nonlocal waiting_seen
            waiting = server.metric("apiserver_flowcontrol_current_inqueue_requests", priority_level="tiny-level")
            waiting_seen = max(waiting_seen, waiting)
            return waiting_seen >= 2

        try:
            poll(several_waiting, timeout=60, interval=0.01)
        finally:
            stop.set()
            for thread in clients:
                thread.join(60)
    assert set(codes) == {200}, codes  # every one served: none turned away while its queue had room
    assert waiting_seen >= 2, waiting_seen  # more waited at once than a quarter of the threads (1) could
