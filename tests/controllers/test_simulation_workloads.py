"""The simulation's ReplicaSet and Deployment controllers on both stores, driven by hand (`sync()`) under a fake
clock and the default RBAC policy; the test plays the node agent (pods marked Running and Ready through
pods/status), so every step of a rollout can be looked at."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver.controllers.base import Context
from orch_apiserver.controllers.manager import ensure_namespaced_policy
from orch_apiserver.controllers.resourcequota import ResourceQuotaController
from orch_apiserver.controllers.simulation.deployment import DeploymentController
from orch_apiserver.controllers.simulation.replicaset import ReplicaSetController

from tests.conftest import _shutdown, admin_app
from tests.controllers.conftest import FakeClock

NS = "/apis/apps/v1/namespaces/default"
PODS = "/api/v1/namespaces/default/pods"
REVISION = "deployment.orch.io/revision"


class Cluster:
    """The app, both controllers (as their service accounts) and the test as node agent."""

    def __init__(self, app: Any, clock: FakeClock) -> None:
        self.client, self.clock = app.test_client(), clock
        assert self.client.get("/api").status_code == 200  # the first request reconciles the default policy
        svc = app.extensions["orch"]
        ctx = Context(svc.registry, svc.naming, svc.hub, app.extensions["orch.auth"], clock=clock)
        ensure_namespaced_policy(ctx)
        self.rs_controller, self.deploy_controller = ReplicaSetController(ctx), DeploymentController(ctx)

    def get(self, url: str) -> dict:
        response = self.client.get(url)
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    def items(self, url: str) -> list[dict]:
        return self.get(url)["items"]

    def pods(self) -> list[dict]:
        return [p for p in self.items(PODS) if not p["metadata"].get("deletionTimestamp")]

    def sets(self) -> dict[str, dict]:
        return {rs["metadata"]["name"]: rs for rs in self.items(f"{NS}/replicasets")}

    def snapshot(self) -> list[str]:
        return sorted(
            f"{o['metadata']['name']}@{o['metadata']['resourceVersion']}"
            for url in (PODS, f"{NS}/replicasets", f"{NS}/deployments")
            for o in self.items(url)
        )

    def settle(self) -> None:
        """Run both controllers until nothing changes any more."""
        for _ in range(30):
            before = self.snapshot()
            self.deploy_controller.sync()
            self.rs_controller.sync()
            if self.snapshot() == before:
                return
        raise AssertionError("the controllers did not settle")

    def make_ready(self, pod: dict, ready: bool = True) -> None:
        """The node agent's part: Running, and Ready since now."""
        stamp = self.clock().strftime("%Y-%m-%dT%H:%M:%SZ")
        pod["status"] = {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": stamp}],
        }
        written = self.client.put(f"{PODS}/{pod['metadata']['name']}/status", json=pod)
        assert written.status_code == 200, written.get_json()

    def ready_all(self) -> None:
        for pod in self.pods():
            if not (pod.get("status") or {}).get("conditions"):
                self.make_ready(pod)

    def create(self, url: str, body: dict) -> dict:
        made = self.client.post(url, json=body)
        assert made.status_code == 201, made.get_json()
        return made.get_json()

    def patch(self, url: str, body: dict) -> dict:
        patched = self.client.patch(url, json=body, headers={"Content-Type": "application/merge-patch+json"})
        assert patched.status_code == 200, patched.get_json()
        return patched.get_json()


@pytest.fixture
def cluster(database_url: str, tmp_path: Path, clock: FakeClock) -> Iterator[Cluster]:
    app = admin_app(database_url, tmp_path)
    yield Cluster(app, clock)
    _shutdown(app)


def template(image: str = "nginx", app: str = "web") -> dict:
    return {"metadata": {"labels": {"app": app}}, "spec": {"containers": [{"name": "c", "image": image}]}}


def replica_set(name: str, replicas: int, **extra: Any) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}, "template": template(), **extra},
    }


def deployment(replicas: int, image: str = "nginx", **extra: Any) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": template(image),
            **extra,
        },
    }


def conditions(obj: dict) -> dict[str, tuple[str, str]]:
    return {c["type"]: (c["status"], c["reason"]) for c in obj.get("status", {}).get("conditions", [])}


# -- ReplicaSet ---------------------------------------------------------------------------------------------


