"""Faults on demand (issue 58) end to end: a real server (two gunicorn workers) with --enable-fault-injection,
on SQLite and PostgreSQL, failing requests of the official `kubernetes` client, kubectl and kopf the way
production does."""

from __future__ import annotations

import concurrent.futures
import json
import os
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver.faults.injector import chosen
from orch_apiserver.faults.manifest import fault_manifest

from . import RunningServer, poll, server_on

pytestmark = pytest.mark.e2e

GROUP = "testing.k8s.io"
FAULTS = f"/apis/{GROUP}/v1alpha1/faults"
HEADER = "X-Orch-Fault"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def faulty(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """Two workers sharing one store: a Fault's `times` must hold across them."""
    args = ["--api-domain", "k8s.io", "--enable-fault-injection", "--workers", "2"]
    with server_on(request.param, tmp_path_factory.mktemp(f"faults-{request.param}"), args) as running:
        yield running


@pytest.fixture(scope="module")
def api(faulty: RunningServer) -> Iterator[Any]:
    from kubernetes import config

    client = config.new_client_from_config(config_file=str(faulty.kubeconfig))
    yield client
    client.close()


@pytest.fixture
def ns(faulty: RunningServer) -> Iterator[str]:
    name = f"f-{uuid.uuid4().hex[:8]}"
    assert faulty.session.post("/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
    yield name
    faulty.session.delete(f"/api/v1/namespaces/{name}")


def add_fault(server: RunningServer, **keywords: Any) -> str:
    name = f"fault-{uuid.uuid4().hex[:8]}"
    made = server.session.post(FAULTS, json=fault_manifest(name, f"{GROUP}/v1alpha1", **keywords))
    assert made.status_code == 201, made.text
    return name


def matched(server: RunningServer, name: str) -> int:
    return int(server.get(f"{FAULTS}/{name}").json()["status"].get("matched") or 0)


def configmap(server: RunningServer, ns: str, name: str, data: dict | None = None) -> dict:
    made = server.session.post(
        f"/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": name}, "data": data or {"n": "0"}}
    )
    assert made.status_code == 201, made.text
    return made.json()


# -- actions through the official client ------------------------------------------------------------


def test_an_error_is_the_reference_status_and_stores_nothing(faulty: RunningServer, api: Any, ns: str) -> None:
    from kubernetes import client

    name = add_fault(faulty, verbs=["create"], resources=["configmaps"], namespaces=[ns], error=409, times=1)
    core = client.CoreV1Api(api)
    with pytest.raises(client.ApiException) as refused:
        core.create_namespaced_config_map(ns, {"metadata": {"name": "a"}})
    assert refused.value.status == 409
    assert refused.value.headers[HEADER] == name
    status = json.loads(refused.value.body)
    assert status["kind"] == "Status" and status["reason"] == "Conflict"
    assert (
        "the object has been modified; please apply your changes to the latest version and try again"
        in (status["message"])
    )
    assert faulty.get(f"/api/v1/namespaces/{ns}/configmaps/a").status_code == 404  # nothing stored
    assert core.create_namespaced_config_map(ns, {"metadata": {"name": "a"}}).metadata.name == "a"  # times: 1
    assert matched(faulty, name) == 1


@pytest.mark.parametrize("client_go_retries", [False, True])
def test_the_clients_own_retry_sees_429_with_retry_after(
    faulty: RunningServer, api: Any, ns: str, client_go_retries: bool
) -> None:
    """The official client retries a GET answered 429 with Retry-After (urllib3's Retry by default, client-go's
    semantics with client_go_retries): the call succeeds, and the Fault took the first try."""
    from kubernetes import client, config

    configmap(faulty, ns, "busy")
    name = add_fault(faulty, verbs=["get"], names=["busy"], namespaces=[ns], error=429, retry_after=1, times=1)
    raw = faulty.get(f"/api/v1/namespaces/{ns}/configmaps/busy")  # requests does not retry: the 429 itself
    assert raw.status_code == 429 and raw.headers["Retry-After"] == "1" and raw.headers[HEADER] == name
    assert raw.json()["reason"] == "TooManyRequests" and raw.json()["details"]["retryAfterSeconds"] == 1
    faulty.session.patch(
        f"{FAULTS}/{name}", json={"spec": {"times": 2}}, headers={"Content-Type": "application/merge-patch+json"}
    )
    configuration = client.Configuration()
    config.load_kube_config(config_file=str(faulty.kubeconfig), client_configuration=configuration)
    configuration.client_go_retries = client_go_retries
    with client.ApiClient(configuration) as own:
        assert client.CoreV1Api(own).read_namespaced_config_map("busy", ns).metadata.name == "busy"
    assert matched(faulty, name) == 2


