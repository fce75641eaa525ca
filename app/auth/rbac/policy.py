"""The RBAC objects in storage, read through the registry and cached until one of them changes.

`Resolver` answers which rules apply to a user in a namespace and which binding allows a request.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import orjson

from ...naming import Naming
from ...registry.informer import Follower
from ...registry.keys import resource_prefix
from ...registry.options import ListOptions
from ...registry.store import Registry
from ...user import UserInfo, service_account_username
from ..authz import Attributes
from .rules import Rule, allows, rules_from_api

if TYPE_CHECKING:
    from ...registry.informer import Change
    from ...storage.hub import WatchHub


@dataclass(frozen=True)
class Binding:
    kind: str  # RoleBinding or ClusterRoleBinding
    namespace: str
    name: str
    role_kind: str
    role_name: str
    subjects: tuple[dict, ...]

    def describe(self) -> str:
        where = f' in namespace "{self.namespace}"' if self.namespace else ""
        return f'{self.kind} "{self.name}" of {self.role_kind} "{self.role_name}"{where}'


@dataclass
class Snapshot:
    revision: int = -1
    #: the count of RBAC changes seen when this snapshot began loading: stale once the count moves
    seen: int = -1
    cluster_roles: dict[str, list[Rule]] = field(default_factory=dict)
    roles: dict[tuple[str, str], list[Rule]] = field(default_factory=dict)
    cluster_bindings: list[Binding] = field(default_factory=list)
    bindings: dict[str, list[Binding]] = field(default_factory=dict)  # namespace -> bindings


def subject_matches(subject: dict, user: UserInfo, binding_namespace: str) -> bool:
    kind, name = subject.get("kind"), subject.get("name")
    if kind == "User":
        return user.username == name
    if kind == "Group":
        return name in user.groups
    if kind == "ServiceAccount":
        namespace = subject.get("namespace") or binding_namespace
        return bool(namespace) and user.username == service_account_username(namespace, str(name))
    return False


class PolicySource:
    """Role and binding objects from the registry. With a watch hub, the snapshot is kept until the change
    log shows an RBAC object changed (in any process); without one, until the store's revision moves."""

    PLURALS = ("clusterroles", "roles", "clusterrolebindings", "rolebindings")

    def __init__(self, registry: Registry, naming: Naming, hub: WatchHub | None = None):
        self.registry = registry
        self.group = naming.group("rbac.authorization")
        self.hub = hub
        self._lock = threading.Lock()
        self._snapshot = Snapshot()
        self._seen = 0  # RBAC changes seen through the hub
        self._seen_lock = threading.Lock()
        self._follower: Follower | None = None

    def _items(self, plural: str) -> Iterator[dict]:
        rt = self.registry.catalog.lookup(self.group, "v1", plural)
        if rt is None:
            return
        for text in self.registry.list(rt, None, ListOptions()).items:
            yield orjson.loads(text)

    def snapshot(self, fresh: bool = False) -> Snapshot:
        """The policy; `fresh` checks the store's revision even when no change was seen (a grant made in
        another process an instant ago is not missed)."""
        if self.hub is not None and not fresh:
            self._follow()
            snap = self._snapshot
            if snap.seen == self._seen and self._follower is not None and not self._follower.lost:
                return snap
        seen = self._seen
        revision = self.registry.storage.current_revision()
        with self._lock:
            if self._snapshot.revision == revision:  # nothing was written since it was loaded
                self._snapshot.seen = seen
                return self._snapshot
        fresh_snap = self._load(revision, seen)
        with self._lock:
            self._snapshot = fresh_snap
        return fresh_snap

    def _follow(self) -> None:
        """Follow RBAC changes (from first use: the app touches no database before; again when lost)."""
        if self.hub is None or (self._follower is not None and not self._follower.lost):
            return
        with self._lock:
            if self._follower is None:
                kinds = [self.registry.catalog.lookup(self.group, "v1", plural) for plural in self.PLURALS]
                prefixes = [resource_prefix(rt) for rt in kinds if rt is not None]
                self._follower = Follower(self.registry, prefixes, self._changed)
            elif not self._follower.lost:
                return
            self._follower.open()  # again after a lost subscription: a fresh snapshot is loaded next
            self._changed(None)  # whatever was loaded before following may have missed changes

    def _changed(self, _change: Change | None) -> None:
        with self._seen_lock:  # the hub's thread and a request's may both count
            self._seen += 1

    def _load(self, revision: int, seen: int) -> Snapshot:
        snap = Snapshot(revision, seen)
        for obj in self._items("clusterroles"):
            snap.cluster_roles[obj["metadata"]["name"]] = rules_from_api(obj.get("rules"))
        for obj in self._items("roles"):
            md = obj["metadata"]
            snap.roles[(md.get("namespace", ""), md["name"])] = rules_from_api(obj.get("rules"))
        for obj in self._items("clusterrolebindings"):
            snap.cluster_bindings.append(_binding(obj, "ClusterRoleBinding"))
        for obj in self._items("rolebindings"):
            binding = _binding(obj, "RoleBinding")
            snap.bindings.setdefault(binding.namespace, []).append(binding)
        return snap

    def invalidate(self) -> None:
        with self._lock:
            self._snapshot = Snapshot()


