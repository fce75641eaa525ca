"""A Service's port to a ready endpoint's address, read from its Endpoints (there is no network proxy here:
the reference's `--enable-aggregator-routing` behaviour), for calls the server makes to in-cluster services."""

from __future__ import annotations

from ..errors import NotFound
from .store import Registry


class EndpointsMissing(LookupError):
    """The service has no Endpoints object at all (not: one without a ready address)."""


def service_resolver(registry: Registry):
    services = registry.catalog.known_type("", "v1", "services")
    endpoints = registry.catalog.known_type("", "v1", "endpoints")

    def resolve(namespace: str, name: str, port: int) -> tuple[str, int]:
        # the reference's ResolveEndpoint words: a lister's NotFound, then its ServiceUnavailable texts
        try:
            service = registry.get(services, namespace, name)
        except NotFound:
            raise LookupError(f'service "{name}" not found') from None
        spec_port = next((p for p in (service.get("spec") or {}).get("ports") or [] if p.get("port") == port), None)
        if spec_port is None:
            raise LookupError(f'no service port {port} found for service "{name}"')
        try:
            found = registry.get(endpoints, namespace, name)
        except NotFound:
            raise EndpointsMissing(f'no endpoints available for service "{name}"') from None
        for subset in found.get("subsets") or []:
            addresses = subset.get("addresses") or []
            ports = subset.get("ports") or []
            chosen = next((p for p in ports if p.get("name", "") == spec_port.get("name", "")), None)
            if addresses and chosen is not None:
                return str(addresses[0]["ip"]), int(chosen["port"])
        raise LookupError(f'no endpoints available for service "{name}"')

    return resolve
