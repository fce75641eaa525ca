"""The audit Policy (`audit.<domain>/v1`, kind Policy): rules matched in order, the first match decides.

Matching follows the reference's policy checker: users, userGroups and verbs narrow every rule; a rule with
resources or namespaces only matches resource requests, one with nonResourceURLs only the others.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..auth.authz import Attributes
from ..naming import Naming

LEVELS = ("None", "Metadata", "Request", "RequestResponse")
STAGES = ("RequestReceived", "ResponseStarted", "ResponseComplete", "Panic")
ACCEPTED_VERSIONS = ("v1", "v1beta1")  # v1.23 still read v1beta1 policies


class PolicyError(ValueError):
    """The policy file is unusable; the message says where."""


@dataclass(frozen=True)
class GroupResources:
    group: str = ""
    resources: tuple[str, ...] = ()
    resource_names: tuple[str, ...] = ()

    def matches(self, attrs: Attributes) -> bool:
        if self.group != attrs.group:
            return False
        if not self.resources:
            return True
        if self.resource_names and attrs.name not in self.resource_names:
            return False
        combined = f"{attrs.resource}/{attrs.subresource}" if attrs.subresource else attrs.resource
        for pattern in self.resources:
            if pattern in ("*", combined):
                return True
            if attrs.subresource and pattern.startswith("*/") and pattern[2:] == attrs.subresource:
                return True
            if pattern.endswith("/*") and pattern[:-2] == attrs.resource:
                return True
        return False


@dataclass(frozen=True)
class PolicyRule:
    level: str
    users: tuple[str, ...] = ()
    user_groups: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    resources: tuple[GroupResources, ...] = ()
    namespaces: tuple[str, ...] = ()
    non_resource_urls: tuple[str, ...] = ()
    omit_stages: tuple[str, ...] = ()
    omit_managed_fields: bool | None = None

    def matches(self, attrs: Attributes, user_name: str, groups: Iterable[str]) -> bool:
        if self.users and user_name not in self.users:
            return False
        if self.user_groups and not any(g in self.user_groups for g in groups):
            return False
        if self.verbs and attrs.verb not in self.verbs:
            return False
        if self.namespaces or self.resources:
            return self._matches_resource(attrs)
        if self.non_resource_urls:
            return not attrs.resource_request and any(_path_matches(attrs.path, u) for u in self.non_resource_urls)
        return True

    def _matches_resource(self, attrs: Attributes) -> bool:
        if not attrs.resource_request:
            return False
        if self.namespaces and attrs.namespace not in self.namespaces:
            return False
        return not self.resources or any(gr.matches(attrs) for gr in self.resources)


def _path_matches(path: str, spec: str) -> bool:
    if spec in ("*", path):
        return True
    return spec.endswith("*") and path.startswith(spec[:-1])


@dataclass(frozen=True)
class Decision:
    """What to record for one request."""

    level: str = "None"
    omit_stages: frozenset[str] = frozenset()
    omit_managed_fields: bool = False

    @property
    def enabled(self) -> bool:
        return self.level != "None"

    def at_least(self, level: str) -> bool:
        return LEVELS.index(self.level) >= LEVELS.index(level)


@dataclass(frozen=True)
class Policy:
    rules: tuple[PolicyRule, ...]
    omit_stages: tuple[str, ...] = ()
    omit_managed_fields: bool = False
    _none: Decision = field(default=Decision(), repr=False)

    def evaluate(self, attrs: Attributes, user_name: str, groups: Iterable[str]) -> Decision:
        groups = tuple(groups)
        for rule in self.rules:
            if rule.matches(attrs, user_name, groups):
                omit_fields = self.omit_managed_fields if rule.omit_managed_fields is None else rule.omit_managed_fields
                return Decision(rule.level, frozenset(self.omit_stages) | frozenset(rule.omit_stages), omit_fields)
        return self._none  # no rule matched: nothing is recorded, as the reference's default level None


# ---------------------------------------------------------------------------------------------
# Parsing and validation


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PolicyError(f"{where}: must be a list of strings")
    return tuple(value)


def _stages(value: Any, where: str) -> tuple[str, ...]:
    stages = _strings(value, where)
    for stage in stages:
        if stage not in STAGES:
            raise PolicyError(f"{where}: unsupported value {stage!r}: supported values: {', '.join(STAGES)}")
    return stages


def _group_resources(value: Any, where: str) -> tuple[GroupResources, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise PolicyError(f"{where}: must be a list")
    out = []
    for i, item in enumerate(value):
        here = f"{where}[{i}]"
        if not isinstance(item, dict):
            raise PolicyError(f"{here}: must be a mapping")
        group = item.get("group", "") or ""
        if not isinstance(group, str):
            raise PolicyError(f"{here}.group: must be a string")
        resources = _strings(item.get("resources"), f"{here}.resources")
        names = _strings(item.get("resourceNames"), f"{here}.resourceNames")
        for res in resources:
            if res in ("", "/") or res.startswith("/") or res.endswith("/") or res.count("/") > 1:
                raise PolicyError(f"{here}.resources: invalid resource {res!r}")
            if "*" in res and res not in ("*",) and not res.startswith("*/") and not res.endswith("/*"):
                raise PolicyError(f"{here}.resources: {res!r}: '*' only as '*', '*/<subresource>' or '<resource>/*'")
        if names and not resources:
            raise PolicyError(f"{here}.resourceNames: using resourceNames requires at least one resource")
        out.append(GroupResources(group, resources, names))
    return tuple(out)


def _rule(item: Any, where: str) -> PolicyRule:
    if not isinstance(item, dict):
        raise PolicyError(f"{where}: must be a mapping")
    level = item.get("level")
    if level not in LEVELS:
        raise PolicyError(f"{where}.level: unsupported value {level!r}: supported values: {', '.join(LEVELS)}")
    resources = _group_resources(item.get("resources"), f"{where}.resources")
    namespaces = _strings(item.get("namespaces"), f"{where}.namespaces")
    urls = _strings(item.get("nonResourceURLs"), f"{where}.nonResourceURLs")
    if urls and (resources or namespaces):
        raise PolicyError(
            f"{where}.nonResourceURLs: rules cannot apply to both regular resources and non-resource URLs"
        )
    for url in urls:
        if url != "*" and not url.startswith("/"):
            raise PolicyError(f"{where}.nonResourceURLs: {url!r}: must start with '/' or be '*'")
        if "*" in url[:-1]:
            raise PolicyError(f"{where}.nonResourceURLs: {url!r}: '*' only as the last character")
    omit_fields = item.get("omitManagedFields")
    if omit_fields is not None and not isinstance(omit_fields, bool):
        raise PolicyError(f"{where}.omitManagedFields: must be true or false")
    return PolicyRule(
        level=level,
        users=_strings(item.get("users"), f"{where}.users"),
        user_groups=_strings(item.get("userGroups"), f"{where}.userGroups"),
        verbs=_strings(item.get("verbs"), f"{where}.verbs"),
        resources=resources,
        namespaces=namespaces,
        non_resource_urls=urls,
        omit_stages=_stages(item.get("omitStages"), f"{where}.omitStages"),
        omit_managed_fields=omit_fields,
    )


def parse_policy(text: str, naming: Naming) -> Policy:
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise PolicyError(f"not YAML: {err}") from None
    if not isinstance(doc, dict):
        raise PolicyError("expected a Policy object")
    group = naming.group("audit")
    accepted = [f"{group}/{v}" for v in ACCEPTED_VERSIONS]
    if doc.get("apiVersion") not in accepted or doc.get("kind") != "Policy":
        raise PolicyError(
            f"expected kind Policy with apiVersion {' or '.join(accepted)}, got "
            f"{doc.get('kind')!r} {doc.get('apiVersion')!r}"
        )
    rules_doc = doc.get("rules")
    if rules_doc is not None and not isinstance(rules_doc, list):
        raise PolicyError("rules: must be a list")
    rules = tuple(_rule(item, f"rules[{i}]") for i, item in enumerate(rules_doc or []))
    if not rules:
        raise PolicyError("loaded illegal policy with 0 rules")
    omit_fields = doc.get("omitManagedFields", False)
    if not isinstance(omit_fields, bool):
        raise PolicyError("omitManagedFields: must be true or false")
    return Policy(rules, _stages(doc.get("omitStages"), "omitStages"), omit_fields)


def load_policy(path: str, naming: Naming) -> Policy:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as err:
        raise PolicyError(f"{path}: {err.strerror}") from None
    try:
        return parse_policy(text, naming)
    except PolicyError as err:
        raise PolicyError(f"{path}: {err}") from None
