"""Kinds the catalog-derived suites leave to tests of their own."""

from __future__ import annotations

#: a CRD's name is fixed by its spec and its deletion waits for the crd controller
#: (tests/e2e/test_custom_resources.py); a Binding writes a pod (tests/e2e/test_pod_writes.py); ComponentStatuses
#: are computed, not stored (tests/api/test_component_statuses.py)
OWN_TESTS = frozenset({"customresourcedefinitions", "apiservices", "bindings", "componentstatuses"})
