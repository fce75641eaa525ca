"""What an object counts against a ResourceQuota, as the reference's quota evaluators count it; shared by the
ResourceQuota admission plugin (a write's increment) and the resourcequota controller (a namespace's total)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from .naming import Naming
from .resources.defaults import parse_quantity

Usage = dict[str, Decimal]
#: the kinds whose own resource names (besides count/<resource>) a quota may hold
CORE_COUNTED = (
    "pods",
    "services",
    "persistentvolumeclaims",
    "configmaps",
    "secrets",
    "replicationcontrollers",
    "resourcequotas",
)
COMPUTE = ("cpu", "memory", "ephemeral-storage")
TERMINAL_PHASES = ("Succeeded", "Failed")
BINARY_UNITS = (("Ei", 1 << 60), ("Pi", 1 << 50), ("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10))
DECIMAL_UNITS = (
    ("E", 18),
    ("P", 15),
    ("T", 12),
    ("G", 9),
    ("M", 6),
    ("k", 3),
    ("", 0),
    ("m", -3),
    ("u", -6),
    ("n", -9),
)


def count_name(group: str, plural: str) -> str:
    return f"count/{plural}.{group}" if group else f"count/{plural}"


def usage(naming: Naming, group: str, plural: str, obj: dict, now: datetime | None = None) -> Usage:
    """The quota resources one stored object uses (count/<resource> for every kind; more for the core kinds)."""
    out: Usage = {count_name(group, plural): Decimal(1)}
    if group or plural not in CORE_COUNTED:
        return out
    if plural == "pods":
        if counts_compute(obj, now):
            out["pods"] = Decimal(1)
            out.update(pod_compute(obj))
    elif plural == "services":
        spec = obj.get("spec") or {}
        out["services"] = Decimal(1)
        if spec.get("type") == "LoadBalancer":
            out["services.loadbalancers"] = Decimal(1)
        if spec.get("type") in ("NodePort", "LoadBalancer"):
            out["services.nodeports"] = Decimal(len(spec.get("ports") or []))
    elif plural == "persistentvolumeclaims":
        out["persistentvolumeclaims"] = Decimal(1)
        spec = obj.get("spec") or {}
        storage = parse_quantity(((spec.get("resources") or {}).get("requests") or {}).get("storage")) or Decimal(0)
        out["requests.storage"] = storage
        if spec.get("storageClassName"):
            prefix = f"{spec['storageClassName']}.{naming.group('storageclass.storage')}/"
            out[prefix + "requests.storage"] = storage
            out[prefix + "persistentvolumeclaims"] = Decimal(1)
    else:
        out[plural] = Decimal(1)
    return out


def counts_compute(pod: dict, now: datetime | None = None) -> bool:
    """A pod uses compute quota until it ends: not after Succeeded/Failed, nor past its deletion grace."""
    if (pod.get("status") or {}).get("phase") in TERMINAL_PHASES:
        return False
    metadata = pod.get("metadata") or {}
    deleted = metadata.get("deletionTimestamp")
    if deleted:
        grace = timedelta(seconds=int(metadata.get("deletionGracePeriodSeconds") or 0))
        when = datetime.fromisoformat(str(deleted))  # Python 3.11 reads the Z
        return (now or datetime.now(UTC)) <= when + grace
    return True


def _container_sums(containers: Iterable[dict], target: str) -> Usage:
    total: Usage = {}
    for container in containers:
        for name, value in ((container.get("resources") or {}).get(target) or {}).items():
            total[name] = total.get(name, Decimal(0)) + (parse_quantity(value) or Decimal(0))
    return total


def pod_totals(spec: dict, target: str) -> Usage:
    """A pod's requests or limits: the larger of its containers' sum and any one init container, plus overhead."""
    containers = [c for c in spec.get("containers") or [] if isinstance(c, dict)]
    total = _container_sums(containers, target)
    for init in spec.get("initContainers") or []:
        for name, value in _container_sums([init], target).items():
            total[name] = max(total.get(name, Decimal(0)), value)
    for name, value in (spec.get("overhead") or {}).items():
        if name in total or target == "requests":
            total[name] = total.get(name, Decimal(0)) + (parse_quantity(value) or Decimal(0))
    return total


def pod_compute(pod: dict) -> Usage:
    spec = pod.get("spec") or {}
    out: Usage = {}
    for name, value in pod_totals(spec, "requests").items():
        out[f"requests.{name}"] = value
        if name in COMPUTE:
            out[name] = value
    for name, value in pod_totals(spec, "limits").items():
        if name in COMPUTE:
            out[f"limits.{name}"] = value
    return out


def best_effort(pod: dict) -> bool:
    spec = pod.get("spec") or {}
    return not any(
        pod_totals(spec, target).get(name) for target in ("requests", "limits") for name in ("cpu", "memory")
    )


def matches_scopes(quota: dict, group: str, plural: str, obj: dict) -> bool:
    """Whether a quota's scopes (and scope selector) take in the object: scoped quotas take only pods."""
    spec = quota.get("spec") or {}
    scopes = list(spec.get("scopes") or [])
    selectors = [e for e in (spec.get("scopeSelector") or {}).get("matchExpressions") or [] if isinstance(e, dict)]
    if not scopes and not selectors:
        return True
    if group or plural != "pods":
        return False
    pod_spec = obj.get("spec") or {}
    checks = {
        "Terminating": pod_spec.get("activeDeadlineSeconds") is not None,
        "NotTerminating": pod_spec.get("activeDeadlineSeconds") is None,
        "BestEffort": best_effort(obj),
        "NotBestEffort": not best_effort(obj),
    }
    for scope in scopes:
        if not checks.get(scope, False):
            return False
    for expression in selectors:
        scope, operator, values = expression.get("scopeName"), expression.get("operator"), expression.get("values")
        if scope == "PriorityClass":
            name = pod_spec.get("priorityClassName")
            matched = {
                "In": name in (values or []),
                "NotIn": name not in (values or []),
                "Exists": bool(name),
                "DoesNotExist": not name,
            }.get(str(operator), False)
        else:
            matched = checks.get(str(scope), False) == (operator != "DoesNotExist")
        if not matched:
            return False
    return True


def format_quantity(value: Decimal, binary: bool = False) -> str:
    """The reference's canonical quantity: the largest suffix that keeps the number whole."""
    if value == 0:
        return "0"
    if binary and value == value.to_integral_value():
        for suffix, size in BINARY_UNITS:
            if value % size == 0:
                return f"{int(value // size)}{suffix}"
    for suffix, exponent in DECIMAL_UNITS:
        scaled = value.scaleb(-exponent)
        if scaled == scaled.to_integral_value():
            return f"{int(scaled)}{suffix}"
    return format(value.normalize(), "f")


def is_binary(text: object) -> bool:
    return isinstance(text, str) and text.rstrip("0123456789.").endswith("i")


def render(values: Usage, examples: dict) -> dict[str, str]:
    """Quantities as a quota status holds them, binary where the quota's own figure for it is (e.g. `1Gi`)."""
    return {name: format_quantity(value, is_binary(examples.get(name))) for name, value in sorted(values.items())}
