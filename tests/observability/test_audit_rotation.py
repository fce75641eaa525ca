"""The audit log file: whole lines from several processes, rotation by size, pruning of backups."""

from __future__ import annotations

import multiprocessing
import os
import re
from pathlib import Path

from orch_apiserver.audit.writer import MEGABYTE, AuditWriter

BACKUP = re.compile(r"^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\d*\.log$")


def _line(i: int, size: int = 1000) -> bytes:
    return (f"{i:08d}" + "x" * (size - 9)).encode() + b"\n"


def test_rotation_by_size_names_backups_as_lumberjack_and_keeps_maxbackup(tmp_path: Path):
    path = tmp_path / "audit.log"
    writer = AuditWriter(str(path), max_size_mb=1, max_backups=2)
    for i in range(3 * MEGABYTE // 1000 + 500):  # a bit more than three files' worth
        writer.write(_line(i))
    writer.close()
    backups = [n for n in os.listdir(tmp_path) if n != "audit.log" and not n.endswith(".lock")]
    assert len(backups) == 2, backups
    assert all(BACKUP.match(n) for n in backups), backups
    for name in [*backups, "audit.log"]:
        assert (tmp_path / name).stat().st_size <= MEGABYTE
    assert oct((tmp_path / "audit.log").stat().st_mode & 0o777) == "0o600"


def test_maxage_prunes_old_backups(tmp_path: Path):
    path = tmp_path / "audit.log"
    old = tmp_path / "audit-2000-01-01T00-00-00.000.log"
    old.write_text("old\n")
    os.utime(old, (946684800, 946684800))
    writer = AuditWriter(str(path), max_size_mb=1, max_age_days=1)
    for i in range(MEGABYTE // 1000 + 10):
        writer.write(_line(i))
    writer.close()
    assert not old.exists()
    assert len([n for n in os.listdir(tmp_path) if BACKUP.match(n)]) == 1


def _write_many(path: str, worker: int, count: int) -> None:
    writer = AuditWriter(path, max_size_mb=1)
    for i in range(count):
        writer.write(_line(worker * 100000 + i, 700))
    writer.close()


def test_two_processes_never_split_lines_and_lose_nothing_across_rotations(tmp_path: Path):
    path = str(tmp_path / "audit.log")
    count = 2500  # ~1.75 MB per process: both rotate the shared file
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_write_many, args=(path, w, count)) for w in (1, 2)]
    for p in workers:
        p.start()
    for p in workers:
        p.join(60)
        assert p.exitcode == 0
    lines: list[str] = []
    for name in os.listdir(tmp_path):
        if name.endswith(".log"):
            lines.extend((tmp_path / name).read_text().splitlines())
    assert len(lines) == 2 * count
    assert all(len(line) == 699 for line in lines)
    assert len({line[:8] for line in lines}) == 2 * count
    assert len([n for n in os.listdir(tmp_path) if BACKUP.match(n)]) >= 2


def test_dash_writes_to_stdout(capfd):
    writer = AuditWriter("-")
    writer.write(b'{"kind":"Event"}\n')
    assert capfd.readouterr().out == '{"kind":"Event"}\n'
