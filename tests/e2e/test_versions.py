"""Served versions with the stock kubectl: a deprecated version warns on stderr, the preferred one is used
by default, and a removed version on --runtime-config stops the server from starting."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from . import REPO_ROOT, RunningServer
from .test_kubectl import Kubectl, fresh_namespace, kubectl_for

pytestmark = pytest.mark.e2e

WARNING = (
    "Warning: policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; "
    "use policy/v1 PodDisruptionBudget"
)
PDB_V1BETA1 = """apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata:
  name: old-style
spec:
  minAvailable: 1
  selector: {}
"""


@pytest.fixture
def kube1(server: RunningServer, kubectl: str, tmp_path_factory: pytest.TempPathFactory) -> Kubectl:
    return kubectl_for(kubectl, server, tmp_path_factory)


def test_kubectl_warns_on_the_deprecated_version_and_prefers_v1(kube1: Kubectl) -> None:
    with fresh_namespace(kube1) as ns:
        created = kube1.run("create", "-n", ns, "-f", "-", input=PDB_V1BETA1)
        assert created.returncode == 0, created.stderr
        assert WARNING in created.stderr
        listed = kube1.run("get", "poddisruptionbudgets.v1beta1.policy", "-n", ns)
        assert listed.returncode == 0, listed.stderr
        assert WARNING in listed.stderr
        assert "old-style" in listed.stdout
        preferred = kube1.run("get", "pdb", "old-style", "-n", ns, "-o", "json")
        assert preferred.returncode == 0, preferred.stderr
        assert "Warning" not in preferred.stderr
        assert '"apiVersion": "policy/v1"' in preferred.stdout
        assert "deprecated-v1beta1-empty-selector-match" in preferred.stdout  # still selects nothing


def test_a_removed_version_on_runtime_config_fails_start(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "orch_apiserver.cli",
            "--data-dir",
            str(tmp_path),
            "--runtime-config",
            "extensions/v1beta1=true",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "extensions/v1beta1 is not served: removed in v1.16" in result.stderr