def test_a_replica_set_creates_its_pods_and_counts_them(cluster: Cluster) -> None:
    rs = cluster.create(f"{NS}/replicasets", replica_set("web", 3))
    cluster.settle()
    pods = cluster.pods()
    assert len(pods) == 3
    for pod in pods:
        assert pod["metadata"]["name"].startswith("web-")
        assert pod["metadata"]["labels"] == {"app": "web"}
        (ref,) = pod["metadata"]["ownerReferences"]
        assert ref == {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "name": "web",
            "uid": rs["metadata"]["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }
    st = cluster.get(f"{NS}/replicasets/web")["status"]
    assert st == {"replicas": 3, "fullyLabeledReplicas": 3, "observedGeneration": 1}

    cluster.ready_all()
    cluster.settle()
    st = cluster.get(f"{NS}/replicasets/web")["status"]
    assert (st["readyReplicas"], st["availableReplicas"]) == (3, 3)
    events = cluster.items("/api/v1/namespaces/default/events")
    assert sum(e["reason"] == "SuccessfulCreate" for e in events) == 3


def test_scaling_down_deletes_the_pods_that_are_not_ready_first(cluster: Cluster) -> None:
    cluster.create(f"{NS}/replicasets", replica_set("web", 3))
    cluster.settle()
    pods = cluster.pods()
    for pod in pods[:2]:
        cluster.make_ready(pod)
    laggard = pods[2]["metadata"]["name"]

    cluster.patch(f"{NS}/replicasets/web", {"spec": {"replicas": 2}})
    cluster.settle()
    remaining = {p["metadata"]["name"] for p in cluster.pods()}
    assert len(remaining) == 2 and laggard not in remaining
    st = cluster.get(f"{NS}/replicasets/web")["status"]
    assert (st["replicas"], st["readyReplicas"], st["observedGeneration"]) == (2, 2, 2)

    cluster.patch(f"{NS}/replicasets/web", {"spec": {"replicas": 0}})
    cluster.settle()
    assert cluster.pods() == []
    assert cluster.get(f"{NS}/replicasets/web")["status"] == {"replicas": 0, "observedGeneration": 3}


def test_orphans_are_adopted_and_pods_that_stop_matching_released(cluster: Cluster) -> None:
    orphan = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "stray", "labels": {"app": "web"}}}
    orphan["spec"] = template()["spec"]
    cluster.create(PODS, orphan)
    cluster.create(f"{NS}/replicasets", replica_set("web", 2))
    cluster.settle()
    pods = {p["metadata"]["name"]: p for p in cluster.pods()}
    assert len(pods) == 2 and "stray" in pods
    assert pods["stray"]["metadata"]["ownerReferences"][0]["name"] == "web"

    cluster.patch(f"{PODS}/stray", {"metadata": {"labels": {"app": "other"}}})
    cluster.settle()
    pods = {p["metadata"]["name"]: p for p in cluster.pods()}
    assert len(pods) == 3
    assert not pods["stray"]["metadata"].get("ownerReferences")


def test_available_waits_for_min_ready_seconds(cluster: Cluster) -> None:
    cluster.create(f"{NS}/replicasets", replica_set("web", 2, minReadySeconds=10))
    cluster.settle()
    cluster.ready_all()
    cluster.settle()
    st = cluster.get(f"{NS}/replicasets/web")["status"]
    assert st["readyReplicas"] == 2 and "availableReplicas" not in st

    cluster.clock.advance(seconds=11)
    cluster.settle()
    assert cluster.get(f"{NS}/replicasets/web")["status"]["availableReplicas"] == 2


def test_a_pod_the_server_refuses_is_a_replica_failure(cluster: Cluster) -> None:
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"}, "spec": {"hard": {"pods": "1"}}}
    cluster.create("/api/v1/namespaces/default/resourcequotas", quota)
    ResourceQuotaController(cluster.rs_controller.ctx).sync()  # quota admission needs the quota's status
    cluster.create(f"{NS}/replicasets", replica_set("web", 2))
    cluster.settle()
    assert len(cluster.pods()) == 1
    failure = cluster.get(f"{NS}/replicasets/web")["status"]["conditions"][0]
    assert (failure["type"], failure["status"], failure["reason"]) == ("ReplicaFailure", "True", "FailedCreate")
    assert "exceeded quota" in failure["message"]

    assert cluster.client.delete("/api/v1/namespaces/default/resourcequotas/q").status_code == 200
    cluster.settle()
    assert len(cluster.pods()) == 2
    assert "conditions" not in cluster.get(f"{NS}/replicasets/web")["status"]


# -- Deployment ---------------------------------------------------------------------------------------------


