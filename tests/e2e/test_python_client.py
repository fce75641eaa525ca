"""The official `kubernetes` Python client against the real server, on both stores."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import urllib3
from kubernetes import client, config, watch
from kubernetes.client.exceptions import ApiException

from . import SHARED_SERVER_ARGS, RunningServer, start_server

pytestmark = pytest.mark.e2e

SYSTEM_NAMESPACES = {"default", "orch-system", "orch-public", "orch-node-lease"}
MERGE_PATCH = "application/merge-patch+json"
WATCH_SECONDS = 20  # server-side bound of every watch here (timeoutSeconds)


def new_api_client(server: RunningServer, **settings: Any) -> Any:
    configuration = client.Configuration()
    for key, value in settings.items():
        setattr(configuration, key, value)
    return config.new_client_from_config(config_file=str(server.kubeconfig), client_configuration=configuration)


@pytest.fixture
def api(any_server: RunningServer, request: pytest.FixtureRequest) -> Iterator[Any]:
    """An ApiClient from the server's admin kubeconfig (the shared `kube_client` on SQLite)."""
    if any_server.database_url is None:
        yield request.getfixturevalue("kube_client")
        return
    api_client = new_api_client(any_server)
    yield api_client
    api_client.close()


@pytest.fixture
def v1(api: Any) -> Any:
    return client.CoreV1Api(api)


@pytest.fixture
def apps(api: Any) -> Any:
    return client.AppsV1Api(api)


@pytest.fixture
def ns(v1: Any) -> Iterator[str]:
    name = f"e2e-{uuid.uuid4().hex[:8]}"
    v1.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    yield name
    try:
        v1.delete_namespace(name)
    except ApiException as err:
        if err.status != 404:
            raise


def status_of(err: ApiException) -> dict:
    """The Status object an error response carries."""
    assert err.headers is not None and err.headers.get("Content-Type", "").startswith("application/json"), err.headers
    status = json.loads(err.body)
    assert (status["kind"], status["apiVersion"], status["status"]) == ("Status", "v1", "Failure"), status
    assert status["code"] == err.status
    return status


def config_map(name: str, data: dict[str, str] | None = None, labels: dict[str, str] | None = None) -> Any:
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels=labels), data=data)


def deployment(name: str, image: str = "nginx") -> Any:
    labels = {"app": name}
    return client.V1Deployment(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1DeploymentSpec(
            selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(containers=[client.V1Container(name="main", image=image)]),
            ),
        ),
    )


def test_version_api(kube_client: Any, server: RunningServer) -> None:
    info = client.VersionApi(kube_client).get_code()
    served = server.get("/version").json()
    assert info.git_version == served["gitVersion"] and info.git_version.startswith("v")
    assert (info.major, info.minor) == (served["major"], served["minor"])
    assert info.platform and info.build_date


def test_list_namespace_has_the_system_namespaces(v1: Any) -> None:
    listed = v1.list_namespace()
    by_name = {item.metadata.name: item for item in listed.items}
    assert set(by_name) >= SYSTEM_NAMESPACES
    assert {by_name[name].status.phase for name in SYSTEM_NAMESPACES} == {"Active"}
    assert listed.metadata.resource_version
    assert v1.read_namespace("orch-system").metadata.uid == by_name["orch-system"].metadata.uid


