"""The gunicorn worker: one event loop owns the connections; threads only run complete requests.

gunicorn's gthread worker gives each new connection a thread for its TLS handshake and request head, and
each response a thread until its last byte, so slow or idle clients and every open watch hold threads. Here
the loop does the handshake and reads the request head on non-blocking sockets, under one deadline
(--read-header-timeout), then the body of a request within the body limit, under the request's deadline
(--request-timeout), and hands complete requests to the thread pool (gunicorn's parser still parses them). The
loop also answers 504 for a request not answered by its deadline (app/deadlines.py). While a body is still
arriving, a pool thread authenticates and authorizes the request from its head (app/head_check.py), and a
refused request is answered without its body.
A streaming response may take its connection (`orch.detach`): its socket goes to the watch fan-out writer
(app/api/fanout.py), the thread returns to the pool, and the writer gives the connection back to the loop
(kept alive) or has it closed when the stream ends. A thread that answered the only request in flight waits a
moment for the same client's next head itself (a client that sends requests in turn skips two hand-offs
through the loop per request). See docs/connections.md.
"""

from __future__ import annotations

import errno
import heapq
import itertools
import resource
import select
import selectors
import signal
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from functools import partial
from typing import Any, ClassVar

from gunicorn import sock as gunicorn_sock
from gunicorn.http import get_parser
from gunicorn.http.message import Request
from gunicorn.http.parser import RequestParser
from gunicorn.workers.gthread import PollableMethodQueue, TConn, ThreadWorker

from . import defaults
from .api.handoff import DETACH_KEY, Handoff
from .auth.x509 import PEER_CERT_KEY
from .deadlines import TIMEOUT_ANSWER, Deadline, GuardedSocket, request_timeout
from .durations import parse_duration
from .head_check import HeadCheck, answer_before_body
from .memory import parse_byte_size, tune_collector
from .request_body import CONTINUE, BodyReader, body_reader, buffer_needed

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

#: the longest request line (method, URI, version) read: the reference's 1 MiB header limit (Go's
#: MaxHeaderBytes), where gunicorn caps its own setting at 8190 bytes
REQUEST_LINE_LIMIT = 1 << 20
#: bytes of a head read before the parser takes over anyway (and answers 414 or 431 from what it has)
HEAD_READ_LIMIT = REQUEST_LINE_LIMIT + 256 * 1024
HEAD_ENDS = (b"\r\n\r\n", b"\n\n")
#: seconds between heartbeats to the master (far below the worker timeout)
HEARTBEAT_INTERVAL = 1.0
#: seconds a thread that answered the only request in flight waits for that client's next request head
LINGER = 0.005
#: seconds a connection the loop answered and closes is still read (and the input dropped) after its write
#: side is shut: a byte arriving after close() would reset it and could lose the answer (Go waits 500 ms)
CLOSE_LINGER = 1.0
#: one thread in this many may run head checks at once (at least one): checks are mostly CPU under the GIL, and
#: more of them at once slowed other requests without refusing a burst of 1,000 slow bodies sooner
HEAD_CHECK_SHARE = 16
#: deadlines kept before the heap is first rid of those of requests already answered
DEADLINES_COMPACTED = 4096
DETACHED = object()  # handle_request's result: the response took the connection
PLAIN_HTTP_ANSWER = b"HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"
#: the reference's answer when its in-flight limit is reached: plain text, not a Status
TOO_MANY_REQUESTS = (
    b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"X-Content-Type-Options: nosniff\r\nRetry-After: 1\r\nContent-Length: 43\r\n"
    b"Connection: close\r\n\r\nToo many requests, please try again later.\n"
)

_request_local = threading.local()


class BoundedRequest(Request):
    """gunicorn's request with the request line bounded by REQUEST_LINE_LIMIT (its setting is 0: unlimited)."""

    def read_line(self, unreader: Any, buf: Any, limit: int = 0) -> Any:
        return super().read_line(unreader, buf, limit or REQUEST_LINE_LIMIT)


def _peer_cert_der(sock: object) -> bytes | None:
    getpeercert = getattr(sock, "getpeercert", None)
    if getpeercert is None:
        return None
    try:
        return getpeercert(binary_form=True) or None
    except (ValueError, OSError):  # handshake not finished or connection gone: no identity
        return None


def with_connection(app: WSGIApp) -> WSGIApp:
    """Copy what the worker knows of this request's connection into the environ: the verified client leaf
    (DER) and the offer to take the connection over (only gunicorn's own Response can be detached)."""

    def connection_app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        der = getattr(_request_local, "peer_cert_der", None)
        if der:
            environ[PEER_CERT_KEY] = der
        else:
            environ.pop(PEER_CERT_KEY, None)
        offer = getattr(_request_local, "detach", None)
        response = getattr(start_response, "__self__", None)
        deadline = getattr(_request_local, "deadline", None)
        if deadline is not None and response is not None:  # a write after the loop answered 504 is dropped
            response.sock = GuardedSocket(response.sock, deadline)
        if offer is not None and response is not None:
            environ[DETACH_KEY] = partial(offer, response)
        else:
            environ.pop(DETACH_KEY, None)
        return app(environ, start_response)

    return connection_app