def test_a_deployment_rolls_out_its_first_replica_set(cluster: Cluster) -> None:
    d = cluster.create(f"{NS}/deployments", deployment(3))
    cluster.settle()
    (rs,) = cluster.sets().values()
    hash_value = rs["metadata"]["labels"]["pod-template-hash"]
    assert rs["metadata"]["name"] == f"web-{hash_value}"
    assert rs["spec"]["selector"]["matchLabels"] == {"app": "web", "pod-template-hash": hash_value}
    assert rs["metadata"]["ownerReferences"][0]["uid"] == d["metadata"]["uid"]
    annotations = rs["metadata"]["annotations"]
    assert annotations[REVISION] == "1"
    assert annotations["deployment.orch.io/desired-replicas"] == "3"
    assert annotations["deployment.orch.io/max-replicas"] == "4"  # 25% surge of 3, rounded up
    assert all(p["metadata"]["labels"]["pod-template-hash"] == hash_value for p in cluster.pods())
    d = cluster.get(f"{NS}/deployments/web")
    assert d["metadata"]["annotations"][REVISION] == "1"
    assert conditions(d)["Progressing"] == ("True", "ReplicaSetUpdated")
    assert conditions(d)["Available"] == ("False", "MinimumReplicasUnavailable")
    assert d["status"]["unavailableReplicas"] == 3

    cluster.ready_all()
    cluster.settle()
    d = cluster.get(f"{NS}/deployments/web")
    assert d["status"]["observedGeneration"] == d["metadata"]["generation"]
    for key in ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas"):
        assert d["status"][key] == 3, key
    assert "unavailableReplicas" not in d["status"]
    assert conditions(d) == {
        "Available": ("True", "MinimumReplicasAvailable"),
        "Progressing": ("True", "NewReplicaSetAvailable"),
    }
    progressing = next(c for c in d["status"]["conditions"] if c["type"] == "Progressing")
    assert progressing["message"] == f'ReplicaSet "{rs["metadata"]["name"]}" has successfully progressed.'
    assert any(e["reason"] == "ScalingReplicaSet" for e in cluster.items("/api/v1/namespaces/default/events"))


def rollout_steps(cluster: Cluster, old_name: str) -> list[tuple[int, int]]:
    """(old, new) spec.replicas after each round of a rolling update, one new pod becoming ready per round."""
    steps = []
    for _ in range(20):
        cluster.settle()
        sets = cluster.sets()
        new_name = next(n for n in sets if n != old_name)
        step = (sets[old_name]["spec"]["replicas"], sets[new_name]["spec"]["replicas"])
        if not steps or steps[-1] != step:
            steps.append(step)
        waiting = [p for p in cluster.pods() if not (p.get("status") or {}).get("conditions")]
        if not waiting:
            return steps
        cluster.make_ready(waiting[0])
    raise AssertionError(f"the rollout did not finish: {steps}")


@pytest.mark.parametrize(
    ("surge", "unavailable", "expected"),
    [
        (1, 0, [(4, 1), (3, 2), (2, 3), (1, 4), (0, 4)]),
        (0, 2, [(2, 2), (1, 3), (0, 4)]),
        ("50%", "25%", [(3, 3), (2, 4), (1, 4), (0, 4)]),
    ],
)
def test_a_rolling_update_honours_max_surge_and_max_unavailable(
    cluster: Cluster, surge: Any, unavailable: Any, expected: list[tuple[int, int]]
) -> None:
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}}
    cluster.create(f"{NS}/deployments", deployment(4, strategy=strategy))
    cluster.settle()
    cluster.ready_all()
    cluster.settle()
    (old_name,) = cluster.sets()

    cluster.patch(f"{NS}/deployments/web", {"spec": {"template": template("nginx:2")}})
    assert rollout_steps(cluster, old_name) == expected
    d = cluster.get(f"{NS}/deployments/web")
    assert d["metadata"]["annotations"][REVISION] == "2"
    assert d["status"]["updatedReplicas"] == d["status"]["availableReplicas"] == 4
    assert conditions(d)["Progressing"] == ("True", "NewReplicaSetAvailable")
    assert {rs["metadata"]["annotations"][REVISION] for rs in cluster.sets().values()} == {"1", "2"}


