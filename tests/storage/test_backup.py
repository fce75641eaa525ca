"""Backup and restore of the store (app/storage/backup.py) on both databases and across them, with writers running:
what was acknowledged before the backup is restored, revisions continue above everything handed out, and a bad
file or a store in use is refused before anything is written."""

from __future__ import annotations

import contextlib
import gzip
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson
import pytest
from orch_apiserver.storage import schema
from orch_apiserver.storage.backup import RESTORE_MARGIN, BackupError, backup, restore
from orch_apiserver.storage.store import RevisionCompacted, Storage

from tests.e2e import scratch_database

MakeStore = Callable[[str], str]


@pytest.fixture
def make_store(tmp_path: Path) -> Iterator[MakeStore]:
    """A fresh migrated store of the kind asked ("sqlite" or "postgresql"), dropped after the test."""
    with contextlib.ExitStack() as stack:

        def make(kind: str) -> str:
            if kind == "sqlite":
                path = tmp_path / f"store-{len(list(tmp_path.glob('store-*')))}" / "orch.db"
                path.parent.mkdir()
                url = f"sqlite:///{path}"
            else:
                url = stack.enter_context(scratch_database())
            schema.upgrade(url)
            return url

        yield make


class Writers:
    """Threads creating and updating objects until stopped; every acknowledged write is remembered."""

    def __init__(self, storage: Storage, threads: int = 2) -> None:
        self.storage = storage
        self.acked: dict[str, tuple[int, str]] = {}  # key -> (revision, text) of its last acknowledged write
        self.highest = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(n,)) for n in range(threads)]

    def _run(self, n: int) -> None:
        i = 0
        while not self._stop.is_set():
            key = f"/things/{n}/{i % 50}"
            current = self.storage.get(key)
            if current is None:
                stored = self.storage.create(key, {"n": n, "i": i})
            else:
                stored = self.storage.update(key, {"n": n, "i": i}, current)
            with self._lock:
                self.acked[key] = (stored.rv, stored.data)
                self.highest = max(self.highest, stored.rv)
            i += 1

    def __enter__(self) -> Writers:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()

    def snapshot(self) -> dict[str, tuple[int, str]]:
        with self._lock:
            return dict(self.acked)


def _until(condition: Callable[[], bool]) -> None:
    import time

    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, "writers made no progress in 30 s"
        time.sleep(0.01)


PAIRS = [("sqlite", "sqlite"), ("postgresql", "postgresql"), ("sqlite", "postgresql"), ("postgresql", "sqlite")]


@pytest.mark.parametrize(("source_kind", "target_kind"), PAIRS, ids=[f"{a}-to-{b}" for a, b in PAIRS])
def test_round_trip_while_writers_run(make_store: MakeStore, tmp_path: Path, source_kind: str, target_kind: str):
    source = Storage(make_store(source_kind))
    file = tmp_path / "backup.jsonl.gz"
    try:
        with Writers(source) as writers:
            _until(lambda: len(writers.snapshot()) >= 60)
            before = writers.snapshot()  # acknowledged before the backup started
            summary = backup(source.url, file)
            _until(lambda: writers.highest > summary.revision + 20)  # and more after it, which the backup lacks
        handed_out = writers.highest
    finally:
        source.dispose()
    assert summary.tables["objects"] >= len(before)

    target_url = make_store(target_kind)
    restored = restore(file, target_url)
    assert restored.revision == summary.revision + RESTORE_MARGIN
    target = Storage(target_url)
    try:
        for key, (rv, data) in before.items():
            found = target.get(key)
            assert found is not None, f"{key} acknowledged at {rv} before the backup is missing"
            assert found.rv >= rv  # that write, or a later one the backup also caught
            if found.rv == rv:
                assert found.data == data
        # every object of the backup's revision, and nothing written after it
        assert all(stored.rv <= summary.revision for stored in target.list("/things/").items)
        # revisions continue above every one handed out before, even those the backup lacks
        made = target.create("/things/after-restore", {"n": -1})
        assert made.rv > handed_out
        # reads and watches from before the restore are told to start over (410)
        with pytest.raises(RevisionCompacted):
            target.changes_after(summary.revision)
        with pytest.raises(RevisionCompacted):
            target.list("/things/", revision=handed_out)
        assert target.list("/things/").revision == made.rv
    finally:
        target.dispose()


@pytest.fixture
def backup_file(make_store: MakeStore, tmp_path: Path) -> Path:
    source = Storage(make_store("sqlite"))
    try:
        for i in range(20):
            source.create(f"/things/{i}", {"i": i})
    finally:
        source.dispose()
    file = tmp_path / "backup.jsonl.gz"
    backup(source.url, file)
    return file


@pytest.fixture(params=["sqlite", "postgresql"])
def occupied(request: pytest.FixtureRequest, make_store: MakeStore) -> Iterator[Storage]:
    """A store (each kind) holding one object at revision 2 and more, closed after the test."""
    store = Storage(make_store(request.param))
    store.create("/things/mine", {"mine": True})
    yield store
    store.dispose()


def _unchanged(store: Storage, revision: int) -> None:
    assert store.current_revision() == revision
    assert [s.key for s in store.list("/things/").items] == ["/things/mine"]
    store.dispose()  # its sessions closed again: no server on the store


