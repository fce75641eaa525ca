"""Watch clients for the benchmarks: many raw TLS watch streams per process, timestamps taken at recv().

A watcher process opens its connections (blocking TLS handshake, then the HTTP/1.1 GET), switches them
to non-blocking and sits in one epoll loop. Per recv() it only stores (time.monotonic(), bytes) and looks
for a marker name in the new bytes; de-chunking and JSON decoding happen after the run, so the per-event
work on the measured path is one epoll wake-up and one SSL read. CLOCK_MONOTONIC is system-wide on Linux,
so these times compare directly with the writer's in another process.

Control (multiprocessing Pipe, parent -> child):
  ("marker", name, timeout)  answer ("seen", name, count_of_streams_that_saw_it, cpu_seconds) once every
                             stream has received bytes containing `name`, or when timeout passes
  ("finish",)                close everything, answer ("result", [per-stream result dicts], cpu_seconds)
"""

from __future__ import annotations

import bisect
import resource
import selectors
import socket
import ssl
import time
from dataclasses import dataclass, field

import orjson


def cpu_now() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Stream:
    sock: ssl.SSLSocket
    recvs: list[tuple[float, bytes]] = field(default_factory=list)
    tail: bytes = b""
    closed: bool = False
    saw_marker: bool = False


def parse_stream(recvs: list[tuple[float, bytes]], prefix: str) -> dict:
    """De-chunk one recorded HTTP response; map each event line to the time its last byte was received."""
    raw = b"".join(data for _, data in recvs)
    ends = []  # raw offset just past each recv
    total = 0
    for _, data in recvs:
        total += len(data)
        ends.append(total)
    head_end = raw.find(b"\r\n\r\n")
    if head_end < 0:
        return {"status": 0, "error": "no HTTP response header", "events": {}}
    head = raw[:head_end].decode("latin-1")
    status = int(head.split(" ", 2)[1])
    if "transfer-encoding: chunked" not in head.lower():
        return {"status": status, "error": raw[head_end + 4 : head_end + 300].decode(errors="replace"), "events": {}}
    pos = head_end + 4
    pending = b""
    pending_end = 0
    events: dict[str, tuple[str, float]] = {}
    kinds: dict[str, int] = {}
    while pos < len(raw):
        line_end = raw.find(b"\r\n", pos)
        if line_end < 0:
            break
        size = int(raw[pos:line_end].split(b";")[0], 16)
        if size == 0:
            break
        start = line_end + 2
        chunk = raw[start : start + size]
        offset = 0
        while True:
            nl = chunk.find(b"\n", offset)
            if nl < 0:
                pending += chunk[offset:]
                break
            line = pending + chunk[offset:nl]
            pending = b""
            pending_end = start + nl  # raw offset of the newline ending this event
            offset = nl + 1
            event = orjson.loads(line)
            kind = event.get("type", "?")
            kinds[kind] = kinds.get(kind, 0) + 1
            name = (event.get("object") or {}).get("metadata", {}).get("name", "")
            if name.startswith(prefix) and name not in events:
                received = recvs[bisect.bisect_right(ends, pending_end)][0]
                events[name] = (kind, received)
        pos = start + size + 2
    return {"status": status, "error": None, "events": events, "kinds": kinds}


def watcher_main(port: int, ca_file: str, cert: tuple[str, str], paths: list[str], control, event_prefix: str) -> None:
    ctx = ssl.create_default_context(cafile=ca_file)
    ctx.load_cert_chain(*cert)
    count = len(paths)
    streams: list[Stream] = []
    sel = selectors.DefaultSelector()
    try:
        for path in paths:
            request = (
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json\r\n"
                f"User-Agent: orch-bench-watcher\r\n\r\n"
            ).encode()
            raw = socket.create_connection(("127.0.0.1", port), timeout=60)
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock = ctx.wrap_socket(raw, server_hostname="127.0.0.1")
            sock.sendall(request)
            sock.setblocking(False)
            stream = Stream(sock)
            streams.append(stream)
            sel.register(sock, selectors.EVENT_READ, stream)
    except OSError as err:
        control.send(("error", f"opened {len(streams)} of {count} watches: {err!r}"))
        return
    sel.register(control, selectors.EVENT_READ, None)
    control.send(("opened", len(streams)))

    marker: bytes | None = None
    marker_name = ""
    marker_deadline = 0.0
    seen = 0
    while True:
        timeout = 0.5 if marker is None else max(0.0, min(0.5, marker_deadline - time.monotonic()))
        for key, _ in sel.select(timeout):
            stream = key.data
            if stream is None:
                message = control.recv()
                if message[0] == "marker":
                    marker_name = message[1]
                    marker = marker_name.encode()
                    marker_deadline = time.monotonic() + message[2]
                    seen = 0
                    for s in streams:  # the marker may have arrived before this command did
                        s.saw_marker = marker in b"".join(data for _, data in s.recvs[-50:])
                        seen += s.saw_marker
                elif message[0] == "finish":
                    cpu = cpu_now()
                    for s in streams:
                        s.sock.close()
                    results = [parse_stream(s.recvs, event_prefix) for s in streams]
                    control.send(("result", results, cpu))
                    return
                continue
            while True:
                try:
                    data = stream.sock.recv(65536)
                except ssl.SSLWantReadError:
                    break
                except OSError:
                    data = b""
                now = time.monotonic()
                if not data:
                    stream.closed = True
                    sel.unregister(stream.sock)
                    break
                stream.recvs.append((now, data))
                if marker is not None and not stream.saw_marker and marker in stream.tail + data:
                    stream.saw_marker = True
                    seen += 1
                stream.tail = data[-80:]
        if marker is not None and (seen == len(streams) or time.monotonic() >= marker_deadline):
            control.send(("seen", marker_name, seen, cpu_now()))
            marker = None


class WatcherPool:
    """`total` watch streams spread over `procs` processes; `path` is one for all, or one per stream (results
    come back in the same order)."""

    def __init__(self, server, path: str | list[str], total: int, procs: int, event_prefix: str):
        import multiprocessing

        mp = multiprocessing.get_context("spawn")
        self.links = []
        self.procs = []
        procs = max(1, min(procs, total))
        paths = [path] * total if isinstance(path, str) else list(path)
        offset = 0
        for i in range(procs):
            share = total // procs + (1 if i < total % procs else 0)
            parent, child = mp.Pipe()
            proc = mp.Process(
                target=watcher_main,
                daemon=True,
                args=(
                    server.port,
                    str(server.ca_file),
                    server.client_cert,
                    paths[offset : offset + share],
                    child,
                    event_prefix,
                ),
            )
            offset += share
            proc.start()
            self.links.append(parent)
            self.procs.append(proc)
        for link in self.links:
            message = link.recv()
            if message[0] != "opened":
                self.close()
                raise RuntimeError(message[1])

    def wait_marker(self, name: str, timeout: float) -> tuple[int, float]:
        """Streams that received `name` within timeout, and the watcher processes' CPU seconds so far."""
        for link in self.links:
            link.send(("marker", name, timeout))
        seen, cpu = 0, 0.0
        for link in self.links:
            message = link.recv()
            seen += message[2]
            cpu += message[3]
        return seen, cpu

    def finish(self) -> tuple[list[dict], float]:
        results: list[dict] = []
        cpu = 0.0
        for link in self.links:
            link.send(("finish",))
        for link in self.links:
            message = link.recv()
            results.extend(message[1])
            cpu += message[2]
        self.close()
        return results, cpu

    def close(self) -> None:
        for proc in self.procs:
            proc.join(timeout=30)
            if proc.is_alive():
                proc.terminate()
