"""Request deadlines: `--request-timeout` and the `timeout` query parameter, as the reference's request-deadline
and timeout filters apply them to every request that is not long-running (watch, log, exec, attach,
port-forward, proxy).

A request's clock starts when its head is complete; its body, read by the worker's loop, counts against it.
When the deadline passes before the first byte of the answer, the worker's loop answers the reference's 504
and frees the connection; the thread that still runs the handler finds its connection taken when it writes
(`GuardedSocket`), and its late answer is dropped.
"""

from __future__ import annotations

import errno
import threading
from collections.abc import Mapping
from typing import Any

from .durations import parse_duration

#: the reference's message (k8s.io/apiserver's WithTimeoutForNonLongRunningRequests)
TIMEOUT_MESSAGE = "Timeout: request did not complete within the allotted timeout"
_TIMEOUT_BODY = (
    b'{"metadata":{},"status":"Failure","message":"' + TIMEOUT_MESSAGE.encode() + b'",'
    b'"reason":"Timeout","details":{},"code":504}\n'
)
#: the reference's answer, byte for byte in its body: its timeout writer encodes the bare Status (no kind) after
#: WriteHeader(504), so Go sniffs the content type as text; the connection is closed after it
TIMEOUT_ANSWER = (
    b"HTTP/1.1 504 Gateway Timeout\r\nContent-Type: text/plain; charset=utf-8\r\n"
    + f"Content-Length: {len(_TIMEOUT_BODY)}\r\nConnection: close\r\n\r\n".encode()
    + _TIMEOUT_BODY
)
INVALID_TIMEOUT = "invalid timeout specified in the request URL"
#: one lock for every deadline of the process: held for a flag's flip only, and a lock per request would cost
#: memory for as long as the loop keeps the deadline
_ANSWER_LOCK = threading.Lock()


def request_timeout(args: Mapping[str, str], maximum: float) -> float:
    """Seconds a request may take: its `timeout` parameter when positive and below `maximum`, else `maximum`
    (as the reference); ValueError with the reference's message when the parameter is not a duration."""
    text = args.get("timeout")
    if not text:
        return maximum
    try:
        asked = parse_duration(text)
    except ValueError:
        raise ValueError(f'{INVALID_TIMEOUT} - time: invalid duration "{text}"') from None
    return asked if 0 < asked < maximum else maximum


class Deadline:
    """One request's deadline, and which side answers it: the thread (its first write) or the loop (the 504)."""

    __slots__ = ("at", "conn", "expired", "loop_may_write", "started")

    def __init__(self, at: float, conn: Any) -> None:
        self.at = at
        self.conn = conn  # the connection the request came on; None once the request is over
        self.started = False  # the thread has begun writing the answer
        self.expired = False  # the loop answered 504: whatever the thread writes is dropped
        self.loop_may_write = True  # False while a thread may read the socket (a body the loop did not buffer)

    @property
    def done(self) -> bool:
        return self.conn is None

    def finish(self) -> None:
        """The request is over (answered, refused, or its connection gone): the deadline no longer matters."""
        self.conn = None

    def claim_answer(self) -> bool:
        """The thread's side, before its first write: False when the loop has answered already."""
        if self.started:
            return True
        with _ANSWER_LOCK:
            if self.expired:
                return False
            self.started = True
            return True

    def expire(self) -> bool:
        """The loop's side, at the deadline: True when the loop is now to answer (no byte written yet)."""
        with _ANSWER_LOCK:
            if self.started or self.done or self.expired or not self.loop_may_write:
                return False
            self.expired = True
            return True


class GuardedSocket:
    """The socket a response writes to: a write after the loop answered 504 fails as on a closed connection."""

    def __init__(self, sock: Any, deadline: Deadline) -> None:
        self._sock = sock
        self._deadline = deadline

    def _claim(self) -> None:
        if not self._deadline.claim_answer():
            raise BrokenPipeError(errno.EPIPE, "the request's deadline passed: answered 504")

    def sendall(self, data: Any, *args: Any) -> Any:
        self._claim()
        return self._sock.sendall(data, *args)

    def send(self, data: Any, *args: Any) -> Any:
        self._claim()
        return self._sock.send(data, *args)

    def sendfile(self, *args: Any, **kwargs: Any) -> Any:
        self._claim()
        return self._sock.sendfile(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)
