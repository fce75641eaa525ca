"""A fresh test server's SQLite database starts as a copy of an empty database at the newest schema.

The template is made once per machine and set of migrations (their content names it) in the user's cache directory
(`$XDG_CACHE_HOME/orch-apiserver`, else `~/.cache/orch-apiserver`), so later test sessions neither import nor run
alembic. It holds tables only, never objects or keys.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

CACHE_SUBDIR = "orch-apiserver"


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / CACHE_SUBDIR


def migrations_digest(migrations: Path) -> str:
    """Names the schema the migrations make: any edit of a migration makes a new template."""
    digest = hashlib.sha256()
    for path in sorted([migrations / "env.py", *(migrations / "versions").glob("*.py")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def seed_sqlite(database_file: str) -> bool:
    """Put the empty, migrated database at database_file. False when that file exists (a data directory's own
    database keeps its data) or the cache cannot be used (read-only home): the caller migrates as usual."""
    if os.path.exists(database_file):
        return False
    try:
        shutil.copyfile(schema_template(), database_file)
    except OSError:
        return False
    return True


def schema_template() -> Path:
    """The empty database at the newest schema, made on first use (alembic, a few hundred milliseconds)."""
    from ..storage.schema import migrations_dir

    migrations = migrations_dir()
    template = cache_dir() / f"schema-{migrations_digest(migrations)}.sqlite"
    if template.exists():
        return template
    from ..storage.schema import upgrade

    template.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, scratch = tempfile.mkstemp(prefix=".schema-", suffix=".sqlite", dir=template.parent)
    os.close(fd)
    try:
        upgrade(f"sqlite:///{scratch}")
        os.replace(scratch, template)  # atomic: parallel sessions (xdist workers) see the whole file or none
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(scratch)
    return template
