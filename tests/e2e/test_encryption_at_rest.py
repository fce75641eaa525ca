"""Secrets encrypted at rest with the real server (issue 53): what a copy of the store holds, a wrong key, rotation
across two replicas on one PostgreSQL, `secrets-encrypt reencrypt` under writers, and bad configuration files."""

from __future__ import annotations

import base64
import json
import os
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml

from . import REPO_ROOT, RunningServer, scratch_database, server_env, server_on, start_server, unavailable

VALUE = "s3cr3t-tls-key-material-0123"
CLI = (sys.executable, "-m", "orch_apiserver.cli")


def secret(name: str, value: str = VALUE) -> dict:
    encoded = base64.b64encode(value.encode()).decode()
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "data": {"password": encoded}}


def secrets_path(name: str = "") -> str:
    return "/api/v1/namespaces/default/secrets" + (f"/{name}" if name else "")


def store_bytes(server: RunningServer) -> bytes:
    """What a copy of the store holds: the SQLite files, or a pg_dump of the database."""
    if server.database_url is None:
        files = [server.data_dir / name for name in ("orch.db", "orch.db-wal")]
        return b"".join(path.read_bytes() for path in files if path.exists())
    dump = shutil.which("pg_dump")
    if dump is None:
        unavailable("pg_dump is not installed (apt-get install postgresql-client)")
    from . import psycopg_dsn

    return subprocess.run(
        [dump, "--data-only", psycopg_dsn(server.database_url)], check=True, capture_output=True
    ).stdout


def assert_not_in_store(server: RunningServer, *values: str) -> None:
    copy = store_bytes(server)
    for value in values:
        assert value.encode() not in copy
        assert base64.b64encode(value.encode()) not in copy


def key_config(*keys: tuple[str, bytes]) -> dict:
    entries = [{"name": name, "secret": base64.b64encode(secret).decode()} for name, secret in keys]
    return {
        "apiVersion": "apiserver.config.k8s.io/v1",
        "kind": "EncryptionConfiguration",
        "resources": [{"resources": ["secrets"], "providers": [{"aescbc": {"keys": entries}}, {"identity": {}}]}],
    }


def write_config(path: Path, document: dict) -> str:
    path.write_text(yaml.safe_dump(document))
    path.chmod(0o600)
    return str(path)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], cwd=REPO_ROOT, env=server_env(), capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_secrets_are_encrypted_at_rest_by_default(tmp_path: Path, store: str) -> None:
    with server_on(store, tmp_path / "data") as server:
        key_file = server.data_dir / "pki" / "encryption-config.yaml"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        created = server.session.post(secrets_path(), json=secret("db")).json()
        changed = secret("db", VALUE + "-changed")
        changed["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"]
        assert server.session.put(secrets_path("db"), json=changed).status_code == 200
        assert server.session.post(secrets_path(), json=secret("gone", VALUE + "-gone")).status_code == 201
        assert server.session.delete(secrets_path("gone")).status_code == 200
        got = server.get(secrets_path("db")).json()
        assert base64.b64decode(got["data"]["password"]).decode() == VALUE + "-changed"
        listed = server.get(secrets_path()).json()
        assert [i["metadata"]["name"] for i in listed["items"]] == ["db"]
        old = server.get(
            secrets_path("db"),
            params={"resourceVersion": created["metadata"]["resourceVersion"], "resourceVersionMatch": "Exact"},
        ).json()
        assert base64.b64decode(old["data"]["password"]).decode() == VALUE
        history = server.get(secrets_path("db"), params={"orch.io/history": "true"}).json()
        assert VALUE.encode() in base64.b64decode(history["items"][0]["object"]["data"]["password"])
        watched = server.get(
            secrets_path(),
            params={
                "watch": "true",
                "resourceVersion": str(int(created["metadata"]["resourceVersion"]) - 1),
                "timeoutSeconds": "1",
            },
        )
        events = [json.loads(line) for line in watched.text.splitlines() if line]
        assert [e["type"] for e in events][:2] == ["ADDED", "MODIFIED"]
        assert base64.b64decode(events[1]["object"]["data"]["password"]).decode() == VALUE + "-changed"
        assert_not_in_store(server, VALUE, VALUE + "-changed", VALUE + "-gone")
        assert server.metric("apiserver_storage_transformation_operations_total", transformation_type="to_storage") > 0
        status = run_cli("secrets-encrypt", "status", "--data-dir", str(server.data_dir), *database_args(server))
        assert status.returncode == 0, status.stderr
        assert "k8s:enc:secretbox:v1:key-" in status.stdout


def database_args(server: RunningServer) -> list[str]:
    return ["--database-url", server.database_url] if server.database_url else []


def test_a_wrong_key_fails_that_secret_only_and_the_server_stays_up(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = start_server(data)
    try:
        assert server.session.post(secrets_path(), json=secret("db")).status_code == 201
    finally:
        server.stop()
    key_file = data / "pki" / "encryption-config.yaml"
    key_file.unlink()  # a data dir restored without its key: a new one is made at start
    server = start_server(data)
    try:
        for path in (secrets_path("db"), secrets_path()):
            answer = server.get(path)
            assert answer.status_code == 500
            body = answer.json()
            assert body["reason"] == "InternalError"
            assert 'unable to transform key "/core/secrets/default/db"' in body["message"]
        assert server.get("/api/v1/namespaces/default/configmaps").status_code == 200
        assert server.session.post(secrets_path(), json=secret("fresh")).status_code == 201
        assert server.get(secrets_path("fresh")).status_code == 200
        assert server.get("/readyz").status_code == 200
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("providers", "field", "problem"),
    [
        ([{"rot13": {}}], "resources[0].providers[0]", "expected providers"),
        ([{"aescbc": {"keys": [{"name": "k", "secret": base64.b64encode(b"short").decode()}]}}], "secret", "got 5"),
        ([{"secretbox": {"keys": [{"name": "k", "secret": "%%%"}]}}], "secret", "not a valid base64"),
        ([], "resources[0].providers", "at least one provider"),
    ],
)
def test_a_bad_configuration_stops_the_server_at_start(
    tmp_path: Path, providers: list, field: str, problem: str
) -> None:
    document = {
        "apiVersion": "apiserver.config.k8s.io/v1",
        "kind": "EncryptionConfiguration",
        "resources": [{"resources": ["secrets"], "providers": providers}],
    }
    path = write_config(tmp_path / "enc.yaml", document)
    started = run_cli("--data-dir", str(tmp_path / "data"), "--secure-port", "1", "--encryption-provider-config", path)
    assert started.returncode != 0
    assert path in started.stderr and field in started.stderr and problem in started.stderr


