"""`orch-apiserver secrets-encrypt status|reencrypt`: what encrypts the stored values, and rewriting them all with
the first key of the EncryptionConfiguration (docs/security.md), with the server's own flags (--data-dir,
--database-url, --encryption-provider-config). Safe while servers run."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .config import Settings
    from .storage.reencrypt import Census
    from .storage.store import Storage

PROG = "orch-apiserver secrets-encrypt"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        allow_abbrev=False,
        description="status: how many current values and change-log values each encryption key wrote. "
        "reencrypt: rewrite every value (history included) with the first key of its resource, then scrub the old "
        "bytes from the database files. Other arguments are the server's own flags (--data-dir, --database-url, "
        "--encryption-provider-config).",
    )
    parser.add_argument("command", choices=("status", "reencrypt"))
    parser.add_argument(
        "--full",
        action="store_true",
        help="PostgreSQL: VACUUM FULL after the rewrite (rewrites the table files; locks the tables while it runs)",
    )
    return parser


def _open_storage(settings: Settings) -> Storage:
    from .naming import Naming
    from .storage.encryption_config import load_if_present
    from .storage.store import Storage

    encryption = load_if_present(settings.encryption_config_file, Naming(settings.api_domain).domain)
    return Storage(settings.resolved_database_url, encryption=encryption)


def _report(census: Census, out: Callable[[str], None]) -> None:
    for (table, prefix), count in sorted(census.values.items()):
        out(f"{table:8} {count:8d}  {prefix}")


def main(argv: Sequence[str], parse_settings: Callable[[Sequence[str]], Settings]) -> int:
    from .storage import reencrypt

    options, server_args = build_parser().parse_known_args(argv)
    settings = parse_settings(server_args)
    storage = _open_storage(settings)
    out = print
    try:
        source = storage.encryption.source or "none (nothing is encrypted)"
        out(f"{PROG}: encryption configuration: {source}")
        if options.command == "status":
            out(f"{'table':8} {'values':>8}  written by")
            _report(reencrypt.status(storage), out)
            return 0
        on_terminal = sys.stderr.isatty()

        def progress(table: str, seen: int, rewritten: int) -> None:
            if on_terminal:
                print(f"\r{PROG}: {table}: {seen} read, {rewritten} rewritten", end="", file=sys.stderr, flush=True)

        census = reencrypt.reencrypt(storage, progress)
        if on_terminal:
            print(file=sys.stderr)
        out(
            f"{PROG}: rewrote {census.rewritten['objects']} current values and {census.rewritten['changes']} "
            "change-log rows"
        )
        out(f"{PROG}: {reencrypt.scrub(storage, full=options.full)}")
        for table, where in census.unreadable:
            print(f"{PROG}: {table}: {where}: no configured key reads it; left as it is", file=sys.stderr)
        return 1 if census.unreadable else 0
    finally:
        storage.dispose()


def at_start(settings: Settings, config_made: bool) -> list[str]:
    """What a start says about encryption at rest. A start that has just made the data dir's key encrypts the
    values stored before (and scrubs their plain bytes), unless the store holds values under keys it lacks: then
    another replica has keys this one should share, and nothing is rewritten."""
    from sqlalchemy.exc import SQLAlchemyError

    from .storage import reencrypt

    storage = _open_storage(settings)
    lines: list[str] = []
    try:
        foreign = reencrypt.unreadable_prefixes(storage)
        for prefix, count in sorted(foreign.items()):
            lines.append(
                f"warning: {count} stored values were written with {prefix}, a key not in "
                f"{settings.encryption_config_file}: they answer 500 until it is (replicas must share that file)"
            )
        if config_made and not foreign:
            census = reencrypt.reencrypt(storage)
            rewritten = census.rewritten["objects"] + census.rewritten["changes"]
            lines.append(f"Secrets are encrypted at rest with the key in {settings.encryption_config_file}")
            if rewritten:
                scrubbed = reencrypt.scrub(storage)
                lines.append(f"encrypted {rewritten} values stored before; {scrubbed}")
    except SQLAlchemyError as err:  # the start goes on and meets the database's state itself
        lines.append(f"warning: encryption at rest not checked: {err.__class__.__name__}: {err.args[0]}")
        if config_made:
            lines.append(f"warning: run `{PROG} reencrypt` with the server's flags to encrypt what was stored before")
    finally:
        storage.dispose()
    return lines
