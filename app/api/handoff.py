"""How a streaming response takes its connection from the server, and who is told when the stream ends.

The worker (app/worker.py) offers each request `DETACH_KEY`: a callable that hands the response its socket
and returns a Handoff. What must happen when a streamed response ends (metrics gauges, the audit's
ResponseComplete) is registered with `at_stream_end`: it runs when the response closes, or, if the response
took its connection, when its stream ends (`take_stream_end` moves the callbacks to the new owner).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: environ key of the server's offer: a callable returning a Handoff (absent: the thread serves the stream)
DETACH_KEY = "orch.detach"
STREAM_END_KEY = "orch.stream_end"


@dataclass(frozen=True)
class Handoff:
    """What the server gives a response that takes over its connection."""

    sock: Any
    chunked: bool  # the body is chunked: the new owner ends it with the last chunk
    #: the stream is over; the connection may serve another request when the argument is True
    release: Callable[[bool], None]


def _run(callbacks: list[Callable[[], None]]) -> None:
    pending, callbacks[:] = list(callbacks), []
    for callback in pending:
        callback()


def at_stream_end(environ: dict[str, Any], response: Any, callback: Callable[[], None]) -> None:
    """Run `callback` once, when the streamed `response` is over (see the module's docstring)."""
    callbacks = environ.get(STREAM_END_KEY)
    if callbacks is None:
        callbacks = environ[STREAM_END_KEY] = []
        response.call_on_close(lambda: _run(callbacks))
    callbacks.append(callback)


def take_stream_end(environ: dict[str, Any]) -> Callable[[], None]:
    """The stream's end callbacks, now the caller's to run (the response's close no longer runs them)."""
    callbacks = environ.get(STREAM_END_KEY) or []
    taken = list(callbacks)
    callbacks.clear()
    return lambda: _run(taken)
