"""The operator against a real API server from the orch_apiserver fixtures: nothing else to install or start."""

from __future__ import annotations

import base64
import time

from kubernetes import client
from mirror_operator import reconcile


def test_labelled_config_maps_get_a_mirror_secret_that_goes_with_them(orch_apiserver, orch_namespace):
    api = orch_apiserver.api_client()
    core = client.CoreV1Api(api)
    core.create_namespaced_config_map(
        orch_namespace,
        client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name="settings", labels={"mirror": "true"}), data={"mode": "fast"}
        ),
    )
    core.create_namespaced_config_map(
        orch_namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="unrelated"), data={"x": "y"})
    )

    assert reconcile(api, orch_namespace) == ["settings"]

    secret = core.read_namespaced_secret("settings", orch_namespace)
    assert base64.b64decode(secret.data["mode"]) == b"fast"
    assert secret.metadata.owner_references[0].name == "settings"
    core.delete_namespaced_config_map("settings", orch_namespace)
    deadline = time.monotonic() + 30
    while any(s.metadata.name == "settings" for s in core.list_namespaced_secret(orch_namespace).items):
        assert time.monotonic() < deadline, "the owned Secret outlived its ConfigMap"
        time.sleep(0.1)
