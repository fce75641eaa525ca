"""What makes the test server start fast, as a test author would notice it: its throw-away EC keys still
authenticate everything, and a fresh server's database starts from a per-machine template of the schema."""

from __future__ import annotations

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
