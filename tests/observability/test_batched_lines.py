"""Lines logged in batches (the request log): all of them, in order, with the time they were queued, from the
writer thread within its interval, and on demand (at exit)."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from orch_apiserver.logs import BatchedLines


def test_lines_from_many_threads_are_logged_in_their_order_with_the_time_they_were_queued(
    caplog: pytest.LogCaptureFixture,
) -> None:
    lines = BatchedLines(logging.getLogger("test.batched"), interval=0.05)
    caplog.set_level(logging.INFO, "test.batched")
    before = time.time()

    def produce(n: int) -> None:
        for i in range(200):
            lines.info(f"thread={n} line={i}")

    threads = [threading.Thread(target=produce, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    queued = time.time()
    deadline = time.monotonic() + 10
    while len(caplog.records) < 800 and time.monotonic() < deadline:  # the writer thread's interval
        time.sleep(0.01)
    assert len(caplog.records) == 800
    for n in range(4):
        mine = [r.getMessage() for r in caplog.records if r.getMessage().startswith(f"thread={n} ")]
        assert mine == [f"thread={n} line={i}" for i in range(200)]
    assert all(before <= r.created <= queued and r.levelno == logging.INFO for r in caplog.records)


def test_nothing_is_queued_when_the_logger_would_drop_it() -> None:
    lines = BatchedLines(logging.getLogger("test.batched.quiet"), interval=60)
    logging.getLogger("test.batched.quiet").setLevel(logging.WARNING)
    lines.info("dropped")
    assert not lines._lines


def test_lines_queued_just_before_the_process_exits_are_written() -> None:
    program = (
        "import logging, sys\n"
        "from orch_apiserver.logs import BatchedLines\n"
        "logging.basicConfig(stream=sys.stdout, level=logging.INFO, format='%(name)s %(message)s')\n"
        "lines = BatchedLines(logging.getLogger('exit'), interval=3600)\n"
        "for i in range(3):\n"
        "    lines.info(f'line {i}')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=Path(__file__).parents[2],
    )
    assert done.stdout.splitlines() == ["exit line 0", "exit line 1", "exit line 2"]


def test_without_an_interval_each_line_is_logged_before_the_call_returns(caplog: pytest.LogCaptureFixture) -> None:
    lines = BatchedLines(logging.getLogger("test.batched.now"), interval=0)
    caplog.set_level(logging.INFO, "test.batched.now")
    lines.info("at once")
    assert [r.getMessage() for r in caplog.records] == ["at once"]
