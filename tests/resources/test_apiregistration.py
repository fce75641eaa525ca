"""APIService validation and defaults, with the reference's messages."""

from __future__ import annotations

import pytest
from orch_apiserver.naming import Naming
from orch_apiserver.resources import build_catalog

from tests.resources.helpers import created

APISERVICES = build_catalog(Naming()).lookup("apiregistration.orch.io", "v1", "apiservices")


def apiservice(name: str = "v1beta1.metrics.example.com", **spec: object) -> dict:
    base = {
        "group": "metrics.example.com",
        "version": "v1beta1",
        "groupPriorityMinimum": 100,
        "versionPriority": 100,
        "service": {"namespace": "monitoring", "name": "metrics-server"},
    }
    return {"metadata": {"name": name}, "spec": {**base, **spec}}


def errors_of(obj: dict) -> list[str]:
    assert APISERVICES is not None
    _, errors = created(APISERVICES, obj)
    return [str(e) for e in errors]


def test_a_well_formed_apiservice_gets_the_default_port() -> None:
    assert APISERVICES is not None
    obj, errors = created(APISERVICES, apiservice())
    assert errors == [] and obj["spec"]["service"]["port"] == 443


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (
            apiservice(name="metrics"),
            (
                'metadata.name: Invalid value: "metrics": must be `spec.version+"."+spec.group`: '
                '"v1beta1.metrics.example.com"'
            ),
        ),
        (
            apiservice(name="v2.", group="", version="v2"),
            "spec.group: Required value: only v1 may have an empty group and it better be legacy kube",
        ),
        (
            apiservice(groupPriorityMinimum=0),
            ("spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000"),
        ),
        (
            apiservice(versionPriority=1001),
            ("spec.versionPriority: Invalid value: 1001: must be positive and less than 1000"),
        ),
        (
            apiservice(insecureSkipTLSVerify=True, caBundle="QUJD"),
            "spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present",
        ),
        (
            apiservice(service=None, caBundle="QUJD"),
            'spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle',
        ),
        (apiservice(service={"namespace": "", "name": "m", "port": 70000}), "spec.service.namespace: Required value"),
    ],
)
def test_invalid_apiservices_are_refused(obj: dict, message: str) -> None:
    assert message in errors_of(obj)


def test_a_local_apiservice_needs_no_service() -> None:
    assert errors_of(apiservice(name="v1.apps", group="apps", version="v1", service=None)) == []
