"""The `apps/v1` group: deployments, replica sets, stateful sets and daemon sets."""

from __future__ import annotations

import copy
from typing import ClassVar

from ..catalog import Obj, ResourceType, status_subresource
from ..errors import FieldError, forbidden, invalid, not_supported, required
from ..naming import Naming
from .common import (
    Getter,
    KindStrategy,
    NoSpecStrategy,
    child,
    dig,
    field,
    immutable,
    int_or_percent_errors,
    is_zero_int_or_percent,
    items,
    non_negative,
    part,
    setdefault,
)
from .defaults import (
    default_pvc,
    default_template,
    label_selector_string,
    scale_subresource,
    validate_template,
    workload_selector_errors,
)

ALL = ("all",)
STS_SPEC_UPDATE_MSG = (
    "updates to statefulset spec for fields other than 'replicas', 'template', 'updateStrategy', "
    "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"
)


class WorkloadStrategy(KindStrategy):
    """Shared by the apps kinds: template defaults, selector rules, immutable selector."""

    #: the kind's name in "empty selector is invalid for <kind>".
    noun = ""
    #: "`selector` does not match template `labels`" (True) or the DaemonSet wording (False).
    backticks = True

    def default(self, obj: Obj) -> None:
        default_template(child(obj, "spec").get("template"))

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = part(obj, "spec")
        errors = workload_selector_errors(spec, kind=self.noun, backticks=self.backticks)
        errors += validate_template(spec.get("template"), "spec.template", restart_policies=["Always"])
        for key in ("replicas", "minReadySeconds", "revisionHistoryLimit"):
            errors += non_negative(f"spec.{key}", spec.get(key))
        return errors + self.validate_spec(spec)

    def validate_spec(self, spec: Obj) -> list[FieldError]:
        return []

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        return immutable("spec.selector", dig(obj, "spec", "selector"), dig(old, "spec", "selector"))


def _rolling_errors(rolling: object, path: str) -> list[FieldError]:
    if not isinstance(rolling, dict):
        return []
    surge, unavailable = rolling.get("maxSurge"), rolling.get("maxUnavailable")
    errors = int_or_percent_errors(f"{path}.maxSurge", surge)
    errors += int_or_percent_errors(f"{path}.maxUnavailable", unavailable, max_percent=100)
    if not errors and is_zero_int_or_percent(surge) and is_zero_int_or_percent(unavailable):
        errors.append(invalid(f"{path}.maxUnavailable", unavailable, "may not be 0 when `maxSurge` is 0"))
    return errors


class DeploymentStrategy(WorkloadStrategy):
    noun = "deployment"
    initial_status: ClassVar[Obj] = {}

    def default(self, obj: Obj) -> None:
        super().default(obj)
        spec = child(obj, "spec")
        setdefault(spec, "replicas", 1)
        strategy = child(spec, "strategy")
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
        if strategy["type"] == "RollingUpdate":
            rolling = child(strategy, "rollingUpdate")
            setdefault(rolling, "maxUnavailable", "25%")
            setdefault(rolling, "maxSurge", "25%")
        setdefault(spec, "revisionHistoryLimit", 10)
        setdefault(spec, "progressDeadlineSeconds", 600)

    def validate_spec(self, spec: Obj) -> list[FieldError]:
        strategy = spec["strategy"] if isinstance(spec.get("strategy"), dict) else {}
        kind = strategy.get("type")
        errors: list[FieldError] = []
        if kind not in ("Recreate", "RollingUpdate"):
            errors.append(not_supported("spec.strategy.type", kind, ["Recreate", "RollingUpdate"]))
        elif kind == "Recreate" and strategy.get("rollingUpdate") is not None:
            errors.append(
                forbidden("spec.strategy.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'")
            )
        else:
            errors += _rolling_errors(strategy.get("rollingUpdate"), "spec.strategy.rollingUpdate")
        deadline = spec.get("progressDeadlineSeconds")
        if isinstance(deadline, int) and deadline <= int(spec.get("minReadySeconds") or 0):
            errors.append(invalid("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds"))
        return errors


class ReplicaSetStrategy(WorkloadStrategy):
    noun = "deployment"  # the reference reuses the Deployment wording for replica sets
    initial_status: ClassVar[Obj] = {"replicas": 0}
    field_selectors: ClassVar[dict[str, Getter]] = {"status.replicas": field("status", "replicas", default="0")}

    def default(self, obj: Obj) -> None:
        super().default(obj)
        setdefault(child(obj, "spec"), "replicas", 1)


