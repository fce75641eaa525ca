"""Escalation prevention: a user may only grant what they hold, unless allowed `escalate` / `bind`.

Installed around the RBAC kinds' strategies (their `validate` runs on create, update, patch and
apply), so every write path is covered. Writes made by the server itself (no requesting user) pass.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...catalog import Catalog, Obj, Strategy
from ...errors import FieldError, Forbidden
from ...naming import Naming
from ...user import UserInfo, current_user
from ..authz import Attributes, Authorizer
from .policy import Resolver
from .rules import ALL, Rule, rules_from_api, uncovered


def _describe(rule: Rule) -> str:
    if rule.non_resource_urls:
        return f"{{NonResourceURLs:{_go(rule.non_resource_urls)}, Verbs:{_go(rule.verbs)}}}"
    names = f", ResourceNames:{_go(rule.resource_names)}" if rule.resource_names else ""
    return f"{{APIGroups:{_go(rule.api_groups)}, Resources:{_go(rule.resources)}{names}, Verbs:{_go(rule.verbs)}}}"


def _go(values: tuple[str, ...]) -> str:
    return "[" + " ".join(f'"{v}"' for v in values) + "]"


def _who(user: UserInfo) -> str:
    return f'user "{user.username}" (groups={_go(user.groups)})'


class EscalationCheck:
    def __init__(self, authorizer: Authorizer, resolver: Resolver, naming: Naming):
        self.authorizer = authorizer
        self.resolver = resolver
        self.group = naming.group("rbac.authorization")

    def _verb_allowed(self, user: UserInfo, verb: str, resource: str, namespace: str, name: str) -> bool:
        attrs = Attributes(
            user, verb, group=self.group, version="v1", resource=resource, namespace=namespace, name=name
        )
        return self.authorizer.authorize(attrs).allowed

    def _missing(self, user: UserInfo, namespace: str, requested: list[Rule]) -> list[Rule]:
        held, _ = self.resolver.rules_for(user, namespace)
        return uncovered(held, requested)

    def check_role(self, obj: Obj, plural: str, kind: str) -> None:
        user = current_user.get()
        if user is None:
            return
        md = obj.get("metadata") or {}
        namespace, name = md.get("namespace", "") or "", md.get("name", "") or ""
        if self._verb_allowed(user, "escalate", plural, namespace, name):
            return
        group_resource = f"{plural}.{self.group}"
        if obj.get("aggregationRule"):
            if self._missing(user, "", [Rule((ALL,), (ALL,), (ALL,)), Rule((ALL,), non_resource_urls=(ALL,))]):
                raise Forbidden(
                    f'{group_resource} "{name}" is forbidden: must have cluster-admin privileges to '
                    f"use the aggregationRule",
                    plural,
                    self.group,
                    name,
                )
            return
        missing = self._missing(user, namespace, rules_from_api(obj.get("rules")))
        if missing:
            listed = "\n".join(_describe(r) for r in missing)
            raise Forbidden(
                f'{group_resource} "{name}" is forbidden: {_who(user)} is attempting to grant RBAC '
                f"permissions not currently held:\n{listed}",
                plural,
                self.group,
                name,
            )

    def check_binding(self, obj: Obj, plural: str) -> None:
        user = current_user.get()
        if user is None:
            return
        md = obj.get("metadata") or {}
        namespace, name = md.get("namespace", "") or "", md.get("name", "") or ""
        ref = obj.get("roleRef") or {}
        role_kind, role_name = ref.get("kind", ""), ref.get("name", "")
        role_plural = "clusterroles" if role_kind == "ClusterRole" else "roles"
        role_ns = namespace if role_kind == "Role" else ""
        if self._verb_allowed(user, "bind", role_plural, role_ns, role_name):
            return
        snap = self.resolver.source.snapshot(fresh=True)
        role_rules = (
            snap.cluster_roles.get(role_name) if role_kind == "ClusterRole" else snap.roles.get((namespace, role_name))
        )
        group_resource = f"{plural}.{self.group}"
        if role_rules is None:
            raise Forbidden(
                f'{group_resource} "{name}" is forbidden: {role_plural}.{self.group} "{role_name}" not found',
                plural,
                self.group,
                name,
            )
        if self._missing(user, namespace, role_rules):
            raise Forbidden(
                f'{group_resource} "{name}" is forbidden: {_who(user)} is attempting to grant RBAC '
                f'permissions not currently held (binding {role_kind} "{role_name}")',
                plural,
                self.group,
                name,
            )


def _guarded(strategy: Strategy, check) -> Strategy:
    """The same strategy whose `validate` also runs `check(obj)` once the object is otherwise valid."""
    base = type(strategy)

    def validate(self: Strategy, obj: Obj) -> list[FieldError]:
        errors = base.validate(self, obj)
        if not errors:
            check(obj)
        return errors

    guarded_type = type(f"EscalationGuarded{base.__name__}", (base,), {"validate": validate})
    guarded: Any = object.__new__(guarded_type)
    guarded.__dict__.update(strategy.__dict__)
    return guarded


def install(catalog: Catalog, checker: EscalationCheck) -> None:
    """Put the escalation checks around the strategies of the four RBAC kinds in `catalog`."""
    group = checker.group
    checks = {
        "roles": lambda obj: checker.check_role(obj, "roles", "Role"),
        "clusterroles": lambda obj: checker.check_role(obj, "clusterroles", "ClusterRole"),
        "rolebindings": lambda obj: checker.check_binding(obj, "rolebindings"),
        "clusterrolebindings": lambda obj: checker.check_binding(obj, "clusterrolebindings"),
    }
    for plural, check in checks.items():
        rt = catalog.lookup(group, "v1", plural)
        if rt is not None:
            catalog.add(dataclasses.replace(rt, strategy=_guarded(rt.strategy, check)))
