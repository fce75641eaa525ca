"""Time travel through a real server on SQLite and PostgreSQL: an object changed by two users read at each past
revision and time, a paged list at a past revision, 410 past retention (leases kept shorter than deployments),
RBAC on history reads, and orchctl history --diff, get --at and rollback."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from tests.e2e import ApiSession, RunningServer, poll, server_on
from tests.orchctl.helpers import orchctl

NS = "shop"
DEPLOYMENTS = f"/apis/apps/v1/namespaces/{NS}/deployments"
CONFIGMAPS = f"/api/v1/namespaces/{NS}/configmaps"
LEASES = f"/apis/coordination.orch.io/v1/namespaces/{NS}/leases"
HISTORY = {"orch.io/history": "true"}
MERGE = {"Content-Type": "application/merge-patch+json"}
TOKENS = "alice-token,alice,1\nbob-token,bob,2\ncarol-token,carol,3\n"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    data_dir = tmp_path_factory.mktemp(f"history-{request.param}")
    tokens = data_dir / "tokens.csv"
    tokens.write_text(TOKENS)
    args = ["--token-auth-file", str(tokens), "--history-retention", "leases=3s,*=2h"]
    with server_on(request.param, data_dir, args) as running:
        _grant(running)
        yield running


def _grant(server: RunningServer) -> None:
    admin = server.session
    assert admin.post("/api/v1/namespaces", json={"metadata": {"name": NS}}).status_code == 201
    for user in ("alice", "bob"):
        binding = {
            "metadata": {"name": f"{user}-admin"},
            "roleRef": {"apiGroup": "rbac.authorization.orch.io", "kind": "ClusterRole", "name": "cluster-admin"},
            "subjects": [{"apiGroup": "rbac.authorization.orch.io", "kind": "User", "name": user}],
        }
        assert admin.post("/apis/rbac.authorization.orch.io/v1/clusterrolebindings", json=binding).ok
    role = {
        "metadata": {"name": "pod-reader", "namespace": NS},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}],
    }
    assert admin.post(f"/apis/rbac.authorization.orch.io/v1/namespaces/{NS}/roles", json=role).ok
    binding = {
        "metadata": {"name": "carol-pods", "namespace": NS},
        "roleRef": {"apiGroup": "rbac.authorization.orch.io", "kind": "Role", "name": "pod-reader"},
        "subjects": [{"apiGroup": "rbac.authorization.orch.io", "kind": "User", "name": "carol"}],
    }
    assert admin.post(f"/apis/rbac.authorization.orch.io/v1/namespaces/{NS}/rolebindings", json=binding).ok


def as_user(server: RunningServer, user: str) -> ApiSession:
    session = server.new_session(cert=None)
    session.headers["Authorization"] = f"Bearer {user}-token"
    return session


def rfc3339(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def deployment(name: str, replicas: int) -> dict:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}},
        },
    }


@pytest.fixture(scope="module")
def web(server: RunningServer) -> list[tuple[str, float, int]]:
    """deployment `web` written seven times by alice and bob: (revision, a time just after it, replicas)."""
    alice, bob = as_user(server, "alice"), as_user(server, "bob")
    created = alice.post(DEPLOYMENTS, json=deployment("web", 1), params={"fieldManager": "alice-tool"})
    assert created.status_code == 201, created.text
    written = [(created.json()["metadata"]["resourceVersion"], time.time(), 1)]
    for replicas in range(2, 8):
        user, manager = (bob, "bob-tool") if replicas % 2 == 0 else (alice, "alice-tool")
        patch = {"spec": {"replicas": replicas}}
        patched = user.patch(f"{DEPLOYMENTS}/web", json=patch, headers=MERGE, params={"fieldManager": manager})
        assert patched.ok, patched.text
        written.append((patched.json()["metadata"]["resourceVersion"], time.time(), replicas))
    return written


def test_history_lists_who_changed_the_object(server: RunningServer, web: list) -> None:
    items = server.get(f"{DEPLOYMENTS}/web", params=HISTORY).json()["items"]
    ours = [i for i in items if i["user"] in ("alice", "bob")]
    assert [(i["user"], i["manager"], i["verb"]) for i in ours] == [
        ("alice", "alice-tool", "create"),
        *[("bob", "bob-tool", "patch") if r % 2 == 0 else ("alice", "alice-tool", "patch") for r in range(2, 8)],
    ]
    assert [i["revision"] for i in ours] == [rv for rv, _, _ in web]
    assert all(i["time"].endswith("Z") for i in items)


def test_the_object_read_at_each_past_revision_and_time(server: RunningServer, web: list) -> None:
    for rv, after, replicas in web:
        exact = server.get(f"{DEPLOYMENTS}/web", params={"resourceVersion": rv, "resourceVersionMatch": "Exact"})
        assert exact.status_code == 200, exact.text
        assert exact.json()["spec"]["replicas"] == replicas
        assert exact.json()["metadata"]["resourceVersion"] == rv
        at_time = server.get(f"{DEPLOYMENTS}/web", params={"orch.io/asOf": rfc3339(after)})
        assert at_time.json()["spec"]["replicas"] == replicas
    before = server.get(f"{DEPLOYMENTS}/web", params={"orch.io/asOf": rfc3339(web[0][1] - 3600)})
    assert before.status_code == 404


def test_a_list_at_a_past_revision_pages(server: RunningServer) -> None:
    admin = server.session
    for i in range(5):
        assert admin.post(CONFIGMAPS, json={"metadata": {"name": f"cm-{i}"}, "data": {"v": "old"}}).ok
    then = admin.get(CONFIGMAPS).json()["metadata"]["resourceVersion"]
    for i in range(5):
        assert admin.patch(f"{CONFIGMAPS}/cm-{i}", json={"data": {"v": "new"}}, headers=MERGE).ok
    assert admin.delete(f"{CONFIGMAPS}/cm-1").ok
    assert admin.post(CONFIGMAPS, json={"metadata": {"name": "cm-9"}, "data": {"v": "new"}}).ok
    seen, params = [], {"resourceVersion": then, "resourceVersionMatch": "Exact", "limit": "2"}
    while True:
        page = admin.get(CONFIGMAPS, params=params).json()
        assert page["metadata"]["resourceVersion"] == then
        seen += [(i["metadata"]["name"], i["data"]["v"]) for i in page["items"] if i["metadata"]["name"][:3] == "cm-"]
        token = page["metadata"].get("continue")
        if not token:
            break
        params = {"continue": token, "limit": "2"}
    assert seen == [(f"cm-{i}", "old") for i in range(5)]


def test_leases_expire_while_deployments_remain(server: RunningServer, web: list) -> None:
    admin = server.session
    lease = admin.post(LEASES, json={"metadata": {"name": "holder"}, "spec": {"holderIdentity": "a"}}).json()
    first = lease["metadata"]["resourceVersion"]
    assert admin.patch(f"{LEASES}/holder", json={"spec": {"holderIdentity": "b"}}, headers=MERGE).ok
    exact = {"resourceVersion": first, "resourceVersionMatch": "Exact"}
    gone = poll(lambda: [r for r in [admin.get(f"{LEASES}/holder", params=exact)] if r.status_code == 410], timeout=60)[
        0
    ]
    assert gone.json()["reason"] == "Expired" and "too old resource version" in gone.json()["message"]
    listed = admin.get(LEASES, params=exact)
    assert listed.status_code == 410
    assert listed.json()["message"] == "The resourceVersion for the provided list is too old."
    oldest = admin.get(f"{DEPLOYMENTS}/web", params={"resourceVersion": web[0][0], "resourceVersionMatch": "Exact"})
    assert oldest.status_code == 200 and oldest.json()["spec"]["replicas"] == 1
    # watches: the leases' from the compacted revision end with 410, the deployments' from older still replay
    assert [e["type"] for e in watch(admin, LEASES, first)] == ["ERROR"]
    replayed = [e for e in watch(admin, DEPLOYMENTS, str(int(web[0][0]) - 1)) if e["type"] != "BOOKMARK"]
    replicas = [e["object"]["spec"]["replicas"] for e in replayed if e["object"]["metadata"]["name"] == "web"]
    changes = [r for i, r in enumerate(replicas) if i == 0 or replicas[i - 1] != r]  # status writes repeat them
    assert changes[:7] == [1, 2, 3, 4, 5, 6, 7]


def watch(session: ApiSession, path: str, resource_version: str) -> list[dict]:
    params = {"watch": "true", "resourceVersion": resource_version, "timeoutSeconds": "2"}
    response = session.get(path, params=params)
    return [json.loads(line) for line in response.text.splitlines() if line.strip()]


def test_history_reads_need_the_kinds_own_permission(server: RunningServer, web: list) -> None:
    admin, carol = server.session, as_user(server, "carol")
    assert admin.post(f"/api/v1/namespaces/{NS}/secrets", json={"metadata": {"name": "s"}, "data": {}}).ok
    assert carol.get(f"{DEPLOYMENTS}/web", params=HISTORY).status_code == 403
    assert carol.get(f"/api/v1/namespaces/{NS}/secrets/s", params=HISTORY).status_code == 403
    assert carol.get(f"/api/v1/namespaces/{NS}/secrets", params=HISTORY).status_code == 403
    past = {"resourceVersion": web[0][0], "resourceVersionMatch": "Exact"}
    assert carol.get(f"/api/v1/namespaces/{NS}/secrets/s", params=past).status_code == 403
    pods = carol.get(f"/api/v1/namespaces/{NS}/pods", params=HISTORY)
    assert pods.status_code == 200 and pods.json()["kind"] == "RevisionList"


def test_orchctl_history_diff_get_at_and_rollback(server: RunningServer, web: list) -> None:
    listed = orchctl(server, "-n", NS, "history", "deployment/web")
    assert listed.returncode == 0, listed.stderr
    lines = [line for line in listed.stdout.splitlines() if " alice " in f" {line} " or " bob " in f" {line} "]
    assert len(lines) == 7 and "create" in lines[0] and "alice-tool" in lines[0] and "bob-tool" in lines[1]
    diff = orchctl(server, "-n", NS, "history", "deployment/web", "--diff")
    assert diff.returncode == 0, diff.stderr
    assert "-  replicas: 1\n+  replicas: 2" in diff.stdout
    assert "managedFields" not in diff.stdout and "resourceVersion" not in diff.stdout
    at = orchctl(server, "-n", NS, "get", "deployment", "web", "--at", rfc3339(web[2][1]), "-o", "json")
    assert at.returncode == 0, at.stderr
    assert json.loads(at.stdout)["spec"]["replicas"] == 3
    ago = orchctl(server, "-n", NS, "get", "deployments", "--at", "1s ago", "-o", "name")
    assert ago.returncode == 0 and "web" in ago.stdout
    rolled = orchctl(server, "-n", NS, "rollback", "deployment/web", "--to-revision", web[1][0])
    assert rolled.returncode == 0, rolled.stderr
    now = server.get(f"{DEPLOYMENTS}/web").json()
    assert now["spec"]["replicas"] == 2 and now["metadata"]["resourceVersion"] not in [rv for rv, _, _ in web]
    last = server.get(f"{DEPLOYMENTS}/web", params=HISTORY).json()["items"][-1]
    everything = orchctl(server, "history", "--namespace", NS, "--since", "2h")
    assert everything.returncode == 0, everything.stderr
    assert "roles.rbac.authorization.orch.io/pod-reader" in everything.stdout  # every kind of the namespace
    assert "deployments.apps/web" in everything.stdout
    assert any(
        i["manager"] == "orchctl-rollback" and i["verb"] == "update"
        for i in server.get(f"{DEPLOYMENTS}/web", params=HISTORY).json()["items"]
    ), last