def test_configmap_create_read_replace_patch_delete(v1: Any, api: Any, ns: str) -> None:
    created = v1.create_namespaced_config_map(ns, config_map("settings", {"color": "blue"}))
    assert created.metadata.uid and created.metadata.resource_version and created.metadata.creation_timestamp
    assert created.metadata.namespace == ns

    read = v1.read_namespaced_config_map("settings", ns)
    assert (read.metadata.uid, read.data) == (created.metadata.uid, {"color": "blue"})

    read.data["color"] = "red"
    replaced = v1.replace_namespaced_config_map("settings", ns, read)
    assert replaced.data == {"color": "red"}
    assert replaced.metadata.resource_version != created.metadata.resource_version

    # `read` still has the old resourceVersion
    with pytest.raises(ApiException) as stale:
        v1.replace_namespaced_config_map("settings", ns, read)
    assert stale.value.status == 409
    assert status_of(stale.value)["reason"] == "Conflict"

    # With a dict body the client would pick strategic merge patch; _content_type asks for a JSON merge patch.
    patched = v1.patch_namespaced_config_map(
        "settings", ns, {"metadata": {"labels": {"tier": "front"}}, "data": {"size": "L"}}, _content_type=MERGE_PATCH
    )
    assert patched.data == {"color": "red", "size": "L"}
    assert patched.metadata.labels == {"tier": "front"}
    removed = v1.patch_namespaced_config_map("settings", ns, {"data": {"color": None}}, _content_type=MERGE_PATCH)
    assert removed.data == {"size": "L"}
    # a list body is sent as a JSON patch
    json_patched = v1.patch_namespaced_config_map(
        "settings", ns, [{"op": "add", "path": "/data/shape", "value": "round"}]
    )
    assert json_patched.data == {"size": "L", "shape": "round"}
    assert [c.metadata.name for c in v1.list_namespaced_config_map(ns, label_selector="tier=front").items] == [
        "settings"
    ]

    deleted = api.sanitize_for_serialization(v1.delete_namespaced_config_map("settings", ns))
    assert deleted["kind"] == "Status" and deleted["status"] == "Success", deleted
    assert deleted["details"]["name"] == "settings" and deleted["details"]["uid"] == created.metadata.uid
    with pytest.raises(ApiException) as gone:
        v1.read_namespaced_config_map("settings", ns)
    assert gone.value.status == 404


def test_errors_carry_a_status(v1: Any, ns: str) -> None:
    with pytest.raises(ApiException) as missing:
        v1.read_namespaced_config_map("nope", ns)
    status = status_of(missing.value)
    assert (missing.value.status, status["reason"]) == (404, "NotFound")
    assert status["message"] == 'configmaps "nope" not found'
    assert status["details"] == {"name": "nope", "kind": "configmaps"}

    v1.create_namespaced_config_map(ns, config_map("twice"))
    with pytest.raises(ApiException) as duplicate:
        v1.create_namespaced_config_map(ns, config_map("twice"))
    status = status_of(duplicate.value)
    assert (duplicate.value.status, status["reason"]) == (409, "AlreadyExists")
    assert status["message"] == 'configmaps "twice" already exists'

    with pytest.raises(ApiException) as invalid:
        v1.create_namespaced_config_map(ns, config_map("Not_A_Name"))
    status = status_of(invalid.value)
    assert (invalid.value.status, status["reason"]) == (422, "Invalid")
    assert status["message"].startswith('ConfigMap "Not_A_Name" is invalid: metadata.name: Invalid value: "Not_A_Name"')
    assert status["details"]["kind"] == "ConfigMap" and status["details"]["name"] == "Not_A_Name"
    assert [cause["field"] for cause in status["details"]["causes"]] == ["metadata.name"]

    with pytest.raises(ApiException) as no_namespace:
        v1.create_namespaced_config_map(f"{ns}-missing", config_map("c"))
    status = status_of(no_namespace.value)
    assert (no_namespace.value.status, status["reason"]) == (404, "NotFound")
    assert status["message"] == f'namespaces "{ns}-missing" not found'


