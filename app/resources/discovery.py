"""The `discovery.<domain>/v1` group: endpoint slices."""
from __future__ import annotations

from app.catalog import Obj, ResourceType
from app.errors import FieldError, invalid, not_supported, required
from app.naming import Naming
from app.resources.common import KindStrategy, immutable, items, setdefault

ADDRESS_TYPES = ["FQDN", "IPv4", "IPv6"]
MAX_ADDRESSES = 100


class EndpointSliceStrategy(KindStrategy):
    def default(self, obj: Obj) -> None:
        for port in items(obj, "ports"):
            setdefault(port, "name", "")
            setdefault(port, "protocol", "TCP")

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
                errors.append(FieldError("FieldValueTooMany", f"endpoints[{i}].addresses",
                                         f"must have at most {MAX_ADDRESSES} items", len(addresses)))
        for i, port in enumerate(items(obj, "ports")):
            number = port.get("port")
            if number is not None and (not isinstance(number, int) or not 1 <= number <= 65535):
                errors.append(invalid(f"ports[{i}].port", number, "must be between 1 and 65535, inclusive"))
        return errors

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        return immutable("addressType", obj.get("addressType"), old.get("addressType"))


def resource_types(naming: Naming) -> list[ResourceType]:
    return [
        ResourceType(naming.group("discovery"), "v1", "EndpointSlice", "endpointslices", True,
                     strategy=EndpointSliceStrategy(naming),
                     example={"addressType": "IPv4", "endpoints": [{"addresses": ["10.244.0.5"]}],
                              "ports": [{"name": "http", "port": 80}]}),
    ]
