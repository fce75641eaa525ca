"""The `policy` group: pod disruption budgets in v1 (stored) and the deprecated v1beta1, and v1beta1's pod
security policies."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import ClassVar

from ..catalog import Conversion, Deprecation, Obj, ResourceType, status_subresource
from ..errors import FieldError, invalid
from ..naming import Naming
from .common import KindStrategy, int_or_percent_errors, part
from .defaults import selector_errors
from .pod_security_policy import pod_security_policy_type


class PodDisruptionBudgetStrategy(KindStrategy):
    initial_status: ClassVar[Obj] = {
        "disruptionsAllowed": 0,
        "currentHealthy": 0,
        "desiredHealthy": 0,
        "expectedPods": 0,
    }

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


def v1beta1_selector_key(naming: Naming) -> str:
    """The label key of the selectors that keep v1beta1's empty-selector meaning in v1 (upstream
    pdb.<upstream domain>/deprecated-v1beta1-empty-selector-match)."""
    return f"{naming.key_group('pdb')}/deprecated-v1beta1-empty-selector-match"


def _is_empty_selector(selector: object) -> bool:
    return isinstance(selector, dict) and not selector.get("matchLabels") and not selector.get("matchExpressions")


def _only_requirement(selector: object, key: str, operator: str) -> bool:
    if not isinstance(selector, dict) or selector.get("matchLabels"):
        return False
    return selector.get("matchExpressions") == [{"key": key, "operator": operator}]


def pdb_conversion(naming: Naming) -> Conversion:
    """policy/v1beta1 <-> policy/v1 PodDisruptionBudget, as the reference converts the selector:
    an empty v1beta1 selector selects no pods, an empty v1 selector every pod, so each version's empty
    selector is stored in the other as a one-requirement selector on a reserved key, and back."""
    key = v1beta1_selector_key(naming)

    def convert(obj: Obj, api_version: str, selector_of: Callable[[Obj], Obj]) -> Obj:
        out = copy.deepcopy(obj)
        out["apiVersion"] = api_version
        spec = out.get("spec")
        if isinstance(spec, dict) and "selector" in spec and spec["selector"] is not None:
            spec["selector"] = selector_of(spec["selector"])
        return out

    def selector_to_v1(selector: Obj) -> Obj:
        if _is_empty_selector(selector):
            return {"matchExpressions": [{"key": key, "operator": "Exists"}]}  # v1beta1: matches nothing
        if _only_requirement(selector, key, "DoesNotExist"):
            return {}  # a v1 match-all selector read through v1beta1 and written back
        if isinstance(selector, dict) and isinstance(selector.get("matchExpressions"), list):
            # the reserved key never mixes with what a user selects on
            kept = [r for r in selector["matchExpressions"] if not (isinstance(r, dict) and r.get("key") == key)]
            selector = (
                {**selector, "matchExpressions": kept}
                if kept
                else {k: v for k, v in selector.items() if k != "matchExpressions"}
            )
        return selector

    def selector_to_v1beta1(selector: Obj) -> Obj:
        if _only_requirement(selector, key, "Exists"):
            return {}
        if _is_empty_selector(selector):
            return {"matchExpressions": [{"key": key, "operator": "DoesNotExist"}]}  # v1: matches everything
        return selector

    return Conversion(
        "policy",
        "v1",
        "poddisruptionbudgets",
        to_storage=lambda obj: convert(obj, "policy/v1", selector_to_v1),
        from_storage=lambda obj: convert(obj, "policy/v1beta1", selector_to_v1beta1),
    )


def resource_types(naming: Naming) -> list[ResourceType]:
    v1 = ResourceType(
        "policy",
        "v1",
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        True,
        short_names=("pdb",),
        subresources=(status_subresource(),),
        strategy=PodDisruptionBudgetStrategy(naming),
        has_status=True,
        example={"spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}},
    )
    v1beta1 = ResourceType(
        "policy",
        "v1beta1",
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        True,
        short_names=("pdb",),
        subresources=(status_subresource(),),
        strategy=PodDisruptionBudgetStrategy(naming),
        has_status=True,
        example=v1.example,
        conversion=pdb_conversion(naming),
        deprecation=Deprecation("1.21", "1.25", "policy/v1 PodDisruptionBudget"),
    )
    return [v1, v1beta1, pod_security_policy_type(naming)]
