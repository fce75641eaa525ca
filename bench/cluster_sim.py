"""A simulated cluster against the real server: N hollow nodes, a pod controller, and the SLO report.

    python bench/cluster_sim.py --backend postgresql --nodes 300 --pods 3000 --churn 10 --duration 120
    python bench/cluster_sim.py --backend postgresql --nodes 1000 --pods 10000 --restart-at 60
    python bench/cluster_sim.py --server https://10.0.0.1:6443 --kubeconfig admin.kubeconfig --nodes 100

Each hollow node holds its own connections, as a node agent and a network proxy do (HTTP/1.1 over TLS, one
connection per watch, one keep-alive connection for its other calls):
  - registers its Node and its Lease (orch-node-lease; kube-node-lease on k8s.io), renews the Lease every 10 s
    (PUT), patches nodes/status every 60 s;
  - lists then watches its pods (fieldSelector spec.nodeName=<node>) and marks each bound pod Running through
    pods/status; a pod given a deletionTimestamp is deleted with grace 0 (as the agent confirms it stopped);
  - lists then watches Services and EndpointSlices cluster-wide (the proxy's label selectors).
Watches resume from their last resourceVersion (bookmarks requested) and re-list on 410 or a lost connection.
A controller creates pods already bound to a node (spec.nodeName set at create, as the scheduler leaves them)
at --fill-rate until --pods exist, then churns at --churn pods/s (deletes the oldest Running pod, creates one),
and updates an EndpointSlice --slice-updates times a second. An observer watch (its own connection) sees every
pod: pod startup = create answered -> Running observed there. Probes: GET of one pod every second, a namespace
LIST every 10 s, a cluster LIST every 30 s.

The report covers the steady phase (after the fill): per (verb, resource) p50/p99 against the SLOs (mutating
calls and single-object GET p99 <= 1 s, namespace LIST <= 5 s, cluster LIST <= 30 s), pod startup p99 <= 5 s,
watch delivery p99 <= 5 s (event read by the node's watch - create answered), events lost (a node's watch never
saw a pod bound to it, the observer never saw one Running) and events of other nodes' pods (must be 0), the
generator's own CPU (a saturated generator is not a slow server), the server's and PostgreSQL's CPU and the
machine's load. --restart-at T restarts the server T s into the steady phase with every node connected, and
reports 5xx answers, failed connections, when every watch was back and how long until the SLOs held again
(the end of the last second after the restart with a call over its SLO, a startup over 5 s or a watch down).
All runs in one asyncio loop: one process hosts 1,000+ nodes.

With a server of its own (not --server) and --identities (the default), each node authenticates as
system:node:<name> in system:nodes with its own client certificate (issued through a CSR at setup; the Node
authorizer and NodeRestriction decide its requests) and the pod controller as system:orch-controller-manager
(kube- on k8s.io; a bearer token; the reference's system:node-proxier and cluster-admin roles bound at setup), so
priority and fairness classifies them as the reference's agents (node-high, workload-high); --no-identities runs
everyone as the admin (system:masters: exempt). Every call is made as client-go's REST client makes it: a 429 or
5xx with Retry-After is sent again after that many seconds (up to 10 times), so a node whose Lease PUT is turned
away by priority and fairness renews it a second later, not by a GET and a PUT at its next renewal. Calls are timed
whole, retries included (the SLO figures: what the agent waits), and each request sent is timed too (the server's
view, as its request latency metric); answers other than 2xx are reported per request and per call.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import collections
import contextlib
import gc
import itertools
import json
import os
import random
import resource
import signal
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from orch_apiserver.naming import Naming

from bench.common import MachineLoad, PostgresCpu, percentile, rss_kib, server_usage, worker_pids
from tests.e2e import RunningServer, server_env, start_server, stop_process, wait_ready

LEASE_PERIOD = 10.0
NODE_STATUS_PERIOD = 60.0
WATCH_TIMEOUT = 300  # seconds (x 1-2) a watch request asks for before the node re-watches from its resourceVersion
MUTATING_SLO, GET_SLO, NS_LIST_SLO, CLUSTER_LIST_SLO = 1.0, 1.0, 5.0, 30.0
STARTUP_SLO, DELIVERY_SLO = 5.0, 5.0
IMAGE = "registry.example/pause:3.9"
CONTROLLER_TOKEN = "sim-controller"
#: what the reference's network proxies and controller manager are granted (name, role, subject); node agents
#: need no binding: the Node authorizer grants them the system:node rules, and NodeRestriction limits their writes
IDENTITY_BINDINGS = (
    ("sim:node-proxiers", "system:node-proxier", "Group", "system:nodes"),
    ("sim:controller", "cluster-admin", "User", None),  # None: the pod controller's user (controller_user)
)
#: times client-go's REST client sends a request again after a 429 or 5xx with Retry-After (its maxRetries)
CLIENT_RETRIES = 10
#: seconds an answer (a watch's response head) may take before the connection is given up: a connection accepted
#: by a stopping server's backlog is otherwise never answered
ANSWER_TIMEOUT = 30.0
IDLE_STREAM = 150.0  # seconds without a byte (bookmarks come every minute) before a watch is re-made
#: a connection that failed, closed or timed out (TimeoutError is an OSError), or an answer cut short
BROKEN = (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError, IndexError)


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def cpu_self() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# -- a small HTTP/1.1 client on asyncio streams -----------------------------------------------------------------


class ServerGone(Exception):
    """The connection failed or closed mid-request (a restart, an overload): the caller retries later."""


def controller_user(naming: Naming) -> str:
    """The pod controller's user: the reference's controller manager (system:kube-controller-manager on k8s.io)."""
    return f"system:{naming.namespace_prefix}-controller-manager"


@dataclass
class Target:
    host: str
    port: int
    ssl: ssl.SSLContext
    token: str | None = None

    def head(self, method: str, path: str, extra: str = "") -> bytes:
        auth = f"Authorization: Bearer {self.token}\r\n" if self.token else ""
        return (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nAccept: application/json\r\n"
            f"User-Agent: orch-cluster-sim\r\n{auth}{extra}"
        ).encode()


async def read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    raw = await reader.readuntil(b"\r\n\r\n")
    lines = raw.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return status, headers


async def read_chunk(reader: asyncio.StreamReader) -> bytes:
    """One chunk of a chunked body (b"" at its end)."""
    size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
    data = await reader.readexactly(size + 2)
    return data[:-2]


class Connection:
    """One keep-alive connection; requests on it wait for each other, as on a real HTTP/1.1 connection."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.lock = asyncio.Lock()

    async def request(
        self, method: str, path: str, body: Any = None, content_type: str = "application/json", decode: bool = True
    ) -> tuple[int, Any, int | None]:
        """(status, decoded JSON body or None, Retry-After seconds or None); raises ServerGone when the connection
        failed. `decode=False` leaves the body unread by the generator (a large list decoded here would stop every
        hollow node's loop meanwhile: a client's own cost, not the server's)."""
        payload = b"" if body is None else orjson.dumps(body)
        extra = "\r\n"
        if body is not None:
            extra = f"Content-Type: {content_type}\r\nContent-Length: {len(payload)}\r\n\r\n"
        async with self.lock:
            try:
                status, headers, data = await asyncio.wait_for(
                    self._exchange(self.target.head(method, path, extra) + payload), ANSWER_TIMEOUT
                )
                if headers.get("connection", "").lower() == "close":
                    self.close()
            except BROKEN as err:
                self.close()
                raise ServerGone(repr(err)) from err
        retry_after = headers.get("retry-after", "")
        wait = int(retry_after) if retry_after.isdigit() else None
        try:
            return status, orjson.loads(data) if data and decode else None, wait
        except orjson.JSONDecodeError:
            return status, None, wait

    async def _exchange(self, request: bytes) -> tuple[int, dict[str, str], bytes]:
        if self.reader is None or self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(
                self.target.host, self.target.port, ssl=self.target.ssl
            )
        reader = self.reader  # close() may drop the attributes meanwhile (the run ending)
        self.writer.write(request)
        status, headers = await read_head(reader)
        if headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while part := await read_chunk(reader):
                parts.append(part)
            await reader.readuntil(b"\r\n")
            return status, headers, b"".join(parts)
        return status, headers, await reader.readexactly(int(headers.get("content-length", "0")))

    def close(self) -> None:
        if self.writer is not None:
            with contextlib.suppress(Exception):
                self.writer.close()
        self.reader = self.writer = None


