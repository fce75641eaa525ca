"""The `scheduling.<domain>/v1` group: priority classes."""

from __future__ import annotations

from ..catalog import Obj, ResourceType
from ..errors import FieldError, forbidden, invalid, not_supported
from ..naming import Naming
from .common import NoSpecStrategy, dig, setdefault_empty

#: the built-in classes: their names may use the reserved prefix and they can't be deleted.
SYSTEM_CLASSES = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}
HIGHEST_USER_PRIORITY = 1000000000
PREEMPTION_POLICIES = ["Never", "PreemptLowerPriority"]


class PriorityClassStrategy(NoSpecStrategy):
    def default(self, obj: Obj) -> None:
        setdefault_empty(obj, "preemptionPolicy", "PreemptLowerPriority")

    def validate(self, obj: Obj) -> list[FieldError]:
        name = str(dig(obj, "metadata", "name", default=""))
        value = obj.get("value", 0)
        errors: list[FieldError] = []
        if name in SYSTEM_CLASSES:
            if value != SYSTEM_CLASSES[name]:
                errors.append(invalid("value", value, f"must be {SYSTEM_CLASSES[name]} for {name}"))
        elif name.startswith("system-"):
            errors.append(invalid("metadata.name", name, "priority class names with 'system-' prefix are reserved"))
        elif isinstance(value, int) and value > HIGHEST_USER_PRIORITY:
            errors.append(
                forbidden("value", f"maximum allowed value of a user defined priority is {HIGHEST_USER_PRIORITY}")
            )
        if not isinstance(value, int) or isinstance(value, bool):
            errors.append(invalid("value", value, "must be an integer"))
        policy = obj.get("preemptionPolicy")
        if policy not in PREEMPTION_POLICIES:
            errors.append(not_supported("preemptionPolicy", policy, PREEMPTION_POLICIES))
        return errors

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        errors = []
        if obj.get("value", 0) != old.get("value", 0):
            errors.append(forbidden("value", "may not be changed in an update."))
        if obj.get("preemptionPolicy") != old.get("preemptionPolicy"):
            errors.append(invalid("preemptionPolicy", obj.get("preemptionPolicy"), "field is immutable"))
        return errors

    def forbid_delete(self, obj: Obj) -> str | None:
        if dig(obj, "metadata", "name") in SYSTEM_CLASSES:
            return "this is a system priority class and cannot be deleted"
        return None


def resource_types(naming: Naming) -> list[ResourceType]:
    return [
        ResourceType(
            naming.group("scheduling"),
            "v1",
            "PriorityClass",
            "priorityclasses",
            False,
            short_names=("pc",),
            strategy=PriorityClassStrategy(naming),
            example={"value": 1000, "globalDefault": False, "description": "example priority"},
        )
    ]