def test_deployment_defaults_and_scale(apps: Any, ns: str) -> None:
    created = apps.create_namespaced_deployment(ns, deployment("web"))
    spec = created.spec
    assert spec.replicas == 1
    assert spec.strategy.type == "RollingUpdate"
    assert (spec.strategy.rolling_update.max_surge, spec.strategy.rolling_update.max_unavailable) == ("25%", "25%")
    assert spec.revision_history_limit == 10
    assert spec.progress_deadline_seconds == 600
    pod = spec.template.spec
    assert (pod.restart_policy, pod.dns_policy, pod.termination_grace_period_seconds) == ("Always", "ClusterFirst", 30)
    assert pod.containers[0].image_pull_policy == "Always"  # no tag means :latest
    assert created.metadata.generation == 1
    assert apps.read_namespaced_deployment("web", ns).spec == spec

    scale = apps.read_namespaced_deployment_scale("web", ns)
    assert (scale.kind, scale.api_version) == ("Scale", "autoscaling/v1")
    assert (scale.spec.replicas, scale.status.selector) == (1, "app=web")

    patched = apps.patch_namespaced_deployment_scale("web", ns, {"spec": {"replicas": 4}}, _content_type=MERGE_PATCH)
    assert patched.spec.replicas == 4
    assert apps.read_namespaced_deployment_scale("web", ns).spec.replicas == 4
    after = apps.read_namespaced_deployment("web", ns)
    assert (after.spec.replicas, after.metadata.generation) == (4, 2)

    scale = apps.read_namespaced_deployment_scale("web", ns)
    scale.spec.replicas = 2
    assert apps.replace_namespaced_deployment_scale("web", ns, scale).spec.replicas == 2
    assert apps.read_namespaced_deployment("web", ns).spec.replicas == 2

    with pytest.raises(ApiException) as negative:
        apps.patch_namespaced_deployment_scale("web", ns, {"spec": {"replicas": -1}}, _content_type=MERGE_PATCH)
    assert (negative.value.status, status_of(negative.value)["reason"]) == (422, "Invalid")
    assert apps.read_namespaced_deployment("web", ns).spec.replicas == 2


def test_patch_with_the_clients_default_content_type(v1: Any, apps: Any, ns: str) -> None:
    """A dict body without `_content_type` goes out as a strategic merge patch: lists merge by their keys."""
    web = deployment("web")
    web.spec.template.spec.containers[0].env = [client.V1EnvVar(name="MODE", value="prod")]
    apps.create_namespaced_deployment(ns, web)
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]}}}}
    patched = apps.patch_namespaced_deployment("web", ns, patch)
    containers = patched.spec.template.spec.containers
    assert [(c.name, c.image) for c in containers] == [("main", "nginx:1.27")]
    assert [(e.name, e.value) for e in containers[0].env] == [("MODE", "prod")]  # a merge patch would drop it
    assert patched.metadata.generation == 2

    assert apps.patch_namespaced_deployment_scale("web", ns, {"spec": {"replicas": 3}}).spec.replicas == 3
    v1.create_namespaced_config_map(ns, config_map("c", {"a": "1"}))
    assert v1.patch_namespaced_config_map("c", ns, {"data": {"b": "2"}}).data == {"a": "1", "b": "2"}


def test_chunked_list(v1: Any, ns: str) -> None:
    names = [f"c{i}" for i in range(7)]
    for name in names:
        v1.create_namespaced_config_map(ns, config_map(name))

    first = v1.list_namespaced_config_map(ns, limit=3)
    assert [c.metadata.name for c in first.items] == names[:3]
    assert first.metadata._continue and first.metadata.remaining_item_count == 4
    # changes after the first page do not show up in later ones: the pages are one snapshot
    v1.create_namespaced_config_map(ns, config_map("c3a"))
    v1.delete_namespaced_config_map("c4", ns)

    second = v1.list_namespaced_config_map(ns, limit=3, _continue=first.metadata._continue)
    assert [c.metadata.name for c in second.items] == names[3:6]
    assert second.metadata._continue and second.metadata.remaining_item_count == 1
    last = v1.list_namespaced_config_map(ns, limit=3, _continue=second.metadata._continue)
    assert [c.metadata.name for c in last.items] == names[6:]
    assert not last.metadata._continue and not last.metadata.remaining_item_count
    assert first.metadata.resource_version == second.metadata.resource_version == last.metadata.resource_version

    now = sorted(c.metadata.name for c in v1.list_namespaced_config_map(ns).items)
    assert now == sorted({*names, "c3a"} - {"c4"})

    with pytest.raises(ApiException) as bad:
        v1.list_namespaced_config_map(ns, limit=3, _continue="not-a-token")
    assert (bad.value.status, status_of(bad.value)["reason"]) == (400, "BadRequest")