def test_retry_on_conflict_shape(faulty: RunningServer, api: Any, ns: str) -> None:
    """client-go's RetryOnConflict: read, change, write; on 409 read again and repeat."""
    from kubernetes import client

    configmap(faulty, ns, "counter")
    name = add_fault(faulty, names=["counter"], namespaces=[ns], conflict_once=True)
    core = client.CoreV1Api(api)
    attempts = 0
    for _ in range(5):
        attempts += 1
        current = core.read_namespaced_config_map("counter", ns)
        current.data["n"] = str(int(current.data["n"]) + 1)
        try:
            core.replace_namespaced_config_map("counter", ns, current)
            break
        except client.ApiException as err:
            assert err.status == 409 and err.headers[HEADER] == name
    assert attempts == 2
    assert core.read_namespaced_config_map("counter", ns).data == {"n": "1"}
    assert matched(faulty, name) == 1


def test_after_write_stores_then_fails(faulty: RunningServer, api: Any, ns: str) -> None:
    """The lost response: the object is there, the client heard 500; its retry meets AlreadyExists."""
    from kubernetes import client

    name = add_fault(faulty, verbs=["create"], resources=["configmaps"], namespaces=[ns], after_write=500, times=1)
    core = client.CoreV1Api(api)
    with pytest.raises(client.ApiException) as lost:
        core.create_namespaced_config_map(ns, {"metadata": {"name": "once"}})
    assert lost.value.status == 500 and lost.value.headers[HEADER] == name
    assert json.loads(lost.value.body)["reason"] == "InternalError"
    assert core.read_namespaced_config_map("once", ns).metadata.name == "once"  # stored all the same
    with pytest.raises(client.ApiException) as again:
        core.create_namespaced_config_map(ns, {"metadata": {"name": "once"}})
    assert again.value.status == 409 and json.loads(again.value.body)["reason"] == "AlreadyExists"


def test_a_delay_then_served(faulty: RunningServer, ns: str) -> None:
    name = add_fault(faulty, verbs=["list"], resources=["configmaps"], namespaces=[ns], delay="100ms", times=1)
    listed = faulty.get(f"/api/v1/namespaces/{ns}/configmaps")
    assert listed.status_code == 200 and listed.headers[HEADER] == name
    assert HEADER not in faulty.get(f"/api/v1/namespaces/{ns}/configmaps").headers
    assert matched(faulty, name) == 1


def test_a_watch_expires_after_n_events(faulty: RunningServer, api: Any, ns: str) -> None:
    from kubernetes import client, watch

    for i in range(3):
        configmap(faulty, ns, f"w{i}")
    name = add_fault(faulty, verbs=["watch"], namespaces=[ns], expire_after_events=2, times=1)
    seen = []
    with pytest.raises(client.ApiException) as expired:
        for event in watch.Watch().stream(client.CoreV1Api(api).list_namespaced_config_map, ns, timeout_seconds=30):
            seen.append(event["object"].metadata.name)
    assert expired.value.status == 410 and "Expired" in str(expired.value.reason)
    assert len(seen) == 2
    assert matched(faulty, name) == 1


def test_a_watch_closes_quietly_after_n_events(faulty: RunningServer, ns: str) -> None:
    listed = faulty.get(f"/api/v1/namespaces/{ns}/configmaps").json()
    name = add_fault(faulty, verbs=["watch"], namespaces=[ns], close_after_events=1)
    rv = listed["metadata"]["resourceVersion"]
    # only ours: the root CA publisher adds its ConfigMap to a new namespace whenever it gets to it
    path = f"/api/v1/namespaces/{ns}/configmaps?watch=1&resourceVersion={rv}&timeoutSeconds=60&labelSelector=ours"
    with faulty.session.get(path, stream=True) as stream:
        assert stream.headers[HEADER] == name
        for cm in ("c1", "c2"):
            made = faulty.session.post(
                f"/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": cm, "labels": {"ours": "yes"}}}
            )
            assert made.status_code == 201, made.text
        lines = [json.loads(line) for line in stream.iter_lines() if line]  # ends after one event, no ERROR
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in lines] == [("ADDED", "c1")]


# -- times, probability, matching ---------------------------------------------------------------------


def test_probability_with_a_seed_fails_the_same_requests(faulty: RunningServer, ns: str) -> None:
    configmap(faulty, ns, "dice")
    patterns = []
    for _ in range(2):
        name = add_fault(faulty, verbs=["get"], names=["dice"], namespaces=[ns], error=503, probability=0.5, seed=7)
        pattern = [faulty.get(f"/api/v1/namespaces/{ns}/configmaps/dice").status_code for _ in range(16)]
        assert matched(faulty, name) == pattern.count(503)
        assert faulty.session.delete(f"{FAULTS}/{name}").status_code == 200
        patterns.append(pattern)
    assert patterns[0] == patterns[1] == [503 if chosen(7, 0.5, n) else 200 for n in range(1, 17)]
    assert 0 < patterns[0].count(503) < 16


