"""A CRD a client saw Established is served at once by every worker and replica (issue 38 item 9).

Each request below goes on a fresh connection, so any worker of either replica may answer it: none of them may
answer 404 for the new kind or leave its group out of discovery, whatever its own catalog had heard so far."""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from . import RunningServer, scratch_database, start_server

pytestmark = pytest.mark.e2e

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
ROUNDS = 30
#: two workers per process, so a fresh connection may land on a worker that did not hear of the CRD yet
WORKERS = ["--api-domain", "k8s.io", "--workers", "2", "--threads", "8"]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def servers(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[RunningServer]]:
    """Two workers on SQLite; on PostgreSQL two replicas of two workers each on one database."""
    data = tmp_path_factory.mktemp(f"established-{request.param}")
    if request.param == "sqlite":
        running = [start_server(data, WORKERS)]
        yield running
        running[0].stop()
        return
    from orch_apiserver.storage.schema import ensure_schema

    with scratch_database() as url:
        ensure_schema(url, upgrade=True)
        running = [start_server(data, WORKERS, database_url=url)]
        try:
            running.append(start_server(data, WORKERS, database_url=url))  # same data dir: same CA and admin cert
            yield running
        finally:
            for server in running:
                server.stop()


def crd(group: str, plural: str = "gadgets", kind: str = "Gadget") -> dict:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": plural, "kind": kind},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                        }
                    },
                }
            ],
        },
    }


def is_established(obj: dict) -> bool:
    conditions = (obj.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions)


def create_and_wait_established(server: RunningServer, body: dict) -> None:
    """Create the CRD and follow it on a watch until an event says Established (what lightkube and kubectl do)."""
    name = body["metadata"]["name"]
    made = server.session.post(CRDS, json=body)
    assert made.status_code == 201, made.text
    if is_established(made.json()):
        return
    rv = made.json()["metadata"]["resourceVersion"]
    query = f"?watch=1&fieldSelector=metadata.name%3D{name}&resourceVersion={rv}&timeoutSeconds=30"
    with server.new_session() as session:
        watch = session.get(CRDS + query, stream=True, timeout=40)
        try:
            for line in watch.iter_lines(chunk_size=1):
                event = json.loads(line)
                if event["type"] in ("ADDED", "MODIFIED") and is_established(event["object"]):
                    return
        finally:
            watch.close()
    pytest.fail(f"{name} not Established within the watch's 30 s")


def fresh(server: RunningServer, method: str, path: str, **kwargs: Any) -> Any:
    """One request on a new connection (a new session), so that any worker may answer it."""
    with server.new_session() as session:
        return session.request(method, path, **kwargs)


def test_established_crd_is_served_by_every_worker_and_replica(servers: list[RunningServer]) -> None:
    suffix = uuid.uuid4().hex[:6]
    missed: list[str] = []
    for i in range(ROUNDS):
        group = f"r{i}.{suffix}.established.example.com"
        writer, reader = servers[i % len(servers)], servers[(i + 1) % len(servers)]
        create_and_wait_established(writer, crd(group))
        gadget = {"apiVersion": f"{group}/v1", "kind": "Gadget", "spec": {"n": i}}
        for j, server in enumerate((reader, writer)):
            path = f"/apis/{group}/v1/namespaces/default/gadgets"
            made = fresh(server, "POST", path, json={**gadget, "metadata": {"name": f"g{j}"}})
            if made.status_code != 201:
                missed.append(f"round {i}: POST {path} -> {made.status_code} {made.text[:200]}")
            groups = fresh(server, "GET", "/apis").json()["groups"]
            if group not in [g["name"] for g in groups]:
                missed.append(f"round {i}: {group} missing from /apis")
            for doc in (f"/apis/{group}", f"/apis/{group}/v1"):
                got = fresh(server, "GET", doc)
                if got.status_code != 200:
                    missed.append(f"round {i}: GET {doc} -> {got.status_code}")
    assert not missed, "\n".join(missed)


def test_kubectl_wait_established_then_apply(servers: list[RunningServer], kubectl: str, tmp_path: Path) -> None:
    suffix = uuid.uuid4().hex[:6]
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    for i in range(5):
        group = f"k{i}.{suffix}.established.example.com"
        writer, reader = servers[i % len(servers)], servers[(i + 1) % len(servers)]
        files = tmp_path / f"round-{i}"
        files.mkdir()
        (files / "crd.yaml").write_text(yaml.safe_dump(crd(group)))
        gadget = {"apiVersion": f"{group}/v1", "kind": "Gadget", "metadata": {"name": "g1", "namespace": "default"}}
        (files / "gadget.yaml").write_text(yaml.safe_dump(gadget))
        steps = [
            (writer, ["apply", "-f", str(files / "crd.yaml")]),
            (writer, ["wait", "--for=condition=Established", "--timeout=30s", f"crd/gadgets.{group}"]),
            (reader, ["apply", "-f", str(files / "gadget.yaml")]),
            (reader, ["get", f"gadgets.{group}", "g1", "-n", "default", "-o", "name"]),
        ]
        for server, step in steps:
            # the replicas share one data dir, so one kubeconfig: --server picks the replica
            base = [kubectl, "--kubeconfig", str(server.kubeconfig), "--server", server.url]
            base += ["--cache-dir", str(files / "cache")]
            done = subprocess.run([*base, *step], env=env, capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, f"round {i}: kubectl {' '.join(step)}: {done.stderr}"


def test_official_client_waits_then_creates(servers: list[RunningServer]) -> None:
    from kubernetes import client, config, watch

    suffix = uuid.uuid4().hex[:6]
    for i in range(5):
        group = f"c{i}.{suffix}.established.example.com"
        writer, reader = servers[i % len(servers)], servers[(i + 1) % len(servers)]
        with config.new_client_from_config(config_file=str(writer.kubeconfig)) as api:
            api.configuration.host = writer.url  # the replicas share one kubeconfig
            ext = client.ApiextensionsV1Api(api)
            made = ext.create_custom_resource_definition(crd(group))
            name = made.metadata.name
            for event in watch.Watch().stream(
                ext.list_custom_resource_definition,
                field_selector=f"metadata.name={name}",
                resource_version=made.metadata.resource_version,
                timeout_seconds=30,
            ):
                conditions = event["object"].status.conditions or []
                if any(c.type == "Established" and c.status == "True" for c in conditions):
                    break
            else:
                pytest.fail(f"{name} not Established within the watch's 30 s")
        with config.new_client_from_config(config_file=str(reader.kubeconfig)) as api:  # a fresh connection pool
            api.configuration.host = reader.url
            body = {"apiVersion": f"{group}/v1", "kind": "Gadget", "metadata": {"name": "g1"}}
            got = client.CustomObjectsApi(api).create_namespaced_custom_object(group, "v1", "default", "gadgets", body)
            assert got["metadata"]["name"] == "g1"
