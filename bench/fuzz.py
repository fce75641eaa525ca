"""The long fuzz run of tests/e2e/test_fuzz.py: N generated requests (default 5,000, spread over the kinds)
against a real server; prints the answers by code, the slowest one and any 5xx or non-Status error.

    python bench/fuzz.py [--cases 5000] [--database-url postgresql+psycopg://...]
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from orch_apiserver.testing import TestServer

from tests.e2e.test_fuzz import CUSTOM_TARGET, FUZZ_CRD, TARGETS, bodies, content_types, names, queries


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--database-url")
    args = parser.parse_args()
    codes: collections.Counter[int] = collections.Counter()
    failures: list[str] = []
    slowest = [0.0, ""]
    with TestServer(api_domain="orch.io", database_url=args.database_url) as server:
        session = requests.Session()
        session.verify, session.cert = server.ca_file, server.client_cert
        session.trust_env = False  # REQUESTS_CA_BUNDLE would replace our CA

        def fuzz(path: str, kind: str, api_version: str) -> None:
            @settings(
                max_examples=args.cases // (len(TARGETS) + 1),
                deadline=None,
                database=None,
                suppress_health_check=list(HealthCheck),
            )
            @given(data=st.data())
            def one(data: Any) -> None:
                method = data.draw(st.sampled_from(["POST", "PUT", "PATCH", "GET", "DELETE"]))
                body = data.draw(bodies(kind, api_version))
                params = {k: v.replace("\x00", "") for k, v in data.draw(queries).items() if k != "watch"}
                name = quote(data.draw(names), safe="") or "x"
                target = path if method == "POST" else f"{path}/{name}"
                if method == "GET":
                    params.pop("timeoutSeconds", None)
                ctype = data.draw(content_types) if method == "PATCH" else "application/json"
                started = time.monotonic()
                try:
                    response = session.request(
                        method,
                        server.url + target,
                        params=params,
                        data=None if method == "GET" else body,
                        headers={"Content-Type": ctype},
                        timeout=30,
                    )
                except requests.RequestException as err:  # a hang or a dropped connection: a finding, go on
                    failures.append(f"{type(err).__name__} {method} {target} {params}: {err}")
                    return
                elapsed = time.monotonic() - started
                codes[response.status_code] += 1
                if elapsed > slowest[0]:
                    slowest[:] = [elapsed, f"{method} {target}"]
                if response.status_code >= 500 or (
                    response.status_code >= 400 and response.headers.get("Content-Type") != "application/json"
                ):
                    failures.append(f"{response.status_code} {method} {target}: {response.text[:200]}")

            one()

        made = session.post(server.url + "/apis/apiextensions.orch.io/v1/customresourcedefinitions", json=FUZZ_CRD)
        assert made.status_code == 201, made.text
        deadline = time.monotonic() + 30
        while session.get(server.url + "/apis/fuzz.example.com/v1").status_code != 200:
            assert time.monotonic() < deadline, "the fuzz CRD was never served"
            time.sleep(0.05)
        for path, kind, api_version in [*TARGETS, CUSTOM_TARGET]:
            fuzz(path, kind, api_version)
    total = sum(codes.values())
    print(f"{total} requests: " + ", ".join(f"{code}: {n}" for code, n in sorted(codes.items())))
    print(f"slowest: {slowest[0] * 1000:.0f} ms ({slowest[1]})")
    print(f"5xx or non-Status errors: {len(failures)}")
    for line in failures[:20]:
        print("  " + line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
