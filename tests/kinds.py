"""Kinds the catalog-derived suites leave to tests of their own."""

from __future__ import annotations

#: a CRD's name is fixed by its spec and its deletion waits for the crd controller
#: (tests/e2e/test_custom_resources.py); a Binding writes a pod (tests/e2e/test_pod_writes.py); ComponentStatuses
#: are computed, not stored (tests/api/test_component_statuses.py)
OWN_TESTS = frozenset({"customresourcedefinitions", "apiservices", "bindings", "componentstatuses"})


def crd_body(
    group: str,
    plural: str,
    kind: str,
    schema: dict,
    *,
    scope: str = "Namespaced",
    api_domain: str = "orch.io",
    names: dict | None = None,
    subresources: dict | None = None,
) -> dict:
    """A CustomResourceDefinition serving and storing one version, v1, with `schema` as its openAPIV3Schema."""
    version: dict = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}
    if subresources is not None:
        version["subresources"] = subresources
    return {
        "apiVersion": f"apiextensions.{api_domain}/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": scope,
            "names": {"plural": plural, "kind": kind, **(names or {})},
            "versions": [version],
        },
    }
