"""Exact reads far in the past: a list of 10,000 ConfigMaps at a revision 1,000,000 changes ago (PostgreSQL).

The store is filled by SQL before the server starts (generate_series: 10,000 creates, then 1,000,000 updates
spread round-robin over them, every change with its `prev`), so the figure is the read's, not the load's:

    python bench/history_bench.py [--objects 10000] [--changes 1000000] [--json FILE]

It prints the time of the whole exact list (one request), of the same list in pages of 500, of one object's exact
GET and of its history, each the median of --repeat tries, with the machine's load. No timing assertions."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from bench.common import header, machine_busy, postgres_cpu, write_json  # noqa: E402
from tests.e2e import psycopg_dsn, scratch_database, start_server  # noqa: E402

NAMESPACE = "bench"
PREFIX = f"/core/configmaps/{NAMESPACE}/"


def _doc(key_sql: str, rv_sql: str) -> str:
    """SQL for a ConfigMap's JSON text named by `key_sql` (an integer) at revision `rv_sql`."""
    return (
        '\'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-\' || '
        "lpad((" + key_sql + ")::text, 5, '0')"
        ' || \'","namespace":"' + NAMESPACE + '","resourceVersion":"\' || ' + rv_sql + " || '\"},"
        '"data":{"v":"\' || ' + rv_sql + " || '\"}}'"
    )


def fill(url: str, objects: int, changes: int) -> int:
    """Creates at revisions 2..objects+1, then `changes` updates; returns the revision just after the creates."""
    import psycopg

    created = objects + 1
    newest = created + changes
    start = time.time() - 3600  # an hour ago, a millisecond apart at most: all inside the history window
    step = 3000.0 / max(newest, 1)
    with psycopg.connect(psycopg_dsn(url), autocommit=True) as conn:
        conn.execute(
            "INSERT INTO changes (rv, key, type, data, prev, created_at, username, manager, verb) "
            f"SELECT g + 1, '{PREFIX}cm-' || lpad((g - 1)::text, 5, '0'), 'ADDED', {_doc('g - 1', '(g + 1)')}, "
            f"NULL, {start} + (g + 1) * {step}, 'bench', 'bench', 'create' FROM generate_series(1, {objects}) g"
        )
        conn.execute(
            "INSERT INTO changes (rv, key, type, data, prev, created_at, username, manager, verb) "
            f"SELECT r, '{PREFIX}cm-' || lpad(((r - 2) % {objects})::text, 5, '0'), 'MODIFIED', "
            f"{_doc(f'((r - 2) % {objects})', 'r')}, {_doc(f'((r - 2) % {objects})', f'(r - {objects})')}, "
            f"{start} + r * {step}, 'bench', 'bench', 'update' "
            f"FROM generate_series({created + 1}, {newest}) r"
        )
        conn.execute(
            "INSERT INTO objects (key, rv, data) SELECT DISTINCT ON (key) key, rv, data FROM changes "
            f"WHERE key >= '{PREFIX}' ORDER BY key, rv DESC"
        )
        conn.execute(f"UPDATE sequence SET rv = {newest} WHERE id = 1")
        conn.execute("ANALYZE changes")
        conn.execute("ANALYZE objects")
        size = conn.execute("SELECT pg_total_relation_size('changes')").fetchone()
        print(f"changes: {size[0] / 2**20:.0f} MiB with indexes, {size[0] / newest:.0f} bytes a change")
    return created


def timed(get, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        begin = time.perf_counter()
        result = get()
        times.append(time.perf_counter() - begin)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--objects", type=int, default=10000)
    parser.add_argument("--changes", type=int, default=1000000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    results: dict = {"info": header("history: exact list far in the past (PostgreSQL)"), "args": vars(args)}
    from orch_apiserver.storage.schema import ensure_schema

    with scratch_database() as url:
        ensure_schema(url, upgrade=True)
        began = time.perf_counter()
        past = fill(url, args.objects, args.changes)
        print(f"filled {args.objects} objects and {args.changes} changes in {time.perf_counter() - began:.1f} s")
        data_dir = Path(tempfile.mkdtemp(prefix="orch-bench-history-"))
        server = start_server(data_dir, ["--history-window", "24h"], database_url=url)
        try:
            base = f"/api/v1/namespaces/{NAMESPACE}/configmaps"
            exact = {"resourceVersion": str(past), "resourceVersionMatch": "Exact"}

            def whole() -> int:
                response = server.get(base, params=exact, timeout=120)
                response.raise_for_status()
                items = response.json()["items"]
                assert all(i["data"]["v"] == i["metadata"]["resourceVersion"] for i in items)
                return len(items)

            def paged() -> int:
                count, params = 0, {**exact, "limit": "500"}
                while True:
                    page = server.get(base, params=params, timeout=120).json()
                    count += len(page["items"])
                    token = page["metadata"].get("continue")
                    if not token:
                        return count
                    params = {"continue": token, "limit": "500"}

            def newest() -> int:
                return len(server.get(base, timeout=120).json()["items"])

            def one() -> int:
                return server.get(f"{base}/cm-00042", params=exact).status_code

            def history() -> int:
                return len(server.get(f"{base}/cm-00042", params={"orch.io/history": "true"}).json()["items"])

            busy = machine_busy()
            for name, run in (
                ("exact list (one request)", whole),
                ("exact list, pages of 500", paged),
                ("exact get", one),
                ("newest list (for comparison)", newest),
                ("history of one object (first page)", history),
            ):
                seconds, value = timed(run, args.repeat)
                results[name] = {"seconds": seconds, "result": value}
                print(f"{name:40s} {seconds * 1000:9.1f} ms  ({value})")
            results["machine_busy_cores"] = busy
            results["postgres_cpu_s"] = postgres_cpu()
            print(f"# machine busy before: {busy:.2f} cores; load average {os.getloadavg()}")
        finally:
            server.stop()
    write_json(args.json, results)


if __name__ == "__main__":
    main()
