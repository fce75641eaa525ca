"""Real kubectl against the real server: `kubectl explain` from the typed OpenAPI v3 documents, and
kubectl's server-side field validation (`--validate`) on a manifest with a misspelt field."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from . import REPO_ROOT, RunningServer, server_env

Kubectl = Callable[..., subprocess.CompletedProcess[str]]

TYPO_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: typo}}}}
  template:
    metadata: {{labels: {{app: typo}}}}
    spec:
      containers:
      - name: app
        image: nginx
        imagee: typo
"""


@pytest.fixture
def kubectl_run(server: RunningServer, kubectl: str, tmp_path: Path) -> Kubectl:
    """kubectl with its own HOME and discovery/OpenAPI cache, so no earlier run's cache answers."""
    home, cache = tmp_path / "home", tmp_path / "cache"
    home.mkdir()
    env = {"HOME": str(home), "KUBECACHEDIR": str(cache)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [kubectl, "--kubeconfig", str(server.kubeconfig), "--cache-dir", str(cache), *args]
        return subprocess.run(
            command,
            check=False,
            cwd=REPO_ROOT,
            env=server_env(env),
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )

    return run


def fields(output: str) -> dict[str, str]:
    """`name<TAB><type>` lines of explain's FIELDS section -> {name: type (with -required-)}."""
    out = {}
    for line in output.splitlines():
        name, tab, rest = line.strip().partition("\t")
        if tab and rest.startswith("<"):
            out[name] = rest
    return out


def test_explain_pod_containers_uses_openapi_v3(kubectl_run: Kubectl) -> None:
    result = kubectl_run("explain", "pods.spec.containers", "-v=8")
    assert result.returncode == 0, result.stderr
    assert "KIND:       Pod" in result.stdout and "VERSION:    v1" in result.stdout
    assert "FIELD: containers <[]Container>" in result.stdout
    found = fields(result.stdout)
    assert found["name"] == "<string> -required-"
    assert found["image"] == "<string>"
    assert found["ports"] == "<[]ContainerPort>"
    assert found["env"] == "<[]EnvVar>"
    assert found["resources"] == "<ResourceRequirements>"
    assert found["livenessProbe"] == "<Probe>"
    assert "GET https://127.0.0.1" in result.stderr and "/openapi/v3/api/v1?hash=" in result.stderr
    assert "/openapi/v2" not in result.stderr


def test_explain_deployment_strategy_and_leaf_types(kubectl_run: Kubectl) -> None:
    result = kubectl_run("explain", "deployments.spec.strategy")
    assert result.returncode == 0, result.stderr
    assert "GROUP:      apps" in result.stdout and "KIND:       Deployment" in result.stdout
    assert "FIELD: strategy <DeploymentStrategy>" in result.stdout
    assert fields(result.stdout) == {"rollingUpdate": "<RollingUpdateDeployment>", "type": "<string>"}
    rolling = kubectl_run("explain", "deployments.spec.strategy.rollingUpdate")
    assert fields(rolling.stdout) == {"maxSurge": "<IntOrString>", "maxUnavailable": "<IntOrString>"}
    resources = kubectl_run("explain", "pods.spec.containers.resources")
    assert fields(resources.stdout)["limits"] == "<map[string]Quantity>"
    meta = kubectl_run("explain", "pods.metadata")
    assert fields(meta.stdout)["creationTimestamp"] == "<string>"
    assert fields(meta.stdout)["labels"] == "<map[string]string>"


def test_explain_configmaps_and_a_renamed_group(kubectl_run: Kubectl) -> None:
    result = kubectl_run("explain", "configmaps")
    assert result.returncode == 0, result.stderr
    assert "KIND:       ConfigMap" in result.stdout
    found = fields(result.stdout)
    assert found["data"] == "<map[string]string>" and found["binaryData"] == "<map[string]string>"
    assert found["immutable"] == "<boolean>" and found["metadata"] == "<ObjectMeta>"
    assert found["apiVersion"] == "<string>" and found["kind"] == "<string>"
    csr = kubectl_run("explain", "certificatesigningrequests.spec")
    assert csr.returncode == 0, csr.stderr
    assert "GROUP:      certificates.orch.io" in csr.stdout
    assert fields(csr.stdout)["request"] == "<string> -required-"
    missing = kubectl_run("explain", "pods.spec.nope")
    assert missing.returncode != 0 and 'field "nope" does not exist' in missing.stderr


def test_kubectl_validation_modes_reach_the_server(kubectl_run: Kubectl, tmp_path: Path) -> None:
    strict_file, warn_file = tmp_path / "strict.yaml", tmp_path / "warn.yaml"
    strict_file.write_text(TYPO_DEPLOYMENT.format(name="typo-strict"))
    warn_file.write_text(TYPO_DEPLOYMENT.format(name="typo-warn"))
    unknown = 'unknown field "spec.template.spec.containers[0].imagee"'
    strict = kubectl_run("create", "-f", str(strict_file))  # --validate=strict is kubectl's default
    assert strict.returncode != 0 and unknown in strict.stderr
    assert kubectl_run("get", "deployment", "typo-strict").returncode != 0
    warned = kubectl_run("create", "-f", str(warn_file), "--validate=warn")
    assert warned.returncode == 0, warned.stderr
    assert f"Warning: {unknown}" in warned.stderr
    container = kubectl_run("get", "deployment", "typo-warn", "-o", "jsonpath={.spec.template.spec.containers[0]}")
    assert container.returncode == 0 and "imagee" not in container.stdout and '"image":"nginx"' in container.stdout
    kubectl_run("delete", "deployment", "typo-warn")


def test_explain_shows_our_descriptions(kubectl_run: Kubectl) -> None:
    """Kinds and fields carry descriptions (app/api/openapi/descriptions.py), not `<empty>`."""
    from orch_apiserver.api.openapi.descriptions import KIND_DESCRIPTIONS

    def flat(text: str) -> str:
        return " ".join(text.split())  # kubectl wraps long descriptions

    kind = kubectl_run("explain", "deployments")
    assert kind.returncode == 0, kind.stderr
    assert flat(KIND_DESCRIPTIONS["Deployment"]) in flat(kind.stdout)
    paused = kubectl_run("explain", "deployments.spec.paused")
    assert "Stop rolling out template changes while true." in flat(paused.stdout)
    probe = kubectl_run("explain", "pods.spec.containers.livenessProbe.periodSeconds")
    assert "Seconds between probes." in flat(probe.stdout)
