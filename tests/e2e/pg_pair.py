"""A PostgreSQL primary and a streaming standby started by a test (initdb + pg_basebackup, no containers), on free
ports in temporary directories, removed afterwards: a real failover to kill and promote."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from . import child_pids, free_port, poll, unavailable

BIN_DIRS = ("/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin")
STANDBY_NAME = "standby"
#: the recipe of docs/operations.md, used as written
RECIPE = Path(__file__).resolve().parents[2] / "config" / "postgresql"


def _bin_dir() -> Path:
    for directory in (os.environ.get("ORCH_TEST_PG_BIN"), *BIN_DIRS):
        if directory and (Path(directory) / "initdb").exists():
            return Path(directory)
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    unavailable("PostgreSQL's server binaries (initdb, pg_ctl, pg_basebackup) are not installed: set ORCH_TEST_PG_BIN")


def _as_owner(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: as root, run it as the `postgres` user."""
    if os.geteuid() != 0:
        return command
    if shutil.which("runuser") is None:
        unavailable("running as root without `runuser`: PostgreSQL cannot be started as root")
    return ["runuser", "-u", "postgres", "--", *command]


@dataclass
class Node:
    name: str
    port: int
    data: Path
    log: Path

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def postmaster_pid(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None


class PgPair:
    """Primary and standby (synchronous unless `synchronous=False`)."""

    def __init__(self, root: Path, synchronous: bool = True) -> None:
        self.bin = _bin_dir()
        self.root = root
        self.synchronous = synchronous
        self.primary = Node("primary", free_port(), root / "primary", root / "primary.log")
        self.standby = Node("standby", free_port(), root / "standby", root / "standby.log")

    def _run(self, *command: str) -> None:
        done = subprocess.run(_as_owner([str(self.bin / command[0]), *command[1:]]), capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")

    def _pg_ctl_start(self, node: Node) -> None:
        options = f"-p {node.port} -k {self.root} -c listen_addresses=127.0.0.1"
        self._run("pg_ctl", "start", "-w", "-t", "60", "-D", str(node.data), "-l", str(node.log), "-o", options)

    def start(self) -> None:
        self._run("initdb", "-D", str(self.primary.data), "-U", "postgres", "-A", "trust", "--no-sync")
        settings = RECIPE.joinpath("primary.conf").read_text().splitlines()
        if not self.synchronous:
            settings = [line for line in settings if not line.startswith("synchronous_standby_names")]
        with open(self.primary.data / "postgresql.conf", "a") as conf:
            conf.write("\n".join(settings) + "\n")
        with open(self.primary.data / "pg_hba.conf", "a") as hba:
            hba.write("host replication all 127.0.0.1/32 trust\n")
        self._pg_ctl_start(self.primary)
        self._run(
            "pg_basebackup", "-h", "127.0.0.1", "-p", str(self.primary.port), "-U", "postgres",
            "-D", str(self.standby.data), "-R", "-X", "stream", "--no-sync",
        )  # fmt: skip
        with open(self.standby.data / "postgresql.auto.conf", "a") as conf:
            conf.write(
                f"primary_conninfo = 'host=127.0.0.1 port={self.primary.port} user=postgres "
                f"application_name={STANDBY_NAME}'\n"
            )
        self._pg_ctl_start(self.standby)
        poll(self._replicating, timeout=60, interval=0.1)

    def _replicating(self) -> bool:
        import psycopg

        with psycopg.connect(f"host=127.0.0.1 port={self.primary.port} user=postgres", autocommit=True) as conn:
            query = "SELECT sync_state FROM pg_stat_replication WHERE application_name = %s"
            state = conn.execute(query, (STANDBY_NAME,)).fetchone()
        return state is not None and state[0] == ("sync" if self.synchronous else "async")

    def kill_primary(self) -> None:
        """kill -9 of the primary's postmaster and every backend it forked: the machine died."""
        pid = self.primary.postmaster_pid()
        assert pid is not None, "the primary is not running"
        backends = child_pids(pid)
        os.kill(pid, signal.SIGKILL)
        for backend in backends:
            with contextlib.suppress(ProcessLookupError):
                os.kill(backend, signal.SIGKILL)

    def stop_standby(self) -> None:
        """The standby stops receiving: with asynchronous replication the primary goes on acknowledging without it."""
        self._run("pg_ctl", "stop", "-m", "fast", "-w", "-t", "60", "-D", str(self.standby.data))

    def start_standby(self) -> None:
        self._pg_ctl_start(self.standby)

    def promote(self) -> None:
        """The recipe's config/postgresql/promote.sh, as written: promote the standby, then stop waiting for a
        synchronous standby (the new primary inherited `synchronous_standby_names`)."""
        env = {
            "PATH": f"{self.bin}:{os.environ.get('PATH', '')}",
            "PGDATA": str(self.standby.data),
            "PGHOST": "127.0.0.1",
            "PGPORT": str(self.standby.port),
            "PGUSER": "postgres",
        }
        command = _as_owner(["env", *(f"{k}={v}" for k, v in env.items()), str(RECIPE / "promote.sh")])
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"promote.sh failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")

    def stop(self) -> None:
        for node in (self.standby, self.primary):
            if node.postmaster_pid() is not None and (node.data / "postmaster.pid").exists():
                with contextlib.suppress(RuntimeError):
                    self._run("pg_ctl", "stop", "-m", "immediate", "-w", "-t", "20", "-D", str(node.data))


@contextlib.contextmanager
def pg_pair(synchronous: bool = True) -> Iterator[PgPair]:
    """A started primary and standby, stopped and removed on exit."""
    root = Path(tempfile.mkdtemp(prefix="orch-pg-pair-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    pair = PgPair(root, synchronous)
    try:
        pair.start()
        yield pair
    finally:
        pair.stop()
        shutil.rmtree(root, ignore_errors=True)
