"""TestServer, the in-process API server for operator developers' tests, used as they would use it."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import pytest
from kubernetes import client, watch
from orch_apiserver.testing import TestServer, TestServerError

from tests.e2e import scratch_database


@pytest.fixture(scope="module")
def test_server():
    with TestServer() as server:
        yield server


def test_official_client_creates_lists_and_watches(test_server: TestServer):
    api = client.CoreV1Api(test_server.api_client())
    namespace = test_server.create_namespace()
    seen: list[tuple[str, str]] = []
    ready = threading.Event()

    def watch_configmaps() -> None:
        stream = watch.Watch()
        ready.set()
        for event in stream.stream(api.list_namespaced_config_map, namespace, timeout_seconds=10):
            if event["object"].metadata.name.endswith("root-ca.crt"):
                continue  # the root CA the server publishes into every namespace
            seen.append((event["type"], event["object"].metadata.name))
            if len(seen) == 2:
                stream.stop()

    watcher = threading.Thread(target=watch_configmaps)
    watcher.start()
    ready.wait()
    test_server.apply(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "first"}, "data": {"a": "1"}},
        namespace=namespace,
    )
    api.create_namespaced_config_map(namespace, {"metadata": {"name": "second"}})
    watcher.join(15)
    assert ("ADDED", "first") in seen and ("ADDED", "second") in seen
    names = [cm.metadata.name for cm in api.list_namespaced_config_map(namespace).items]
    assert {"first", "second"} <= set(names)
    test_server.delete_namespace(namespace)


def test_apply_reads_yaml_files_and_lists(test_server: TestServer, tmp_path: Path):
    manifest = tmp_path / "objects.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: from-file\n---\n"
        "apiVersion: v1\nkind: List\nitems:\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: listed, namespace: from-file}\n"
        "- apiVersion: rbac.authorization.k8s.io/v1\n  kind: Role\n  metadata: {name: reader, namespace: from-file}\n"
        "  rules: [{apiGroups: [''], resources: [pods], verbs: [get]}]\n"
    )
    applied = test_server.apply(manifest)
    assert [obj["kind"] for obj in applied] == ["Namespace", "ConfigMap", "Role"]
    again = test_server.apply(manifest)  # apply is idempotent: same objects, no conflict
    assert [obj["metadata"]["uid"] for obj in again] == [obj["metadata"]["uid"] for obj in applied]
    rbac = client.RbacAuthorizationV1Api(test_server.api_client())
    assert rbac.read_namespaced_role("reader", "from-file").rules[0].resources == ["pods"]
    test_server.reset()


def test_reset_removes_what_tests_made_and_tells_watchers(test_server: TestServer):
    api = client.CoreV1Api(test_server.api_client())
    before = {ns.metadata.name for ns in api.list_namespace().items}
    namespace = test_server.create_namespace()
    api.create_namespaced_secret(namespace, {"metadata": {"name": "token"}, "stringData": {"k": "v"}})
    listed = api.list_namespaced_config_map(namespace)
    deleted: list[str] = []
    stream = watch.Watch()

    def watch_namespaces() -> None:
        for event in stream.stream(
            api.list_namespace, resource_version=listed.metadata.resource_version, timeout_seconds=10
        ):
            if event["type"] == "DELETED":
                deleted.append(event["object"].metadata.name)
                if deleted[-1] == namespace:
                    stream.stop()

    watcher = threading.Thread(target=watch_namespaces)
    watcher.start()
    test_server.reset()
    watcher.join(15)
    assert namespace in deleted
    after = {ns.metadata.name for ns in api.list_namespace().items}
    assert "default" in after and after <= before
    assert api.list_secret_for_all_namespaces(field_selector=f"metadata.namespace={namespace}").items == []


@pytest.mark.parametrize("domain", ["k8s.io", "orch.io"])
def test_api_domain_names_the_groups(domain: str):
    with TestServer(api_domain=domain) as server:
        groups = client.ApisApi(server.api_client()).get_api_versions().groups
        assert f"rbac.authorization.{domain}" in {group.name for group in groups}


def test_postgresql_store():
    with scratch_database() as url, TestServer(database_url=url) as server:
        api = client.CoreV1Api(server.api_client())
        namespace = server.create_namespace()
        api.create_namespaced_config_map(namespace, {"metadata": {"name": "on-postgres"}})

        def names() -> list[str]:  # without the root CA the server publishes into every namespace
            return [
                cm.metadata.name
                for cm in api.list_namespaced_config_map(namespace).items
                if not cm.metadata.name.endswith("root-ca.crt")
            ]

        assert names() == ["on-postgres"]
        server.reset()
        assert names() == []


def test_a_server_that_cannot_start_shows_its_log():
    server = TestServer(database_url="postgresql+psycopg://postgres@127.0.0.1:1/nowhere")
    with pytest.raises(TestServerError) as failure:
        server.start()
    assert "did not start" in str(failure.value)
    assert "127.0.0.1" in str(failure.value) and "--- server log ---" in str(failure.value)
    assert not Path(server.data_dir).exists()  # nothing left behind


def test_bad_flags_are_reported():
    with pytest.raises(TestServerError, match="invalid server flags"):
        TestServer(args=["--no-such-flag"]).start()


def test_crds_given_at_start_are_served_and_survive_a_reset(tmp_path: Path):
    import yaml

    from tests.e2e.test_custom_resources import crd

    (tmp_path / "crds").mkdir()
    (tmp_path / "crds" / "widgets.yaml").write_text(yaml.safe_dump(crd("example.com")))
    with TestServer(crds=[tmp_path / "crds"]) as server, server.api_client() as api_client:
        objects = client.CustomObjectsApi(api_client)
        namespace = server.create_namespace()
        objects.create_namespaced_custom_object(
            "example.com",
            "v1",
            namespace,
            "widgets",
            {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "made"}, "spec": {"mode": "fast"}},
        )
        server.apply(
            {
                "apiVersion": "example.com/v1",
                "kind": "Widget",
                "metadata": {"name": "applied"},
                "spec": {"mode": "slow"},
            },
            namespace=namespace,
        )
        listed = objects.list_namespaced_custom_object("example.com", "v1", namespace, "widgets")["items"]
        assert sorted((w["metadata"]["name"], w["spec"]["replicas"]) for w in listed) == [("applied", 1), ("made", 1)]
        server.reset()
        assert objects.list_cluster_custom_object("example.com", "v1", "widgets")["items"] == []
        extensions = client.ApiextensionsV1Api(api_client)
        assert extensions.read_custom_resource_definition("widgets.example.com").status.stored_versions == ["v1"]


# kopf's aiohttp sessions leave sockets to the collector when KopfRunner stops its loop: kept to this test
@pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_kopf_operator_under_kopfrunner_against_the_test_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """How an operator author tests with kopf's own runner: the operator in a thread, the server in-process."""
    import time

    import yaml
    from kopf.testing import KopfRunner

    from tests.e2e.test_custom_resources import crd
    from tests.e2e.test_kopf_operator import OPERATOR

    definition = crd("runner.example.com")
    definition["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"] = {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
    }
    (tmp_path / "crd.yaml").write_text(yaml.safe_dump(definition))
    operator = tmp_path / "operator.py"
    operator.write_text(OPERATOR.format(group="runner.example.com"))
    with TestServer(crds=[tmp_path / "crd.yaml"]) as server, server.api_client() as api_client:
        monkeypatch.setenv("KUBECONFIG", str(server.kubeconfig))
        namespace = server.create_namespace()
        objects = client.CustomObjectsApi(api_client)
        with KopfRunner(["run", "--standalone", "--namespace", namespace, str(operator)]) as runner:
            objects.create_namespaced_custom_object(
                "runner.example.com",
                "v1",
                namespace,
                "widgets",
                {
                    "apiVersion": "runner.example.com/v1",
                    "kind": "Widget",
                    "metadata": {"name": "w"},
                    "spec": {"mode": "slow"},
                },
            )
            deadline = time.monotonic() + 30
            while (
                objects.get_namespaced_custom_object("runner.example.com", "v1", namespace, "widgets", "w").get(
                    "status"
                )
                or {}
            ).get("made") != {"child": "w-child"}:
                assert time.monotonic() < deadline, "the operator never reconciled"
                time.sleep(0.1)
            child = client.CoreV1Api(api_client).read_namespaced_config_map("w-child", namespace)
            assert child.data == {"mode": "slow"}
        assert runner.exception is None and runner.exit_code == 0, runner.output[-3000:]
    gc.collect()  # here, where the warnings above are ignored, not in a later test
