"""Deployments move on a simulated cluster (`--simulate-nodes 3`, the reference's domain), on both stores: the stock
kubectl creates, rolls out, updates, scales, undoes and restarts a Deployment as against a real cluster, with the
simulation's node agents and scheduler running the pods."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from . import RunningServer, poll, server_on
from .test_kubectl import Kubectl, kubectl_for

pytestmark = pytest.mark.e2e

SIMULATED = ["--api-domain", "k8s.io", "--simulate-nodes", "3"]
ROLLOUT_TIMEOUT = "60s"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def sim(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A simulated cluster of three nodes on each store, its own for this module."""
    with server_on(request.param, tmp_path_factory.mktemp(f"sim-{request.param}"), SIMULATED) as running:
        yield running


@dataclass
class InNamespace(Kubectl):
    """kubectl in one namespace."""

    namespace: str = "default"

    def argv(self, args: tuple[str, ...]) -> list[str]:
        return [*super().argv(args), "--namespace", self.namespace]


@pytest.fixture
def kube(sim: RunningServer, kubectl: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kubectl]:
    """kubectl whose current context names a fresh namespace (its default ServiceAccount made, so pods may come)."""
    k = kubectl_for(kubectl, sim, tmp_path_factory)
    namespace = f"sim-{uuid.uuid4().hex[:8]}"
    k.ok("create", "namespace", namespace)
    poll(lambda: k.run("get", "serviceaccount", "default", "-n", namespace).returncode == 0)
    yield InNamespace(k.binary, k.kubeconfig, k.home, namespace)


def sets(kube: Kubectl) -> dict[str, dict]:
    return {rs["metadata"]["name"]: rs for rs in kube.json("get", "replicasets")["items"]}


def running_pods(kube: Kubectl) -> list[dict]:
    pods = kube.json("get", "pods")["items"]
    return [p for p in pods if not p["metadata"].get("deletionTimestamp")]


def rolled_out(kube: Kubectl) -> str:
    out = kube.ok("rollout", "status", "deployment/web", f"--timeout={ROLLOUT_TIMEOUT}")
    assert 'deployment "web" successfully rolled out' in out
    return out


def image_of(obj: dict) -> str:
    return obj["spec"]["template"]["spec"]["containers"][0]["image"]


def test_create_deployment_then_rollout_status(kube: Kubectl) -> None:
    kube.ok("create", "deployment", "web", "--image=nginx", "--replicas=3")
    rolled_out(kube)
    d = kube.json("get", "deployment", "web")
    assert d["status"]["readyReplicas"] == d["status"]["availableReplicas"] == 3
    assert d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
    pods = running_pods(kube)
    assert len(pods) == 3
    for pod in pods:
        assert pod["status"]["phase"] == "Running"
        assert pod["spec"]["nodeName"].startswith("sim-node-")
    table = kube.ok("get", "deployment", "web")
    assert re.search(r"web\s+3/3\s+3\s+3", table), table


def test_set_image_scale_undo_restart_and_history(kube: Kubectl) -> None:
    kube.ok("create", "deployment", "web", "--image=nginx", "--replicas=3")
    rolled_out(kube)
    (first,) = sets(kube)

    kube.ok("set", "image", "deployment/web", "nginx=nginx:1.25")
    rolled_out(kube)
    current = sets(kube)
    assert len(current) == 2
    (second,) = set(current) - {first}
    assert image_of(current[second]) == "nginx:1.25" and current[second]["spec"]["replicas"] == 3
    assert current[first]["spec"]["replicas"] == 0
    poll(lambda: {p["spec"]["containers"][0]["image"] for p in running_pods(kube)} == {"nginx:1.25"})

    kube.ok("scale", "deployment/web", "--replicas=1")
    rolled_out(kube)
    assert sets(kube)[second]["status"]["replicas"] == 1
    poll(lambda: len(running_pods(kube)) == 1)

    history = kube.ok("rollout", "history", "deployment/web")
    assert re.search(r"^1\s", history, re.M) and re.search(r"^2\s", history, re.M), history

    assert "rolled back" in kube.ok("rollout", "undo", "deployment/web")
    rolled_out(kube)
    current = sets(kube)
    assert image_of(kube.json("get", "deployment", "web")) == "nginx"
    assert current[first]["spec"]["replicas"] == 1  # the first ReplicaSet came back as revision 3
    assert current[first]["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"

    assert "restarted" in kube.ok("rollout", "restart", "deployment/web")
    rolled_out(kube)
    current = sets(kube)
    assert len(current) == 3
    (restarted,) = set(current) - {first, second}
    annotations = current[restarted]["spec"]["template"]["metadata"]["annotations"]
    assert "kubectl.kubernetes.io/restartedAt" in annotations
    history = kube.ok("rollout", "history", "deployment/web")
    assert [int(n) for n in re.findall(r"^(\d+)\s", history, re.M)] == [2, 3, 4], history
