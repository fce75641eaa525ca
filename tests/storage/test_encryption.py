"""Encryption at rest in the store (issue 53): what the tables hold, what readers get, what a wrong key gives, and
the EncryptionConfiguration files refused at start. Both stores."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
import sqlalchemy as sa
import yaml
from orch_apiserver.storage import reencrypt
from orch_apiserver.storage.encryption import Encryption
from orch_apiserver.storage.encryption_config import EncryptionConfigError, default_document, load, parse
from orch_apiserver.storage.failures import UnreadableValue
from orch_apiserver.storage.store import Storage

VALUE = "hunter2-correct-horse-battery"
SECRET_KEY = "/core/secrets/default/db"
OTHER_KEY = "/core/configmaps/default/plain"


def config(*providers: dict, resources: tuple[str, ...] = ("secrets",)) -> dict:
    return {
        "apiVersion": "apiserver.config.k8s.io/v1",
        "kind": "EncryptionConfiguration",
        "resources": [{"resources": list(resources), "providers": list(providers)}],
    }


def keyed(kind: str, name: str, size: int = 32, seed: int = 1) -> dict:
    secret = base64.b64encode(bytes([seed]) * size).decode()
    return {kind: {"keys": [{"name": name, "secret": secret}]}}


def encryption(*providers: dict) -> Encryption:
    return parse(config(*providers), "test.yaml", "orch.io")


def secret(name: str = "db", value: str = VALUE) -> dict:
    encoded = base64.b64encode(value.encode()).decode()
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": "default"},
        "data": {"p": encoded},
    }


@pytest.fixture
def stores(database_url: str) -> Iterator[list[Storage]]:
    made: list[Storage] = []
    yield made
    for store in made:
        store.dispose()


def open_store(stores: list[Storage], url: str, *providers: dict) -> Storage:
    store = Storage(url, history_window=60, encryption=encryption(*providers) if providers else None)
    stores.append(store)
    return store


def raw_text(store: Storage) -> str:
    """Every value the tables hold, as stored."""
    with store.engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT data FROM objects")).scalars().all()
        logged = conn.execute(sa.text("SELECT data, prev FROM changes")).all()
    return "\n".join([*rows, *(d for row in logged for d in row if d)])


def assert_no_plaintext(text: str) -> None:
    assert VALUE not in text
    assert base64.b64encode(VALUE.encode()).decode() not in text


@pytest.mark.parametrize("provider", ["aescbc", "aesgcm", "secretbox"])
def test_each_provider_round_trips_and_leaves_no_plaintext_in_rows_or_log(
    database_url: str, stores: list[Storage], provider: str
) -> None:
    store = open_store(stores, database_url, keyed(provider, "k1"))
    created = store.create(SECRET_KEY, secret())
    updated = store.update(SECRET_KEY, secret(value=VALUE + "-2"), created)
    store.create(OTHER_KEY, {"kind": "ConfigMap", "metadata": {"name": "plain"}, "data": {"x": "visible"}})
    assert store.get(SECRET_KEY) == updated
    assert store.get_at(SECRET_KEY, created.rv) == created
    assert [s.key for s in store.list("/core/secrets/").items] == [SECRET_KEY]
    assert [s.data for s in store.list("/core/secrets/", revision=created.rv).items] == [created.data]
    history, _ = store.history(SECRET_KEY, exact=True)
    assert [(r.data, r.prev) for r in history] == [(created.data, None), (updated.data, created.data)]
    assert [c.data for c in store.changes_after(created.rv - 1)][:2] == [created.data, updated.data]
    store.delete(SECRET_KEY, updated)
    stored = raw_text(store)
    assert_no_plaintext(stored)
    assert f"k8s:enc:{provider}:v1:k1:" in stored
    assert "visible" in stored  # configmaps were not listed: stored as they are


def test_a_value_no_configured_key_reads_fails_that_read_only(database_url: str, stores: list[Storage]) -> None:
    writer = open_store(stores, database_url, keyed("aescbc", "k1", seed=1))
    written = writer.create(SECRET_KEY, secret())
    writer.create(OTHER_KEY, {"kind": "ConfigMap", "metadata": {"name": "plain"}})
    wrong = open_store(stores, database_url, keyed("aescbc", "k1", seed=2))
    absent = open_store(stores, database_url, keyed("secretbox", "k9"))
    for reader, why in ((wrong, "k8s:enc:aescbc:v1:k1:"), (absent, "no matching prefix found")):
        with pytest.raises(UnreadableValue, match=f'unable to transform key "{SECRET_KEY}": .*{why}'):
            reader.get(SECRET_KEY)
        with pytest.raises(UnreadableValue):
            reader.list("/core/secrets/")
        assert reader.get(OTHER_KEY) is not None
        # the watch stream leaves it out rather than stopping
        assert [c.key for c in reader.changes_after(written.rv - 1)] == [OTHER_KEY]


def test_plain_values_stay_readable_and_stale_until_rewritten(database_url: str, stores: list[Storage]) -> None:
    before = open_store(stores, database_url)
    plain = before.create(SECRET_KEY, secret())
    after = open_store(stores, database_url, keyed("secretbox", "k1"), {"identity": {}})
    read = after.get(SECRET_KEY)
    assert read is not None and read.data == plain.data and read.stale
    rewritten = after.update(SECRET_KEY, read.decode(), read)
    again = after.get(SECRET_KEY)
    assert again is not None and not again.stale and again.data == rewritten.data


def test_rotation_reads_old_key_as_stale_and_writes_with_the_first(database_url: str, stores: list[Storage]) -> None:
    old = open_store(stores, database_url, keyed("aesgcm", "k1", seed=1))
    first = old.create(SECRET_KEY, secret())
    both = open_store(stores, database_url, keyed("aesgcm", "k2", seed=2), keyed("aesgcm", "k1", seed=1))
    read = both.get(SECRET_KEY)
    assert read is not None and read.stale
    both.update(SECRET_KEY, read.decode(), read)
    assert "k8s:enc:aesgcm:v1:k2:" in raw_text(both)
    assert both.get_at(SECRET_KEY, first.rv) == first  # history under k1 still reads while k1 is configured


def test_the_default_configuration_is_a_valid_one(tmp_path: Path) -> None:
    path = tmp_path / "encryption-config.yaml"
    path.write_text(yaml.safe_dump(default_document("orch.io", "key-1", os.urandom(32))))
    encryption = load(str(path), "orch.io")
    assert encryption.encrypts(SECRET_KEY) and not encryption.encrypts(OTHER_KEY)


def test_resources_map_to_storage_key_prefixes() -> None:
    document = config(keyed("aescbc", "k1"), resources=("configmaps", "widgets.example.com", "*.apps"))
    encryption = parse(document, "test.yaml", "orch.io")
    assert [prefix for prefix, _ in encryption.rules] == ["/core/configmaps/", "/example.com/widgets/", "/apps/"]
    everything = parse(config(keyed("aescbc", "k1"), resources=("*.*",)), "test.yaml", "orch.io")
    assert everything.encrypts("/apps/deployments/default/web")


@pytest.mark.parametrize(
    ("document", "field", "problem"),
    [
        (config({"rot13": {}}), "resources[0].providers[0]", "expected providers"),
        (config(keyed("aescbc", "k1", size=8)), "aescbc.keys[0].secret", "got 8, expected one of [16 24 32]"),
        (config(keyed("secretbox", "k1", size=16)), "secretbox.keys[0].secret", "expected one of [32]"),
        (
            config({"aesgcm": {"keys": [{"name": "k1", "secret": "not*base64"}]}}),
            "aesgcm.keys[0].secret",
            "not a valid base64",
        ),
        (config(), "resources[0].providers", "at least one provider"),
        (config({"kms": {"name": "vault"}}), "resources[0].providers[0].kms", "not built"),
        ({**config({"identity": {}}), "apiVersion": "v2"}, "apiVersion", "Unsupported value"),
    ],
)
def test_bad_configuration_names_the_file_and_field(document: dict, field: str, problem: str) -> None:
    with pytest.raises(EncryptionConfigError) as raised:
        parse(document, "/etc/enc.yaml", "orch.io")
    message = str(raised.value)
    assert message.startswith("/etc/enc.yaml: ") and field in message and problem in message
    assert "REDACTED" in message or "secret" not in field  # a key is never echoed


def test_our_domain_s_api_version_is_accepted() -> None:
    document = {**config({"identity": {}}), "apiVersion": "apiserver.config.orch.io/v1"}
    assert parse(document, "test.yaml", "orch.io").rules


def test_stored_value_decodes_to_the_object(database_url: str, stores: list[Storage]) -> None:
    store = open_store(stores, database_url, keyed("secretbox", "k1"))
    created = store.create(SECRET_KEY, secret())
    assert orjson.loads(created.data)["data"]["p"] == base64.b64encode(VALUE.encode()).decode()


def raw_files(store: Storage) -> bytes:
    """The bytes a copy of the store holds: the SQLite files, or a pg_dump of the database."""
    url = store.engine.url
    if store.is_sqlite:
        base = str(url.database)
        return b"".join(Path(base + end).read_bytes() for end in ("", "-wal") if Path(base + end).exists())
    dump = shutil.which("pg_dump")
    if dump is None:
        pytest.fail("pg_dump is not installed (apt-get install postgresql-client)")
    dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
    return subprocess.run([dump, "--data-only", dsn], check=True, capture_output=True).stdout


def history_of(store: Storage, key: str) -> list[tuple[str, str | None]]:
    return [(r.data, r.prev) for r in store.history(key, exact=True)[0]]


def test_reencrypt_rewrites_rows_and_history_so_the_old_key_can_go(database_url: str, stores: list[Storage]) -> None:
    old = open_store(stores, database_url)  # before encryption was turned on: plain values
    created = old.create(SECRET_KEY, secret())
    updated = old.update(SECRET_KEY, secret(value=VALUE + "-2"), created)
    old.create("/core/secrets/default/gone", secret("gone"))
    old.delete("/core/secrets/default/gone", old.get("/core/secrets/default/gone"))  # type: ignore[arg-type]
    before = history_of(old, SECRET_KEY)
    assert base64.b64encode(VALUE.encode()) in raw_files(old)  # as a Secret holds it
    rotated = open_store(stores, database_url, keyed("aescbc", "k2"), {"identity": {}})
    census = reencrypt.reencrypt(rotated)
    assert census.rewritten["objects"] == 1 and census.rewritten["changes"] == 4 and not census.unreadable
    reencrypt.scrub(rotated)
    assert set(reencrypt.status(rotated).values) == {
        ("objects", "k8s:enc:aescbc:v1:k2:"),
        ("changes", "k8s:enc:aescbc:v1:k2:"),
    }
    only_new = open_store(stores, database_url, keyed("aescbc", "k2"))
    assert only_new.get(SECRET_KEY) == updated
    assert history_of(only_new, SECRET_KEY) == before
    copy = raw_files(only_new)
    assert VALUE.encode() not in copy
    assert base64.b64encode(VALUE.encode()) not in copy


def test_reencrypt_under_writers_loses_nothing(database_url: str, stores: list[Storage]) -> None:
    first = open_store(stores, database_url, keyed("secretbox", "k1", seed=1))
    keys = [f"/core/secrets/default/s{i}" for i in range(30)]
    for key in keys:
        first.create(key, secret(key.rsplit("/", 1)[1]))
    rotated = open_store(stores, database_url, keyed("secretbox", "k2", seed=2), keyed("secretbox", "k1", seed=1))
    done = threading.Event()
    written: dict[str, str] = {}

    def write() -> None:
        round_ = 0
        while not done.is_set():
            for key in keys[::3]:
                current = rotated.get(key)
                assert current is not None
                value = f"round-{round_}"
                rotated.update(key, secret(key.rsplit("/", 1)[1], value), current)
                written[key] = value
            round_ += 1

    writer = threading.Thread(target=write)
    writer.start()
    try:
        reencrypt.reencrypt(rotated)
    finally:
        done.set()
        writer.join()
    reencrypt.reencrypt(rotated)  # what the writer logged with its prev under k1 meanwhile is rewritten now
    only_new = open_store(stores, database_url, keyed("secretbox", "k2", seed=2))
    for key in keys:
        stored = only_new.get(key)
        assert stored is not None
        expected = written.get(key, VALUE)
        assert stored.decode()["data"]["p"] == base64.b64encode(expected.encode()).decode()
        history_of(only_new, key)  # every revision still reads


def test_a_sealed_value_carries_its_revision_whatever_the_data(database_url: str, stores: list[Storage]) -> None:
    store = open_store(stores, database_url, keyed("aesgcm", "k1"))
    tricky = secret()
    tricky["metadata"]["annotations"] = {"a": "#\n{}", "b": "0", "c": "orch-revision-"}
    created = store.create(SECRET_KEY, tricky)
    read = store.get(SECRET_KEY)
    assert read is not None and read.data == created.data
    assert read.decode()["metadata"]["annotations"] == tricky["metadata"]["annotations"]
    assert read.decode()["metadata"]["resourceVersion"] == str(created.rv)
    assert [c.data for c in store.changes_after(created.rv - 1)] == [created.data]
