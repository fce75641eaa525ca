"""LIST benchmark: N configmaps (~500 bytes of data each) in one namespace, listed whole and in chunks.

    python bench/list_bench.py                      # both backends, 10,000 objects, 20 runs each
    python bench/list_bench.py --backend postgresql --objects 10000 --runs 10 --chunk 500

Per backend: start the real server, create the namespace and the objects (parallel POSTs over keep-alive
connections), then
  * full list: GET .../configmaps, timed from just before the request is sent to the last body byte read
    (http.client, keep-alive, TLS; the client does not decode the body inside the timed part);
  * chunked list: GET ...?limit=CHUNK, then following metadata.continue until it is empty; per-chunk
    latency (same definition) and total wall time for all chunks (the client reads each continue token
    with a regex over the list metadata and decodes the chunks only after the timing);
  * server CPU seconds per full list (utime+stime of the gunicorn master and workers, /proc);
  * an in-process breakdown: Storage.list() alone (SQL + row objects), whole and in chunks with and
    without remainingItemCount, and the JSON splice, against the same database, without HTTP.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    NAMESPACE,
    Conn,
    MachineLoad,
    PostgresCpu,
    add_server_args,
    backends,
    bench_server,
    create_configmaps,
    ensure_namespace,
    fmt_ms,
    header,
    health,
    server_cpu,
    summary,
    wait_for_quiet,
    write_json,
)

PATH = f"/api/v1/namespaces/{NAMESPACE}/configmaps"


def timed_get(conn: Conn, path: str) -> tuple[float, int, bytes]:
    started = time.monotonic()
    status, body = conn.request("GET", path)
    return time.monotonic() - started, status, body


def full_lists(conn: Conn, runs: int, expected: int, cpu: Callable[[], float]) -> dict:
    elapsed, _, body = timed_get(conn, PATH)  # warm-up (also checks the result)
    t0 = time.monotonic()
    doc = orjson.loads(body)
    decode = time.monotonic() - t0
    if len(doc["items"]) != expected:
        raise RuntimeError(f"full list returned {len(doc['items'])} items, expected {expected}")
    times = []
    cpu0, pg, machine = cpu(), PostgresCpu(), MachineLoad()
    self0 = sum(os.times()[:2])
    for _ in range(runs):
        elapsed, status, body = timed_get(conn, PATH)
        if status != 200:
            raise RuntimeError(f"list: HTTP {status}")
        times.append(elapsed)
    used = (cpu() - cpu0) / runs
    pg_total = pg.used()
    load = machine.report(cpu() - cpu0 + pg_total + sum(os.times()[:2]) - self0)
    pg_used = pg_total / runs
    return {
        "latency": summary(times),
        "bytes": len(body),
        "client_decode_s": decode,
        "server_cpu_s_per_list": used,
        "postgres_cpu_s_per_list": pg_used,
        "machine": load,
    }


CONTINUE = re.compile(rb'"continue":"([^"]*)"')


def continue_token(body: bytes) -> str:
    """The continue token without decoding the body: the server writes metadata before the items."""
    head = body[: body.find(b'"items":')]
    found = CONTINUE.search(head)
    return found.group(1).decode() if found else ""


def chunked_lists(conn: Conn, runs: int, chunk: int, expected: int) -> dict:
    """All chunks, following continue; the client reads the token with a regex over the list metadata
    (decoding each chunk would add ~5 ms of client time per chunk) and checks the items after the timing."""
    per_chunk: list[float] = []
    totals: list[float] = []
    first_chunk: list[float] = []
    for run in range(runs + 1):  # the first run is a warm-up
        token = ""
        bodies: list[bytes] = []
        chunks: list[float] = []
        started = time.monotonic()
        while True:
            path = f"{PATH}?limit={chunk}" + (f"&continue={urllib.parse.quote(token)}" if token else "")
            elapsed, status, body = timed_get(conn, path)
            if status != 200:
                raise RuntimeError(f"chunked list: HTTP {status} {body[:300]!r}")
            chunks.append(elapsed)
            bodies.append(body)
            token = continue_token(body)
            if not token:
                break
        total = time.monotonic() - started
        docs = [orjson.loads(b) for b in bodies]
        items = sum(len(d["items"]) for d in docs)
        if items != expected or docs[-1]["metadata"].get("continue"):
            raise RuntimeError(f"chunked list returned {items} items, expected {expected}")
        if run:
            per_chunk.extend(chunks)
            first_chunk.append(chunks[0])
            totals.append(total)
    return {
        "total": summary(totals),
        "per_chunk": summary(per_chunk),
        "first_chunk": summary(first_chunk),
        "chunks_per_list": len(per_chunk) // runs,
    }


def breakdown(database_url: str, runs: int, chunk_size: int) -> dict:
    """Storage.list() and the splice in this process, no HTTP: how much of a LIST is the database layer."""
    from orch_apiserver.storage.store import Storage

    storage = Storage(database_url)
    prefix = f"/core/configmaps/{NAMESPACE}/"
    try:
        storage.list(prefix)
        sql, splice = [], []
        for _ in range(runs):
            t0 = time.monotonic()
            page = storage.list(prefix)
            t1 = time.monotonic()
            body = (
                b'{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":['
                + ",".join(s.data for s in page.items).encode()
                + b"]}"
            )
            t2 = time.monotonic()
            sql.append(t1 - t0)
            splice.append(t2 - t1)
        assert body
        chunked = {}
        for count in (True, False):  # remainingItemCount costs a COUNT over the rest of the range per chunk
            times = []
            for _ in range(runs):
                t0 = time.monotonic()
                start = None
                while True:
                    chunk = storage.list(prefix, start_after=start, limit=chunk_size, count_remaining=count)
                    if not chunk.more:
                        break
                    start = chunk.items[-1].key
                times.append(time.monotonic() - t0)
            chunked["with_count" if count else "without_count"] = summary(times)
        return {
            "storage_list": summary(sql),
            "splice": summary(splice),
            "rows": len(page.items),
            "storage_chunked": chunked,
        }
    finally:
        storage.dispose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_server_args(parser, workers=2, threads=32)
    parser.add_argument("--objects", type=int, default=10_000)
    parser.add_argument("--data-bytes", type=int, default=500, help="approximate size of each object's data")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--chunk", type=int, default=500)
    parser.add_argument("--create-threads", type=int, default=8)
    args = parser.parse_args()

    results = {"info": header("list_bench"), "args": vars(args), "backends": {}}
    for backend in backends(args.backend):
        print(
            f"\n## {backend}: {args.workers} workers x {args.threads} threads, {args.objects} configmaps "
            f"of ~{args.data_bytes} B data"
        )
        with bench_server(backend, args.workers, args.threads, keep=args.keep) as server:
            conn = Conn(server)
            ensure_namespace(conn)
            took = create_configmaps(server, args.objects, args.data_bytes, threads=args.create_threads)
            print(
                f"create: {args.objects} objects in {took:.1f} s ({args.objects / took:.0f}/s, "
                f"{args.create_threads} client threads)"
            )
            if args.quiet_wait:
                wait_for_quiet(args.quiet_wait)
            # the server publishes its root CA into every namespace (`<prefix>-root-ca.crt`): listed as well
            names = [i["metadata"]["name"] for i in orjson.loads(conn.request("GET", PATH)[1])["items"]]
            expected = args.objects + sum(name.endswith("-root-ca.crt") for name in names)
            full = full_lists(conn, args.runs, expected, lambda: server_cpu(server))
            print(
                f"full list ({full['bytes'] / 1e6:.2f} MB): {fmt_ms(full['latency'])}; server CPU "
                f"{full['server_cpu_s_per_list'] * 1000:.0f} ms/list, postgres CPU "
                f"{full['postgres_cpu_s_per_list'] * 1000:.0f} ms/list; client decode (not timed above) "
                f"{full['client_decode_s'] * 1000:.0f} ms"
            )
            load = full["machine"]
            print(
                f"  machine during the full lists: {load['machine_busy_s']:.1f} of {load['capacity_s']:.1f} "
                f"core-seconds busy, other processes {load['others_s']:.1f} s, load average {load['loadavg_1m']:.1f}"
            )
            if args.quiet_wait:
                wait_for_quiet(args.quiet_wait)
            chunked = chunked_lists(conn, args.runs, args.chunk, expected)
            print(f"chunked list, {chunked['chunks_per_list']} x limit={args.chunk}: total {fmt_ms(chunked['total'])}")
            print(f"  per chunk: {fmt_ms(chunked['per_chunk'])}")
            print(f"  first chunk: {fmt_ms(chunked['first_chunk'])}")
            conn.close()
            url = server.database_url or f"sqlite:///{server.data_dir / 'orch.db'}"
            parts = breakdown(url, args.runs, args.chunk)
            print(
                f"in-process, no HTTP: Storage.list() of {parts['rows']} rows {fmt_ms(parts['storage_list'])}; "
                f"splice {fmt_ms(parts['splice'], ('median',))}"
            )
            counted = parts["storage_chunked"]
            print(
                f"  Storage.list() in chunks of {args.chunk} (all chunks): with remainingItemCount "
                f"{fmt_ms(counted['with_count'], ('median', 'p99'))}, without "
                f"{fmt_ms(counted['without_count'], ('median', 'p99'))}"
            )
            state = health(server)
            print(f"health: {state}")
            results["backends"][backend] = {
                "create_s": took,
                "full": full,
                "chunked": chunked,
                "breakdown": parts,
                "health": str(state),
            }
    write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
