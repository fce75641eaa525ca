"""Whether a pod may run on a node, as the DaemonSet controller and the scheduler both decide it (the reference's
predicates): nodeSelector, required node affinity, and taints against tolerations."""

from __future__ import annotations

from ...naming import Naming
from .workload_common import meta, spec

_EXECUTE_TAINTS = ("not-ready", "unreachable")
_PRESSURE_TAINTS = ("disk-pressure", "memory-pressure", "pid-pressure", "unschedulable")


def daemon_tolerations(naming: Naming, host_network: bool) -> list[dict]:
    """The tolerations every DaemonSet pod gets (the reference's AddOrUpdateDaemonPodTolerations)."""
    node = naming.key_group("node")
    out = [{"key": f"{node}/{k}", "operator": "Exists", "effect": "NoExecute"} for k in _EXECUTE_TAINTS]
    out += [{"key": f"{node}/{k}", "operator": "Exists", "effect": "NoSchedule"} for k in _PRESSURE_TAINTS]
    if host_network:
        out.append({"key": f"{node}/network-unavailable", "operator": "Exists", "effect": "NoSchedule"})
    return out


def add_tolerations(pod_spec: dict, extra: list[dict]) -> None:
    have = pod_spec.setdefault("tolerations", [])
    for toleration in extra:
        if not any(t.get("key") == toleration["key"] and t.get("effect") == toleration["effect"] for t in have):
            have.append(toleration)


def tolerates(tolerations: list[dict], taint: dict) -> bool:
    for t in tolerations:
        if not isinstance(t, dict):
            continue
        if t.get("effect") and t.get("effect") != taint.get("effect"):
            continue
        if t.get("operator") == "Exists":
            if not t.get("key") or t.get("key") == taint.get("key"):
                return True
        elif t.get("key") == taint.get("key") and (t.get("value") or "") == (taint.get("value") or ""):
            return True
    return False


def _expression(expr: dict, values: dict[str, str]) -> bool:
    key, op, wanted = expr.get("key", ""), expr.get("operator"), [str(v) for v in expr.get("values") or []]
    have = values.get(key)
    if op == "In":
        return have is not None and have in wanted
    if op == "NotIn":
        return have is None or have not in wanted
    if op == "Exists":
        return have is not None
    if op == "DoesNotExist":
        return have is None
    if op in ("Gt", "Lt") and have is not None and len(wanted) == 1:
        try:
            return int(have) > int(wanted[0]) if op == "Gt" else int(have) < int(wanted[0])
        except ValueError:
            return False
    return False


def _term(term: dict, node: dict) -> bool:
    labels = meta(node).get("labels") or {}
    fields = {"metadata.name": str(meta(node).get("name"))}
    expressions = term.get("matchExpressions") or []
    matches = term.get("matchFields") or []
    if not expressions and not matches:
        return False  # an empty term selects no node
    return all(_expression(e, labels) for e in expressions) and all(_expression(e, fields) for e in matches)


def matches_node(pod_spec: dict, node: dict) -> bool:
    """The node matches the pod's nodeSelector and required node affinity."""
    labels = meta(node).get("labels") or {}
    if any(labels.get(k) != v for k, v in (pod_spec.get("nodeSelector") or {}).items()):
        return False
    required = ((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    terms = (required.get("nodeSelectorTerms") or []) if isinstance(required, dict) else None
    return terms is None or any(_term(t, node) for t in terms if isinstance(t, dict))


def fits(pod_spec: dict, node: dict) -> bool:
    """The node matches the pod's nodeSelector and required node affinity, and its NoSchedule/NoExecute taints
    are tolerated."""
    if not matches_node(pod_spec, node):
        return False
    tolerations = pod_spec.get("tolerations") or []
    return all(
        tolerates(tolerations, taint)
        for taint in spec(node).get("taints") or []
        if taint.get("effect") in ("NoSchedule", "NoExecute")
    )


def pin_to_node(pod_spec: dict, node_name: str) -> None:
    """Replace the required node affinity with one term naming the node (ReplaceDaemonSetPodNodeNameNodeAffinity)."""
    affinity = pod_spec.setdefault("affinity", {})
    node_affinity = affinity.setdefault("nodeAffinity", {})
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]},
        ]
    }