def start_replica(data: Path, url: str, config: str) -> RunningServer:
    return start_server(data, ["--encryption-provider-config", config], database_url=url)


def restart_all(replicas: list[RunningServer], config: str) -> list[RunningServer]:
    for replica in replicas:
        replica.stop()
    assert replicas[0].database_url is not None
    return [start_replica(r.data_dir, replicas[0].database_url, config) for r in replicas]


def test_rotation_across_two_replicas_on_postgresql(tmp_path: Path, kubectl: str) -> None:
    k1, k2 = ("k1", os.urandom(32)), ("k2", os.urandom(32))
    config = tmp_path / "encryption.yaml"
    write_config(config, key_config(k1))
    with scratch_database() as url:
        from orch_apiserver.storage.schema import ensure_schema

        ensure_schema(url, upgrade=True)
        first = start_replica(tmp_path / "a", url, str(config))
        shutil.copytree(tmp_path / "a" / "pki", tmp_path / "b" / "pki")  # replicas share the CA (and the keys)
        replicas = [first, start_replica(tmp_path / "b", url, str(config))]
        try:
            versions = {}
            for i in range(6):
                made = replicas[i % 2].session.post(secrets_path(), json=secret(f"s{i}", f"{VALUE}-{i}")).json()
                versions[f"s{i}"] = made["metadata"]["resourceVersion"]
            write_config(config, key_config(k1, k2))  # the new key second, every replica restarted
            replicas = restart_all(replicas, str(config))
            write_config(config, key_config(k2, k1))  # then first
            replicas = restart_all(replicas, str(config))
            listed = subprocess.run(
                [kubectl, "--kubeconfig", str(replicas[0].kubeconfig), "get", "secrets", "-n", "default", "-o", "json"],
                check=True,
                capture_output=True,
            ).stdout
            subprocess.run(
                [kubectl, "--kubeconfig", str(replicas[1].kubeconfig), "replace", "-f", "-"],
                input=listed,
                check=True,
                capture_output=True,
            )
            for name, version in versions.items():  # an unchanged Secret under the old key was written again
                assert replicas[0].get(secrets_path(name)).json()["metadata"]["resourceVersion"] != version
            stop_writing = threading.Event()
            writes: list[int] = []

            def write() -> None:  # a client keeps writing while every row is rewritten
                n = 0
                while not stop_writing.is_set():
                    answer = replicas[n % 2].session.post(secrets_path(), json=secret(f"w{n}", f"{VALUE}-w{n}"))
                    assert answer.status_code == 201, answer.text
                    writes.append(n)
                    n += 1

            writer = threading.Thread(target=write)
            writer.start()
            try:
                args = ("--data-dir", str(tmp_path / "a"), "--database-url", url, "--encryption-provider-config")
                rewritten = run_cli("secrets-encrypt", "reencrypt", *args, str(config))
            finally:
                stop_writing.set()
                writer.join()
            assert rewritten.returncode == 0, rewritten.stderr
            write_config(config, key_config(k2))  # the old key removed
            replicas = restart_all(replicas, str(config))
            status = run_cli("secrets-encrypt", "status", *args, str(config))
            assert "k8s:enc:aescbc:v1:k1:" not in status.stdout, status.stdout
            for replica in replicas:
                names = {i["metadata"]["name"] for i in replica.get(secrets_path()).json()["items"]}
                assert {f"s{i}" for i in range(6)} | {f"w{n}" for n in writes} <= names
                for name, version in versions.items():  # history under the removed key reads after reencrypt
                    params = {"resourceVersion": version, "resourceVersionMatch": "Exact"}
                    old = replica.get(secrets_path(name), params=params)
                    assert old.status_code == 200, old.text
                    assert base64.b64decode(old.json()["data"]["password"]).decode() == f"{VALUE}-{name[1:]}"
            assert_not_in_store(replicas[0], *(f"{VALUE}-{i}" for i in range(6)))
        finally:
            for replica in replicas:
                replica.stop()


def test_turning_encryption_on_for_existing_data_leaves_no_plaintext(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plain = {**key_config(), "resources": [{"resources": ["secrets"], "providers": [{"identity": {}}]}]}
    config = write_config(tmp_path / "identity.yaml", plain)
    server = start_server(data, ["--encryption-provider-config", config])
    try:
        assert server.session.post(secrets_path(), json=secret("old")).status_code == 201
        assert base64.b64encode(VALUE.encode()) in store_bytes(server)  # stored as it is, as asked
    finally:
        server.stop()
    server = start_server(data)  # no flag: the data dir's own key is made, and what was stored is rewritten
    try:
        assert "encrypted 2 values stored before" in server.log()
        got = server.get(secrets_path("old")).json()
        assert base64.b64decode(got["data"]["password"]).decode() == VALUE
        assert_not_in_store(server, VALUE)
    finally:
        server.stop()
