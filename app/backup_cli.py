"""`orch-apiserver backup OUT` and `orch-apiserver restore FILE [--replace]`: the store named by the server's own
flags (`--data-dir`, `--database-url`, or their ORCH_* variables) to a file and back (app/storage/backup.py)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.exc import SQLAlchemyError

from .storage.backup import RESTORE_MARGIN, BackupError, backup, restore

if TYPE_CHECKING:
    from .config import Settings

PROG = "orch-apiserver"


def _parser(command: str) -> argparse.ArgumentParser:
    if command == "backup":
        parser = argparse.ArgumentParser(
            prog=f"{PROG} backup",
            allow_abbrev=False,
            description="Write a consistent backup of the store (one revision: objects, change log, revision "
            "counter, compaction marks, and the data directory's service-account signing key) to OUT, a gzip "
            "file of JSON lines. Runs beside serving replicas. Other arguments: the server's --data-dir and "
            "--database-url.",
        )
        parser.add_argument("out", metavar="OUT", type=Path, help="the backup file to write")
        return parser
    parser = argparse.ArgumentParser(
        prog=f"{PROG} restore",
        allow_abbrev=False,
        description="Replace the store with a backup, in one transaction, with every replica stopped. The revision "
        f"counter continues {RESTORE_MARGIN:,} above the highest revision the backup or the replaced store had "
        "handed out, and reads or watches from an older resourceVersion answer 410 Gone (clients relist). Other "
        "arguments: the server's --data-dir and --database-url.",
    )
    parser.add_argument("file", metavar="FILE", type=Path, help="a file written by `orch-apiserver backup`")
    parser.add_argument("--replace", action="store_true", help="replace a store that holds objects")
    return parser


def main(command: str, argv: Sequence[str], parse_settings: Callable[[Sequence[str]], Settings]) -> int:
    """`parse_settings` is app/cli.py's: the store is named as for a start."""
    args, server_args = _parser(command).parse_known_args(argv)
    settings = parse_settings(server_args)
    url = settings.resolved_database_url
    data_dir = Path(settings.data_path)
    try:
        if command == "backup":
            done = backup(url, args.out, data_dir if data_dir.is_dir() else None)
            print(
                f"{PROG} backup: revision {done.revision} ({done.tables['objects']:,} objects, "
                f"{done.tables['changes']:,} changes{_files(done.files)}) in {args.out}"
            )
            return 0
        restore_into = data_dir if url.startswith("sqlite") or data_dir.is_dir() else None
        done = restore(args.file, url, restore_into, replace=args.replace)
    except BackupError as err:
        print(f"{PROG} {command}: {err}", file=sys.stderr)
        return 1
    except (SQLAlchemyError, OSError) as err:
        print(f"{PROG} {command}: {err.__class__.__name__}: {str(err).splitlines()[0]}", file=sys.stderr)
        return 1
    print(
        f"{PROG} restore: {done.tables['objects']:,} objects and {done.tables['changes']:,} changes from {args.file}"
        f"{_files(done.files)}; the revision counter is now {done.revision} (reads and watches from older "
        "resourceVersions answer 410 Gone)"
    )
    return 0


def _files(files: tuple[str, ...]) -> str:
    return f", files {', '.join(files)}" if files else ""
