"""Running orchctl as a real subprocess against a real server (tests.e2e harness)."""

from __future__ import annotations

import atexit
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.e2e import REPO_ROOT, RunningServer

RUN_TIMEOUT = 120.0  # seconds; a loaded machine is slow, a hung command is a failure
#: the discovery cache of every orchctl a test runs: never the user's ~/.orch/cache
CACHE_DIR = tempfile.mkdtemp(prefix="orchctl-cache-")
atexit.register(shutil.rmtree, CACHE_DIR, True)


def orchctl_env() -> dict[str, str]:
    """No ORCH_* settings from this process; the kubeconfig is always passed explicitly."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ORCH_", "ORCHCTL_"))}
    env["PYTHONUNBUFFERED"] = "1"
    env["ORCHCTL_CACHE_DIR"] = CACHE_DIR
    return env


def command(server: RunningServer | None, args: tuple[str, ...], kubeconfig: Path | str | None) -> list[str]:
    config = kubeconfig or (server.kubeconfig if server else None)
    return [sys.executable, "-m", "orch_apiserver.orchctl", *(["--kubeconfig", str(config)] if config else []), *args]


def orchctl(
    server: RunningServer | None, *args: str, stdin: str | None = None, kubeconfig: Path | str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(server, args, kubeconfig),
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO_ROOT,
        env=orchctl_env(),
        timeout=RUN_TIMEOUT,
    )


class Streaming:
    """A long-running orchctl (watch) whose output lines are read as they come."""

    def __init__(self, server: RunningServer, *args: str) -> None:
        self.process = subprocess.Popen(
            command(server, args, None),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO_ROOT,
            env=orchctl_env(),
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        assert self.process.stdout is not None
        self.reader = threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True)
        self.reader.start()

    def _read(self, stream) -> None:  # type: ignore[no-untyped-def]
        try:
            for line in stream:
                self.lines.put(line.rstrip("\n"))
        except (ValueError, OSError):
            pass  # stop() closed the stream under us

    def wait_for(self, predicate, timeout: float = RUN_TIMEOUT) -> str:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None and self.lines.empty():
                break
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                continue
            self.seen.append(line)
            if predicate(line):
                return line
        stderr = self.process.stderr.read() if self.process.poll() is not None and self.process.stderr else ""
        raise AssertionError(f"no matching line; got {self.seen!r}; stderr {stderr!r}")

    def stop(self) -> int:
        self.process.terminate()
        try:
            code = self.process.wait(timeout=30)
            self.reader.join(timeout=10)  # it reads to the end of the output before the streams close
            return code
        finally:
            for stream in (self.process.stdout, self.process.stderr):
                if stream:
                    stream.close()
