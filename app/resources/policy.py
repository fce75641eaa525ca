"""The `policy/v1` group: pod disruption budgets."""
from __future__ import annotations

from typing import ClassVar

from app.catalog import Obj, ResourceType, status_subresource
from app.errors import FieldError, invalid
from app.naming import Naming
from app.resources.common import KindStrategy, int_or_percent_errors, part
from app.resources.defaults import selector_errors


class PodDisruptionBudgetStrategy(KindStrategy):
    initial_status: ClassVar[Obj] = {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = part(obj, "spec")
        errors: list[FieldError] = []
        if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
            errors.append(invalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"))
        errors += int_or_percent_errors("spec.minAvailable", spec.get("minAvailable"), max_percent=100)
        errors += int_or_percent_errors("spec.maxUnavailable", spec.get("maxUnavailable"), max_percent=100)
        if spec.get("selector") is not None:
            errors += selector_errors(spec["selector"], "spec.selector")
        return errors


def resource_types(naming: Naming) -> list[ResourceType]:
    return [
        ResourceType("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", True, short_names=("pdb",),
                     subresources=(status_subresource(),), strategy=PodDisruptionBudgetStrategy(naming),
                     has_status=True,
                     example={"spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}),
    ]