# -- what the run records ------------------------------------------------------------------------------------


@dataclass
class Record:
    t0: float = field(default_factory=time.monotonic)
    #: (verb, resource) -> [(time answered, seconds)] of every call, its retries after 429s included (the client's
    #: view); `attempts`: of every request sent (the server's)
    calls: dict[tuple[str, str], list[tuple[float, float]]] = field(
        default_factory=lambda: collections.defaultdict(list)
    )
    attempts: dict[tuple[str, str], list[tuple[float, float]]] = field(
        default_factory=lambda: collections.defaultdict(list)
    )
    #: (verb, resource) -> calls that failed after their retries, by the last answer's code
    failed_calls: dict[tuple[str, str], collections.Counter] = field(
        default_factory=lambda: collections.defaultdict(collections.Counter)
    )
    statuses: collections.Counter = field(default_factory=collections.Counter)
    #: (verb, resource) -> answers other than 2xx by code, over the whole run (429: priority and fairness)
    refusals: dict[tuple[str, str], collections.Counter] = field(
        default_factory=lambda: collections.defaultdict(collections.Counter)
    )
    server_errors: list[float] = field(default_factory=list)  # times of 5xx answers
    failed_connections: list[float] = field(default_factory=list)
    created: dict[str, tuple[str, float]] = field(default_factory=dict)  # pod -> (node, time create answered)
    deleted: set[str] = field(default_factory=set)
    seen_by_node: set[str] = field(default_factory=set)
    running_seen: dict[str, float] = field(default_factory=dict)  # pod -> when the observer saw it Running
    running_by_node: set[str] = field(default_factory=set)  # pods their node's watch showed Running
    startups: list[tuple[float, float]] = field(default_factory=list)  # (time, seconds)
    deliveries: list[tuple[float, float]] = field(default_factory=list)  # (time, seconds)
    foreign: int = 0  # events a node's watch gave it about another node's pod
    watches_down: dict[str, float] = field(default_factory=dict)  # watch -> since when it is not established
    watch_downtime: list[tuple[str, float, float]] = field(default_factory=list)  # (watch, down since, back at)
    relists: collections.Counter = field(default_factory=collections.Counter)
    proxy_events: int = 0
    #: (time, seconds) the generator's loop woke late: a call it times is that much longer than the server took
    loop_lag: list[tuple[float, float]] = field(default_factory=list)
    #: (time, resident MiB of each worker process, by pid) of a server this run started, every few seconds
    worker_rss: list[tuple[float, list[float]]] = field(default_factory=list)

    def call(self, verb: str, resource_name: str, started: float, status: int) -> None:
        """A call's outcome, retries included."""
        ended = time.monotonic()
        self.calls[(verb, resource_name)].append((ended, ended - started))
        if not 200 <= status < 300:
            self.failed_calls[(verb, resource_name)][status] += 1

    def attempt(self, verb: str, resource_name: str, sent: float, status: int) -> None:
        """One request of a call, as the server answered it."""
        ended = time.monotonic()
        self.attempts[(verb, resource_name)].append((ended, ended - sent))
        self.statuses[status] += 1
        if not 200 <= status < 300:
            self.refusals[(verb, resource_name)][status] += 1
        if status >= 500:
            self.server_errors.append(ended)


