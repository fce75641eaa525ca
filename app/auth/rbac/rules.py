"""Policy rules: whether one rule allows a request, and whether a set of rules covers another rule.

Semantics of the reference's rbac/v1 helpers: `*` matches everything, resources may be
`resource/subresource` (and `*/subresource`), an empty resourceNames matches every name, and a
nonResourceURL ending in `*` matches by prefix.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..authz import Attributes

ALL = "*"


@dataclass(frozen=True)
class Rule:
    verbs: tuple[str, ...] = ()
    api_groups: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    resource_names: tuple[str, ...] = ()
    non_resource_urls: tuple[str, ...] = ()

    @classmethod
    def from_api(cls, rule: dict) -> Rule:
        def strings(key: str) -> tuple[str, ...]:
            value = rule.get(key) or []
            return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()

        return cls(
            strings("verbs"),
            strings("apiGroups"),
            strings("resources"),
            strings("resourceNames"),
            strings("nonResourceURLs"),
        )

    def to_api(self) -> dict:
        out: dict = {"verbs": list(self.verbs)}
        if self.non_resource_urls:
            out["nonResourceURLs"] = list(self.non_resource_urls)
            return out
        out["apiGroups"] = list(self.api_groups)
        out["resources"] = list(self.resources)
        if self.resource_names:
            out["resourceNames"] = list(self.resource_names)
        return out


def rules_from_api(rules: object) -> list[Rule]:
    return [Rule.from_api(r) for r in rules if isinstance(r, dict)] if isinstance(rules, list) else []


def _has(values: Iterable[str], wanted: str) -> bool:
    values = tuple(values)
    return ALL in values or wanted in values


def resource_matches(rule: Rule, resource: str, subresource: str) -> bool:
    combined = f"{resource}/{subresource}" if subresource else resource
    for candidate in rule.resources:
        if candidate in (ALL, combined):
            return True
        if subresource and candidate == f"*/{subresource}":
            return True
    return False


def url_matches(rule: Rule, path: str) -> bool:
    for candidate in rule.non_resource_urls:
        if candidate in (ALL, path):
            return True
        if candidate.endswith("*") and path.startswith(candidate[:-1]):
            return True
    return False


def allows(rule: Rule, attrs: Attributes) -> bool:
    """The reference's RuleAllows."""
    if not _has(rule.verbs, attrs.verb):
        return False
    if not attrs.resource_request:
        return url_matches(rule, attrs.path)
    if not rule.resources or not _has(rule.api_groups, attrs.group):
        return False
    if not resource_matches(rule, attrs.resource, attrs.subresource):
        return False
    return not rule.resource_names or attrs.name in rule.resource_names


# -- coverage (escalation checks) ----------------------------------------------------------------


def _covers_all(owner: tuple[str, ...], servant: tuple[str, ...]) -> bool:
    return ALL in owner or all(s in owner for s in servant)


def _resources_covered(owner: tuple[str, ...], servant: tuple[str, ...]) -> bool:
    if ALL in owner:
        return True
    for resource in servant:
        if resource in owner:
            continue
        if "/" in resource and f"*/{resource.split('/', 1)[1]}" in owner:
            continue
        return False
    return True


def _urls_covered(owner: tuple[str, ...], servant: tuple[str, ...]) -> bool:
    return all(any(o in (url, ALL) or (o.endswith("*") and url.startswith(o[:-1])) for o in owner) for url in servant)


def rule_covers(owner: Rule, servant: Rule) -> bool:
    """Whether `owner` grants everything `servant` does (the reference's ruleCovers)."""
    if not _covers_all(owner.verbs, servant.verbs):
        return False
    if servant.non_resource_urls and not _urls_covered(owner.non_resource_urls, servant.non_resource_urls):
        return False
    if not _covers_all(owner.api_groups, servant.api_groups):
        return False
    if not _resources_covered(owner.resources, servant.resources):
        return False
    if owner.resource_names:
        return bool(servant.resource_names) and all(n in owner.resource_names for n in servant.resource_names)
    return True


def breakdown(rule: Rule) -> list[Rule]:
    """One rule per (group, resource, verb, name) or (url, verb), as the reference's BreakdownRule."""
    out: list[Rule] = []
    for group in rule.api_groups:
        for resource in rule.resources:
            for verb in rule.verbs:
                if rule.resource_names:
                    out += [Rule((verb,), (group,), (resource,), (n,)) for n in rule.resource_names]
                else:
                    out.append(Rule((verb,), (group,), (resource,)))
    for url in rule.non_resource_urls:
        out += [Rule((verb,), non_resource_urls=(url,)) for verb in rule.verbs]
    return out


def uncovered(owner: list[Rule], requested: list[Rule]) -> list[Rule]:
    """The atomic rules of `requested` that no rule of `owner` covers."""
    return [piece for rule in requested for piece in breakdown(rule) if not any(rule_covers(o, piece) for o in owner)]
