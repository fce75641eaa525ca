"""A client without rights cannot take a worker down: refused writes and reads, repeated on keep-alive sessions from
several threads across both workers, are all answered 403, and no worker dies or restarts meanwhile.

Each refused write is answered with `Connection: close`, before its body is read when the body is still arriving,
and the client opens its next connection at once: the kernel gives the new connection the descriptor number the
closed one had. A worker that ran a callback of the closed connection later in the same poll batch closed the
descriptor behind the poller's back, and the next accept found its number registered (KeyError, exit 255).
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Iterator

import pytest
import requests
from orch_apiserver import pki

from . import RunningServer, child_pids, start_server

THREADS = 4
ROUNDS = 125  # x 4 requests x 4 threads: 2,000 requests
LEASE = "/apis/coordination.orch.io/v1/namespaces/kube-node-lease/leases/n1"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
SECRETS = "/api/v1/namespaces/kube-system/secrets"


def lease(size: int) -> bytes:
    spec = {"holderIdentity": "n" * size}
    return json.dumps(
        {"apiVersion": "coordination.orch.io/v1", "kind": "Lease", "metadata": {"name": "n1"}, "spec": spec}
    ).encode()


def configmap(size: int) -> bytes:
    return json.dumps(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v" * size}}
    ).encode()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningServer, tuple[str, str]]]:
    tmp = tmp_path_factory.mktemp("refused-clients")
    running = start_server(tmp / "data", ["--workers", "2"])
    ca = pki.load_pair(running.data_dir / "pki" / "ca.crt", running.data_dir / "pki" / "ca.key")
    pki.write_pair(pki.issue_client_cert(ca, "nobody", ["team"]), tmp / "nobody.crt", tmp / "nobody.key")
    try:
        yield running, (str(tmp / "nobody.crt"), str(tmp / "nobody.key"))
    finally:
        running.stop()


def test_refused_clients_on_keep_alive_sessions_never_take_a_worker_down(
    server: tuple[RunningServer, tuple[str, str]],
) -> None:
    running, nobody = server
    workers_before = child_pids(running.process.pid)
    assert len(workers_before) == 2
    answers: Counter[int] = Counter()
    failures: list[str] = []
    lock = threading.Lock()

    def client(seed: int) -> None:
        with running.new_session(cert=nobody) as session:
            for n in range(ROUNDS):
                size = (seed * 7919 + n * 104729) % 120_000  # over 64 KiB some arrive in parts
                calls = [
                    ("PUT", LEASE, lease(size)),
                    ("POST", CONFIGMAPS, configmap(size)),
                    ("GET", SECRETS, None),
                    ("GET", f"{LEASE}?watch=false", None),
                ]
                for method, path, body in calls:
                    try:
                        reply = session.request(method, path, data=body, headers={"Content-Type": "application/json"})
                        with lock:
                            answers[reply.status_code] += 1
                    except requests.RequestException as err:  # reset, or closed without an answer
                        with lock:
                            failures.append(f"{method} {path}: {err!r}"[:300])

    threads = [threading.Thread(target=client, args=(seed,)) for seed in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    assert answers == {403: THREADS * ROUNDS * 4}
    log = running.log()
    assert "Exception in worker process" not in log
    assert not re.search(r"Worker \(pid:\d+\) (exited|was sent)", log), log[-3000:]
    assert child_pids(running.process.pid) == workers_before
    refused_by = set(re.findall(r"\[(\d+)\] \[INFO\] orch_apiserver\.httplog: .*user=\"nobody\".*resp=403", log))
    assert {int(pid) for pid in refused_by} == workers_before  # both workers answered refusals
