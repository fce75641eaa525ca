"""What makes the test server start fast, as a test author would notice it: its throw-away EC keys still
authenticate everything, and a fresh server's database starts from per-machine templates of the schema and of the
objects every start writes alike (system namespaces, RBAC policy, APIServices, APF), those objects its own."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from kubernetes import client
from orch_apiserver.testing import TestServer


def _templates(cache: Path) -> list[Path]:
    return sorted((cache / "orch-apiserver").glob("schema-*.sqlite"))


def test_keys_are_ec_and_service_account_tokens_still_authenticate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with TestServer() as server:
        ca = x509.load_pem_x509_certificate(Path(server.ca_file).read_bytes())
        assert isinstance(ca.public_key(), ec.EllipticCurvePublicKey)
        core = client.CoreV1Api(server.api_client())
        namespace = server.create_namespace()
        core.create_namespaced_service_account(namespace, {"metadata": {"name": "robot"}})
        token = core.create_namespaced_service_account_token("robot", namespace, {"spec": {}}).status.token
        review = client.AuthenticationV1Api(server.api_client()).create_token_review({"spec": {"token": token}})
        assert review.status.authenticated
        assert review.status.user.username == f"system:serviceaccount:{namespace}:robot"


def test_the_schema_template_is_made_once_and_each_fresh_server_starts_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    with TestServer() as first:
        namespace = first.create_namespace()
        client.CoreV1Api(first.api_client()).create_namespaced_config_map(namespace, {"metadata": {"name": "mine"}})
    [template] = _templates(cache)
    made = template.stat().st_mtime_ns
    with TestServer() as second:
        names = {ns.metadata.name for ns in client.CoreV1Api(second.api_client()).list_namespace().items}
        assert namespace not in names and "default" in names
    assert _templates(cache) == [template] and template.stat().st_mtime_ns == made


def test_a_given_data_directory_keeps_its_objects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    data_dir = tmp_path / "data"
    with TestServer(data_dir=str(data_dir)) as server:
        client.CoreV1Api(server.api_client()).create_namespace({"metadata": {"name": "kept"}})
    with TestServer(data_dir=str(data_dir)) as server:
        assert client.CoreV1Api(server.api_client()).read_namespace("kept").metadata.name == "kept"


def test_an_unusable_cache_directory_only_costs_the_migration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    not_a_directory = tmp_path / "cache"
    not_a_directory.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(not_a_directory))
    with TestServer() as server:
        assert server.create_namespace().startswith("test-")


#: what the bootstrap template brings, as a client lists it
BOOTSTRAP_LISTS = (
    "/api/v1/namespaces",
    "/apis/rbac.authorization.k8s.io/v1/clusterroles",
    "/apis/apiregistration.k8s.io/v1/apiservices",
    "/apis/flowcontrol.apiserver.k8s.io/v1beta2/flowschemas",
)


def _default_objects(server: TestServer) -> dict[str, dict]:
    return {
        f"{obj['kind']} {obj['metadata']['name']}": obj
        for path in BOOTSTRAP_LISTS
        for obj in server.manifests.client.get(path)["items"]
    }


def _times(obj: dict) -> list[str]:
    metadata, conditions = obj["metadata"], (obj.get("status") or {}).get("conditions") or []
    return [
        metadata["creationTimestamp"],
        *(entry["time"] for entry in metadata.get("managedFields") or []),
        *(condition["lastTransitionTime"] for condition in conditions),
    ]


def _as_written(obj: dict) -> dict:
    """What the start wrote, without what each write makes its own (uid, times, revision, managers' order)."""
    metadata = {k: v for k, v in obj["metadata"].items() if k not in ("uid", "creationTimestamp", "resourceVersion")}
    metadata["managedFields"] = sorted(
        (entry["manager"], str(entry["fieldsV1"])) for entry in metadata.get("managedFields") or []
    )
    conditions = [
        {k: v for k, v in condition.items() if k != "lastTransitionTime"}
        for condition in (obj.get("status") or {}).get("conditions") or []
    ]
    return {**obj, "metadata": metadata, "status": {**(obj.get("status") or {}), "conditions": conditions}}


def test_servers_from_the_bootstrap_template_have_the_default_objects_as_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    with TestServer() as first:  # no template yet: its hooks and controllers write the objects, then it keeps them
        written = _default_objects(first)
    assert len(list((cache / "orch-apiserver").glob("bootstrap-*.sqlite"))) == 1
    time.sleep(1.0)  # timestamps have whole seconds: the template's must be older than the second server's start
    started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    with TestServer() as second:
        copied = _default_objects(second)
        admin = client.RbacAuthorizationV1Api(second.api_client()).read_cluster_role("admin")
        assert any("pods" in (rule.resources or []) for rule in admin.rules)  # aggregated from aggregate-to-* roles
    assert {"Namespace kube-system", "ClusterRole cluster-admin", "APIService v1.apps", "FlowSchema catch-all"} <= set(
        copied
    )
    assert {name: _as_written(obj) for name, obj in copied.items()} == {
        name: _as_written(obj) for name, obj in written.items()
    }
    uids = {obj["metadata"]["uid"] for obj in copied.values()}
    assert len(uids) == len(copied) and not uids & {obj["metadata"]["uid"] for obj in written.values()}
    assert all(moment >= started for obj in copied.values() for moment in _times(obj))
