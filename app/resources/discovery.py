"""The `discovery.<domain>` group: endpoint slices, v1 and the deprecated v1beta1 (stored as v1)."""

from __future__ import annotations

import copy
from typing import Any

from ..catalog import Conversion, Deprecation, Obj, ResourceType
from ..errors import FieldError, invalid, not_supported, required
from ..naming import Naming
from .common import KindStrategy, immutable, items, setdefault

ADDRESS_TYPES = ["FQDN", "IPv4", "IPv6"]
MAX_ADDRESSES = 100


class EndpointSliceStrategy(KindStrategy):
    def default(self, obj: Obj) -> None:
        for port in items(obj, "ports"):
            setdefault(port, "name", "")
            setdefault(port, "protocol", "TCP")
        hostname_key, zone_key = topology_keys(self.naming)
        for endpoint in items(obj, "endpoints"):
            _drop_redundant_topology(endpoint, hostname_key, zone_key)

    def validate(self, obj: Obj) -> list[FieldError]:
        errors: list[FieldError] = []
        kind = obj.get("addressType")
        if not kind:
            errors.append(required("addressType"))
        elif kind not in ADDRESS_TYPES:
            errors.append(not_supported("addressType", kind, ADDRESS_TYPES))
        for i, endpoint in enumerate(items(obj, "endpoints")):
            addresses = endpoint.get("addresses") or []
            if not addresses:
                errors.append(required(f"endpoints[{i}].addresses", "must contain at least 1 address"))
            elif len(addresses) > MAX_ADDRESSES:
                errors.append(
                    FieldError(
                        "FieldValueTooMany",
                        f"endpoints[{i}].addresses",
                        f"must have at most {MAX_ADDRESSES} items",
                        len(addresses),
                    )
                )
        for i, port in enumerate(items(obj, "ports")):
            number = port.get("port")
            if number is not None and (not isinstance(number, int) or not 1 <= number <= 65535):
                errors.append(invalid(f"ports[{i}].port", number, "must be between 1 and 65535, inclusive"))
        return errors

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        return immutable("addressType", obj.get("addressType"), old.get("addressType"))


# ----------------------------------------------------------------------------------- v1beta1 <-> v1


def topology_keys(naming: Naming) -> tuple[str, str]:
    """The well-known node labels v1beta1's `topology` map uses for the node name and the zone."""
    return naming.key("hostname"), f"{naming.key_group('topology')}/zone"


def _drop_redundant_topology(endpoint: Obj, hostname_key: str, zone_key: str) -> None:
    """deprecatedTopology is read-only in v1 (the reference drops it on v1 writes): keep at least the
    entries v1beta1 would rebuild from zone and nodeName out of it, so every stored slice converts to
    v1beta1 and back unchanged."""
    deprecated = endpoint.get("deprecatedTopology")
    if not isinstance(deprecated, dict):
        return
    deprecated.pop(zone_key, None)
    if endpoint.get("nodeName") is not None and deprecated.get(hostname_key) == endpoint["nodeName"]:
        del deprecated[hostname_key]
    if not deprecated:
        del endpoint["deprecatedTopology"]


def _endpoint_to_v1(endpoint: Any, hostname_key: str, zone_key: str) -> Any:
    """v1beta1 `topology` -> v1 `zone` + `deprecatedTopology` (the reference's conversion).

    The hostname entry is dropped only when it repeats nodeName; unlike the reference, a differing one
    is kept in deprecatedTopology and survives the way back (the reference overwrites it with nodeName).
    """
    if not isinstance(endpoint, dict):
        return copy.deepcopy(endpoint)
    out = {}
    for key, value in endpoint.items():
        if key != "topology":
            out[key] = copy.deepcopy(value)
            continue
        if not isinstance(value, dict):
            out["deprecatedTopology"] = copy.deepcopy(value)
            continue
        topology = dict(value)
        if zone_key in topology:
            out["zone"] = topology.pop(zone_key)
        if endpoint.get("nodeName") is not None and topology.get(hostname_key) == endpoint["nodeName"]:
            del topology[hostname_key]
        if topology:  # an empty map is no map (omitempty)
            out["deprecatedTopology"] = topology
    return out


def _endpoint_to_v1beta1(endpoint: Any, hostname_key: str, zone_key: str) -> Any:
    """v1 `deprecatedTopology` + `zone` + `nodeName` -> v1beta1 `topology`."""
    if not isinstance(endpoint, dict):
        return copy.deepcopy(endpoint)
    out = {key: copy.deepcopy(value) for key, value in endpoint.items() if key not in ("deprecatedTopology", "zone")}
    deprecated = endpoint.get("deprecatedTopology")
    zone, node_name = endpoint.get("zone"), endpoint.get("nodeName")
    if deprecated is None and zone is None and node_name is None:
        return out
    topology = dict(deprecated) if isinstance(deprecated, dict) else {}
    if zone is not None:
        topology[zone_key] = zone
    if node_name is not None and hostname_key not in topology:
        topology[hostname_key] = node_name
    if topology:
        out["topology"] = topology
    return out


def _convert(obj: Obj, api_version: str, endpoint_fn: Any, naming: Naming) -> Obj:
    hostname_key, zone_key = topology_keys(naming)
    out: Obj = {"apiVersion": api_version}
    for key, value in obj.items():
        if key == "endpoints" and isinstance(value, list):
            out[key] = [endpoint_fn(endpoint, hostname_key, zone_key) for endpoint in value]
        elif key != "apiVersion":
            out[key] = copy.deepcopy(value)
    return out


def v1beta1_conversion(naming: Naming) -> Conversion:
    group = naming.group("discovery")
    return Conversion(
        storage_group=group,
        storage_version="v1",
        storage_plural="endpointslices",
        to_storage=lambda obj: _convert(obj, f"{group}/v1", _endpoint_to_v1, naming),
        from_storage=lambda obj: _convert(obj, f"{group}/v1beta1", _endpoint_to_v1beta1, naming),
    )


def resource_types(naming: Naming) -> list[ResourceType]:
    group = naming.group("discovery")
    example = {
        "addressType": "IPv4",
        "endpoints": [{"addresses": ["10.244.0.5"]}],
        "ports": [{"name": "http", "port": 80}],
    }
    return [
        ResourceType(
            group,
            "v1",
            "EndpointSlice",
            "endpointslices",
            True,
            strategy=EndpointSliceStrategy(naming),
            example=example,
        ),
        ResourceType(
            group,
            "v1beta1",
            "EndpointSlice",
            "endpointslices",
            True,
            strategy=EndpointSliceStrategy(naming),
            example=copy.deepcopy(example),
            conversion=v1beta1_conversion(naming),
            deprecation=Deprecation("1.21", "1.25", f"{group}/v1 EndpointSlice"),
        ),
    ]
