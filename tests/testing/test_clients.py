"""Stock Python clients against the `orch_apiserver` fixture, as operator developers' tests use them."""

from __future__ import annotations

import asyncio
import gc

import pytest
from orch_apiserver.testing import TestServer


def published(name: str) -> bool:
    """The root-CA ConfigMap the server puts into every namespace, as the reference's publisher does."""
    return name.endswith("-root-ca.crt")


def _configmap(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}


# kubernetes_asyncio leaves the watch's aiohttp transport to the garbage collector when a stream is left early
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_kubernetes_asyncio(orch_apiserver: TestServer, orch_namespace: str):
    from kubernetes_asyncio import client, config, watch

    async def scenario() -> tuple[list[str], list[tuple[str, str]]]:
        api_client = await config.new_client_from_config(config_file=orch_apiserver.kubeconfig)
        async with api_client:
            api = client.CoreV1Api(api_client)
            start = (await api.list_namespaced_config_map(orch_namespace)).metadata.resource_version
            await api.create_namespaced_config_map(orch_namespace, _configmap("from-asyncio"))
            names = [
                cm.metadata.name
                for cm in (await api.list_namespaced_config_map(orch_namespace)).items
                if not published(cm.metadata.name)
            ]
            events = []
            async with watch.Watch().stream(
                api.list_namespaced_config_map, orch_namespace, resource_version=start, timeout_seconds=10
            ) as stream:
                async for event in stream:
                    if not published(event["object"].metadata.name):
                        events.append((event["type"], event["object"].metadata.name))
                        break
            return names, events

    names, events = asyncio.run(scenario())
    gc.collect()  # its warning surfaces here, under this test's filter, not in the next test
    assert names == ["from-asyncio"]
    assert events == [("ADDED", "from-asyncio")]


def test_lightkube(orch_apiserver: TestServer, orch_namespace: str):
    from lightkube import Client, KubeConfig
    from lightkube.models.meta_v1 import ObjectMeta
    from lightkube.resources.core_v1 import ConfigMap

    kube = Client(KubeConfig.from_file(orch_apiserver.kubeconfig), namespace=orch_namespace)
    listing = kube.list(ConfigMap)
    assert [cm for cm in listing if not published(cm.metadata.name)] == []
    start = listing.resourceVersion
    kube.create(ConfigMap(metadata=ObjectMeta(name="from-lightkube"), data={"k": "v"}))
    assert [cm.metadata.name for cm in kube.list(ConfigMap) if not published(cm.metadata.name)] == ["from-lightkube"]
    for kind, obj in kube.watch(ConfigMap, resource_version=start):
        if not published(obj.metadata.name):
            assert (kind, obj.metadata.name) == ("ADDED", "from-lightkube")
            break
    kube.delete(ConfigMap, "from-lightkube")
    assert [cm for cm in kube.list(ConfigMap) if not published(cm.metadata.name)] == []


# kr8s warns that a v1.23 server is older than the releases it was tested with
@pytest.mark.usefixtures("kr8s_connections_collected")
@pytest.mark.filterwarnings("ignore:Kubernetes version .* is not supported:UserWarning")
def test_kr8s(orch_apiserver: TestServer, orch_namespace: str):
    import kr8s
    from kr8s.objects import ConfigMap

    api = kr8s.api(kubeconfig=orch_apiserver.kubeconfig)
    created = ConfigMap({"metadata": {"name": "from-kr8s", "namespace": orch_namespace}, "data": {"k": "v"}}, api=api)
    created.create()
    assert [cm.name for cm in api.get("configmaps", namespace=orch_namespace) if not published(cm.name)] == [
        "from-kr8s"
    ]
    for event, obj in api.watch("configmaps", namespace=orch_namespace, since="0"):
        assert (event, obj.name) == ("ADDED", "from-kr8s")
        break
    created.delete()
