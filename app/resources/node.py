"""The `node.<domain>/v1` group: runtime classes."""

from __future__ import annotations

import copy
import re

from ..catalog import Conversion, Deprecation, Obj, ResourceType
from ..errors import FieldError, invalid, required
from ..naming import Naming
from .common import NoSpecStrategy, immutable

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


class RuntimeClassStrategy(NoSpecStrategy):
    allow_create_on_update = True

    def validate(self, obj: Obj) -> list[FieldError]:
        handler = obj.get("handler")
        if not handler:
            return [required("handler")]
        if not isinstance(handler, str) or len(handler) > 63 or not _DNS_LABEL.match(handler):
            return [invalid("handler", handler, LABEL_MSG)]
        return []

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        return immutable("handler", obj.get("handler"), old.get("handler"))


def as_version(obj: Obj, api_version: str) -> Obj:
    """A deep copy of `obj` served as `api_version` (for versions whose fields are the same)."""
    return {"apiVersion": api_version, **{k: copy.deepcopy(v) for k, v in obj.items() if k != "apiVersion"}}


def v1beta1_conversion(group: str) -> Conversion:
    """node/v1beta1 RuntimeClass has v1's fields (handler, overhead, scheduling at the top level)."""
    return Conversion(
        storage_group=group,
        storage_version="v1",
        storage_plural="runtimeclasses",
        to_storage=lambda obj: as_version(obj, f"{group}/v1"),
        from_storage=lambda obj: as_version(obj, f"{group}/v1beta1"),
    )


def resource_types(naming: Naming) -> list[ResourceType]:
    group = naming.group("node")
    return [
        ResourceType(
            group,
            "v1",
            "RuntimeClass",
            "runtimeclasses",
            False,
            strategy=RuntimeClassStrategy(naming),
            example={"handler": "runc"},
        ),
        ResourceType(
            group,
            "v1beta1",
            "RuntimeClass",
            "runtimeclasses",
            False,
            strategy=RuntimeClassStrategy(naming),
            example={"handler": "runc"},
            conversion=v1beta1_conversion(group),
            # the spec's removal table names node.<domain>/v1 as the way to migrate
            deprecation=Deprecation("1.22", "1.25", f"{group}/v1 RuntimeClass"),
        ),
    ]