def test_watch_stream_sees_changes_made_elsewhere(v1: Any, ns: str) -> None:
    v1.create_namespaced_config_map(ns, config_map("existing"))
    start = v1.list_namespaced_config_map(ns).metadata.resource_version

    def mutate() -> None:
        v1.create_namespaced_config_map(ns, config_map("w", {"a": "1"}))
        v1.patch_namespaced_config_map("w", ns, {"data": {"a": "2"}}, _content_type=MERGE_PATCH)
        v1.delete_namespaced_config_map("w", ns)

    stream = watch.Watch()
    seen: list[tuple[str, str, dict[str, str] | None]] = []
    # from `start`: the watch delivers everything after it, whenever the writer gets to run
    events = stream.stream(v1.list_namespaced_config_map, ns, resource_version=start, timeout_seconds=WATCH_SECONDS)
    with ThreadPoolExecutor(max_workers=1) as writer:
        written = writer.submit(mutate)
        for event in events:
            obj = event["object"]
            assert isinstance(obj, client.V1ConfigMap), event
            seen.append((event["type"], obj.metadata.name, obj.data))
            if event["type"] == "DELETED":
                stream.stop()
        written.result(timeout=WATCH_SECONDS)  # re-raises what the writer ran into
    assert seen == [("ADDED", "w", {"a": "1"}), ("MODIFIED", "w", {"a": "2"}), ("DELETED", "w", {"a": "2"})]


def test_watch_without_resource_version_starts_with_the_current_objects(v1: Any, ns: str) -> None:
    for name in ("a", "b"):
        v1.create_namespaced_config_map(ns, config_map(name))
    stream = watch.Watch()
    seen = []
    for event in stream.stream(v1.list_namespaced_config_map, ns, timeout_seconds=WATCH_SECONDS):
        seen.append((event["type"], event["object"].metadata.name))
        if len(seen) == 2:
            v1.create_namespaced_config_map(ns, config_map("c"))
        if len(seen) == 3:
            stream.stop()
    assert sorted(seen[:2]) == [("ADDED", "a"), ("ADDED", "b")]
    assert seen[2] == ("ADDED", "c")


@pytest.fixture
def small_server(tmp_path: Path) -> Iterator[RunningServer]:
    """A server of its own with 4 threads: this test may tie them all up."""
    running = start_server(tmp_path / "data", args=["--threads", "4", *SHARED_SERVER_ARGS])
    yield running
    running.stop()


def test_abandoned_watches_give_their_threads_back(small_server: RunningServer) -> None:
    """A client that gives up on a watch (read timeout, Ctrl-C, a closed Watch) must not keep a server thread.

    With 4 threads, 6 abandoned watches on a quiet namespace would leave nothing to answer the next request.
    """
    api_client = new_api_client(small_server, retries=False)
    try:
        v1 = client.CoreV1Api(api_client)
        for _ in range(6):
            with pytest.raises(urllib3.exceptions.ReadTimeoutError):
                for event in watch.Watch().stream(
                    v1.list_namespaced_config_map, "orch-node-lease", _request_timeout=0.5
                ):
                    pytest.fail(f"unexpected event on a quiet namespace: {event}")
        try:
            names = {item.metadata.name for item in v1.list_namespace(_request_timeout=10).items}
        except urllib3.exceptions.HTTPError as err:
            pytest.fail(f"the server stopped answering after 6 abandoned watches: {err!r}")
        assert names >= SYSTEM_NAMESPACES
    finally:
        api_client.close()