def test_times_one_fires_once_across_workers(faulty: RunningServer, ns: str) -> None:
    configmap(faulty, ns, "shared")
    name = add_fault(faulty, verbs=["get"], names=["shared"], namespaces=[ns], error=500, times=1)
    path = f"/api/v1/namespaces/{ns}/configmaps/shared"
    sessions = [faulty.new_session() for _ in range(8)]
    try:
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            codes = list(pool.map(lambda i: sessions[i % 8].get(path).status_code, range(48)))
    finally:
        for session in sessions:
            session.close()
    assert codes.count(500) == 1 and codes.count(200) == 47
    assert matched(faulty, name) == 1


ADMIN_AS_ALICE = {"Impersonate-User": "alice", "Impersonate-Group": "system:masters"}
#: team-a may do anything (test_matching_by_each_field binds it to cluster-admin)
AS_TEAM_A = {"Impersonate-User": "bob", "Impersonate-Group": "team-a"}

#: (match keywords, a request it selects, one it does not): method, path suffix, headers, query
MATCHING = {
    "verbs": ({"verbs": ["list"]}, ("GET", "", {}), ("GET", "/m", {})),
    "resources": ({"resources": ["configmaps"]}, ("GET", "/m", {}), ("GET", "secrets", {})),
    "subresources": ({"subresources": ["status"]}, ("GET", "status", {}), ("GET", "/m", {})),
    "names": ({"names": ["m"]}, ("GET", "/m", {}), ("GET", "/other", {})),
    "users": ({"users": ["alice"]}, ("GET", "/m", ADMIN_AS_ALICE), ("GET", "/m", {})),
    "groups": ({"groups": ["team-a"]}, ("GET", "/m", AS_TEAM_A), ("GET", "/m", ADMIN_AS_ALICE)),
    "userAgents": (
        {"user_agents": ["my-operator/"]},
        ("GET", "/m", {"User-Agent": "my-operator/1.0"}),
        ("GET", "/m", {}),
    ),
    "fieldManagers": (
        {"field_managers": ["reconciler"]},
        ("PATCH", "/m?fieldManager=reconciler", {}),
        ("PATCH", "/m?fieldManager=other", {}),
    ),
}


def _request(server: RunningServer, ns: str, method: str, suffix: str, headers: dict) -> Any:
    if suffix == "status":  # a subresource of another kind (configmaps have none): a namespace's status
        return server.session.request(method, f"/api/v1/namespaces/{ns}/status", headers=headers)
    if suffix == "secrets":
        return server.session.request(method, f"/api/v1/namespaces/{ns}/secrets", headers=headers)
    path = f"/api/v1/namespaces/{ns}/configmaps{suffix}"
    if method == "PATCH":
        headers = {**headers, "Content-Type": "application/merge-patch+json"}
        return server.session.patch(path, data=b'{"data":{"k":"v"}}', headers=headers)
    return server.session.request(method, path, headers=headers)


@pytest.mark.parametrize("field", sorted(MATCHING))
def test_matching_by_each_field(faulty: RunningServer, ns: str, field: str) -> None:
    keywords, selected, other = MATCHING[field]
    binding = {
        "metadata": {"name": f"team-a-{ns}"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "team-a"}],
    }
    bindings = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"
    assert faulty.session.post(bindings, json=binding).status_code == 201
    configmap(faulty, ns, "m")
    configmap(faulty, ns, "other")
    name = add_fault(faulty, namespaces=[ns], error=503, **keywords)
    try:
        hit = _request(faulty, ns, *selected)
        assert hit.status_code == 503 and hit.headers[HEADER] == name, hit.text
        missed = _request(faulty, ns, *other)
        assert missed.status_code < 300 and HEADER not in missed.headers, missed.text
    finally:
        assert faulty.session.delete(f"{FAULTS}/{name}").status_code == 200
        faulty.session.delete(f"{bindings}/team-a-{ns}")


def test_a_fault_never_matches_requests_on_faults(faulty: RunningServer) -> None:
    name = add_fault(faulty, error=500)  # matches everything else
    try:
        listed = faulty.get(FAULTS)
        assert listed.status_code == 200 and HEADER not in listed.headers
    finally:
        assert faulty.session.delete(f"{FAULTS}/{name}").status_code == 200