def test_a_store_with_objects_needs_replace(backup_file: Path, occupied: Storage):
    revision = occupied.current_revision()
    occupied.dispose()  # no server on it
    with pytest.raises(BackupError, match="--replace"):
        restore(backup_file, occupied.url)
    _unchanged(occupied, revision)
    done = restore(backup_file, occupied.url, replace=True)
    assert done.revision == max(revision, 21) + RESTORE_MARGIN
    assert len(occupied.list("/things/").items) == 20


def test_restore_over_a_running_server_is_refused(backup_file: Path, occupied: Storage):
    revision = occupied.current_revision()
    occupied.ping()  # a server's session is open on PostgreSQL; its lock is held on SQLite
    with pytest.raises(BackupError, match="stop"):
        restore(backup_file, occupied.url, replace=True)
    _unchanged(occupied, revision)


def test_a_truncated_file_is_refused(backup_file: Path, occupied: Storage, tmp_path: Path):
    revision = occupied.current_revision()
    occupied.dispose()
    whole = gzip.decompress(backup_file.read_bytes())
    cut = tmp_path / "cut.jsonl.gz"
    for broken in (backup_file.read_bytes()[:-40], gzip.compress(whole[: len(whole) // 2])):
        cut.write_bytes(broken)
        with pytest.raises(BackupError, match="not restored"):
            restore(cut, occupied.url, replace=True)
        _unchanged(occupied, revision)


def test_a_changed_file_is_refused(backup_file: Path, occupied: Storage, tmp_path: Path):
    occupied.dispose()
    lines = gzip.decompress(backup_file.read_bytes()).splitlines(keepends=True)
    lines[3] = lines[3].replace(b"/things/", b"/thingz/")
    changed = tmp_path / "changed.jsonl.gz"
    changed.write_bytes(gzip.compress(b"".join(lines)))
    with pytest.raises(BackupError, match="damaged"):
        restore(changed, occupied.url, replace=True)
    _unchanged(occupied, 2)


def test_a_file_of_a_newer_schema_is_refused(backup_file: Path, occupied: Storage, tmp_path: Path):
    occupied.dispose()
    lines = gzip.decompress(backup_file.read_bytes()).splitlines(keepends=True)
    header = orjson.loads(lines[0])
    header["schema"] = "9999_from_the_future"
    lines[0] = orjson.dumps(header) + b"\n"
    newer = tmp_path / "newer.jsonl.gz"
    newer.write_bytes(gzip.compress(b"".join(lines)))
    with pytest.raises(BackupError, match="newer orch-apiserver"):
        restore(newer, occupied.url, replace=True)
    _unchanged(occupied, 2)


def test_the_restored_history_is_compacted_in_time(backup_file: Path, make_store: MakeStore):
    """Changes from before a restore lie below the new compaction floor; they still go once old enough."""
    url = make_store("sqlite")
    restore(backup_file, url)
    store = Storage(url, history_window=60)
    try:
        assert len(store.history("/things/", exact=False)[0]) == 20
        store.compact(now=store.clock() + 30)
        assert len(store.history("/things/", exact=False)[0]) == 20
        store.compact(now=store.clock() + 120)
        assert store.history("/things/", exact=False)[0] == []
    finally:
        store.dispose()


def test_kept_files_travel_with_the_backup(make_store: MakeStore, tmp_path: Path):
    source_dir, target_dir = tmp_path / "source", tmp_path / "target"
    (source_dir / "pki").mkdir(parents=True)
    (source_dir / "pki" / "sa.key").write_bytes(b"the signing key")
    url = make_store("sqlite")
    file = tmp_path / "backup.jsonl.gz"
    assert backup(url, file, source_dir).files == ("pki/sa.key",)
    (target_dir / "pki").mkdir(parents=True)
    (target_dir / "pki" / "sa.key").write_bytes(b"another key")
    target = make_store("sqlite")
    with pytest.raises(BackupError, match="differs"):
        restore(file, target, target_dir)
    restore(file, target, target_dir, replace=True)
    assert (target_dir / "pki" / "sa.key").read_bytes() == b"the signing key"


class _Terminal:
    """A stderr that says it is a terminal, keeping what is written."""

    def __init__(self, tty: bool) -> None:
        self.tty, self.text = tty, ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("tty", [True, False])
def test_progress_is_shown_on_a_terminal_only(
    make_store: MakeStore, tmp_path: Path, tty: bool, monkeypatch: pytest.MonkeyPatch
):
    from orch_apiserver.storage import backup as backup_module
    from orch_apiserver.storage.backup import Progress

    monkeypatch.setattr(backup_module, "BATCH", 10)  # a line per 10 records
    url = make_store("sqlite")
    store = Storage(url)
    try:
        for i in range(30):
            store.create(f"/things/{i}", {"i": i})
    finally:
        store.dispose()
    terminal = _Terminal(tty)
    backup(url, tmp_path / "backup.jsonl.gz", progress=Progress("backup", terminal))  # type: ignore[arg-type]
    if tty:
        assert "\rbackup: 10 records" in terminal.text and terminal.text.endswith("\n")
    else:
        assert terminal.text == ""
