"""The three worked examples of docs/testing.md ("Faults on demand"), run as they are written there."""

from __future__ import annotations

# ruff: noqa

from kubernetes import client, watch


def bump(api, namespace):  # client-go's RetryOnConflict, in Python
    for _ in range(5):
        cm = api.read_namespaced_config_map("counter", namespace)
        cm.data["n"] = str(int(cm.data["n"]) + 1)
        try:
            return api.replace_namespaced_config_map("counter", namespace, cm)
        except client.ApiException as err:
            if err.status != 409:
                raise
    raise RuntimeError("still conflicting")


def test_bump_survives_conflicts(orch_apiserver, orch_namespace):
    api = client.CoreV1Api(orch_apiserver.api_client())
    api.create_namespaced_config_map(orch_namespace, {"metadata": {"name": "counter"}, "data": {"n": "0"}})
    with orch_apiserver.fault(verbs=["update"], resources=["configmaps"], error=409, times=2) as f:
        bump(api, orch_namespace)
    assert f.matched == 2
    assert api.read_namespaced_config_map("counter", orch_namespace).data["n"] == "1"


def sync(api, namespace, seen):  # list, then watch from the list's revision; on 410 start over
    while True:
        listed = api.list_namespaced_config_map(namespace)
        seen.update(cm.metadata.name for cm in listed.items)
        try:
            for event in watch.Watch().stream(
                api.list_namespaced_config_map,
                namespace,
                resource_version=listed.metadata.resource_version,
                timeout_seconds=1,
            ):
                seen.add(event["object"].metadata.name)
            return
        except client.ApiException as err:
            if err.status != 410:
                raise


def test_informer_relists(orch_apiserver, orch_namespace):
    api = client.CoreV1Api(orch_apiserver.api_client())
    with orch_apiserver.fault(verbs=["watch"], namespaces=[orch_namespace], expire_after_events=0, times=1) as f:
        api.create_namespaced_config_map(orch_namespace, {"metadata": {"name": "a"}})
        seen = set()
        sync(api, orch_namespace, seen)
    assert f.matched == 1 and "a" in seen


def ensure_child(api, namespace):  # idempotent: a fixed name, and AlreadyExists means done
    try:
        api.create_namespaced_config_map(namespace, {"metadata": {"name": "child"}})
    except client.ApiException as err:
        if err.status != 409:
            raise
    return api.read_namespaced_config_map("child", namespace)


def test_lost_create_response(orch_apiserver, orch_namespace):
    api = client.CoreV1Api(orch_apiserver.api_client())
    with orch_apiserver.fault(verbs=["create"], resources=["configmaps"], after_write=500, times=1):
        try:
            ensure_child(api, orch_namespace)  # stored, yet answered 500
        except client.ApiException as err:
            assert err.status == 500 and err.headers["X-Orch-Fault"]
        ensure_child(api, orch_namespace)  # the retry finds it
    children = api.list_namespaced_config_map(orch_namespace, label_selector="").items
    assert [cm.metadata.name for cm in children if cm.metadata.name.startswith("child")] == ["child"]