class Sim:
    def __init__(
        self,
        target: Target,
        args: argparse.Namespace,
        token_ssl: ssl.SSLContext | None = None,
        node_ssl: list[ssl.SSLContext] | None = None,
    ) -> None:
        self.target, self.args = target, args
        #: with identities: each node's TLS context, holding its own client certificate (issued through a CSR)
        self.node_ssl = node_ssl
        # with identities (a server this run started): nodes as system:node:<name> in system:nodes, the pod controller
        # as system:orch-controller-manager (bearer tokens), so priority and fairness classifies them as the
        # reference's agents are; else everyone is the admin (system:masters: exempt from it)
        self.token_ssl = token_ssl
        self.record = Record()
        self.stopping = asyncio.Event()
        self.node_names = [f"hollow-{i:05d}" for i in range(args.nodes)]
        self.namespaces = [f"sim-{k}" for k in range(args.namespaces)]
        self.services = [f"svc-{k}" for k in range(args.services)]
        # the server's domain: API groups (coordination.orch.io) and keys (orch.io/...; kubernetes.io on k8s.io)
        naming = Naming(args.api_domain)
        self.group, self.key = naming.group, naming.key
        self.hollow_label = naming.key_group("node") + "/hollow"  # a node agent may set node.<domain>/ labels
        self.controller_user = controller_user(naming)  # system:kube-controller-manager on k8s.io
        self.lease_namespace = naming.node_lease_namespace  # kube-node-lease on k8s.io
        service_keys = naming.key_group("service")  # service.kubernetes.io on k8s.io
        self.proxy_selector = f"!{service_keys}/headless,!{service_keys}/service-proxy-name"
        self.tasks: set[asyncio.Future] = set()  # calls in flight, kept referenced until done
        self.all_watching = asyncio.Event()  # every watch is established (set by the watches)
        self.joined = 0  # nodes whose Node and Lease exist

    def identity(self, token: str) -> Target:
        if self.token_ssl is None:
            return self.target
        return Target(self.target.host, self.target.port, self.token_ssl, token)

    def node_identity(self, index: int) -> Target:
        if self.node_ssl is None:
            return self.target
        return Target(self.target.host, self.target.port, self.node_ssl[index])

    def watch_down(self, name: str) -> None:
        """The watch is not established (not yet, or no more) since now, unless it was down already."""
        self.record.watches_down.setdefault(name, time.monotonic())
        self.all_watching.clear()

    def spawn(self, work: Awaitable[Any]) -> asyncio.Future:
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def call(
        self, conn: Connection, verb: str, resource_name: str, method: str, path: str, body: Any = None, **kw: Any
    ) -> tuple[int, Any]:
        """One call as client-go's REST client makes it: a 429 (or 5xx) with Retry-After is sent again after that
        many seconds, up to CLIENT_RETRIES times. The call is timed whole (the client's view); every attempt is
        recorded too (the server's view: what its request latency metric shows)."""
        started = time.monotonic()
        for attempt in range(CLIENT_RETRIES + 1):
            sent = time.monotonic()
            try:
                status, data, retry_after = await conn.request(method, path, body, **kw)
            except ServerGone:
                self.record.failed_connections.append(time.monotonic())
                return 0, None
            self.record.attempt(verb, resource_name, sent, status)
            if retry_after is None or not (status == 429 or status >= 500) or attempt == CLIENT_RETRIES:
                break
            await self._pause(retry_after)
            if self.stopping.is_set():
                break
        self.record.call(verb, resource_name, started, status)
        return status, data

    # -- watches ---------------------------------------------------------------------------------------------

    async def informer(
        self,
        name: str,
        list_path: str,
        handle: Callable[[str, dict, float], Awaitable[None] | None],
        conn: Connection,
    ) -> None:
        """List, then watch from the list's resourceVersion on a connection of its own; resume from the last
        resourceVersion seen after the stream ends or breaks, re-list on 410."""
        rv: str | None = None
        backoff = 0.5
        self.watch_down(name)
        sep = "&" if "?" in list_path else "?"
        while not self.stopping.is_set():
            if rv is None:
                status, body = await self.call(conn, "LIST", "informer", "GET", list_path)
                if status != 200 or not isinstance(body, dict):
                    await self._pause(backoff)
                    backoff = min(backoff * 2, 8.0)
                    continue
                self.record.relists[name.split(":")[0]] += 1
                for item in body.get("items") or []:
                    result = handle("SYNC", item, time.monotonic())
                    if result is not None:
                        await result
                rv = body["metadata"]["resourceVersion"]
            timeout = int(WATCH_TIMEOUT * (1 + random.random()))  # as client-go: not every watch ends at once
            path = f"{list_path}{sep}watch=1&allowWatchBookmarks=true&timeoutSeconds={timeout}"
            path += f"&resourceVersion={rv}"
            try:
                rv, expired = await self._watch(conn.target, name, path, rv, handle)
                backoff = 0.5
            except BROKEN:
                self.record.failed_connections.append(time.monotonic())
                self.watch_down(name)
                await self._pause(backoff * (0.5 + random.random()))
                backoff = min(backoff * 2, 8.0)
                continue
            if expired:
                rv = None

    async def _pause(self, seconds: float) -> None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), seconds)

    async def _watch(self, target: Target, name: str, path: str, rv: str, handle) -> tuple[str, bool]:
        """One watch request: (the last resourceVersion seen, whether it was too old: 410)."""
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(target.host, target.port, ssl=target.ssl), ANSWER_TIMEOUT
        )
        try:
            writer.write(target.head("GET", path) + b"\r\n")
            status, _headers = await asyncio.wait_for(read_head(reader), ANSWER_TIMEOUT)
            if status != 200:
                self.record.statuses[status] += 1
                if status >= 500:
                    self.record.server_errors.append(time.monotonic())
                return rv, status == 410
            down = self.record.watches_down.pop(name, None)
            if down is not None:
                self.record.watch_downtime.append((name, down, time.monotonic()))
                if not self.record.watches_down:
                    self.all_watching.set()
            pending = b""
            stop = asyncio.ensure_future(self.stopping.wait())
            try:
                while True:
                    read = asyncio.ensure_future(read_chunk(reader))
                    await asyncio.wait({read, stop}, timeout=IDLE_STREAM, return_when=asyncio.FIRST_COMPLETED)
                    if not read.done():  # stopping, or silent past the bookmarks' minute: a dead connection
                        read.cancel()
                        return rv, False
                    chunk = read.result()
                    if not chunk:
                        self.watch_down(name)
                        return rv, False
                    received = time.monotonic()
                    pending += chunk
                    *lines, pending = pending.split(b"\n")
                    for line in lines:
                        event = orjson.loads(line)
                        kind, obj = event.get("type"), event.get("object") or {}
                        if kind == "ERROR":
                            self.watch_down(name)
                            return rv, obj.get("code") == 410
                        rv = (obj.get("metadata") or {}).get("resourceVersion") or rv
                        if kind != "BOOKMARK":
                            result = handle(kind, obj, received)
                            if result is not None:
                                await result
            finally:
                stop.cancel()
        except BaseException:
            self.watch_down(name)
            raise
        finally:
            writer.close()

    # -- a hollow node -------------------------------------------------------------------------------------------

    async def node(self, index: int, ready: asyncio.Event) -> None:
        name = self.node_names[index]
        node_target = self.node_identity(index)
        conn = Connection(node_target)
        node = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": {self.key("hostname"): name, self.hollow_label: "true"}},
            "status": {
                "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                "allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                "addresses": [{"type": "InternalIP", "address": f"10.{index // 250}.{index % 250}.1"}],
                "conditions": [self._ready_condition()],
            },
        }
        await self._until_ok(conn, "POST", "nodes", "/api/v1/nodes", node, ok=(201, 409))
        lease_path = f"/apis/{self.group('coordination')}/v1/namespaces/{self.lease_namespace}/leases"
        lease = {
            "apiVersion": f"{self.group('coordination')}/v1",
            "kind": "Lease",
            "metadata": {"name": name},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": self._micro_now()},
        }
        await self._until_ok(conn, "POST", "leases", lease_path, lease, ok=(201, 409))
        self.joined += 1
        handled: set[str] = set()  # pods (uid) this node started
        deleting: set[str] = set()  # pods (uid) whose deletion it confirmed
        pods_conn, services_conn, slices_conn = (Connection(node_target) for _ in range(3))

        async def on_pod(kind: str, pod: dict, received: float) -> None:
            meta = pod.get("metadata") or {}
            pod_name = meta.get("name", "")
            if (pod.get("spec") or {}).get("nodeName") != name:
                self.record.foreign += 1
                return
            if pod_name not in self.record.seen_by_node:
                self.record.seen_by_node.add(pod_name)
                made = self.record.created.get(pod_name)
                if made is not None and kind == "ADDED":
                    self.record.deliveries.append((received, max(0.0, received - made[1])))
            if kind == "DELETED":
                return
            if (pod.get("status") or {}).get("phase") == "Running":
                self.record.running_by_node.add(pod_name)
            uid = meta.get("uid", "")
            if meta.get("deletionTimestamp"):
                if uid not in deleting:
                    deleting.add(uid)
                    path = f"/api/v1/namespaces/{meta['namespace']}/pods/{pod_name}"
                    body = {"gracePeriodSeconds": 0, "preconditions": {"uid": uid}}
                    self.spawn(self._retried(conn, "DELETE", "pods (grace 0)", path, body, done=(200, 404, 409)))
                return
            if (pod.get("status") or {}).get("phase") != "Running" and uid not in handled:
                handled.add(uid)
                self.spawn(self._start_pod(conn, pod, index))

        pods_path = f"/api/v1/pods?fieldSelector={quote('spec.nodeName=' + name)}"
        services_path = f"/api/v1/services?labelSelector={quote(self.proxy_selector)}"
        slices_path = f"/apis/{self.group('discovery')}/v1/endpointslices?labelSelector={quote(self.proxy_selector)}"

        def on_proxy(kind: str, obj: dict, received: float) -> None:
            self.record.proxy_events += 1

        tasks = [
            asyncio.ensure_future(self.informer(f"pods:{name}", pods_path, on_pod, pods_conn)),
            asyncio.ensure_future(self.informer(f"services:{name}", services_path, on_proxy, services_conn)),
            asyncio.ensure_future(self.informer(f"endpointslices:{name}", slices_path, on_proxy, slices_conn)),
            asyncio.ensure_future(self._heartbeats(conn, name, lease_path)),
        ]
        ready.set()
        await self.stopping.wait()
        _done, late = await asyncio.wait(tasks, timeout=5)
        for task in late:
            task.cancel()
        for c in (conn, pods_conn, services_conn, slices_conn):
            c.close()

    @staticmethod
    def _ready_condition() -> dict:
        now = now_iso()
        return {
            "type": "Ready",
            "status": "True",
            "reason": "KubeletReady",
            "message": "hollow node agent is posting ready status",
            "lastHeartbeatTime": now,
            "lastTransitionTime": now,
        }

    @staticmethod
    def _micro_now() -> str:
        return time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())

    async def _until_ok(self, conn: Connection, verb: str, res: str, path: str, body: Any, ok: tuple[int, ...]) -> Any:
        while not self.stopping.is_set():
            status, data = await self.call(conn, verb, res, verb if verb != "PUT" else "PUT", path, body)
            if status in ok:
                return data
            await self._pause(1.0 + random.random())
        return None

    async def _start_pod(self, conn: Connection, pod: dict, index: int) -> None:
        meta = pod["metadata"]
        path = f"/api/v1/namespaces/{meta['namespace']}/pods/{meta['name']}/status"
        started = now_iso()
        containers = (pod.get("spec") or {}).get("containers") or []
        patch = {
            "status": {
                "phase": "Running",
                "hostIP": f"10.{index // 250}.{index % 250}.1",
                "podIP": f"10.{128 + index // 250}.{index % 250}.{random.randint(2, 250)}",
                "startTime": started,
                "conditions": [
                    {"type": t, "status": "True", "lastTransitionTime": started}
                    for t in ("PodScheduled", "Initialized", "ContainersReady", "Ready")
                ],
                "containerStatuses": [
                    {
                        "name": c.get("name", "c"),
                        "image": c.get("image", IMAGE),
                        "imageID": "",
                        "ready": True,
                        "restartCount": 0,
                        "started": True,
                        "state": {"running": {"startedAt": started}},
                    }
                    for c in containers
                ],
            }
        }
        await self._retried(conn, "PATCH", "pods/status", path, patch, (200, 404), "application/merge-patch+json")

    async def _retried(
        self,
        conn: Connection,
        verb: str,
        res: str,
        path: str,
        body: Any,
        done: tuple[int, ...],
        content_type: str = "application/json",
    ) -> None:
        """As an agent does: again until the server has it (a restart may take a while), backing off."""
        backoff = 0.5
        while not self.stopping.is_set():
            status, _ = await self.call(conn, verb, res, verb, path, body, content_type=content_type)
            if status in done:
                return
            await self._pause(backoff * (0.5 + random.random()))
            backoff = min(backoff * 2, 5.0)

    async def _heartbeats(self, conn: Connection, name: str, lease_path: str) -> None:
        """The Lease every 10 s (GET once, then PUT what the last answer gave), nodes/status every 60 s."""
        await self._pause(random.random() * LEASE_PERIOD)
        lease: dict | None = None
        next_status = time.monotonic() + random.random() * NODE_STATUS_PERIOD
        while not self.stopping.is_set():
            tick = time.monotonic()
            if lease is None:
                status, lease = await self.call(conn, "GET", "leases", "GET", f"{lease_path}/{name}")
                if status != 200:
                    lease = None
            if lease is not None:
                lease["spec"]["renewTime"] = self._micro_now()
                status, answer = await self.call(conn, "PUT", "leases", "PUT", f"{lease_path}/{name}", lease)
                lease = answer if status == 200 else None
            if time.monotonic() >= next_status:
                next_status += NODE_STATUS_PERIOD
                patch = {"status": {"conditions": [self._ready_condition()]}}
                await self.call(
                    conn,
                    "PATCH",
                    "nodes/status",
                    "PATCH",
                    f"/api/v1/nodes/{name}/status",
                    patch,
                    content_type="application/strategic-merge-patch+json",
                )
            await self._pause(max(0.0, LEASE_PERIOD - (time.monotonic() - tick)))

    # -- the controller, the observer and the probes ---------------------------------------------------------------

    async def setup(self) -> None:
        conn = Connection(self.target)
        if self.token_ssl is not None:
            rbac = self.group("rbac.authorization")
            for name, role, kind, subject in IDENTITY_BINDINGS:
                binding = {
                    "apiVersion": f"{rbac}/v1",
                    "kind": "ClusterRoleBinding",
                    "metadata": {"name": name},
                    "roleRef": {"apiGroup": rbac, "kind": "ClusterRole", "name": role},
                    "subjects": [{"apiGroup": rbac, "kind": kind, "name": subject or self.controller_user}],
                }
                path = f"/apis/{rbac}/v1/clusterrolebindings"
                await self._until_ok(conn, "POST", "clusterrolebindings", path, binding, ok=(201, 409))
        for ns in [*self.namespaces, self.lease_namespace]:
            await self._until_ok(
                conn, "POST", "namespaces", "/api/v1/namespaces", {"metadata": {"name": ns}}, ok=(201, 409)
            )
        for k, svc in enumerate(self.services):
            ns = self.namespaces[k % len(self.namespaces)]
            service = {
                "metadata": {"name": svc},
                "spec": {"selector": {"app": svc}, "ports": [{"port": 80, "protocol": "TCP"}]},
            }
            await self._until_ok(conn, "POST", "services", f"/api/v1/namespaces/{ns}/services", service, (201, 409))
            await self._until_ok(
                conn, "POST", "endpointslices", self._slices(ns), self._slice(svc, k, 0), ok=(201, 409)
            )
        conn.close()

    def _slices(self, ns: str) -> str:
        return f"/apis/{self.group('discovery')}/v1/namespaces/{ns}/endpointslices"

    def _slice(self, svc: str, k: int, generation: int) -> dict:
        return {
            "apiVersion": f"{self.group('discovery')}/v1",
            "kind": "EndpointSlice",
            "metadata": {"name": f"{svc}-x", "labels": {self.key("service-name"): svc}},
            "addressType": "IPv4",
            "ports": [{"port": 80, "protocol": "TCP", "name": ""}],
            "endpoints": [
                {"addresses": [f"10.200.{k % 250}.{(generation + j) % 250 + 1}"], "conditions": {"ready": True}}
                for j in range(3)
            ],
        }

    async def controller(self, steady: asyncio.Event) -> None:
        args = self.args
        pool: asyncio.Queue[Connection] = asyncio.Queue()
        for _ in range(args.controller_connections):
            pool.put_nowait(Connection(self.identity(CONTROLLER_TOKEN)))
        seq = itertools.count()
        alive: collections.deque[tuple[str, str]] = collections.deque()  # (namespace, pod) oldest first
        pending: set[asyncio.Future] = set()
        settled = asyncio.Event()  # no call of the controller's in flight

        async def create() -> None:
            n = next(seq)
            name, ns = f"p-{n:07d}", self.namespaces[n % len(self.namespaces)]
            node = self.node_names[n % len(self.node_names)]
            svc = self.services[n % len(self.services)] if self.services else "none"
            pod = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": name, "labels": {"app": svc, self.key("sim"): "true"}},
                "spec": {"nodeName": node, "containers": [{"name": "app", "image": IMAGE}]},
            }
            conn = await pool.get()
            try:
                status, _ = await self.call(conn, "POST", "pods", "POST", f"/api/v1/namespaces/{ns}/pods", pod)
            finally:
                pool.put_nowait(conn)
            if status == 201:
                self.record.created[name] = (node, time.monotonic())
                alive.append((ns, name))

        async def delete() -> None:
            for _ in range(len(alive)):  # the oldest pod that runs (a pending one is not yet the churn's)
                ns, name = alive.popleft()
                if name in self.record.running_seen:
                    break
                alive.append((ns, name))
            else:
                return
            conn = await pool.get()
            try:
                status, _ = await self.call(conn, "DELETE", "pods", "DELETE", f"/api/v1/namespaces/{ns}/pods/{name}")
            finally:
                pool.put_nowait(conn)
            if status in (200, 202):
                self.record.deleted.add(name)

        async def update_slice(k: int) -> None:
            svc = self.services[k]
            ns = self.namespaces[k % len(self.namespaces)]
            conn = await pool.get()
            try:
                body = {"endpoints": self._slice(svc, k, random.randint(0, 1000))["endpoints"]}
                await self.call(
                    conn,
                    "PATCH",
                    "endpointslices",
                    "PATCH",
                    f"{self._slices(ns)}/{svc}-x",
                    body,
                    content_type="application/merge-patch+json",
                )
            finally:
                pool.put_nowait(conn)

        def finished(task: asyncio.Future) -> None:
            pending.discard(task)
            if not pending:
                settled.set()

        def spawn(work: Awaitable[None]) -> None:
            settled.clear()
            task = asyncio.ensure_future(work)
            pending.add(task)
            task.add_done_callback(finished)

        # fill: creates at --fill-rate until --pods were created
        start = time.monotonic()
        for i in range(args.pods):
            if self.stopping.is_set():
                break
            await self._pause(max(0.0, start + i / args.fill_rate - time.monotonic()))
            spawn(create())
        if pending:
            await settled.wait()
        steady.set()
        # churn: a delete and a create every 1/churn s, a slice update every 1/slice_updates s
        start, i = time.monotonic(), 0
        slice_every = 1.0 / args.slice_updates if args.slice_updates > 0 and self.services else None
        next_slice = start
        while not self.stopping.is_set() and args.churn > 0:
            due = start + i / args.churn
            await self._pause(max(0.0, due - time.monotonic()))
            if self.stopping.is_set():
                break
            spawn(delete())
            spawn(create())
            i += 1
            while slice_every is not None and next_slice <= time.monotonic():
                spawn(update_slice(random.randrange(len(self.services))))
                next_slice += slice_every
        if pending:
            await settled.wait()
        while not pool.empty():
            pool.get_nowait().close()

    async def observer(self) -> None:
        """Every pod, on its own connection: when each is first seen Running."""

        def on_pod(kind: str, pod: dict, received: float) -> None:
            name = (pod.get("metadata") or {}).get("name", "")
            if kind == "DELETED" or name in self.record.running_seen:
                return
            if (pod.get("status") or {}).get("phase") == "Running":
                self.record.running_seen[name] = received
                made = self.record.created.get(name)
                if made is not None and kind != "SYNC":
                    self.record.startups.append((received, received - made[1]))

        path = f"/api/v1/pods?labelSelector={quote(self.key('sim') + '=true')}"
        await self.informer("observer", path, on_pod, Connection(self.target))

    async def note_gone(self) -> None:
        """Pods created that no longer exist count as deleted (a DELETE whose answer a restart lost did happen)."""
        conn = Connection(self.target)
        status, body = await self.call(
            conn, "LIST", "informer", "GET", f"/api/v1/pods?labelSelector={quote(self.key('sim') + '=true')}"
        )
        conn.close()
        if status == 200 and isinstance(body, dict):
            existing = {(item.get("metadata") or {}).get("name") for item in body.get("items") or []}
            self.record.deleted.update(name for name in self.record.created if name not in existing)

    async def probes(self) -> None:
        conn = Connection(self.target)
        last_ns = last_cluster = time.monotonic()
        while not self.stopping.is_set():
            await self._pause(1.0)
            if self.record.created:
                name, _made = random.choice(list(itertools.islice(reversed(self.record.created.items()), 200)))
                ns = self.namespaces[int(name[2:]) % len(self.namespaces)]
                await self.call(conn, "GET", "pods", "GET", f"/api/v1/namespaces/{ns}/pods/{name}")
            now = time.monotonic()
            if now - last_ns >= 10:
                last_ns = now
                path = f"/api/v1/namespaces/{self.namespaces[0]}/pods"
                await self.call(conn, "LIST", "pods (namespace)", "GET", path, decode=False)
            if now - last_cluster >= 30:
                last_cluster = now
                await self.call(conn, "LIST", "pods (cluster)", "GET", "/api/v1/pods", decode=False)
        conn.close()