def request_line(head: bytes) -> tuple[str, str]:
    """Method and target of the request line that starts `head` (latin-1, as gunicorn decodes it)."""
    line = head.lstrip(b"\r\n").split(b"\n", 1)[0].rstrip(b"\r")
    method, _, rest = line.partition(b" ")
    return method.decode("latin-1"), rest.rsplit(b" ", 1)[0].decode("latin-1")


class ApiConn(TConn):
    """A connection whose request head the event loop reads (into `head`) before a thread parses it."""

    def __init__(self, cfg: Any, sock: Any, client: Any, server: Any) -> None:
        super().__init__(cfg, sock, client, server)
        self.head = bytearray()
        self.deadline = 0.0
        self.handshaking = False
        self.counted: str | None = None  # the in-flight limit this request counts against
        self.line: tuple[str, Any, Any] | None = None  # the request line's method, attributes and query
        self.body: BodyReader | None = None  # the body the loop is reading, once the head is complete
        self.request_deadline: Deadline | None = None  # the current request's (None: long-running)
        self.answer: bytes | None = None  # what the loop answers instead of handing the request on
        self.resume: Callable[[], None] | None = None  # what the loop does next, when a thread left it mid-way
        self.check: HeadCheck | None = None  # the head check of a request whose body is still arriving
        self.expects_continue = False  # the client waits for `100 Continue`: sent once its head check allows it
        self.reserved = 0  # bytes of the worker's body budget this request's body holds
        self.gone = False  # closed by the loop: closing it again would close a descriptor another connection has
        self.body_in_memory = True  # the request's body is all read (by the loop): what the app left unread is free

    def close(self, graceful: bool = False) -> None:
        self.gone = True  # gunicorn's own closes (expired keep-alives) count too
        super().close(graceful)

    def init(self) -> None:
        """Called by gunicorn before each request it parses: the head read so far goes first."""
        if self.parser is None:  # type: ignore[has-type]  # gunicorn is untyped
            self.parser = get_parser(self.cfg, self.sock, self.client)
        self.initialized = True
        if self.head:
            self.parser.unreader.unread(bytes(self.head))
            self.head = bytearray()


class GuardedMethodQueue(PollableMethodQueue):
    """gunicorn's queue of callbacks threads hand the loop, each run under the loop's guard (ApiWorker._guarded)."""

    def __init__(self, guard: Callable[..., None]) -> None:
        super().__init__()
        self.guard = guard

    def defer(self, callback: Callable[..., Any], *args: Any) -> None:
        super().defer(self.guard, partial(callback, *args))


