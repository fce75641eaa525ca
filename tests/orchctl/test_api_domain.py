"""orchctl as a subprocess against servers in both spellings (`--api-domain k8s.io` and the default), never told
the domain: it finds it from discovery and answers right, or fails with a non-zero exit status (issue 56)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from orch_apiserver.client import load_config
from orch_apiserver.naming import DEFAULT_API_DOMAIN, Naming
from orch_apiserver.orchctl.domain import DomainCache

from tests.e2e import RunningServer, poll, start_server

from .helpers import CACHE_DIR, orchctl

pytestmark = pytest.mark.e2e
NS = "shop"
MERGE = {"Content-Type": "application/merge-patch+json"}


@pytest.fixture(scope="module", params=["k8s.io", DEFAULT_API_DOMAIN])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    domain = request.param
    args = ["--history-retention", "leases=2s,*=2h", "--controllers", "*,-rootcacertpublisher"]
    if domain != DEFAULT_API_DOMAIN:
        args += ["--api-domain", domain]
    running = start_server(tmp_path_factory.mktemp(f"orchctl-{domain}"), args=args)
    try:
        response = running.session.post("/api/v1/namespaces", json={"metadata": {"name": NS}})
        assert response.status_code == 201, response.text
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def naming(server: RunningServer) -> Naming:
    groups = [g["name"] for g in server.get("/apis").json()["groups"]]
    return Naming("k8s.io" if "authentication.k8s.io" in groups else DEFAULT_API_DOMAIN)


def rfc3339(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@pytest.fixture(scope="module")
def settings(server: RunningServer) -> tuple[float, float]:
    """ConfigMap `settings` created as v=1 (a time after it), then patched to v=2 by another manager."""
    cms = f"/api/v1/namespaces/{NS}/configmaps"
    created = server.session.post(cms, json={"metadata": {"name": "settings"}, "data": {"v": "1"}})
    assert created.status_code == 201, created.text
    between = time.time()  # the patch's commit time is later: the server reads the same clock after this
    patched = server.session.patch(
        f"{cms}/settings", json={"data": {"v": "2"}}, headers=MERGE, params={"fieldManager": "tuner"}
    )
    assert patched.ok, patched.text
    return between, time.time()


def test_get_prints_the_servers_table_columns(server: RunningServer, settings: tuple) -> None:
    table = orchctl(server, "-n", NS, "get", "configmaps")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["NAME", "DATA", "AGE"]
    assert lines[1].split()[:2] == ["settings", "1"]


def test_history_lists_the_changes_and_filters_them(server: RunningServer, settings: tuple) -> None:
    listed = orchctl(server, "-n", NS, "history", "configmap/settings")
    assert listed.returncode == 0, listed.stderr
    rows = [line.split() for line in listed.stdout.splitlines()[1:]]
    assert [(row[2], row[3], row[5]) for row in rows] == [
        ("ADDED", "create", "python-requests"),
        ("MODIFIED", "patch", "tuner"),
    ]
    by_verb = orchctl(server, "-n", NS, "history", "configmap/settings", "--verb", "patch", "-o", "json")
    assert [i["manager"] for i in json.loads(by_verb.stdout)["items"]] == ["tuner"]
    nobody = orchctl(server, "-n", NS, "history", "configmap/settings", "--user", "someone-else")
    assert (nobody.returncode, nobody.stdout, nobody.stderr) == (0, "", "No changes found.\n")
    admin = orchctl(server, "-n", NS, "history", "configmaps", "--user", "admin", "--since", "1h")
    assert admin.returncode == 0 and "configmaps/settings" in admin.stdout
    # --diff with a filter still diffs against the change before (unshown): only v 1 -> 2
    diff = orchctl(server, "-n", NS, "history", "configmap/settings", "--diff", "--verb", "patch")
    assert diff.stdout.count("revision ") == 1 and "-  v: '1'" in diff.stdout.replace('"', "'")


def test_get_at_reads_the_past(server: RunningServer, settings: tuple) -> None:
    between, _ = settings
    old = orchctl(server, "-n", NS, "get", "configmap", "settings", "--at", rfc3339(between), "-o", "json")
    assert old.returncode == 0, old.stderr
    assert json.loads(old.stdout)["data"] == {"v": "1"}
    listed = orchctl(server, "-n", NS, "get", "configmaps", "--at", rfc3339(between), "-o", "yaml")
    assert [i["data"] for i in yaml.safe_load(listed.stdout)["items"]] == [{"v": "1"}]


def test_get_all_lists_the_all_category_with_kinds(server: RunningServer) -> None:
    service: dict = {"metadata": {"name": "front"}, "spec": {"ports": [{"port": 80}], "selector": {"app": "front"}}}
    assert server.session.post(f"/api/v1/namespaces/{NS}/services", json=service).status_code == 201
    job: dict = {
        "metadata": {"name": "once"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}},
    }
    assert server.session.post(f"/apis/batch/v1/namespaces/{NS}/jobs", json=job).status_code == 201
    everything = orchctl(server, "-n", NS, "get", "all")
    assert everything.returncode == 0, everything.stderr
    names = [line.split()[0] for line in everything.stdout.splitlines() if line and not line.startswith("NAME")]
    assert "service/front" in names and "job.batch/once" in names
    assert not [name for name in names if name.startswith("configmap/")]  # not in the category
    as_json = json.loads(orchctl(server, "-n", NS, "get", "all", "-o", "json").stdout)  # one List of every type
    kinds = {(item["kind"], item["metadata"]["name"]) for item in as_json["items"]}
    assert as_json["kind"] == "List" and {("Service", "front"), ("Job", "once")} <= kinds


def test_not_found_and_expired_history_exit_1(server: RunningServer, naming: Naming) -> None:
    missing = orchctl(server, "-n", NS, "get", "configmap", "nope")
    assert missing.returncode == 1 and 'configmaps "nope" not found' in missing.stderr
    no_history = orchctl(server, "-n", NS, "history", "configmap/nope")
    assert no_history.returncode == 1 and "(NotFound)" in no_history.stderr
    leases = f"/apis/{naming.group('coordination')}/v1/namespaces/{NS}/leases"
    created = server.session.post(leases, json={"metadata": {"name": "holder"}, "spec": {"holderIdentity": "a"}})
    assert created.status_code == 201, created.text
    then = rfc3339(time.time())
    asof = {naming.api_key("asOf"): then}
    poll(lambda: server.get(f"{leases}/holder", params=asof).status_code == 410, timeout=60, interval=0.5)
    expired = orchctl(server, "-n", NS, "get", "lease", "holder", "--at", then)
    assert expired.returncode == 1 and "Error from server (Expired)" in expired.stderr, expired.stderr
    compacted = orchctl(server, "-n", NS, "history", "lease/holder")
    assert compacted.returncode == 1 and "has expired" in compacted.stderr, compacted.stderr
    since = orchctl(server, "-n", NS, "history", "leases", "--since", then)
    assert since.returncode == 1 and "(Expired)" in since.stderr
    kept = orchctl(server, "-n", NS, "history", "leases")  # what is kept, and that it is not all
    assert kept.returncode == 0 and "Warning: changes up to revision" in kept.stderr, kept.stderr
    # a namespace's history leaves the kind out, loudly, and still lists the kinds it kept
    everything = orchctl(server, "history", "--namespace", NS, "--since", then)
    assert everything.returncode == 0, everything.stderr
    assert f"Warning: lease.{naming.group('coordination')}: left out" in everything.stderr


def test_server_and_tls_server_name_flags(server: RunningServer, tmp_path: Path) -> None:
    config = yaml.safe_load(server.kubeconfig.read_text())
    config["clusters"][0]["cluster"]["server"] = "https://127.0.0.1:1"  # nothing listens there
    elsewhere = tmp_path / "elsewhere.kubeconfig"
    elsewhere.write_text(yaml.safe_dump(config))
    refused = orchctl(server, "get", "namespace", NS, kubeconfig=elsewhere)
    assert refused.returncode == 1 and "Unable to connect to the server" in refused.stderr
    found = orchctl(server, "--server", server.url, "get", "namespace", NS, "-o", "name", kubeconfig=elsewhere)
    assert (found.returncode, found.stdout) == (0, f"namespace/{NS}\n"), found.stderr
    wrong_name = orchctl(server, "--tls-server-name", "not-this-server.invalid", "get", "namespace", NS)
    assert wrong_name.returncode == 1 and "not-this-server.invalid" in wrong_name.stderr, wrong_name.stderr
    right_name = orchctl(server, "--tls-server-name", "localhost", "get", "namespace", NS, "-o", "name")
    assert right_name.returncode == 0, right_name.stderr


def test_a_stale_cached_domain_is_corrected_by_discovery(
    server: RunningServer, naming: Naming, settings: tuple
) -> None:
    config = load_config(str(server.kubeconfig))
    cache = DomainCache(CACHE_DIR, config.server, config.ca_data)
    cache.write("wrong.example")
    table = orchctl(server, "-n", NS, "get", "configmaps")
    assert table.returncode == 0 and table.stdout.split()[:3] == ["NAME", "DATA", "AGE"], table.stderr
    assert cache.read() == naming.domain


def test_a_wrong_api_domain_is_warned_about_and_history_refused(
    server: RunningServer, naming: Naming, settings: tuple
) -> None:
    other = DEFAULT_API_DOMAIN if naming.is_reference else "k8s.io"
    refused = orchctl(server, "--api-domain", other, "-n", NS, "history", "configmap/settings")
    assert refused.returncode == 1
    assert f"the server's groups are under {naming.domain}" in refused.stderr
    assert "not a RevisionList" in refused.stderr
    past = orchctl(server, "--api-domain", other, "-n", NS, "get", "configmap", "settings", "--at", "1s ago")
    assert past.returncode == 1 and "not a RevisionList" in past.stderr
