"""Every built-in kind, one module per API group; `build_catalog` assembles them for a Naming."""

from __future__ import annotations

from ..catalog import Catalog, ResourceType
from ..naming import Naming
from . import (
    admissionregistration,
    apiextensions,
    apiregistration,
    apps,
    authentication,
    authorization,
    autoscaling,
    batch,
    certificates,
    coordination,
    core,
    discovery,
    events,
    flowcontrol,
    networking,
    node,
    policy,
    rbac,
    scheduling,
    storage,
    testing,
)

#: group modules in the reference's discovery order (core first, then /apis priority order).
GROUP_MODULES = (
    core,
    apiregistration,
    apps,
    events,
    authentication,
    authorization,
    autoscaling,
    batch,
    certificates,
    networking,
    policy,
    rbac,
    storage,
    admissionregistration,
    apiextensions,
    scheduling,
    coordination,
    node,
    discovery,
    flowcontrol,
)


def resource_types(naming: Naming) -> list[ResourceType]:
    return [rt for module in GROUP_MODULES for rt in module.resource_types(naming)]


def build_catalog(naming: Naming) -> Catalog:
    return Catalog(resource_types(naming))


def add_fault_kind(catalog: Catalog, naming: Naming) -> Catalog:
    """The Fault kind, declared for a server with --enable-fault-injection only (docs/testing.md)."""
    for rt in testing.resource_types(naming):
        catalog.add(rt)
    return catalog