class ApiWorker(ThreadWorker):
    """gthread worker whose loop does TLS handshakes and reads request heads, and lets streams detach."""

    read_header_timeout: float = parse_duration(defaults.READ_HEADER_TIMEOUT)  # worker_class() sets the flag's
    request_timeout: float = parse_duration(defaults.REQUEST_TIMEOUT)
    #: this worker's share of --max-requests-inflight / --max-mutating-requests-inflight (0: no limit)
    inflight_limits: ClassVar[dict[str, int]] = {"readOnly": 0, "mutating": 0}
    #: bytes the loop may buffer for the bodies it reads, all its connections together (0: no limit)
    body_buffer_limit: int = parse_byte_size(defaults.MAX_REQUEST_BODY_BUFFER)
    #: threads besides --threads, for requests waiting in priority and fairness queues (they hold their thread)
    waiting_threads: int = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.receiving: dict[ApiConn, None] = {}  # in deadline order (one timeout for all)
        self.reading_bodies: set[ApiConn] = set()  # heads complete, bodies read by the loop
        self.deadlines: list[tuple[float, int, Deadline]] = []  # a heap: requests' deadlines, ended ones too
        self._deadlines_kept = DEADLINES_COMPACTED  # heap size at which the ended ones are taken out
        self.deadlines_lock = threading.Lock()  # lingering threads start clocks too
        self._deadline_order = itertools.count()
        self.closing: dict[ApiConn, float] = {}  # answered by the loop, closing: when to close at the latest
        self.inflight = {"readOnly": 0, "mutating": 0}  # requests queued for or running on a thread
        self.inflight_lock = threading.Lock()
        self.lingering = 0  # threads waiting for their client's next request (LINGER)
        self.checks_waiting: deque[ApiConn] = deque()  # head checks waiting for a slot (stale entries skipped)
        self.checks_running = 0  # at most one thread in HEAD_CHECK_SHARE: the rest are left to requests
        self.buffered = 0  # bytes of bodies being read, as reserved when their heads ended
        self._last_heartbeat = -HEARTBEAT_INTERVAL
        self.method_queue = GuardedMethodQueue(self._guarded)

    def notify(self) -> None:
        """The heartbeat, at most once a second: gunicorn touches the file on every turn of the loop (a
        syscall several times a request), while the master only looks for one within the worker timeout."""
        now = time.monotonic()
        if now - self._last_heartbeat >= HEARTBEAT_INTERVAL:
            self._last_heartbeat = now
            super().notify()

    def get_thread_pool(self) -> Any:
        from concurrent.futures import ThreadPoolExecutor

        return ThreadPoolExecutor(max_workers=self.cfg.threads + self.waiting_threads)

    def init_process(self) -> None:
        # gunicorn builds every parser from this class attribute; there is no setting for the message class
        RequestParser.mesg_class = BoundedRequest
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < hard:  # every open watch is a descriptor: take what the system allows
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        super().init_process()

    def load_wsgi(self) -> None:
        from .shutdown import worker_booted

        super().load_wsgi()
        self.app_wsgi = self.wsgi  # type: ignore[has-type]
        self.wsgi = with_connection(self.wsgi)  # type: ignore[has-type]
        worker_booted(self.app_wsgi)  # post-start hooks run now, not with the first request
        tune_collector()  # after the boot: what it made lives on (app/memory.py)

    def init_signals(self) -> None:
        super().init_signals()
        # Ctrl-C reaches the workers too (one process group): end watches and drain, as on SIGTERM
        signal.signal(signal.SIGINT, self.handle_exit)

    def handle_exit(self, sig: int, frame: Any) -> None:
        from .shutdown import worker_exiting

        super().handle_exit(sig, frame)
        worker_exiting(getattr(self, "app_wsgi", None))  # end open watches cleanly, then drain

    def wait_for_and_dispatch_events(self, timeout: float) -> None:
        """gunicorn's dispatch, less the events that went stale within their batch: a callback earlier in the same
        batch may have unregistered, re-registered or closed a later event's connection (its descriptor number may
        even be a new connection's by then), and that event's callback must not run on it."""
        try:
            events = self.poller.select(timeout)
        except InterruptedError:
            return
        current = self.poller.get_map()
        for key, _ in events:
            if current.get(key.fd) is not key:
                continue
            self._guarded(key.data, key.fileobj)

    def _guarded(self, callback: Callable[..., Any], *args: Any) -> None:
        """Run a loop callback; one that fails on a connection closes that connection (logged once) instead of
        ending the worker and every connection it holds. A failure that is not a connection's is the worker's."""
        try:
            callback(*args)
        except Exception:
            conn = connection_of(callback)
            if conn is None:
                raise
            self.log.exception("closing the connection from %s: its state is inconsistent", (conn.client or ("",))[0])
            self._drop(conn)

    def _drop(self, conn: ApiConn) -> None:
        """Take a connection out of every list the loop keeps, and close it (the client went, broke the protocol, or
        left the connection in a state the loop cannot go on from)."""
        self.receiving.pop(conn, None)
        self.reading_bodies.discard(conn)
        for waiting in (self.keepalived_conns, self.pending_conns):
            if conn in waiting:
                waiting.remove(conn)
        self._release(conn)
        conn.check = None
        if conn.request_deadline is not None:
            conn.request_deadline.finish()
        self._close(conn)

    def _close(self, conn: ApiConn) -> None:
        """The one way the loop closes a connection: once, and never while the poller still watches it (the kernel
        hands the descriptor's number to the next accepted connection at once)."""
        self.closing.pop(conn, None)
        if conn.gone:
            return
        self._unpoll(conn)
        self.nr_conns -= 1
        conn.close()

    # -- the loop's side: accept, handshake, request head -------------------------------------------------

    def accept(self, listener: Any) -> None:
        try:
            client_sock, client_addr = listener.accept()
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        conn = ApiConn(self.cfg, client_sock, client_addr, listener.getsockname())
        if self.cfg.is_ssl:
            try:
                conn.sock = gunicorn_sock.ssl_context(self.cfg).wrap_socket(
                    client_sock,
                    server_side=True,
                    do_handshake_on_connect=False,
                    suppress_ragged_eofs=self.cfg.suppress_ragged_eofs,
                )
            except (OSError, ValueError):  # gone before we could wrap it
                self._drop(conn)
                return
            conn.handshaking = True
        self._guarded(self._receive, conn)

    def on_client_socket_readable(self, conn: Any, client: Any) -> None:
        """A kept-alive connection has a new request: its head is read here too."""
        self.poller.unregister(client)
        self.keepalived_conns.remove(conn)
        self._receive(conn)

    def _receive(self, conn: ApiConn) -> None:
        conn.deadline = time.monotonic() + self.read_header_timeout
        conn.line = None
        conn.check = None
        self.receiving[conn] = None
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._on_receiving, conn))
        self._on_receiving(conn, conn.sock)  # the first bytes are often there already

    def _on_receiving(self, conn: ApiConn, _sock: Any) -> None:
        try:
            if conn.handshaking:
                conn.sock.do_handshake()
                conn.handshaking = False
            if conn.body is None:
                complete = self._read_head(conn)
                if complete and self._head_complete(conn):
                    complete = self._read_body(conn)
            else:
                complete = self._read_body(conn)
        except ssl.SSLWantReadError:
            self.poller.modify(conn.sock, selectors.EVENT_READ, partial(self._on_receiving, conn))
            self._check_while_body_arrives(conn)
            return
        except ssl.SSLWantWriteError:
            self.poller.modify(conn.sock, selectors.EVENT_WRITE, partial(self._on_receiving, conn))
            return
        except BlockingIOError:
            self._check_while_body_arrives(conn)
            return
        except ssl.SSLError as err:
            if conn.handshaking:
                self._handshake_failed(conn, err)
            self._drop(conn)
            return
        except OSError:
            self._drop(conn)
            return
        if not complete:
            self._drop(conn)  # closed by the client before a request
            return
        self.poller.unregister(conn.sock)
        check = conn.check
        if check is not None and check.running and not check.decided:  # its verdict is due: it may refuse
            check.body_in = True
            return
        self._request_in(conn)

    def _request_in(self, conn: ApiConn) -> None:
        """On the loop: the request is complete, or answered by the loop; hand it to a thread."""
        self.receiving.pop(conn, None)
        self.reading_bodies.discard(conn)
        self._release(conn)
        conn.body = None
        conn.check = None  # one still waiting for a slot is not needed: the request's own thread decides
        if conn.answer is not None:
            answer, conn.answer = conn.answer, None
            self._refuse(conn, answer)
            return
        if not self._admit(conn):
            return
        conn.data_ready = True
        self.enqueue_req(conn)

    def _head_complete(self, conn: ApiConn) -> bool:
        """On the loop, the head just ended: start the request's clock; True when its body is to be read here."""
        conn.answer = self._start_clock(conn)
        if conn.answer is not None:
            return False
        reader, expects_continue = self._body_to_read(conn)
        if reader is None:
            return False
        if not self._reserve(conn, reader):
            conn.answer = self._over_budget(conn)
            return False
        conn.expects_continue = expects_continue
        conn.body = reader
        self.receiving.pop(conn, None)  # from now on the request's deadline applies, not the head's
        self.reading_bodies.add(conn)
        return True

    def _receive_body(self, conn: ApiConn, reader: BodyReader, expects_continue: bool) -> None:
        """On the loop: read the rest of a body whose head a lingering thread read."""
        if not self._reserve(conn, reader):
            self._refuse(conn, self._over_budget(conn))
            return
        conn.expects_continue = expects_continue
        conn.body = reader
        self.reading_bodies.add(conn)
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._on_receiving, conn))
        self._on_receiving(conn, conn.sock)

    @staticmethod
    def _body_to_read(conn: ApiConn) -> tuple[BodyReader | None, bool]:
        """The body still to come of the request in `conn.head`, when the loop is to read it (within the body
        limit, well framed), and whether the client waits for `100 Continue` before sending it."""
        reader, expects_continue = body_reader(conn.head)
        state = reader.complete(conn.head) if reader is not None else True
        conn.body_in_memory = state is not None
        if state is None and conn.request_deadline is not None:
            conn.request_deadline.loop_may_write = False  # the thread reads the body from the socket itself
        if state is not False:
            return None, False
        return reader, expects_continue

    @staticmethod
    def _continue(conn: ApiConn) -> None:
        try:
            conn.sock.send(CONTINUE)  # a few bytes into an empty send buffer
        except (OSError, ssl.SSLError):
            pass

    def _reserve(self, conn: ApiConn, reader: BodyReader) -> bool:
        """Take the room a body may fill in the worker's budget; False when it is spent."""
        needed = buffer_needed(reader)
        if self.body_buffer_limit and self.buffered + needed > self.body_buffer_limit:
            return False
        self.buffered += needed
        conn.reserved = needed
        return True

    def _release(self, conn: ApiConn) -> None:
        self.buffered -= conn.reserved
        conn.reserved = 0

    def _over_budget(self, conn: ApiConn) -> bytes:
        """The in-flight limit's 429 (and its count) for a body the worker has no room left to buffer."""
        from . import observability

        method, attrs, args = self._line(conn)
        observability.count_request_termination(getattr(self, "app_wsgi", None), method, attrs, args, 429)
        return TOO_MANY_REQUESTS

    # -- head checks: the loop's side -------------------------------------------------------------------

    def _check_while_body_arrives(self, conn: ApiConn) -> None:
        """The body is not all there yet: have the request's head authenticated and authorized meanwhile (a client
        waiting for `100 Continue` is told to go on only then: a refused one never sends its body, as in Go)."""
        if conn.body is None or conn.check is not None:
            return
        conn.check = HeadCheck(bytes(conn.head[: conn.body.start]), _peer_cert_der(conn.sock), conn.expects_continue)
        self.checks_waiting.append(conn)
        self._start_checks()

    def _start_checks(self) -> None:
        slots = max(1, self.cfg.threads // HEAD_CHECK_SHARE)
        while self.checks_waiting and self.checks_running < slots:
            conn = self.checks_waiting.popleft()
            check = conn.check
            if check is None or check.running:
                continue  # its request moved on (complete, answered or gone) before its turn
            check.running = True
            self.checks_running += 1
            app = getattr(self, "app_wsgi", None)
            future = self.tpool.submit(answer_before_body, app, self.cfg, check, conn.client, conn.server)
            future.add_done_callback(lambda done, c=conn, k=check: self.method_queue.defer(self._checked, c, k, done))

    def _checked(self, conn: ApiConn, check: HeadCheck, future: Future) -> None:
        """On the loop: a head check's verdict. Refused: answered now, the body unread; allowed: the request goes
        on (to a thread at once when its body came in meanwhile)."""
        self.checks_running -= 1
        if future.cancelled() or future.exception() is not None:
            if future.exception() is not None:
                self.log.error("head check failed", exc_info=future.exception())
            answer = None
        else:
            answer = future.result()
        if conn.check is check:  # else the request is over: its deadline passed, or the client went
            check.decided = True
            if answer is not None:
                self._unpoll(conn)
                self.reading_bodies.discard(conn)
                self._release(conn)
                conn.body = None
                conn.check = None
                self._refuse(conn, answer)
            elif check.body_in:
                self._request_in(conn)
            elif check.expects_continue:
                self._continue(conn)
        self._start_checks()

    def _unpoll(self, conn: ApiConn) -> None:
        try:
            self.poller.unregister(conn.sock)
        except (KeyError, ValueError, OSError):
            pass

    @staticmethod
    def _read_body(conn: ApiConn) -> bool:
        """Read until the body is complete (True) or the client closes (False); raises when it must wait. A
        body the loop stops reading (framing it leaves to gunicorn, or over the limit) is complete for it."""
        reader = conn.body
        assert reader is not None
        while (state := reader.complete(conn.head)) is False:
            data = conn.sock.recv(65536)
            if not data:
                return False
            conn.head += data
        conn.body_in_memory = state is not None
        if state is None and conn.request_deadline is not None:
            conn.request_deadline.loop_may_write = False  # the thread reads the rest from the socket itself
        return True

    def _line(self, conn: ApiConn) -> tuple[str, Any, Any]:
        """The method, attributes and query of the request line in `conn.head` (read once per request)."""
        from . import observability

        if conn.line is None:
            method, target = request_line(bytes(conn.head[:8192]))
            attrs, args = observability.line_attributes(method, target)
            conn.line = method, attrs, args
        return conn.line

    def _start_clock(self, conn: ApiConn) -> bytes | None:
        """Give a request that is not long-running its deadline, which the loop watches; the loop's answer
        instead when its `timeout` parameter is not a duration (the reference's 400)."""
        from . import observability
        from .api.wire import error_response

        conn.request_deadline = None
        _method, attrs, args = self._line(conn)
        if observability.is_long_running(attrs):
            return None
        try:
            seconds = request_timeout(args, self.request_timeout)
        except ValueError as err:
            return error_response(400, str(err))
        deadline = conn.request_deadline = Deadline(time.monotonic() + seconds, conn)
        with self.deadlines_lock:
            heapq.heappush(self.deadlines, (deadline.at, next(self._deadline_order), deadline))
        return None

    def _expire_deadlines(self) -> None:
        """On the loop: answer 504 for each request past its deadline that nobody has begun to answer."""
        now = time.monotonic()
        due = []
        with self.deadlines_lock:
            while self.deadlines and self.deadlines[0][0] <= now:
                due.append(heapq.heappop(self.deadlines)[2])
            if len(self.deadlines) >= self._deadlines_kept:  # mostly answered requests': keep the others
                self.deadlines = [entry for entry in self.deadlines if not entry[2].done]
                heapq.heapify(self.deadlines)
                self._deadlines_kept = max(DEADLINES_COMPACTED, 2 * len(self.deadlines))
        for deadline in due:
            conn = deadline.conn
            if conn is None or conn.request_deadline is not deadline:
                continue  # answered: the connection has moved on
            if conn in self.reading_bodies:  # the body is late: the connection is still the loop's
                deadline.expired = True
                self._unpoll(conn)  # registered unless the body is in and its head check's verdict is due
                self.reading_bodies.discard(conn)
                self._release(conn)
                conn.body = None
                conn.check = None
                self._answer_timeout(conn)
                deadline.finish()
                self._close_after_answer(conn)
            elif deadline.expire():  # a thread has it, and has not written: its answer will be dropped
                self._answer_timeout(conn)
                try:  # on the descriptor below TLS: the thread's SSL object stays as it is
                    socket.socket.shutdown(conn.sock, socket.SHUT_WR)
                except OSError:
                    pass

    def _answer_timeout(self, conn: ApiConn) -> None:
        from . import observability

        method, attrs, args = self._line(conn)
        observability.count_request_termination(getattr(self, "app_wsgi", None), method, attrs, args, 504)
        try:
            conn.sock.send(TIMEOUT_ANSWER)  # nothing was written yet: the send buffer takes it whole
        except (OSError, ssl.SSLError):
            pass

    def _admit(self, conn: ApiConn) -> bool:
        """Count the request against its in-flight limit, or refuse it (on the loop)."""
        refusal = self._count(conn)
        if refusal is None:
            return True
        self._turn_away(conn, refusal)
        return False

    def _count(self, conn: ApiConn) -> tuple[str, Any, Any] | None:
        """Count the request against its in-flight limit (long-running ones are not counted); when the limit is
        reached, what the refusal is counted as (method, attributes, query)."""
        from . import observability

        method, attrs, args = self._line(conn)
        if observability.is_long_running(attrs):
            return None
        kind = observability.request_kind(method)
        limit = self.inflight_limits.get(kind, 0)
        with self.inflight_lock:
            if limit and self.inflight[kind] >= limit:
                return method, attrs, args
            self.inflight[kind] += 1
        conn.counted = kind
        return None

    def _turn_away(self, conn: ApiConn, refusal: tuple[str, Any, Any]) -> None:
        from . import observability

        method, attrs, args = refusal
        observability.count_request_termination(getattr(self, "app_wsgi", None), method, attrs, args, 429)
        self._refuse(conn)

    def _refuse(self, conn: ApiConn, answer: bytes = TOO_MANY_REQUESTS) -> None:
        """The in-flight limit is reached: 429 at once instead of a place in an unbounded queue (or another
        answer the loop gives before any thread sees the request)."""
        if conn.request_deadline is not None:
            conn.request_deadline.finish()  # answered here
        try:
            conn.sock.send(answer)  # a fresh socket's send buffer takes it whole
        except (OSError, ssl.SSLError):
            pass
        self._close_after_answer(conn)

    def _close_after_answer(self, conn: ApiConn) -> None:
        """Close a connection the loop has answered (and no longer polls) the way Go's server does: the write
        side first, then whatever the client still sends is read and dropped for up to CLOSE_LINGER."""
        try:  # on the descriptor below TLS: the client reads the answer, then the end of the stream
            conn.sock.setblocking(False)
            socket.socket.shutdown(conn.sock, socket.SHUT_WR)
            self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._on_closing, conn))
        except OSError:  # gone already
            self._close(conn)
            return
        self.closing[conn] = time.monotonic() + CLOSE_LINGER

    def _on_closing(self, conn: ApiConn, _sock: Any) -> None:
        try:
            while socket.socket.recv(conn.sock, 65536):  # the raw bytes (TLS records too), dropped
                pass
        except BlockingIOError:
            return
        except OSError:
            pass
        self._close(conn)

    def _uncount(self, conn: Any) -> None:
        kind = getattr(conn, "counted", None)
        if kind is not None:
            conn.counted = None
            with self.inflight_lock:
                self.inflight[kind] -= 1

    @staticmethod
    def _read_head(conn: ApiConn) -> bool:
        """Read until the head ends (True) or the client closes (False); raises when it must wait."""
        while True:
            data = conn.sock.recv(65536)
            if not data:
                return False
            start = max(0, len(conn.head) - 3)
            conn.head += data
            if len(conn.head) > HEAD_READ_LIMIT or any(conn.head.find(end, start) >= 0 for end in HEAD_ENDS):
                return True

    def _tls_handshake_error(self, addr: Any, err: ssl.SSLError) -> None:
        """As the reference: counted, logged, the connection closed."""
        from .observability import count_tls_handshake_error

        count_tls_handshake_error(getattr(self, "app_wsgi", None))
        self.log.info("TLS handshake error from %s: %s", (addr or ("",))[0], err)

    def _handshake_failed(self, conn: ApiConn, err: ssl.SSLError) -> None:
        self._tls_handshake_error(conn.client, err)
        try:  # on the descriptor below the TLS layer
            if err.reason == "HTTP_REQUEST":  # plain HTTP on the TLS port: Go's answer, in plain text
                socket.socket.send(conn.sock, PLAIN_HTTP_ANSWER)
            while socket.socket.recv(conn.sock, 65536):  # unread input would make close() a reset
                pass
        except OSError:
            pass

    def murder_pending(self) -> None:
        """Besides gunicorn's pending connections: heads not complete by their deadline, and when stopping,
        connections that have not sent a byte of a request."""
        super().murder_pending()
        self._expire_deadlines()
        now = time.monotonic()
        for conn in [conn for conn, close_at in self.closing.items() if close_at <= now]:
            self._close(conn)
        expired = []
        for conn in self.receiving:  # in deadline order: while serving, stop at the first one still in time
            if conn.deadline <= now or (not self.alive and not conn.head):
                expired.append(conn)
            elif self.alive:
                break
        for conn in expired:
            self._drop(conn)

    # -- the threads' side: requests, and responses that take their connection -------------------------

    def handle(self, conn: Any) -> Any:
        """gunicorn's handling of one request; then, while it was the only request in flight here, this thread
        waits up to LINGER for the client's next request and serves it too."""
        if conn.request_deadline is not None and conn.request_deadline.expired:
            conn.request_deadline.finish()
            return False  # its deadline passed while it waited for a thread: answered 504 already
        result = self._handle_one(conn)
        while result is True and self._linger_begins():
            conn.line = None
            try:
                head = self._next_head(conn)
            finally:
                with self.inflight_lock:
                    self.lingering -= 1
            if head is not True:
                if head is None:  # the client closed, or its connection broke
                    return False
                if conn.head:  # part of a head: the loop reads on, under the head deadline
                    conn.resume = partial(self._receive, conn)
                return result
            answer = self._start_clock(conn)
            if answer is not None:  # the loop answers it
                conn.resume = partial(self._refuse, conn, answer)
                return result
            reader, expects_continue = self._body_to_read(conn)
            if reader is not None:  # part of a body: the loop reads on, under the request's deadline
                conn.resume = partial(self._receive_body, conn, reader, expects_continue)
                return result
            refusal = self._count(conn)
            if refusal is not None:  # over the in-flight limit: the loop answers 429
                conn.resume = partial(self._turn_away, conn, refusal)
                return result
            result = self._handle_one(conn)
        return result

    def _handle_one(self, conn: ApiConn) -> Any:
        """gunicorn's handling of one request; its deadline no longer matters once the thread is done with it
        (answered, or the request could not be parsed)."""
        try:
            return super().handle(conn)
        finally:
            if conn.request_deadline is not None:
                conn.request_deadline.finish()

    def _linger_begins(self) -> bool:
        """Whether this thread may wait for its client: serving, nothing else in flight, threads to spare."""
        with self.inflight_lock:
            if not self.alive or any(self.inflight.values()) or self.lingering >= max(1, self.cfg.threads // 4):
                return False
            self.lingering += 1
            return True

    def _next_head(self, conn: ApiConn) -> bool | None:
        """Read the connection's next request head for up to LINGER: True when it is complete, None when the
        client closed, False when the time is up (with or without a part of it in `conn.head`)."""
        if conn.parser is not None and conn.parser.unreader.buf.getvalue():
            return False  # a request the client sent ahead: gunicorn's own path serves it
        sock = conn.sock
        deadline = time.monotonic() + LINGER
        try:
            sock.setblocking(False)  # left so: gunicorn's handle() and the loop set what they need
            waiter = select.poll()
            waiter.register(sock.fileno(), select.POLLIN)
            while True:
                try:
                    return self._read_head(conn) or None
                except (ssl.SSLWantReadError, BlockingIOError):
                    pass
                left = deadline - time.monotonic()
                if left <= 0 or not waiter.poll(left * 1000):
                    return False
        except OSError:  # ssl.SSLError included: gone, or not speaking TLS any more
            return None

    def handle_request(self, req: Any, conn: Any) -> Any:
        # The request runs on this thread (until it detaches), so a thread-local is enough.
        _request_local.peer_cert_der = _peer_cert_der(conn.sock)
        _request_local.detach = partial(self._detach, conn)
        _request_local.detached = False
        _request_local.deadline = getattr(conn, "request_deadline", None)
        try:
            keepalive = super().handle_request(req, conn)
            return DETACHED if _request_local.detached else keepalive
        finally:
            _request_local.peer_cert_der = None
            _request_local.detach = None
            _request_local.deadline = None
            self._uncount(conn)  # answered: no longer in flight (before the loop hears of it)

    def _detach(self, conn: ApiConn, response: Any, raw: bool = False) -> Handoff:
        """Called by the app on this request's thread: from now on the connection is the stream's. `raw`: the new
        owner writes the whole answer, head included (a protocol switch relayed from another server), and the
        connection closes after it."""
        if raw:
            response.headers_sent = True  # gunicorn writes nothing more on it
            response.chunked = False
            _request_local.detached = True
            return Handoff(conn.sock, False, lambda _clean: self.method_queue.defer(self._reclaim, conn, False))
        response.send_headers()
        chunked = bool(response.chunked)
        reusable = chunked and not response.should_close()
        response.chunked = False  # gunicorn must not end the body: the new owner writes the last chunk
        _request_local.detached = True

        def release(clean: bool) -> None:
            self.method_queue.defer(self._reclaim, conn, clean and reusable)

        return Handoff(conn.sock, chunked, release)

    def _keepalive_after(self, conn: Any, keepalive: Any) -> Any:
        if keepalive is DETACHED:  # the body is not ours to drain: the stream owns the socket
            return DETACHED
        if keepalive and conn.body_in_memory:  # gunicorn drops 64 KiB at most, then closes what it answered keep-alive
            return bool(conn.parser.finish_body())
        return super()._keepalive_after(conn, keepalive)

    def finish_request(self, conn: Any, fs: Any) -> None:
        self._uncount(conn)
        result = fs.result() if fs.done() and not fs.cancelled() and fs.exception() is None else None
        if result is DETACHED:
            return  # counted in nr_conns until the stream gives it back (_reclaim)
        deadline = getattr(conn, "request_deadline", None)
        if deadline is not None and deadline.expired:  # answered 504 before: no graceful drain (it blocks the loop)
            conn.request_deadline = None
            self._close(conn)
            return
        resume, conn.resume = getattr(conn, "resume", None), None
        if result is True and resume is not None:
            resume()  # the thread left a request head to the loop
            return
        if not result:  # gunicorn's graceful close would wait for the client on the loop, up to 2 s
            self._close_after_answer(conn)
            return
        super().finish_request(conn, fs)

    def _reclaim(self, conn: ApiConn, reusable: bool) -> None:
        """On the loop: a detached stream is over; keep the connection alive or close it."""
        if reusable and self.alive:
            done: Future = Future()
            done.set_result(True)
            super().finish_request(conn, done)
        else:
            self._close(conn)

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        """A request gunicorn could not parse (or an app crash it caught) answered with a Status body."""
        from .api.wire import error_response

        if isinstance(exc, ssl.SSLError):
            self._tls_handshake_error(addr, exc)
            return
        code, message = below_app_error(exc)
        if code >= 500:
            self.log.exception("Error handling request")
        else:
            self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], message)
        try:
            client.sendall(error_response(code, message))
        except OSError:
            self.log.debug("Failed to send error message.")


