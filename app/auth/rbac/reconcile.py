"""Reconciling the default policy at start, and keeping aggregated ClusterRoles in sync.

Reconciliation adds what is missing (objects, rules, subjects, labels, annotations) and keeps
whatever users added; an object annotated `autoupdate: "false"` is left alone.
"""

from __future__ import annotations

import copy
import logging

import orjson

from ...catalog import ResourceType
from ...errors import AlreadyExists, Conflict, NotFound
from ...registry.options import ListOptions
from ...registry.store import Registry
from .defaults import DefaultPolicy, autoupdate_annotation

log = logging.getLogger(__name__)
MANAGER = "rbac-bootstrap"


def _union(current: list, wanted: list) -> list:
    return current + [item for item in wanted if item not in current]


def _merged(current: dict, wanted: dict, list_field: str) -> dict | None:
    """The current object with the defaults' missing pieces added; None when nothing is missing."""
    out = copy.deepcopy(current)
    md = out.setdefault("metadata", {})
    for key in ("labels", "annotations"):
        md[key] = {**wanted["metadata"].get(key, {}), **(md.get(key) or {})}
    out[list_field] = _union(list(current.get(list_field) or []), wanted.get(list_field) or [])
    if "aggregationRule" in wanted and not current.get("aggregationRule"):
        out["aggregationRule"] = wanted["aggregationRule"]
    return None if out == current else out


class Reconciler:
    def __init__(self, registry: Registry):
        self.registry = registry
        self.naming = registry.naming
        self.group = self.naming.group("rbac.authorization")

    def _rt(self, plural: str) -> ResourceType:
        rt = self.registry.catalog.lookup(self.group, "v1", plural)
        assert rt is not None
        return rt

    def _ensure(self, plural: str, wanted: dict, list_field: str, listed: dict | None) -> None:
        """`listed`: the object as the start's list showed it (None: missing then)."""
        rt, name = self._rt(plural), wanted["metadata"]["name"]
        current = listed
        for attempt in range(3):
            if attempt:  # another server reconciled meanwhile: read it again
                current = self._current(rt, name)
            if current is None:
                try:
                    self.registry.create(rt, None, copy.deepcopy(wanted), manager=MANAGER)
                    return
                except AlreadyExists:
                    continue
            annotations = (current.get("metadata") or {}).get("annotations") or {}
            if annotations.get(autoupdate_annotation(self.naming)) == "false":
                return
            merged = _merged(current, wanted, list_field)
            if merged is None:
                return
            try:
                self.registry.update(rt, None, name, merged, manager=MANAGER)
                return
            except Conflict:
                continue

    def _current(self, rt: ResourceType, name: str) -> dict | None:
        try:
            return self.registry.get(rt, None, name)
        except NotFound:
            return None

    def _listed(self, plural: str) -> dict[str, dict]:
        """Every object of the kind by name: one list instead of a read per default object."""
        return {
            o["metadata"]["name"]: o
            for o in (orjson.loads(text) for text in self.registry.list(self._rt(plural), None, ListOptions()).items)
        }

    def reconcile(self) -> None:
        policy = DefaultPolicy(self.naming)
        for plural, objects, list_field in (
            ("clusterroles", policy.cluster_roles(), "rules"),
            ("clusterrolebindings", policy.cluster_role_bindings(), "subjects"),
        ):
            listed = self._listed(plural)
            for wanted in objects:
                self._ensure(plural, wanted, list_field, listed.get(wanted["metadata"]["name"]))
        self.aggregate()

    # -- aggregation ---------------------------------------------------------------------------

    def aggregate(self) -> None:
        """Set the rules of every ClusterRole with an aggregationRule to the union of the rules of
        the ClusterRoles its selectors match (the reference's aggregation controller)."""
        rt = self._rt("clusterroles")
        roles = self._listed("clusterroles")
        stored = {name: role.get("rules") or [] for name, role in roles.items()}
        for _ in range(len(roles) + 1):  # aggregated roles may aggregate others: repeat to a fixpoint
            if not self._aggregate_once(roles):
                break
        for name, role in roles.items():
            if (role.get("rules") or []) != stored[name]:
                try:
                    self.registry.update(rt, None, name, role, manager="clusterrole-aggregation-controller")
                except (Conflict, NotFound):
                    log.info("aggregated ClusterRole %s changed meanwhile", name)

    @staticmethod
    def _aggregate_once(roles: dict[str, dict]) -> bool:
        changed = False
        for name, role in roles.items():
            selectors = (role.get("aggregationRule") or {}).get("clusterRoleSelectors")
            if not isinstance(selectors, list):
                continue
            rules: list = []
            for other_name in sorted(roles):
                labels = (roles[other_name].get("metadata") or {}).get("labels") or {}
                if other_name != name and any(selector_matches(s, labels) for s in selectors if isinstance(s, dict)):
                    rules = _union(rules, roles[other_name].get("rules") or [])
            if rules != (role.get("rules") or []):
                role["rules"] = rules
                changed = True
        return changed


def selector_matches(selector: dict, labels: dict) -> bool:
    """A metav1.LabelSelector (matchLabels and matchExpressions); an empty selector matches everything."""
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr.get("key"), expr.get("operator"), expr.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True
