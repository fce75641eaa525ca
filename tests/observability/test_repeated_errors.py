"""An error that repeats is logged once with its traceback, then counted, then reported in one line."""

from __future__ import annotations

import logging

import pytest
from orch_apiserver.logs import RepeatedErrors


def test_repeats_within_the_window_are_counted_then_reported_once(caplog: pytest.LogCaptureFixture):
    now = [0.0]
    errors = RepeatedErrors(logging.getLogger("test.repeated"), window=60, clock=lambda: now[0])
    caplog.set_level(logging.ERROR, "test.repeated")
    outage = ConnectionError("database gone")
    for second in range(30):
        now[0] = float(second)
        errors.log(logging.ERROR, "request failed", error=outage, context=f"GET /api/v1/pods/{second}")
    assert len(caplog.records) == 1
    assert caplog.records[0].exc_info is not None  # the first time: the whole story
    now[0] = 61.0
    errors.log(logging.ERROR, "request failed", error=outage, context="GET /api/v1/pods/x")
    assert len(caplog.records) == 2
    line = caplog.records[1].getMessage()
    assert line == (
        "request failed: ConnectionError: database gone (29 more times in the last 60s) [GET /api/v1/pods/x]"
    )
    assert caplog.records[1].exc_info is None
    errors.log(logging.ERROR, "request failed", error=ValueError("another"))  # a different error: logged
    assert len(caplog.records) == 3