def test_recreate_starts_new_pods_once_the_old_ones_are_gone(cluster: Cluster) -> None:
    cluster.create(f"{NS}/deployments", deployment(2, strategy={"type": "Recreate"}))
    cluster.settle()
    cluster.ready_all()
    cluster.settle()
    (old_name,) = cluster.sets()
    cluster.patch(f"{NS}/deployments/web", {"spec": {"template": template("nginx:2")}})
    cluster.deploy_controller.sync()
    assert cluster.sets()[old_name]["spec"]["replicas"] == 0
    assert len(cluster.sets()) == 1  # no new ReplicaSet while old pods run
    cluster.settle()
    sets = cluster.sets()
    (new_name,) = set(sets) - {old_name}
    assert sets[new_name]["spec"]["replicas"] == 2
    assert all(p["metadata"]["labels"]["pod-template-hash"] in new_name for p in cluster.pods())


def test_undo_reuses_the_old_replica_set_and_history_is_limited(cluster: Cluster) -> None:
    cluster.create(f"{NS}/deployments", deployment(1, revisionHistoryLimit=1))
    for image in ("nginx:2", "nginx:3"):
        cluster.settle()
        cluster.ready_all()
        cluster.settle()
        cluster.patch(f"{NS}/deployments/web", {"spec": {"template": template(image)}})
    cluster.settle()
    cluster.ready_all()
    cluster.settle()
    revisions = {rs["spec"]["template"]["spec"]["containers"][0]["image"]: rs for rs in cluster.sets().values()}
    assert set(revisions) == {"nginx:2", "nginx:3"}  # revision 1 (nginx) went: the limit keeps one old set

    cluster.patch(f"{NS}/deployments/web", {"spec": {"template": template("nginx:2")}})
    cluster.settle()
    cluster.ready_all()
    cluster.settle()
    back = cluster.sets()[revisions["nginx:2"]["metadata"]["name"]]
    assert back["spec"]["replicas"] == 1
    assert back["metadata"]["annotations"][REVISION] == "4"
    assert back["metadata"]["annotations"]["deployment.orch.io/revision-history"] == "2"
    assert cluster.get(f"{NS}/deployments/web")["metadata"]["annotations"][REVISION] == "4"


def test_scaling_mid_rollout_is_proportional(cluster: Cluster) -> None:
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 3, "maxUnavailable": 2}}
    cluster.create(f"{NS}/deployments", deployment(10, strategy=strategy))
    cluster.settle()
    cluster.ready_all()
    cluster.settle()
    (old_name,) = cluster.sets()
    cluster.patch(f"{NS}/deployments/web", {"spec": {"template": template("nginx:2")}})
    cluster.settle()  # new pods never become ready: the rollout stalls at 8 old + 5 new
    sizes = {n: rs["spec"]["replicas"] for n, rs in cluster.sets().items()}
    assert sizes.pop(old_name) == 8 and list(sizes.values()) == [5]

    cluster.patch(f"{NS}/deployments/web", {"spec": {"replicas": 20}})
    cluster.settle()
    sizes = {n: rs["spec"]["replicas"] for n, rs in cluster.sets().items()}
    assert sizes.pop(old_name) == 14 and list(sizes.values()) == [9]  # 23 allowed, shared 8:5 as the reference


def test_a_paused_deployment_does_not_roll_out(cluster: Cluster) -> None:
    cluster.create(f"{NS}/deployments", deployment(2))
    cluster.settle()
    cluster.ready_all()
    cluster.settle()
    cluster.patch(f"{NS}/deployments/web", {"spec": {"paused": True, "template": template("nginx:2")}})
    cluster.settle()
    d = cluster.get(f"{NS}/deployments/web")
    assert conditions(d)["Progressing"] == ("Unknown", "DeploymentPaused")
    assert len(cluster.sets()) == 1

    cluster.patch(f"{NS}/deployments/web", {"spec": {"paused": False}})
    cluster.settle()
    assert len(cluster.sets()) == 2
    assert conditions(cluster.get(f"{NS}/deployments/web"))["Progressing"] == ("True", "ReplicaSetUpdated")


def test_a_stuck_rollout_exceeds_its_progress_deadline(cluster: Cluster) -> None:
    cluster.create(f"{NS}/deployments", deployment(1, progressDeadlineSeconds=30))
    cluster.settle()
    cluster.clock.advance(seconds=20)
    cluster.settle()
    assert conditions(cluster.get(f"{NS}/deployments/web"))["Progressing"][0] == "True"
    cluster.clock.advance(seconds=11)
    cluster.settle()
    d = cluster.get(f"{NS}/deployments/web")
    assert conditions(d)["Progressing"] == ("False", "ProgressDeadlineExceeded")
    progressing = next(c for c in d["status"]["conditions"] if c["type"] == "Progressing")
    assert progressing["message"].endswith("has timed out progressing.")