def connection_of(callback: Callable[..., Any]) -> ApiConn | None:
    """The connection a loop callback is for (the loop's and the method queue's are partials naming it first)."""
    while isinstance(callback, partial):
        if callback.args and isinstance(callback.args[0], ApiConn):
            return callback.args[0]
        callback = callback.func
    return None


def worker_class(
    read_header_timeout: float,
    workers: int,
    max_readonly: int,
    max_mutating: int,
    request_timeout: float = parse_duration(defaults.REQUEST_TIMEOUT),
    body_buffer: int = parse_byte_size(defaults.MAX_REQUEST_BODY_BUFFER),
    waiting_threads: int = 0,
) -> type[ApiWorker]:
    """The worker class gunicorn runs, with this server's settings; each worker takes its share of the
    server's in-flight limits and of the bytes its loops may buffer for request bodies (rounded up), and has
    `waiting_threads` threads besides --threads for requests waiting in priority and fairness queues."""

    def share(limit: int) -> int:
        return -(-limit // workers) if limit > 0 else 0

    limits = {"readOnly": share(max_readonly), "mutating": share(max_mutating)}
    return type(
        "ApiWorker",
        (ApiWorker,),
        {
            "read_header_timeout": read_header_timeout,
            "request_timeout": request_timeout,
            "inflight_limits": limits,
            "body_buffer_limit": share(body_buffer),
            "waiting_threads": waiting_threads,
            "__module__": __name__,
        },
    )


def below_app_error(exc: BaseException) -> tuple[int, str]:
    """The code and message of an error found while parsing a request (gunicorn's own classification)."""
    from gunicorn.http import errors

    if type(exc).__name__.startswith("InvalidResponseHeader"):  # a header the app wrote: the server's fault
        return 500, "Internal Server Error"
    if isinstance(exc, errors.LimitRequestLine):
        return 414, f"request URI too long: {exc}"
    if isinstance(exc, errors.LimitRequestHeaders):
        return 431, f"request header fields too large: {exc}"
    if isinstance(exc, errors.UnsupportedTransferCoding):
        return 501, str(exc)
    if isinstance(exc, errors.ExpectationFailed):
        return 417, str(exc)
    if isinstance(exc, errors.ForbiddenProxyRequest):
        return 403, "request forbidden"
    if isinstance(exc, errors.ParseException):
        return 400, f"malformed HTTP request: {exc}"
    return 500, "Internal Server Error"
