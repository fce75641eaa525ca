"""The server as a process on the command line: Ctrl-C with open watches, and a port already in use."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from . import REPO_ROOT, server_env, start_server


def test_ctrl_c_with_open_watches_ends_them_and_exits_like_sigterm(tmp_path: Path):
    server = start_server(tmp_path, ["--workers", "2"])
    watches = [server.new_session().get("/api/v1/namespaces?watch=true", stream=True, timeout=60) for _ in range(3)]
    lines = [w.iter_lines() for w in watches]
    for stream in lines:
        assert b'"type":"ADDED"' in next(stream)
    os.killpg(server.process.pid, signal.SIGINT)  # what the terminal does: the master and its workers
    for stream in lines:
        rest = list(stream)  # a clean end of the chunked body; a reset would raise
        assert all(b'"type":"ERROR"' not in line for line in rest)
    assert server.process.wait(timeout=30) == 0
    log = server.log()
    # the quick stop it replaced ended in "Worker ... was sent SIGKILL!" after the graceful timeout
    assert "SIGKILL" not in log and "Traceback" not in log, log[-3000:]


def test_a_port_in_use_is_reported_before_claiming_to_serve(tmp_path: Path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "orch_apiserver.cli", "--data-dir", str(tmp_path), "--secure-port", str(port)],
            cwd=REPO_ROOT,
            env=server_env(),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in done.stderr, done.stderr
    assert "serving" not in done.stdout