# -- the kind itself ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "field"),
    [
        ({"explode": {}}, "spec.action"),
        ({"error": {"code": 503}, "delay": "1s"}, "spec.action"),
        ({"error": {"code": 700}}, "spec.action.error.code"),
        ({"error": {"code": 200}}, "spec.action.error.code"),
        ({"delay": "-1s"}, "spec.action.delay"),
        ({"afterWrite": {"error": {"code": 42}}}, "spec.action.afterWrite.error.code"),
        ({"watch": {}}, "spec.action.watch"),
    ],
)
def test_bad_input_is_422_naming_the_field(faulty: RunningServer, action: dict, field: str) -> None:
    body = {"apiVersion": f"{GROUP}/v1alpha1", "kind": "Fault", "metadata": {"name": "bad"}, "spec": {"action": action}}
    refused = faulty.session.post(FAULTS, json=body)
    assert refused.status_code == 422, refused.text
    status = refused.json()
    assert status["reason"] == "Invalid"
    assert field in [cause["field"] for cause in status["details"]["causes"]], status


def test_without_the_flag_the_group_is_not_served(server: RunningServer) -> None:
    refused = server.get("/apis/testing.orch.io/v1alpha1/faults")
    assert refused.status_code == 404 and refused.json()["kind"] == "Status"
    groups = [g["name"] for g in server.get("/apis").json()["groups"]]
    assert "testing.orch.io" not in groups


def test_kubectl_gets_explains_and_applies_faults(faulty: RunningServer, kubectl: str, ns: str, tmp_path: Path) -> None:
    env = {**os.environ, "KUBECONFIG": str(faulty.kubeconfig)}

    def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([kubectl, *args], env=env, capture_output=True, text=True, input=stdin, timeout=60)

    manifest = fault_manifest(
        "from-kubectl", f"{GROUP}/v1alpha1", verbs=["get"], names=["k"], namespaces=[ns], error=504
    )
    applied = run("apply", "-f", "-", stdin=json.dumps(manifest))
    assert applied.returncode == 0, applied.stderr
    try:
        configmap(faulty, ns, "k")
        failed = run("get", "configmap", "k", "-n", ns)
        assert failed.returncode != 0 and "Timeout" in failed.stderr, failed.stderr
        table = run("get", "faults")
        assert table.returncode == 0, table.stderr
        header, *rows = table.stdout.splitlines()
        assert header.split() == ["NAME", "ACTION", "TIMES", "MATCHED", "AGE"]
        row = next(r.split() for r in rows if r.startswith("from-kubectl"))
        assert row[1:3] == ["error", "504"] and int(row[4]) >= 1
        explained = run("explain", "faults.spec.action")
        assert explained.returncode == 0, explained.stderr
        for field_name in ("error", "delay", "afterWrite", "watch", "conflictOnce"):
            assert field_name in explained.stdout
        resources = run("api-resources", "--api-group", GROUP)
        assert resources.returncode == 0 and "faults" in resources.stdout and "Fault" in resources.stdout
    finally:
        run("delete", "fault", "from-kubectl")


OPERATOR = textwrap.dedent("""
    import os

    import kopf
    import kubernetes

    kubernetes.config.load_kube_config(config_file=os.environ["KUBECONFIG"])


    @kopf.on.login()
    def login(**kwargs):
        return kopf.login_with_kubeconfig(**kwargs)


    @kopf.on.create("", "v1", "configmaps", labels={{"app": "watched"}})
    def made(name, namespace, **_):
        kubernetes.client.CoreV1Api().create_namespaced_config_map(
            namespace, {{"metadata": {{"name": f"{{name}}-seen"}}}})
""")


def test_kopf_recovers_from_an_expired_watch(faulty: RunningServer, ns: str, tmp_path: Path) -> None:
    name = add_fault(faulty, verbs=["watch"], resources=["configmaps"], namespaces=[ns], expire_after_events=1, times=1)
    operator = tmp_path / "operator.py"
    operator.write_text(OPERATOR.format())
    env = {**os.environ, "KUBECONFIG": str(faulty.kubeconfig)}
    env.pop("REQUESTS_CA_BUNDLE", None)
    log_path = tmp_path / "kopf.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "kopf", "run", "--standalone", "--namespace", ns, str(operator)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=tmp_path,
        )
        try:
            labelled = {"metadata": {"labels": {"app": "watched"}}}
            for cm in ("first", "second"):
                made = faulty.session.post(
                    f"/api/v1/namespaces/{ns}/configmaps",
                    json={**labelled, "metadata": {**labelled["metadata"], "name": cm}},
                )
                assert made.status_code == 201, made.text
                try:
                    poll(lambda cm=cm: faulty.get(f"/api/v1/namespaces/{ns}/configmaps/{cm}-seen").status_code == 200)
                except AssertionError:
                    pytest.fail(log_path.read_text()[-4000:])
        finally:
            process.terminate()
            process.wait(timeout=30)
    assert matched(faulty, name) == 1  # the watch did expire, and kopf watched again