class StatefulSetStrategy(WorkloadStrategy):
    noun = "statefulset"
    initial_status: ClassVar[Obj] = {"replicas": 0, "availableReplicas": 0}

    def default(self, obj: Obj) -> None:
        super().default(obj)
        spec = child(obj, "spec")
        if not spec.get("podManagementPolicy"):
            spec["podManagementPolicy"] = "OrderedReady"
        update = child(spec, "updateStrategy")
        if not update.get("type"):
            update["type"] = "RollingUpdate"
            setdefault(update, "rollingUpdate", {})
        if update["type"] == "RollingUpdate" and isinstance(update.get("rollingUpdate"), dict):
            setdefault(update["rollingUpdate"], "partition", 0)
        setdefault(spec, "replicas", 1)
        setdefault(spec, "revisionHistoryLimit", 10)
        for claim in items(spec, "volumeClaimTemplates"):
            default_pvc(claim)

    def validate_spec(self, spec: Obj) -> list[FieldError]:
        errors: list[FieldError] = []
        policy = spec.get("podManagementPolicy")
        if policy not in ("OrderedReady", "Parallel"):
            errors.append(not_supported("spec.podManagementPolicy", policy, ["OrderedReady", "Parallel"]))
        update = spec["updateStrategy"] if isinstance(spec.get("updateStrategy"), dict) else {}
        if update.get("type") not in ("OnDelete", "RollingUpdate"):
            errors.append(not_supported("spec.updateStrategy.type", update.get("type"), ["OnDelete", "RollingUpdate"]))
        errors += non_negative("spec.updateStrategy.rollingUpdate.partition", dig(update, "rollingUpdate", "partition"))
        return errors

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        mutable = ("replicas", "template", "updateStrategy", "persistentVolumeClaimRetentionPolicy", "minReadySeconds")

        def frozen(o: Obj) -> Obj:
            return {k: v for k, v in (o.get("spec") or {}).items() if k not in mutable}

        if frozen(obj) != frozen(old):
            return [forbidden("spec", STS_SPEC_UPDATE_MSG)]
        return []


class DaemonSetStrategy(WorkloadStrategy):
    noun = "daemonset"
    backticks = False
    initial_status: ClassVar[Obj] = {
        "currentNumberScheduled": 0,
        "numberMisscheduled": 0,
        "desiredNumberScheduled": 0,
        "numberReady": 0,
    }

    def default(self, obj: Obj) -> None:
        super().default(obj)
        spec = child(obj, "spec")
        update = child(spec, "updateStrategy")
        if not update.get("type"):
            update["type"] = "RollingUpdate"
        if update["type"] == "RollingUpdate":
            rolling = child(update, "rollingUpdate")
            setdefault(rolling, "maxUnavailable", 1)
            setdefault(rolling, "maxSurge", 0)
        setdefault(spec, "revisionHistoryLimit", 10)

    def validate_spec(self, spec: Obj) -> list[FieldError]:
        update = spec["updateStrategy"] if isinstance(spec.get("updateStrategy"), dict) else {}
        if update.get("type") not in ("OnDelete", "RollingUpdate"):
            return [not_supported("spec.updateStrategy.type", update.get("type"), ["OnDelete", "RollingUpdate"])]
        return _rolling_errors(update.get("rollingUpdate"), "spec.updateStrategy.rollingUpdate")


class ControllerRevisionStrategy(NoSpecStrategy):
    """A snapshot of a DaemonSet's or StatefulSet's template (`kubectl rollout history/undo` read them): `data`
    is required and immutable, `revision` non-negative (the reference's ValidateControllerRevision)."""

    def validate(self, obj: Obj) -> list[FieldError]:
        errors = [] if obj.get("data") is not None else [required("data")]
        return errors + non_negative("revision", obj.get("revision"))

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        return immutable("data", obj.get("data"), old.get("data"))


# ----------------------------------------------------------------------------------- the group

TEMPLATE = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "app", "image": "nginx:1.21"}]}}
SELECTOR = {"matchLabels": {"app": "web"}}


def _example(**extra: object) -> Obj:
    return {"spec": {"selector": copy.deepcopy(SELECTOR), "template": copy.deepcopy(TEMPLATE), **extra}}


def resource_types(naming: Naming) -> list[ResourceType]:
    status = status_subresource()
    scale = scale_subresource(lambda obj: label_selector_string(dig(obj, "spec", "selector")))
    return [
        ResourceType(
            "apps",
            "v1",
            "ControllerRevision",
            "controllerrevisions",
            True,
            strategy=ControllerRevisionStrategy(naming),
            example={"revision": 1, "data": {"spec": {"template": copy.deepcopy(TEMPLATE)}}},
        ),
        ResourceType(
            "apps",
            "v1",
            "DaemonSet",
            "daemonsets",
            True,
            short_names=("ds",),
            categories=ALL,
            subresources=(status,),
            strategy=DaemonSetStrategy(naming),
            has_status=True,
            example=_example(),
        ),
        ResourceType(
            "apps",
            "v1",
            "Deployment",
            "deployments",
            True,
            short_names=("deploy",),
            categories=ALL,
            subresources=(scale, status),
            strategy=DeploymentStrategy(naming),
            has_status=True,
            example=_example(replicas=2),
        ),
        ResourceType(
            "apps",
            "v1",
            "ReplicaSet",
            "replicasets",
            True,
            short_names=("rs",),
            categories=ALL,
            subresources=(scale, status),
            strategy=ReplicaSetStrategy(naming),
            has_status=True,
            example=_example(replicas=1),
        ),
        ResourceType(
            "apps",
            "v1",
            "StatefulSet",
            "statefulsets",
            True,
            short_names=("sts",),
            categories=ALL,
            subresources=(scale, status),
            strategy=StatefulSetStrategy(naming),
            has_status=True,
            example=_example(replicas=1, serviceName="web"),
        ),
    ]
