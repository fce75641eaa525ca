"""An operator author's test, through the pytest fixture with a simulated cluster: a kopf operator (run by kopf's
own KopfRunner inside the test) creates a Deployment for a request, and the test waits for it to be Available,
which only the simulation's scheduler, node agents and workload controllers can make true."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

OPERATOR = """
import os

import kopf
import kubernetes


@kopf.on.login()
def login(**kwargs):
    return kopf.login_with_kubeconfig(**kwargs)


@kopf.on.create("configmaps", labels={"web-request": "yes"})
def make_deployment(name, namespace, body, **_):
    labels = {"app": name}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}},
        },
    }
    kopf.adopt(deployment, owner=body)
    kubernetes.config.load_kube_config(config_file=os.environ["KUBECONFIG"])  # the client read $KUBECONFIG at import
    kubernetes.client.AppsV1Api().create_namespaced_deployment(namespace, deployment)
"""

USER_TEST = """
import os
import time

from kopf.testing import KopfRunner
from kubernetes import client


def available(apps, namespace, name):
    deployment = apps.read_namespaced_deployment(name, namespace)
    conditions = {c.type: c.status for c in deployment.status.conditions or []}
    return conditions.get("Available") == "True" and deployment.status.available_replicas == 2


def test_the_operator_s_deployment_becomes_available(orch_apiserver, orch_namespace):
    os.environ["KUBECONFIG"] = str(orch_apiserver.kubeconfig)
    api = orch_apiserver.api_client()
    core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
    with KopfRunner(["run", "--standalone", "--namespace", orch_namespace, "operator.py"]) as runner:
        began = time.monotonic()
        core.create_namespaced_config_map(
            orch_namespace, {"metadata": {"name": "shop", "labels": {"web-request": "yes"}}}
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                if available(apps, orch_namespace, "shop"):
                    break
            except client.ApiException as err:
                assert err.status == 404, err
            assert time.monotonic() < deadline, "the Deployment never became Available"
            time.sleep(0.05)
        print(f"available after {time.monotonic() - began:.2f} s")
    assert runner.exit_code == 0, runner.output
    pods = core.list_namespaced_pod(orch_namespace, label_selector="app=shop").items
    assert len(pods) == 2 and all(p.status.phase == "Running" and p.spec.node_name for p in pods)
"""


def test_a_kopf_operator_test_waits_for_its_deployment_through_the_fixture(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\norch_simulate_nodes = 2\n")
    (tmp_path / "operator.py").write_text(OPERATOR)
    (tmp_path / "test_operator.py").write_text(USER_TEST)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "ORCH_", "KUBECONFIG"))}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-s", "-rf"],
        check=False,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert "1 passed" in output, output[-6000:]
