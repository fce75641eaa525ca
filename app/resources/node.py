"""The `node.<domain>/v1` group: runtime classes."""
from __future__ import annotations

import re

from app.catalog import Obj, ResourceType
from app.errors import FieldError, invalid, required
from app.naming import Naming
from app.resources.common import NoSpecStrategy, immutable

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
             "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")


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


def resource_types(naming: Naming) -> list[ResourceType]:
    return [
        ResourceType(naming.group("node"), "v1", "RuntimeClass", "runtimeclasses", False,
                     strategy=RuntimeClassStrategy(naming), example={"handler": "runc"}),
    ]
