"""Which FlowSchema a request matches, and the flow it belongs to (the reference's pkg/util/flowcontrol/rule.go):
subjects (user, group, service account; `*` for any name), then resource rules (verb, API group, resource with
its subresource, namespace or cluster scope) or non-resource rules (verb, path, `prefix/*`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..auth.authz import Attributes

SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"
ALL = "*"


def matches_schema(spec: dict[str, Any], attrs: Attributes) -> bool:
    """Whether any of the FlowSchema's rules (subjects and one matching rule) take the request."""
    for rule in spec.get("rules") or []:
        if not isinstance(rule, dict):
            continue
        if not any(_subject_matches(s, attrs) for s in rule.get("subjects") or [] if isinstance(s, dict)):
            continue
        if attrs.resource_request:
            if any(_resource_rule_matches(r, attrs) for r in rule.get("resourceRules") or [] if isinstance(r, dict)):
                return True
        elif any(_non_resource_matches(r, attrs) for r in rule.get("nonResourceRules") or [] if isinstance(r, dict)):
            return True
    return False


def _subject_matches(subject: dict[str, Any], attrs: Attributes) -> bool:
    user = attrs.user
    kind = subject.get("kind")
    if kind == "User":
        name = (subject.get("user") or {}).get("name")
        return name == ALL or name == user.username
    if kind == "Group":
        name = (subject.get("group") or {}).get("name")
        return name == ALL or name in user.groups
    if kind == "ServiceAccount":
        account = subject.get("serviceAccount") or {}
        if not user.username.startswith(SERVICE_ACCOUNT_PREFIX):
            return False
        namespace, _, name = user.username[len(SERVICE_ACCOUNT_PREFIX) :].partition(":")
        return namespace == account.get("namespace") and account.get("name") in (ALL, name)
    return False


def _listed(values: Any, value: str) -> bool:
    return isinstance(values, list) and (ALL in values or value in values)


def _resource_rule_matches(rule: dict[str, Any], attrs: Attributes) -> bool:
    if not _listed(rule.get("verbs"), attrs.verb) or not _listed(rule.get("apiGroups"), attrs.group):
        return False
    resource = f"{attrs.resource}/{attrs.subresource}" if attrs.subresource else attrs.resource
    if not _listed(rule.get("resources"), resource):
        return False
    if not attrs.namespace:
        return bool(rule.get("clusterScope"))
    return _listed(rule.get("namespaces"), attrs.namespace)


def _non_resource_matches(rule: dict[str, Any], attrs: Attributes) -> bool:
    if not _listed(rule.get("verbs"), attrs.verb):
        return False
    for pattern in rule.get("nonResourceURLs") or []:
        if pattern == ALL or pattern == attrs.path:
            return True
        if isinstance(pattern, str) and pattern.endswith("/*") and attrs.path.startswith(pattern[:-1]):
            return True
        if isinstance(pattern, str) and pattern.endswith("/*") and attrs.path == pattern[:-2]:
            return True
    return False


def distinguisher(spec: dict[str, Any], attrs: Attributes) -> str:
    """The flow within the schema: by user, by namespace (a cluster-scoped request's is empty), or one flow."""
    method = (spec.get("distinguisherMethod") or {}).get("type")
    if method == "ByUser":
        return attrs.user.username
    if method == "ByNamespace":
        return attrs.namespace
    return ""
