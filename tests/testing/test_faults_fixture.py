"""`orch_apiserver.fault(...)`: a Fault for a `with` block, as docs/testing.md shows it (issue 58)."""

from __future__ import annotations

import pytest
from kubernetes import client
from orch_apiserver.testing import TestServer
from orch_apiserver.testing.server import TestServerError


def test_conflicts_for_two_updates_then_served(orch_apiserver: TestServer, orch_namespace: str) -> None:
    core = client.CoreV1Api(orch_apiserver.api_client())
    core.create_namespaced_config_map(orch_namespace, {"metadata": {"name": "cm"}, "data": {"n": "0"}})
    with orch_apiserver.fault(
        verbs=["update"], resources=["configmaps"], namespaces=[orch_namespace], error=409, times=2
    ) as fault:
        codes = []
        for attempt in range(3):
            current = core.read_namespaced_config_map("cm", orch_namespace)
            current.data["n"] = str(attempt)
            try:
                core.replace_namespaced_config_map("cm", orch_namespace, current)
                codes.append(200)
            except client.ApiException as err:
                codes.append(err.status)
                assert err.headers["X-Orch-Fault"] == fault.name
        assert codes == [409, 409, 200]
        assert fault.matched == 2
    assert core.read_namespaced_config_map("cm", orch_namespace).data == {"n": "2"}
    faults = orch_apiserver.manifests.client.list("/apis/testing.k8s.io/v1alpha1/faults")["items"]
    assert fault.name not in [f["metadata"]["name"] for f in faults]  # gone with the block


def test_a_bad_fault_is_the_servers_422(orch_apiserver: TestServer) -> None:
    from orch_apiserver.client import ApiError

    with pytest.raises(ApiError) as refused, orch_apiserver.fault(error=700):
        pass
    assert refused.value.status == 422 and "spec.action.error.code" in str(refused.value)


def test_a_server_without_fault_injection_says_so() -> None:
    server = TestServer(fault_injection=False)
    with pytest.raises(TestServerError, match="fault_injection=False"):
        server.fault(error=500)
