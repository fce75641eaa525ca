"""`policy/v1beta1` PodSecurityPolicy: stored and served as a v1.23 server does (deprecated in v1.21, removed in
v1.25), with its defaults and validation; no admission plugin enforces it here."""

from __future__ import annotations

from typing import Any

from ..catalog import Deprecation, Obj, ResourceType
from ..errors import FieldError, invalid, not_supported, required
from ..naming import Naming
from .common import NoSpecStrategy, child, part

SELINUX_RULES = ["MustRunAs", "RunAsAny"]
RUN_AS_USER_RULES = ["MustRunAs", "MustRunAsNonRoot", "RunAsAny"]
GROUP_RULES = ["MustRunAs", "MayRunAs", "RunAsAny"]
PROC_MOUNT_TYPES = ["Default", "Unmasked"]
VOLUMES = [
    "*",
    "awsElasticBlockStore",
    "azureDisk",
    "azureFile",
    "cephFS",
    "cinder",
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "fc",
    "flexVolume",
    "flocker",
    "gcePersistentDisk",
    "gitRepo",
    "glusterfs",
    "hostPath",
    "iscsi",
    "nfs",
    "persistentVolumeClaim",
    "photonPersistentDisk",
    "portworxVolume",
    "projected",
    "quobyte",
    "rbd",
    "scaleIO",
    "secret",
    "storageos",
    "vsphereVolume",
]


def _ranges_errors(ranges: Any, path: str, rule: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if rule == "MustRunAs" and not ranges:
        errors.append(invalid(f"{path}.ranges", ranges or [], "must provide at least one range"))
    for i, item in enumerate(ranges or []):
        where = f"{path}.ranges[{i}]"
        lo, hi = (item or {}).get("min"), (item or {}).get("max")
        if not isinstance(lo, int) or not isinstance(hi, int):
            errors.append(invalid(where, item, "min and max must be integers"))
        elif lo < 0 or hi < 0:
            errors.append(invalid(where, item, "min and max cannot be negative"))
        elif lo > hi:
            errors.append(invalid(where, item, f"min ({lo}) cannot be greater than max ({hi})"))
    return errors


def _strategy_errors(spec: Obj, key: str, rules: list[str], optional: bool = False) -> list[FieldError]:
    """A user/group/SELinux strategy: its rule is one of `rules`; MustRunAs needs ranges, each min <= max."""
    options = spec.get(key)
    if options is None and optional:
        return []
    rule = (options or {}).get("rule") or ""
    if rule not in rules:
        return [not_supported(f"spec.{key}.rule", rule, rules)]
    return _ranges_errors((options or {}).get("ranges"), f"spec.{key}", rule)


class PodSecurityPolicyStrategy(NoSpecStrategy):
    """The reference's ValidatePodSecurityPolicySpec, for what a stored policy must hold."""

    def default(self, obj: Obj) -> None:
        spec = child(obj, "spec")
        if spec.get("allowPrivilegeEscalation") is None:  # the reference's v1beta1 default: as permissive as before
            spec["allowPrivilegeEscalation"] = True

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = part(obj, "spec")
        errors = _strategy_errors(spec, "seLinux", SELINUX_RULES)
        errors += _strategy_errors(spec, "runAsUser", RUN_AS_USER_RULES)
        errors += _strategy_errors(spec, "runAsGroup", GROUP_RULES, optional=True)
        errors += _strategy_errors(spec, "fsGroup", GROUP_RULES)
        errors += _strategy_errors(spec, "supplementalGroups", GROUP_RULES)
        for i, volume in enumerate(spec.get("volumes") or []):
            if volume not in VOLUMES:
                errors.append(not_supported(f"spec.volumes[{i}]", volume, VOLUMES))
        for i, ports in enumerate(spec.get("hostPorts") or []):
            lo, hi = (ports or {}).get("min"), (ports or {}).get("max")
            for key, value in (("min", lo), ("max", hi)):
                if not isinstance(value, int) or not 0 <= value <= 65535:
                    errors.append(invalid(f"spec.hostPorts[{i}].{key}", value, "must be between 0 and 65535"))
            if isinstance(lo, int) and isinstance(hi, int) and lo > hi:
                errors.append(invalid(f"spec.hostPorts[{i}]", ports, f"min ({lo}) cannot be greater than max ({hi})"))
        dropped = set(spec.get("requiredDropCapabilities") or [])
        for key in ("allowedCapabilities", "defaultAddCapabilities"):
            for i, cap in enumerate(spec.get(key) or []):
                if cap in dropped:
                    errors.append(
                        invalid(f"spec.{key}[{i}]", cap, f"capability is listed in {key} and requiredDropCapabilities")
                    )
        if spec.get("allowPrivilegeEscalation") is False and spec.get("defaultAllowPrivilegeEscalation") is True:
            errors.append(
                invalid(
                    "spec.defaultAllowPrivilegeEscalation",
                    True,
                    "Cannot set DefaultAllowPrivilegeEscalation to true without also setting "
                    "AllowPrivilegeEscalation to true",
                )
            )
        for i, path in enumerate(spec.get("allowedHostPaths") or []):
            if not (path or {}).get("pathPrefix"):
                errors.append(required(f"spec.allowedHostPaths[{i}].pathPrefix"))
        for i, kind in enumerate(spec.get("allowedProcMountTypes") or []):
            if kind not in PROC_MOUNT_TYPES:
                errors.append(not_supported(f"spec.allowedProcMountTypes[{i}]", kind, PROC_MOUNT_TYPES))
        return errors


def pod_security_policy_type(naming: Naming) -> ResourceType:
    return ResourceType(
        "policy",
        "v1beta1",
        "PodSecurityPolicy",
        "podsecuritypolicies",
        False,
        short_names=("psp",),
        strategy=PodSecurityPolicyStrategy(naming),
        deprecation=Deprecation("1.21", "1.25"),
        example={
            "spec": {
                "seLinux": {"rule": "RunAsAny"},
                "runAsUser": {"rule": "MustRunAsNonRoot"},
                "fsGroup": {"rule": "RunAsAny"},
                "supplementalGroups": {"rule": "RunAsAny"},
                "volumes": ["configMap", "secret", "emptyDir"],
            }
        },
    )