def _binding(obj: dict, kind: str) -> Binding:
    md = obj.get("metadata") or {}
    ref = obj.get("roleRef") or {}
    subjects = tuple(s for s in obj.get("subjects") or [] if isinstance(s, dict))
    return Binding(
        kind,
        md.get("namespace", "") if kind == "RoleBinding" else "",
        md.get("name", ""),
        str(ref.get("kind", "")),
        str(ref.get("name", "")),
        subjects,
    )


class Resolver:
    """Rules of a user (the reference's DefaultRuleResolver) over one snapshot of the policy."""

    def __init__(self, source: PolicySource):
        self.source = source

    def _role_rules(self, snap: Snapshot, binding: Binding) -> list[Rule] | None:
        if binding.role_kind == "ClusterRole":
            return snap.cluster_roles.get(binding.role_name)
        if binding.role_kind == "Role" and binding.namespace:
            return snap.roles.get((binding.namespace, binding.role_name))
        return None

    def _applicable(self, snap: Snapshot, user: UserInfo, namespace: str) -> Iterator[tuple[Binding, list[Rule]]]:
        candidates = list(snap.cluster_bindings)
        if namespace:
            candidates += snap.bindings.get(namespace, [])
        for binding in candidates:
            if not any(subject_matches(s, user, binding.namespace) for s in binding.subjects):
                continue
            rules = self._role_rules(snap, binding)
            if rules is not None:
                yield binding, rules

    def allowed_by(self, attrs: Attributes) -> Binding | None:
        found = self._allowed_by(self.source.snapshot(), attrs)
        if found is None:  # before denying, make sure no grant is newer than the cached policy
            found = self._allowed_by(self.source.snapshot(fresh=True), attrs)
        return found

    def _allowed_by(self, snap: Snapshot, attrs: Attributes) -> Binding | None:
        for binding, rules in self._applicable(snap, attrs.user, attrs.namespace):
            if any(allows(rule, attrs) for rule in rules):
                return binding
        return None

    def rules_for(self, user: UserInfo, namespace: str) -> tuple[list[Rule], list[str]]:
        """Every rule the user holds in `namespace` (cluster-wide ones included), and the bindings
        whose role is missing (the reference reports those as evaluation errors)."""
        snap = self.source.snapshot(fresh=True)
        rules: list[Rule] = []
        missing: list[str] = []
        candidates = list(snap.cluster_bindings) + (snap.bindings.get(namespace, []) if namespace else [])
        for binding in candidates:
            if not any(subject_matches(s, user, binding.namespace) for s in binding.subjects):
                continue
            found = self._role_rules(snap, binding)
            if found is None:
                missing.append(f'{binding.role_kind.lower()}.{self.source.group} "{binding.role_name}" not found')
            else:
                rules += found
        return rules, missing
