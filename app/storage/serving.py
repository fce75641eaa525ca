"""How a restore knows that no server is using the store: SQLite servers hold a shared lock on a file beside the
database while their store is open; PostgreSQL servers name their sessions (`application_name`)."""

from __future__ import annotations

import fcntl
import os

#: the `application_name` of the server's PostgreSQL sessions (unless the URL names another)
APPLICATION_NAME = "orch-apiserver"


class StoreInUse(Exception):
    pass


def lock_path(database: str) -> str:
    return f"{database}-serving.lock"


def hold_shared(database: str | None) -> int:
    """Open and share-lock the serving lock of the SQLite file `database` (blocks while a restore holds it);
    the descriptor, -1 for an in-memory database. Closing it releases the lock."""
    if not database or database == ":memory:":
        return -1
    fd = os.open(lock_path(database), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_SH)
    return fd


def take_exclusive(database: str) -> int:
    """Lock the SQLite file `database` against servers (StoreInUse while one runs); close the descriptor to
    release it."""
    fd = os.open(lock_path(database), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StoreInUse(f"a server is running on {database}: stop it (every replica) before restoring") from None
    return fd


#: other sessions of servers on the current database (the restoring session excluded)
PG_SERVER_SESSIONS = (
    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
    "AND application_name = :name"
)