# -- the run ------------------------------------------------------------------------------------------------------


@dataclass
class Window:
    start: float
    end: float

    def has(self, t: float) -> bool:
        return self.start <= t <= self.end


def slo_for(verb: str, resource_name: str) -> float:
    if verb == "LIST":
        return CLUSTER_LIST_SLO if "cluster" in resource_name else NS_LIST_SLO
    return GET_SLO if verb == "GET" else MUTATING_SLO


def stats(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    return {"n": len(values), "p50": percentile(values, 50), "p99": percentile(values, 99), "max": max(values)}


def report(record: Record, window: Window, restart_at: float | None) -> dict[str, Any]:
    calls = {}
    slo_met = True
    for (verb, resource_name), values in sorted(record.calls.items()):
        if resource_name == "informer":
            continue  # the watches' own lists (re-lists after a restart): counted below
        got = stats([d for t, d in values if window.has(t)])
        if not got["n"]:
            continue
        sent = stats([d for t, d in record.attempts[(verb, resource_name)] if window.has(t)])
        got["attempts"], got["attempt_p99"] = sent["n"], sent.get("p99", 0.0)  # the server's view of the same calls
        got["slo"] = slo_for(verb, resource_name)
        got["met"] = got["p99"] <= got["slo"]
        slo_met = slo_met and got["met"]
        calls[f"{verb} {resource_name}"] = got
    startups = stats([d for t, d in record.startups if window.has(t)])
    deliveries = stats([d for t, d in record.deliveries if window.has(t)])
    # lost: a pod created and bound, never seen by its node's watch; or never seen Running, though not deleted
    settled = [name for name, (_node, t) in record.created.items() if t <= window.end]
    never_seen_by_node = [n for n in settled if n not in record.seen_by_node and n not in record.deleted]
    # created and deleted again while its node's watch was down and had to re-list (410): never shown to it
    short_lived_unseen = [n for n in settled if n not in record.seen_by_node and n in record.deleted]
    never_running = [n for n in settled if n not in record.running_seen and n not in record.deleted]
    not_running_on_node = [n for n in settled if n not in record.running_by_node and n not in record.deleted]
    out: dict[str, Any] = {
        "calls": calls,
        "pod_startup": {**startups, "slo": STARTUP_SLO},
        "watch_delivery": {**deliveries, "slo": DELIVERY_SLO},
        "generator_loop_lag": stats([d for t, d in record.loop_lag if window.has(t)]),
        "worker_rss_mib": rss_report([sizes for t, sizes in record.worker_rss if window.has(t)]),
        "pods_created": len(record.created),
        "pods_deleted": len(record.deleted),
        "lost_by_node_watch": len(never_seen_by_node),
        "deleted_before_its_node_saw_it": len(short_lived_unseen),
        "never_seen_running": len(never_running),
        "never_seen_running_by_node": len(not_running_on_node),
        "lost_examples": (never_seen_by_node + never_running)[:5],
        "other_nodes_events": record.foreign,
        "proxy_events": record.proxy_events,
        "statuses": {str(k): v for k, v in sorted(record.statuses.items())},
        "refusals": {
            f"{v} {r}": {str(k): n for k, n in sorted(c.items())} for (v, r), c in sorted(record.refusals.items())
        },
        "failed_calls": {
            f"{v} {r}": {str(k): n for k, n in sorted(c.items())} for (v, r), c in sorted(record.failed_calls.items())
        },
        "server_errors_5xx": len(record.server_errors),
        "failed_connections": len(record.failed_connections),
        "watches_down_at_end": len(record.watches_down),
        "relists": dict(record.relists),
    }
    slo_met = (
        slo_met
        and startups.get("p99", 0) <= STARTUP_SLO
        and deliveries.get("p99", 0) <= DELIVERY_SLO
        and not never_seen_by_node
        and not never_running
        and not not_running_on_node
        and not record.foreign
    )
    out["slo_met"] = slo_met
    if restart_at is not None:
        out["restart"] = restart_report(record, restart_at, window.end)
    return out


def restart_report(record: Record, restart_at: float, end: float) -> dict[str, Any]:
    """When the watches were all back, and the end of the last second after the restart that broke an SLO."""
    back = [b for _name, _d, b in record.watch_downtime if b >= restart_at]
    resumed = {name for name, _d, b in record.watch_downtime if b >= restart_at}
    last_bad = restart_at
    for (verb, resource_name), values in record.calls.items():
        limit = slo_for(verb, resource_name)
        for t, d in values:
            if t >= restart_at and d > limit:
                last_bad = max(last_bad, t)
    for t, d in record.startups:
        if t >= restart_at and d > STARTUP_SLO:
            last_bad = max(last_bad, t)
    for t in record.server_errors + record.failed_connections:
        if t >= restart_at:
            last_bad = max(last_bad, t)
    if back:
        last_bad = max(last_bad, max(back))
    return {
        "all_watches_back_after_s": (max(back) - restart_at) if back else None,
        **recovery_by_window(record, restart_at, end, max(back) if back else restart_at),
        "watches_resumed": len(resumed),
        "slos_hold_again_after_s": last_bad - restart_at if last_bad <= end else None,
        "server_errors_5xx_after": sum(1 for t in record.server_errors if t >= restart_at),
        "failed_connections_after": sum(1 for t in record.failed_connections if t >= restart_at),
    }


RECOVERY_WINDOW_S = 10.0


def recovery_by_window(record: Record, restart_at: float, end: float, watches_back: float) -> dict[str, Any]:
    """The SLOs as percentiles (how SIG Scalability states them), per 10-s window after the restart: the p99 of the
    calls (and pod startups) begun in each window, per call type, against its SLO; the SLOs hold again from the
    first window after which every window met them and every watch was back. Calls count where they began: one
    made during the restart and answered a minute later (after Retry-Afters) is the restart's, not that minute's."""
    windows: list[dict[str, Any]] = []
    start = restart_at
    while start < end:
        stop = min(start + RECOVERY_WINDOW_S, end)
        worst, over, calls = ("", 0.0), 0, 0
        for (verb, resource_name), values in record.calls.items():
            if resource_name == "informer":
                continue  # the watches' re-lists: their being back is judged by `watches_back`
            inside = [d for t, d in values if start <= t - d < stop]
            if not inside:
                continue
            calls += len(inside)
            limit = slo_for(verb, resource_name)
            over += sum(1 for d in inside if d > limit)
            ratio = percentile(inside, 99) / limit
            worst = max(worst, (f"{verb} {resource_name}", ratio), key=lambda w: w[1])
        startups = [d for t, d in record.startups if start <= t - d < stop]
        if not calls and not startups:  # the run's last moments: nothing begun there
            start = stop
            continue
        startup_ratio = percentile(startups, 99) / STARTUP_SLO if startups else 0.0
        worst = max(worst, ("pod startup", startup_ratio), key=lambda w: w[1])
        windows.append(
            {
                "from_s": round(start - restart_at),
                "calls": calls,
                "over_slo": over,
                "worst": worst[0],
                "worst_p99_of_slo": round(worst[1], 2),
            }
        )
        start = stop
    held = None
    for window in reversed(windows):
        if window["worst_p99_of_slo"] > 1.0:
            break
        held = window["from_s"]
    if held is not None:
        held = max(held, watches_back - restart_at)
    return {"p99_within_slos_again_after_s": held, "windows": windows}


def print_report(out: dict[str, Any]) -> None:
    print(f"{'call (retries included)':<28} {'n':>7} {'p50 ms':>9} {'p99 ms':>9} {'max ms':>9}  SLO        per request")
    for name, got in out["calls"].items():
        mark = "ok" if got["met"] else "MISSED"
        print(
            f"{name:<28} {got['n']:>7} {got['p50'] * 1000:>9.1f} {got['p99'] * 1000:>9.1f} {got['max'] * 1000:>9.1f}  "
            f"<= {got['slo']:.0f} s {mark:<6}  {got['attempts']} sent, p99 {got['attempt_p99'] * 1000:.1f} ms"
        )
    for label, key in (("pod startup", "pod_startup"), ("watch delivery", "watch_delivery")):
        got = out[key]
        if got.get("n"):
            print(
                f"{label:<28} {got['n']:>7} {got['p50'] * 1000:>9.1f} {got['p99'] * 1000:>9.1f} "
                f"{got['max'] * 1000:>9.1f}  <= {got['slo']:.0f} s"
            )
    lag = out.get("generator_loop_lag") or {}
    if lag.get("n"):
        print(
            f"{'generator loop lag':<28} {lag['n']:>7} {lag['p50'] * 1000:>9.1f} {lag['p99'] * 1000:>9.1f} "
            f"{lag['max'] * 1000:>9.1f}  (the generator's own delay inside every figure above)"
        )
    print(
        f"pods created {out['pods_created']}, deleted {out['pods_deleted']}; lost: not seen by their node's watch "
        f"{out['lost_by_node_watch']}, never seen Running {out['never_seen_running']} (by its node's watch "
        f"{out['never_seen_running_by_node']}); other nodes' pods delivered "
        f"{out['other_nodes_events']}; proxy events {out['proxy_events']}; 5xx {out['server_errors_5xx']}, failed "
        f"connections {out['failed_connections']}, watches down at the end {out['watches_down_at_end']}"
    )
    if out["refusals"]:
        print(f"answers other than 2xx (whole run, every request): {out['refusals']}")
    if out["failed_calls"]:
        print(f"calls that failed after client-go's retries (whole run): {out['failed_calls']}")
    if out.get("worker_rss_mib"):
        rss = out["worker_rss_mib"]
        print(
            f"server memory per worker (resident MiB, steady phase): first {rss['first']}, last {rss['last']}, "
            f"max {rss['max']}"
        )
    if out.get("apf_rejected"):
        print(f"priority and fairness, 429s by level and reason (server's lifetime): {out['apf_rejected']}")
    if "restart" in out:
        restart = dict(out["restart"])
        windows = restart.pop("windows", [])
        print(f"restart: {restart}")
        for w in windows:
            print(
                f"  +{w['from_s']:>4} s after the restart: {w['calls']:>6} calls, {w['over_slo']:>5} over their SLO, "
                f"worst p99 {w['worst_p99_of_slo']:.2f} x SLO ({w['worst']})"
            )
    print(f"cpu: {out.get('cpu')}")
    print(f"SLOs met: {out['slo_met']}")


def kubeconfig_target(url: str, path: str) -> Target:
    """A Target from a kubeconfig's current context: CA, client certificate and key, or a token."""
    import yaml

    config = yaml.safe_load(Path(path).read_text())
    current = config.get("current-context")
    context = next(c["context"] for c in config["contexts"] if c["name"] == current or current is None)
    cluster = next(c["cluster"] for c in config["clusters"] if c["name"] == context["cluster"])
    user = next(u["user"] for u in config["users"] if u["name"] == context["user"])
    base = Path(path).resolve().parent

    def material(key: str) -> str | None:
        """A file holding the kubeconfig's `key` (given as a path, or as key-data written to a temporary file)."""
        if user.get(key) or cluster.get(key):
            return str(base / (user.get(key) or cluster.get(key)))
        data = user.get(f"{key}-data") or cluster.get(f"{key}-data")
        if not data:
            return None
        with tempfile.NamedTemporaryFile(delete=False, suffix=".pem") as handle:
            handle.write(base64.b64decode(data))
        return handle.name

    ctx = ssl.create_default_context(cafile=material("certificate-authority"))
    cert, key = material("client-certificate"), material("client-key")
    if cert and key:
        ctx.load_cert_chain(cert, key)
    parts = urlsplit(url or cluster["server"])
    return Target(parts.hostname or "127.0.0.1", parts.port or 443, ctx, user.get("token"))


def server_target(server: RunningServer) -> Target:
    ctx = ssl.create_default_context(cafile=str(server.ca_file))
    ctx.load_cert_chain(*server.client_cert)
    return Target("127.0.0.1", server.port, ctx)


def restart_server(server: RunningServer) -> RunningServer:
    """Stop the server and start it again with the same command (same port, data directory and database)."""
    command = list(server.process.args)  # type: ignore[arg-type]
    stop_process(server.process)
    with open(server.log_path, "ab") as log:
        process = subprocess.Popen(
            command,
            env=server_env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            cwd=str(Path(__file__).resolve().parents[1]),
        )
    again = RunningServer(server.url, server.port, server.data_dir, process, server.log_path, server.database_url)
    wait_ready(again)
    return again


class ServerHolder:
    """The server the run started (None with --server), replaced by a restart."""

    def __init__(self, server: RunningServer | None) -> None:
        self.server = server


async def freeze_often(sim: Sim, every: float = 10.0) -> None:
    """What lived 10 s lives on (connections, records): the cyclic collector's full passes over the generator's
    1M+ objects stopped its loop 0.6-0.7 s every few seconds, a delay inside every figure it reports (cycles
    that die after a freeze are never collected: tolerable for a bench run)."""
    while not sim.stopping.is_set():
        await sim._pause(every)
        gc.freeze()


async def loop_lag(sim: Sim, period: float = 0.02) -> None:
    """How late the generator's loop wakes from a short sleep: its share of every latency it reports."""
    while not sim.stopping.is_set():
        asked = time.monotonic()
        await asyncio.sleep(period)
        woke = time.monotonic()
        sim.record.loop_lag.append((woke, woke - asked - period))


def workers_rss_mib(server: RunningServer) -> list[float]:
    """Resident memory of each worker process (MiB), in pid order."""
    sizes = []
    for pid in sorted(worker_pids(server)):
        with contextlib.suppress(OSError):
            sizes.append(round(rss_kib(pid) / 1024, 1))
    return sizes


async def sample_memory(sim: Sim, holder: ServerHolder, every: float = 10.0) -> None:
    while not sim.stopping.is_set():
        if holder.server is not None:
            sizes = await asyncio.get_running_loop().run_in_executor(None, workers_rss_mib, holder.server)
            if sizes:  # none while a restarted server is down
                sim.record.worker_rss.append((time.monotonic(), sizes))
        await sim._pause(every)


def rss_report(samples: list[list[float]]) -> dict[str, Any]:
    """Each worker's resident MiB at the window's first and last sample and its largest (growth: last - first)."""
    if not samples:
        return {}
    workers = min(len(sizes) for sizes in samples)
    return {
        "first": samples[0][:workers],
        "last": samples[-1][:workers],
        "max": [max(sizes[i] for sizes in samples) for i in range(workers)],
        "samples": len(samples),
    }


async def progress(sim: Sim, holder: ServerHolder, every: float) -> None:
    """A line every `every` s while the run goes on: a long run that seems stalled shows where it is."""
    t0, cpu_gen = time.monotonic(), cpu_self()
    server = holder.server
    cpu_srv = server_usage(server).cpu if server is not None else 0.0
    refused = 0
    while not sim.stopping.is_set():
        await sim._pause(every)
        now, gen = time.monotonic(), cpu_self()
        if holder.server is not server:  # restarted: new processes, counted from zero
            server, cpu_srv = holder.server, 0.0
        down = server is not None and server.process.poll() is not None  # stopped, its successor not started
        srv = server_usage(server).cpu if server is not None and not down else cpu_srv
        rec = sim.record
        print(
            f"#  +{now - t0:5.0f} s: nodes {sim.joined}/{sim.args.nodes}, watches down {len(rec.watches_down)},"
            f" pods created {len(rec.created)} running {len(rec.running_seen)} deleted {len(rec.deleted)},"
            f" calls in flight {len(sim.tasks)}, 429s {rec.statuses[429] - refused},"
            f" server {'down' if down else f'{(srv - cpu_srv) / every:.2f} cores'},"
            f" generator {(gen - cpu_gen) / every:.2f} cores, load {os.getloadavg()[0]:.1f}"
            + (f", worker RSS MiB {rec.worker_rss[-1][1]}" if rec.worker_rss else ""),
            flush=True,
        )
        cpu_gen, cpu_srv, refused = gen, srv, rec.statuses[429]


async def simulate(
    target: Target,
    args: argparse.Namespace,
    holder: ServerHolder,
    token_ssl: ssl.SSLContext | None = None,
    node_ssl: list[ssl.SSLContext] | None = None,
) -> dict[str, Any]:
    sim = Sim(target, args, token_ssl, node_ssl)
    await sim.setup()
    ticker = asyncio.ensure_future(progress(sim, holder, args.progress)) if args.progress > 0 else None
    lag_probe = asyncio.ensure_future(loop_lag(sim))
    freezer = asyncio.ensure_future(freeze_often(sim))
    memory = asyncio.ensure_future(sample_memory(sim, holder))
    ready_events = []
    node_tasks = []
    t_start = time.monotonic()
    for i in range(args.nodes):  # nodes join at --join-rate, as a cluster's nodes come up
        ready = asyncio.Event()
        ready_events.append(ready)
        node_tasks.append(asyncio.ensure_future(sim.node(i, ready)))
        await asyncio.sleep(max(0.0, t_start + (i + 1) / args.join_rate - time.monotonic()))
    for ready in ready_events:
        await ready.wait()
    with contextlib.suppress(asyncio.TimeoutError):  # every watch established
        await asyncio.wait_for(sim.all_watching.wait(), 300)
    took = time.monotonic() - t_start
    print(f"# {args.nodes} nodes registered, {3 * args.nodes} watches open in {took:.1f} s", flush=True)
    observer = asyncio.ensure_future(sim.observer())
    probes = asyncio.ensure_future(sim.probes())
    steady = asyncio.Event()
    controller = asyncio.ensure_future(sim.controller(steady))
    fill_start = time.monotonic()
    await steady.wait()
    took = time.monotonic() - fill_start
    print(f"# {args.pods} pods created in {took:.1f} s; steady phase of {args.duration} s", flush=True)
    server = holder.server
    usage0 = server_usage(server) if server is not None else None
    pg, machine, cpu0 = PostgresCpu(), MachineLoad(), cpu_self()
    window_start = time.monotonic()
    restart_at = None
    if args.restart_at is not None and server is not None:
        await asyncio.sleep(args.restart_at)
        restart_at = time.monotonic()
        print("# restarting the server", flush=True)
        server_cpu_before = server_usage(server).cpu - usage0.cpu if usage0 else 0.0
        holder.server = await asyncio.get_running_loop().run_in_executor(None, restart_server, server)
        usage0 = None  # new processes: counted from zero, plus what the old ones used
        print(f"# server back after {time.monotonic() - restart_at:.1f} s", flush=True)
        await asyncio.sleep(max(0.0, window_start + args.duration - time.monotonic()))
    else:
        server_cpu_before = 0.0
        await asyncio.sleep(args.duration)
    window_end = time.monotonic()
    generator_cpu = cpu_self() - cpu0
    server_cpu = None
    if holder.server is not None:
        now_usage = server_usage(holder.server).cpu
        server_cpu = server_cpu_before + (now_usage - usage0.cpu if usage0 is not None else now_usage)
    pg_cpu = pg.used()
    load = machine.report(generator_cpu + (server_cpu or 0.0) + pg_cpu)
    await asyncio.sleep(args.drain)  # the last writes' events and startups arrive
    with contextlib.suppress(asyncio.TimeoutError):  # a watch still down would count its node's pods as lost
        await asyncio.wait_for(sim.all_watching.wait(), 120)
        await asyncio.sleep(2.0)
    await sim.note_gone()
    sim.stopping.set()
    lag_probe.cancel()
    freezer.cancel()
    memory.cancel()
    if ticker is not None:
        ticker.cancel()
    _done, late = await asyncio.wait([controller, observer, probes, *node_tasks], timeout=15)  # all at once
    for task in late:
        task.cancel()
    out = report(sim.record, Window(window_start, window_end), restart_at)
    if holder.server is not None:
        out["apf_rejected"] = await asyncio.get_running_loop().run_in_executor(None, apf_rejections, holder.server)
    wall = window_end - window_start
    out["cpu"] = {
        "window_s": round(wall, 1),
        "generator_cores": round(generator_cpu / wall, 2),
        "server_cores": round(server_cpu / wall, 2) if server_cpu is not None else None,
        "postgres_cores": round(pg_cpu / wall, 2),
        "machine_busy_cores": round(load["machine_busy_s"] / wall, 2),
        "loadavg_1m": round(load["loadavg_1m"], 2),
    }
    return out


def apf_rejections(server: RunningServer) -> dict[str, int]:
    """apiserver_flowcontrol_rejected_requests_total by "level/reason" (queue-full: no place to wait)."""
    from prometheus_client.parser import text_string_to_metric_families

    counts: collections.Counter[str] = collections.Counter()
    for family in text_string_to_metric_families(server.get("/metrics").text):
        for sample in family.samples:
            if sample.name == "apiserver_flowcontrol_rejected_requests_total":
                counts[f"{sample.labels['priority_level']}/{sample.labels['reason']}"] += int(sample.value)
    return dict(counts.most_common())


@contextlib.contextmanager
def own_server(backend: str, extra: list[str]) -> Iterator[ServerHolder]:
    """A server of default settings on a fresh SQLite file or a fresh migrated PostgreSQL database."""
    from orch_apiserver import defaults

    data_dir = Path(tempfile.mkdtemp(prefix=f"orch-sim-{backend}-"))
    args = ["--workers", str(defaults.WORKERS), "--threads", str(defaults.THREADS), *extra]
    holder = ServerHolder(None)
    try:
        if backend == "sqlite":
            holder.server = start_server(data_dir, args)
            yield holder
        else:
            from orch_apiserver.storage.schema import ensure_schema

            from tests.e2e import scratch_database

            with scratch_database() as url:
                ensure_schema(url, upgrade=True)
                holder.server = start_server(data_dir, args, database_url=url)
                try:
                    yield holder
                finally:
                    holder.server.stop()
                    holder.server = None
    finally:
        if holder.server is not None:
            holder.server.stop()
        import shutil

        shutil.rmtree(data_dir, ignore_errors=True)


def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.server:
        target = kubeconfig_target(args.server, args.kubeconfig)
        return asyncio.run(simulate(target, args, ServerHolder(None)))
    extra = list(args.server_arg or [])
    with tempfile.TemporaryDirectory(prefix="orch-sim-tokens-") as tokens_dir:
        if args.identities:
            tokens = Path(tokens_dir) / "tokens.csv"
            tokens.write_text(f"{CONTROLLER_TOKEN},{controller_user(Naming(args.api_domain))},controller-manager\n")
            extra += ["--token-auth-file", str(tokens)]
        with own_server(args.backend, extra) as holder:
            assert holder.server is not None
            target = server_target(holder.server)
            token_ssl = ssl.create_default_context(cafile=str(holder.server.ca_file)) if args.identities else None
            node_ssl = node_certificates(holder.server, args, Path(tokens_dir)) if args.identities else None
            return asyncio.run(simulate(target, args, holder, token_ssl, node_ssl))


def node_certificates(server: RunningServer, args: argparse.Namespace, directory: Path) -> list[ssl.SSLContext]:
    """Each hollow node's client certificate (system:node:<name> in system:nodes) through a CSR to the node client
    signer, filed by the admin (so auto-approved as a node client request) and signed by the server's signer, as
    a node bootstraps; one TLS context per node holds it."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from orch_apiserver.client.nodecert import NODE_CLIENT_USAGES, node_request

    naming = Naming(args.api_domain)
    csrs = f"/apis/{naming.group('certificates')}/v1/certificatesigningrequests"
    session, keys = server.session, []
    for i in range(args.nodes):
        key = ec.generate_private_key(ec.SECP256R1())
        keys.append(key)
        request = base64.b64encode(node_request(f"hollow-{i:05d}", key)).decode()
        body = {
            "metadata": {"name": f"hollow-{i:05d}"},
            "spec": {
                "request": request,
                "signerName": naming.signer("apiserver-client-node"),
                "usages": NODE_CLIENT_USAGES,
            },
        }
        filed = session.post(csrs, json=body)
        if filed.status_code != 201:
            raise SystemExit(f"node certificate request {i}: {filed.status_code} {filed.text}")
    issued: dict[str, str] = {}
    deadline = time.monotonic() + 60 + args.nodes * 0.2
    while len(issued) < args.nodes:
        if time.monotonic() > deadline:
            raise SystemExit(f"only {len(issued)} of {args.nodes} node certificates were issued")
        for item in session.get(csrs).json()["items"]:
            certificate = (item.get("status") or {}).get("certificate")
            if certificate and item["metadata"]["name"].startswith("hollow-"):
                issued[item["metadata"]["name"]] = certificate
        time.sleep(0.2)
    contexts = []
    for i, key in enumerate(keys):
        name = f"hollow-{i:05d}"
        cert_path, key_path = directory / f"{name}.crt", directory / f"{name}.key"
        cert_path.write_bytes(base64.b64decode(issued[name]))
        key_path.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
        context = ssl.create_default_context(cafile=str(server.ca_file))
        context.load_cert_chain(str(cert_path), str(key_path))
        contexts.append(context)
    return contexts


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", choices=["sqlite", "postgresql"], default="postgresql")
    p.add_argument("--server", help="an existing server's URL (with --kubeconfig) instead of starting one")
    p.add_argument("--kubeconfig", help="credentials for --server")
    p.add_argument("--api-domain", default="orch.io", help="the server's --api-domain (k8s.io: the reference's)")
    p.add_argument("--server-arg", action="append", help="an extra flag for the server started (repeatable)")
    p.add_argument("--nodes", type=int, default=100)
    p.add_argument("--join-rate", type=float, default=20.0, help="nodes joining per second at the start")
    p.add_argument("--pods", type=int, default=1000, help="pods created before the steady phase")
    p.add_argument("--fill-rate", type=float, default=50.0, help="pod creates per second until --pods exist")
    p.add_argument("--churn", type=float, default=10.0, help="pods deleted and created per second, steady phase")
    p.add_argument("--namespaces", type=int, default=10)
    p.add_argument("--services", type=int, default=20, help="Services, each with one EndpointSlice")
    p.add_argument("--slice-updates", type=float, default=1.0, help="EndpointSlice updates per second")
    p.add_argument("--controller-connections", type=int, default=8)
    p.add_argument("--duration", type=float, default=120.0, help="seconds of the steady phase measured")
    p.add_argument("--drain", type=float, default=10.0, help="seconds after the window for the last events")
    p.add_argument("--restart-at", type=float, help="restart the server this many seconds into the steady phase")
    p.add_argument(
        "--identities",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="nodes (client certificates through CSRs) and the controller (a token) as the reference's identities, "
        "not the admin (own server only)",
    )
    p.add_argument("--progress", type=float, default=15.0, help="seconds between progress lines (0: none)")
    p.add_argument("--json", metavar="FILE", help="also write the report as JSON to FILE")
    return p


def stop_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(f"stopped by signal {signum}")  # unwinds through the server's clean-up


def main() -> int:
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    args = parser().parse_args()
    if args.server and not args.kubeconfig:
        raise SystemExit("--server needs --kubeconfig")
    if args.restart_at is not None and args.server:
        raise SystemExit("--restart-at restarts the server this run started: not with --server")
    print(
        f"# cluster_sim: {args.nodes} nodes, {args.pods} pods, churn {args.churn}/s, "
        f"{args.server or args.backend}, load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    out = run(args)
    print_report(out)
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "report": out}, indent=2, default=str) + "\n")
    return 0 if out["slo_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
