"""Dependents follow their owners (ownerReferences) with kubectl's three cascades, and every namespace gets its
`default` ServiceAccount and root-CA ConfigMap: the in-server garbagecollector, serviceaccount and
rootcacertpublisher controllers on a real server."""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from . import RunningServer, poll, start_server

CONFIGMAPS = "/api/v1/namespaces/{ns}/configmaps"


@pytest.fixture(scope="module")
def gc_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = start_server(tmp_path_factory.mktemp("gc"), ["--workers", "2"])
    yield running
    running.stop()


@pytest.fixture
def ns(gc_server: RunningServer) -> str:
    name = f"gc-{uuid.uuid4().hex[:8]}"
    assert gc_server.session.post("/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
    return name


def make(server: RunningServer, ns: str, name: str, owners: list[dict] = (), **metadata: Any) -> dict:
    md = {"name": name, **metadata}
    if owners:
        md["ownerReferences"] = [
            {
                "apiVersion": o.get("apiVersion", "v1"),
                "kind": o.get("kind", "ConfigMap"),
                "name": o["metadata"]["name"],
                "uid": o["metadata"]["uid"],
                **({"blockOwnerDeletion": True} if o.get("block") else {}),
            }
            for o in owners
        ]
    created = server.session.post(CONFIGMAPS.format(ns=ns), json={"metadata": md})
    assert created.status_code == 201, created.text
    return created.json()


def exists(server: RunningServer, ns: str, name: str) -> bool:
    return server.get(f"{CONFIGMAPS.format(ns=ns)}/{name}").status_code == 200


def run_kubectl(kubectl_path: str, server: RunningServer, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [kubectl_path, "--kubeconfig", str(server.kubeconfig), *args],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def test_background_cascade_deletes_the_dependents(kubectl: str, gc_server: RunningServer, ns: str):
    owner = make(gc_server, ns, "owner")
    for i in range(2):
        make(gc_server, ns, f"child-{i}", [owner])
    done = run_kubectl(kubectl, gc_server, "delete", "configmap", "owner", "-n", ns)
    assert done.returncode == 0, done.stderr
    poll(lambda: not exists(gc_server, ns, "child-0") and not exists(gc_server, ns, "child-1"))


def test_foreground_deletion_waits_for_blocking_dependents(gc_server: RunningServer, ns: str):
    owner = make(gc_server, ns, "owner")
    make(gc_server, ns, "held", [{**owner, "block": True}], finalizers=["example.com/hold"])
    deleted = gc_server.session.delete(f"{CONFIGMAPS.format(ns=ns)}/owner", json={"propagationPolicy": "Foreground"})
    assert deleted.status_code == 200
    terminating = gc_server.get(f"{CONFIGMAPS.format(ns=ns)}/owner").json()
    assert (
        terminating["metadata"]["deletionTimestamp"] and "foregroundDeletion" in terminating["metadata"]["finalizers"]
    )
    held = poll(
        lambda: (
            gc_server.get(f"{CONFIGMAPS.format(ns=ns)}/held").json()["metadata"].get("deletionTimestamp")
            and gc_server.get(f"{CONFIGMAPS.format(ns=ns)}/held").json()
        )
    )
    assert exists(gc_server, ns, "owner")  # the held dependent blocks its owner
    held["metadata"]["finalizers"] = []
    assert gc_server.session.put(f"{CONFIGMAPS.format(ns=ns)}/held", json=held).status_code == 200
    poll(lambda: not exists(gc_server, ns, "held") and not exists(gc_server, ns, "owner"))


def test_kubectl_cascade_foreground_returns_once_everything_is_gone(kubectl: str, gc_server: RunningServer, ns: str):
    owner = make(gc_server, ns, "owner")
    make(gc_server, ns, "child", [{**owner, "block": True}])
    done = run_kubectl(
        kubectl, gc_server, "delete", "configmap", "owner", "-n", ns, "--cascade=foreground", "--timeout=60s"
    )
    assert done.returncode == 0, done.stderr
    assert not exists(gc_server, ns, "owner") and not exists(gc_server, ns, "child")


def test_kubectl_cascade_orphan_keeps_the_dependents_unowned(kubectl: str, gc_server: RunningServer, ns: str):
    owner = make(gc_server, ns, "owner")
    make(gc_server, ns, "child", [owner])
    done = run_kubectl(kubectl, gc_server, "delete", "configmap", "owner", "-n", ns, "--cascade=orphan")
    assert done.returncode == 0, done.stderr
    poll(lambda: not exists(gc_server, ns, "owner"))
    child = gc_server.get(f"{CONFIGMAPS.format(ns=ns)}/child").json()
    assert "ownerReferences" not in child["metadata"]


def test_a_dependent_with_another_owner_only_loses_the_reference(gc_server: RunningServer, ns: str):
    first, second = make(gc_server, ns, "first"), make(gc_server, ns, "second")
    make(gc_server, ns, "shared", [first, second])
    assert gc_server.session.delete(f"{CONFIGMAPS.format(ns=ns)}/first").status_code == 200
    refs = poll(
        lambda: (
            [
                r["name"]
                for r in gc_server.get(f"{CONFIGMAPS.format(ns=ns)}/shared")
                .json()["metadata"]
                .get("ownerReferences", [])
            ]
            == ["second"]
        )
    )
    assert refs


def test_unknown_owner_kinds_are_left_alone_and_a_recreated_owner_does_not_save_a_dependent(
    gc_server: RunningServer, ns: str
):
    foreign = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "uid": str(uuid.uuid4())}}
    make(gc_server, ns, "foreign-child", [foreign])
    stale = {"metadata": {"name": "reborn", "uid": str(uuid.uuid4())}}  # the owner's name, another incarnation
    make(gc_server, ns, "reborn")
    make(gc_server, ns, "orphaned-child", [stale])
    poll(lambda: not exists(gc_server, ns, "orphaned-child"))
    assert exists(gc_server, ns, "foreign-child")


def test_every_namespace_gets_a_default_account_and_the_root_ca(gc_server: RunningServer, ns: str):
    accounts = poll(lambda: gc_server.get(f"/api/v1/namespaces/{ns}/serviceaccounts/default").status_code == 200)
    assert accounts
    root_ca = poll(lambda: (r := gc_server.get(f"{CONFIGMAPS.format(ns=ns)}/orch-root-ca.crt")).ok and r.json())
    assert root_ca["data"] == {"ca.crt": gc_server.ca_file.read_text()}
    root_ca["data"] = {"ca.crt": "tampered"}
    assert gc_server.session.put(f"{CONFIGMAPS.format(ns=ns)}/orch-root-ca.crt", json=root_ca).status_code == 200
    assert gc_server.session.delete(f"/api/v1/namespaces/{ns}/serviceaccounts/default").status_code == 200
    poll(lambda: gc_server.get(f"{CONFIGMAPS.format(ns=ns)}/orch-root-ca.crt").json()["data"]["ca.crt"] != "tampered")
    poll(lambda: gc_server.get(f"/api/v1/namespaces/{ns}/serviceaccounts/default").status_code == 200)


def test_the_reference_domain_names_the_config_map_as_the_reference(tmp_path):
    server = start_server(tmp_path, ["--api-domain", "k8s.io"])
    try:
        found = poll(
            lambda: (r := server.get("/api/v1/namespaces/default/configmaps/kube-root-ca.crt")).ok and r.json()
        )
        assert json.loads(json.dumps(found["data"]))["ca.crt"].startswith("-----BEGIN CERTIFICATE-----")
    finally:
        server.stop()
