"""orchctl reads manifests as kubectl does (sigs.k8s.io/yaml on go-yaml v2, resolve.go): timestamps, `12:30` and `=`
stay strings, `yes`/`on` are booleans (as keys: "true"), leading-0 integers are octal, `<<` merges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e import RunningServer

from .helpers import orchctl

pytestmark = pytest.mark.e2e

MANIFEST = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: yaml-rules}
data:
  date: 2001-12-14
  time: 12:30
  eq: =
  on: a boolean key
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: yaml-merge
  annotations: &common {tier: web}
  labels:
    <<: *common
    app: demo
"""


def test_create_reads_yaml_as_kubectl_does(server: RunningServer, tmp_path: Path) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text(MANIFEST)
    created = orchctl(server, "create", "-n", "default", "-f", str(path))
    assert created.returncode == 0, created.stderr
    got = orchctl(server, "get", "-n", "default", "configmap", "yaml-rules", "yaml-merge", "-o", "json")
    assert got.returncode == 0, got.stderr
    items = {item["metadata"]["name"]: item for item in json.loads(got.stdout)["items"]}
    assert items["yaml-rules"]["data"] == {"date": "2001-12-14", "time": "12:30", "eq": "=", "true": "a boolean key"}
    assert items["yaml-merge"]["metadata"]["labels"] == {"tier": "web", "app": "demo"}
    bad = orchctl(server, "create", "-n", "default", "-f", "-", stdin=MANIFEST.replace("12:30", ".nan"))
    assert bad.returncode != 0 and "unsupported value: NaN" in bad.stderr
