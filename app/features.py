"""Feature gates (`--feature-gates Name=true,Other=false`): the reference's v1.23 table for what this server does.

Rules as the reference's feature-gate library: an unknown name or a value other than true/false is refused;
a gate locked to its default (GA, being removed) refuses the other value; setting a deprecated or GA gate
works but warns; `AllAlpha`/`AllBeta` switch every alpha/beta gate not set by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

EXTENSION_KEY = "orch.features"


class Stage(str, Enum):  # noqa: UP042 - str() of a member is its name here, as it always was
    ALPHA = "ALPHA"
    BETA = "BETA"
    GA = ""  # the reference prints no stage for GA gates
    DEPRECATED = "DEPRECATED"


@dataclass(frozen=True)
class Gate:
    default: bool
    stage: Stage
    locked: bool = False  # LockToDefault: the other value is refused


class FeatureGateError(ValueError):
    """A --feature-gates value the server refuses to start with."""


ALL_ALPHA = "AllAlpha"
ALL_BETA = "AllBeta"

#: v1.23 (k8s.io/apiserver pkg/features plus the kube-apiserver gates about API objects we serve).
GATES: dict[str, Gate] = {
    ALL_ALPHA: Gate(False, Stage.ALPHA),
    ALL_BETA: Gate(False, Stage.BETA),
    # generic API server
    "StreamingProxyRedirects": Gate(False, Stage.DEPRECATED),
    "ValidateProxyRedirects": Gate(True, Stage.DEPRECATED),
    "AdvancedAuditing": Gate(True, Stage.GA),
    "APIResponseCompression": Gate(True, Stage.BETA),
    "APIListChunking": Gate(True, Stage.BETA),
    "DryRun": Gate(True, Stage.GA),
    "RemainingItemCount": Gate(True, Stage.BETA),
    "ServerSideApply": Gate(True, Stage.GA),
    "StorageVersionHash": Gate(True, Stage.BETA),
    "StorageVersionAPI": Gate(False, Stage.ALPHA),
    "WatchBookmark": Gate(True, Stage.GA, locked=True),
    "APIPriorityAndFairness": Gate(True, Stage.BETA),
    "RemoveSelfLink": Gate(True, Stage.BETA),
    "SelectorIndex": Gate(True, Stage.GA, locked=True),
    "WarningHeaders": Gate(True, Stage.GA, locked=True),
    "EfficientWatchResumption": Gate(True, Stage.BETA),
    "APIServerIdentity": Gate(False, Stage.ALPHA),
    "APIServerTracing": Gate(False, Stage.ALPHA),
    "OpenAPIEnums": Gate(False, Stage.ALPHA),
    "CustomResourceValidationExpressions": Gate(False, Stage.ALPHA),
    "OpenAPIV3": Gate(False, Stage.ALPHA),
    "ServerSideFieldValidation": Gate(False, Stage.ALPHA),
    # kube-apiserver gates about kinds and fields this server serves
    "CSRDuration": Gate(True, Stage.BETA),
    "EphemeralContainers": Gate(True, Stage.BETA),
    "EndpointSliceTerminatingCondition": Gate(True, Stage.BETA),
    "EndpointSlice": Gate(True, Stage.GA, locked=True),
    "EndpointSliceNodeName": Gate(True, Stage.GA, locked=True),
    "PodDisruptionBudget": Gate(True, Stage.GA, locked=True),
    "RuntimeClass": Gate(True, Stage.GA, locked=True),
    "TTLAfterFinished": Gate(True, Stage.GA, locked=True),
    "IndexedJob": Gate(True, Stage.BETA),
    "SuspendJob": Gate(True, Stage.BETA),
    "JobTrackingWithFinalizers": Gate(False, Stage.BETA),
    "JobReadyPods": Gate(False, Stage.ALPHA),
    "DaemonSetUpdateSurge": Gate(True, Stage.BETA),
    "StatefulSetMinReadySeconds": Gate(True, Stage.BETA),
    "StatefulSetAutoDeletePVC": Gate(False, Stage.ALPHA),
    "NetworkPolicyEndPort": Gate(True, Stage.BETA),
    "IngressClassNamespacedParams": Gate(True, Stage.GA, locked=True),
    "NamespaceDefaultLabelName": Gate(True, Stage.GA, locked=True),
    "PodSecurity": Gate(True, Stage.BETA),
    "HPAContainerMetrics": Gate(False, Stage.ALPHA),
    "HPAScaleToZero": Gate(False, Stage.ALPHA),
    "DynamicKubeletConfig": Gate(False, Stage.DEPRECATED),
}


def _parse_bool(name: str, text: str) -> bool:
    # strconv.ParseBool's spellings, as the reference
    if text in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if text in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    raise FeatureGateError(f'invalid value of {name}={text}, err: strconv.ParseBool: parsing "{text}": invalid syntax')


def check(name: str, value: bool) -> None:
    gate = GATES.get(name)
    if gate is None:
        raise FeatureGateError(f"unrecognized feature gate: {name}")
    if gate.locked and value != gate.default:
        lower = str(gate.default).lower()
        raise FeatureGateError(f"cannot set feature gate {name} to {str(value).lower()}, feature is locked to {lower}")


def parse(text: str) -> dict[str, bool]:
    """One `--feature-gates` value (`A=true,B=false`), checked against the table."""
    overrides: dict[str, bool] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep:
            raise FeatureGateError(f"missing bool value for {name}")
        overrides[name] = _parse_bool(name, value.strip())
        check(name, overrides[name])
    return overrides


def warnings(overrides: Mapping[str, bool]) -> list[str]:
    """What the server logs at start for the gates set: deprecated and GA gates are going away."""
    lines = []
    for name, value in overrides.items():
        stage = GATES[name].stage
        if stage is Stage.DEPRECATED:
            lines.append(
                f"Setting deprecated feature gate {name}={str(value).lower()}. It will be removed in a future release."
            )
        elif stage is Stage.GA:
            lines.append(
                f"Setting GA feature gate {name}={str(value).lower()}. It will be removed in a future release."
            )
    return lines


class FeatureGates:
    """The effective gates of one server: the table's defaults overlaid with the flag's values."""

    def __init__(self, overrides: Mapping[str, bool] | None = None) -> None:
        overrides = dict(overrides or {})
        for name, value in overrides.items():
            check(name, value)
        self._overrides = overrides

    def enabled(self, name: str) -> bool:
        if name in self._overrides:
            return self._overrides[name]
        gate = GATES.get(name)
        if gate is None:
            raise KeyError(f"feature gate {name!r} is not registered")
        if gate.stage is Stage.ALPHA and self._overrides.get(ALL_ALPHA) and name != ALL_ALPHA:
            return True
        if gate.stage is Stage.BETA and self._overrides.get(ALL_BETA) and name != ALL_BETA:
            return True
        return gate.default

    def known(self) -> Iterable[str]:
        return GATES.keys()


def enabled(name: str) -> bool:
    """The gate in the current app (the table's default outside an app context or without the flag)."""
    from flask import current_app, has_app_context

    if has_app_context() and EXTENSION_KEY in current_app.extensions:
        return current_app.extensions[EXTENSION_KEY].enabled(name)
    return FeatureGates().enabled(name)
