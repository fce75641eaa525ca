"""Where one request's time goes, in process: the Flask app (no gunicorn, no TLS) serving GET and create of
ConfigMaps as a token user of system:masters, as ../shared/perf/side-by-side.sh does over the network.

    python bench/request_profile.py --backend postgresql --requests 3000 [--profile get|create] [--top 40]
                                    [--sort tottime|cumulative]
    python bench/request_profile.py --backend postgresql --steps

--steps: where one GET's time goes instead, without the test client (the WSGI app called with a ready environ):
the median µs of each handler-chain step's before/after part, the handler, and the whole request.

Prints microseconds per request (wall, one thread) for GET, create, update (PUT), merge patch, apply and
delete; with --profile, the cProfile of that verb sorted by own time. Run by hand; no assertions.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e import scratch_database

TOKEN = "bench-token"
HEADERS = {"Authorization": f"Bearer {TOKEN}"}
CM = "/api/v1/namespaces/default/configmaps"
DATA = {"a": "x" * 400}


def _app(url: str, data_dir: Path):  # type: ignore[no-untyped-def]
    from orch_apiserver import create_app
    from orch_apiserver.storage.schema import ensure_schema

    tokens = data_dir / "tokens.csv"
    tokens.write_text(f'{TOKEN},bench,1,"system:masters"\n')
    ensure_schema(url, upgrade=True)
    return create_app({"DATABASE_URL": url, "DATA_DIR": str(data_dir), "TOKEN_AUTH_FILE": str(tokens)})


def _seeded_app(url: str, data_dir: Path):  # type: ignore[no-untyped-def]
    """The app with the ConfigMap every GET reads."""
    app = _app(url, data_dir)
    created = app.test_client().post(CM, json={"metadata": {"name": "cm0"}, "data": DATA}, headers=HEADERS)
    assert created.status_code == 201, created.get_data(as_text=True)[:300]
    return app


def _timed(n: int, call: Callable[[int], object]) -> float:
    start = time.perf_counter()
    for i in range(n):
        call(i)
    return (time.perf_counter() - start) / n * 1e6


def run(url: str, data_dir: Path, n: int, profile: str | None, top: int, sort: str = "tottime") -> None:
    app = _seeded_app(url, data_dir)
    client = app.test_client()
    headers = HEADERS

    def ok(resp, *codes: int):  # type: ignore[no-untyped-def]
        assert resp.status_code in codes, resp.get_data(as_text=True)[:300]

    verbs: dict[str, Callable[[int], object]] = {
        "get": lambda i: ok(client.get(f"{CM}/cm0", headers=headers), 200),
        "create": lambda i: ok(
            client.post(CM, json={"metadata": {"name": f"c{i}"}, "data": DATA}, headers=headers), 201
        ),
        "update": lambda i: ok(
            client.put(f"{CM}/c{i}", json={"metadata": {"name": f"c{i}"}, "data": {"b": "1"}}, headers=headers), 200
        ),
        "patch": lambda i: ok(
            client.patch(
                f"{CM}/c{i}",
                data='{"data":{"c":"2"}}',
                headers={**headers, "Content-Type": "application/merge-patch+json"},
            ),
            200,
        ),
        "apply": lambda i: ok(
            client.patch(
                f"{CM}/c{i}?fieldManager=bench&force=true",
                data=(f'{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"c{i}"}},"data":{{"d":"3"}}}}'),
                headers={**headers, "Content-Type": "application/apply-patch+yaml"},
            ),
            200,
        ),
        "delete": lambda i: ok(client.delete(f"{CM}/c{i}", headers=headers), 200),
    }
    for _ in range(200):  # warm: caches, prepared statements, imports
        verbs["get"](0)
    for verb, call in verbs.items():
        if verb == profile:
            profiler = cProfile.Profile()
            profiler.enable()
            took = _timed(n, call)
            profiler.disable()
            print(f"{verb:7} {took:8.0f} µs/request (profiled)")
            pstats.Stats(profiler).sort_stats(sort).print_stats(top)
        else:
            print(f"{verb:7} {_timed(n, call):8.0f} µs/request")


def _timed_into(fn: Callable[..., object], into: list[float]) -> Callable[..., object]:
    def timed(*args: object) -> object:
        began = time.perf_counter()
        try:
            return fn(*args)
        finally:
            into.append(time.perf_counter() - began)

    return timed


def steps(url: str, data_dir: Path, n: int, *_: object) -> None:
    import io
    import statistics

    from orch_apiserver.pipeline import EXTENSION_KEY
    from werkzeug.test import EnvironBuilder

    app = _seeded_app(url, data_dir)
    times: dict[str, list[float]] = {}
    for step in app.extensions[EXTENSION_KEY]:  # the installed hooks hold these very Step objects
        for part in ("before", "after"):
            fn = getattr(step, part)
            if fn is not None:
                object.__setattr__(step, part, _timed_into(fn, times.setdefault(f"{step.name} ({part})", [])))
    app.dispatch_request = _timed_into(app.dispatch_request, times.setdefault("handler", []))  # type: ignore[method-assign]
    template = EnvironBuilder(f"{CM}/cm0", headers=HEADERS).get_environ()
    whole = times.setdefault("whole request", [])

    def get() -> None:
        environ = {**template, "wsgi.input": io.BytesIO()}
        began = time.perf_counter()
        for _chunk in app(environ, lambda status, headers, exc_info=None: None):
            pass
        whole.append(time.perf_counter() - began)

    for _ in range(n):
        get()
    for name, values in times.items():
        print(f"{name:32} {statistics.median(values[n // 10 :]) * 1e6:8.1f} µs (median)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--profile", choices=["get", "create", "update", "patch", "apply", "delete"])
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--sort", choices=["tottime", "cumulative"], default="tottime", help="order of the profile")
    parser.add_argument("--steps", action="store_true", help="time each handler-chain step of a GET instead")
    args = parser.parse_args()
    measure = steps if args.steps else run
    with tempfile.TemporaryDirectory() as tmp:
        if args.backend == "sqlite":
            measure(f"sqlite:///{tmp}/bench.db", Path(tmp), args.requests, args.profile, args.top, args.sort)
        else:
            with scratch_database() as url:
                measure(url, Path(tmp), args.requests, args.profile, args.top, args.sort)


if __name__ == "__main__":
    main()
