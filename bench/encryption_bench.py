"""What encryption at rest costs a Secret request (issue 53), in process: the Flask app (no gunicorn, no TLS) serving
create, GET, update and LIST of Secrets with and without an EncryptionConfiguration, as CPU µs per request of this
process (time.process_time: the database server's CPU is not in it), and the seal/open of one value alone (open:
values never opened before; a value read again comes from the process's memory of opened values).

    python bench/encryption_bench.py [--backend sqlite|postgresql] [--requests 2000] [--size 1024]

Run by hand; no assertions.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e import scratch_database

TOKEN = "bench-token"
HEADERS = {"Authorization": f"Bearer {TOKEN}"}
PATH = "/api/v1/namespaces/default/secrets"
PROVIDERS = ("none", "aescbc", "aesgcm", "secretbox")


def _config(provider: str, directory: Path) -> str | None:
    if provider == "none":
        return None
    key = base64.b64encode(os.urandom(32)).decode()
    document = {
        "apiVersion": "apiserver.config.k8s.io/v1",
        "kind": "EncryptionConfiguration",
        "resources": [{"resources": ["secrets"], "providers": [{provider: {"keys": [{"name": "k", "secret": key}]}}]}],
    }
    path = directory / f"{provider}.yaml"
    path.write_text(yaml.safe_dump(document))
    return str(path)


def _app(url: str, data_dir: Path, config: str | None):  # type: ignore[no-untyped-def]
    from orch_apiserver import create_app
    from orch_apiserver.storage.schema import ensure_schema

    tokens = data_dir / "tokens.csv"
    tokens.write_text(f'{TOKEN},bench,1,"system:masters"\n')
    ensure_schema(url, upgrade=True)
    return create_app(
        {
            "DATABASE_URL": url,
            "DATA_DIR": str(data_dir),
            "TOKEN_AUTH_FILE": str(tokens),
            "ENCRYPTION_PROVIDER_CONFIG": config,
            "BACKGROUND": False,  # no controllers or watch hub: only the requests' own CPU is counted
        }
    )


@contextlib.contextmanager
def _database(backend: str, directory: Path, name: str) -> Iterator[str]:
    if backend == "sqlite":
        yield f"sqlite:///{directory / name}.db"
        return
    with scratch_database() as url:
        yield url


def _cpu_us(n: int, call: Callable[[int], object]) -> float:
    start = time.process_time()
    for i in range(n):
        call(i)
    return (time.process_time() - start) / n * 1e6


def measure(url: str, directory: Path, config: str | None, n: int, value: str) -> tuple[float, ...]:
    """CPU µs of create, get, update, list of 100, and of one value's seal and open alone."""
    app = _app(url, directory, config)
    client = app.test_client()

    def ok(response, code: int) -> None:  # type: ignore[no-untyped-def]
        assert response.status_code == code, response.get_data(as_text=True)[:300]

    def body(i: int, extra: str = "") -> dict:
        return {"metadata": {"name": f"s{i}"}, "data": {"v": value, **({"w": extra} if extra else {})}}

    create = _cpu_us(n, lambda i: ok(client.post(PATH, json=body(i), headers=HEADERS), 201))
    get = _cpu_us(n, lambda i: ok(client.get(f"{PATH}/s{i}", headers=HEADERS), 200))
    update = _cpu_us(n, lambda i: ok(client.put(f"{PATH}/s{i}", json=body(i, "eA=="), headers=HEADERS), 200))
    listed = _cpu_us(max(1, n // 20), lambda i: ok(client.get(f"{PATH}?limit=100", headers=HEADERS), 200))
    storage = app.extensions["orch"].storage
    key = "/core/secrets/default/s0"
    text = storage.get(key).data
    seal = _cpu_us(n, lambda i: storage.encryption.seal(key, text))
    sealed = [storage.encryption.seal(key, text) for _ in range(n)]  # each one new: no value comes from memory
    opened = _cpu_us(n, lambda i: storage.encryption.open(key, sealed[i]))
    storage.dispose()
    return create, get, update, listed, seal, opened


def run(backend: str, n: int, size: int) -> None:
    value = base64.b64encode(os.urandom(size)).decode()
    print(f"{backend}: CPU µs per request of this process, {n} requests each, a Secret of {size} bytes")
    print(f"{'provider':10} {'create':>8} {'get':>8} {'update':>8} {'list100':>8} {'seal':>7} {'open':>7}")
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        directory = Path(tmp)
        for provider in PROVIDERS:
            with _database(backend, directory, provider) as url:
                create, get, update, listed, seal, opened = measure(
                    url, directory, _config(provider, directory), n, value
                )
            print(f"{provider:10} {create:8.0f} {get:8.0f} {update:8.0f} {listed:8.0f} {seal:7.1f} {opened:7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--size", type=int, default=1024, help="bytes of the Secret's value (before base64)")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    run(args.backend, args.requests, args.size)


if __name__ == "__main__":
    main()
