"""The `admissionregistration.<domain>/v1` group: the webhook configurations dynamic admission calls
(app/admission/webhooks.py), with the reference's v1 defaults and validation."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ..catalog import Obj, ResourceType
from ..errors import FieldError, invalid, not_supported, required
from ..naming import Naming
from ..registry.meta import name_errors
from .common import KindStrategy, as_list, items, setdefault
from .defaults import selector_errors

OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"]
SCOPES = ["*", "Cluster", "Namespaced"]
REVIEW_VERSIONS = ("v1", "v1beta1")


class WebhookConfigurationStrategy(KindStrategy):
    """Mutating and validating configurations differ only in reinvocationPolicy."""

    def __init__(self, naming: Naming, mutating: bool) -> None:
        super().__init__(naming)
        self.mutating = mutating

    def default(self, obj: Obj) -> None:
        for hook in items(obj, "webhooks"):
            setdefault(hook, "failurePolicy", "Fail")
            setdefault(hook, "matchPolicy", "Equivalent")
            setdefault(hook, "namespaceSelector", {})
            setdefault(hook, "objectSelector", {})
            setdefault(hook, "timeoutSeconds", 10)
            if self.mutating:
                setdefault(hook, "reinvocationPolicy", "Never")
            for rule in items(hook, "rules"):
                setdefault(rule, "scope", "*")
            service = (hook.get("clientConfig") or {}).get("service")
            if isinstance(service, dict):
                setdefault(service, "port", 443)

    def validate(self, obj: Obj) -> list[FieldError]:
        errors: list[FieldError] = []
        seen: set[str] = set()
        for i, hook in enumerate(as_list(obj.get("webhooks"))):
            path = f"webhooks[{i}]"
            if not isinstance(hook, dict):
                errors.append(invalid(path, hook, "must be an object"))
                continue
            name = hook.get("name")
            if name in seen:
                errors.append(FieldError("FieldValueDuplicate", f"{path}.name", value=name))
            seen.add(str(name))
            errors += _webhook_errors(hook, path, self.mutating)
        return errors


def _webhook_errors(hook: Obj, path: str, mutating: bool) -> list[FieldError]:
    errors = _name_errors(hook.get("name"), f"{path}.name")
    errors += _choice(hook, "failurePolicy", ["Fail", "Ignore"], path)
    errors += _choice(hook, "matchPolicy", ["Equivalent", "Exact"], path)
    side_effects = hook.get("sideEffects")
    if side_effects is None:
        errors.append(required(f"{path}.sideEffects", "must specify one of None, NoneOnDryRun"))
    else:
        errors += _choice(hook, "sideEffects", ["None", "NoneOnDryRun"], path)
    if mutating:
        errors += _choice(hook, "reinvocationPolicy", ["IfNeeded", "Never"], path)
    timeout = hook.get("timeoutSeconds")
    if timeout is not None and (not isinstance(timeout, int) or not 1 <= timeout <= 30):
        errors.append(invalid(f"{path}.timeoutSeconds", timeout, "the timeout value must be between 1 and 30 seconds"))
    versions = as_list(hook.get("admissionReviewVersions"))
    if not versions:
        errors.append(required(f"{path}.admissionReviewVersions", "must specify one of v1, v1beta1"))
    elif not any(v in REVIEW_VERSIONS for v in versions):
        errors.append(invalid(f"{path}.admissionReviewVersions", versions, "must include at least one of v1, v1beta1"))
    for i, rule in enumerate(as_list(hook.get("rules"))):
        errors += _rule_errors(rule, f"{path}.rules[{i}]")
    for selector in ("namespaceSelector", "objectSelector"):
        if hook.get(selector) is not None:
            errors += selector_errors(hook[selector], f"{path}.{selector}")
    return errors + _client_config_errors(hook.get("clientConfig"), f"{path}.clientConfig")


def _name_errors(name: Any, path: str) -> list[FieldError]:
    if not name:
        return [required(path, "")]
    errors = name_errors(str(name), "subdomain", path)
    if not errors and str(name).count(".") < 2:
        errors.append(invalid(path, name, "should be a domain with at least three segments separated by dots"))
    return errors


def _choice(hook: Obj, key: str, supported: list[str], path: str) -> list[FieldError]:
    value = hook.get(key)
    return [] if value is None or value in supported else [not_supported(f"{path}.{key}", value, supported)]


def _star_list(rule: Obj, key: str, path: str, what: str, supported: list[str] | None = None) -> list[FieldError]:
    values = as_list(rule.get(key))
    if not values:
        return [required(f"{path}.{key}", "")]
    errors: list[FieldError] = []
    if "*" in values and len(values) > 1:
        errors.append(invalid(f"{path}.{key}", values, f"if '*' is present, must not specify other {what}"))
    for i, value in enumerate(values):
        if not value and key != "apiGroups":  # "" is the core group
            errors.append(required(f"{path}.{key}[{i}]", ""))
        elif supported is not None and value not in supported:
            errors.append(not_supported(f"{path}.{key}[{i}]", value, supported))
    return errors


def _rule_errors(rule: Any, path: str) -> list[FieldError]:
    if not isinstance(rule, dict):
        return [invalid(path, rule, "must be an object")]
    errors = (
        _star_list(rule, "operations", path, "operations", OPERATIONS)
        + _star_list(rule, "apiGroups", path, "API groups")
        + _star_list(rule, "apiVersions", path, "API versions")
        + _resources_errors(as_list(rule.get("resources")), path)
    )
    scope = rule.get("scope")
    if scope is not None and scope not in SCOPES:
        errors.append(not_supported(f"{path}.scope", scope, SCOPES))
    return errors


def _resources_errors(resources: list, path: str) -> list[FieldError]:
    if not resources:
        return [required(f"{path}.resources", "")]
    errors: list[FieldError] = []
    subs_of_star: set[str] = set()
    mains: set[tuple[str, str]] = set()
    for i, resource in enumerate(resources):
        if not isinstance(resource, str) or not resource:
            errors.append(required(f"{path}.resources[{i}]", ""))
            continue
        if resource.count("/") > 1:
            errors.append(invalid(f"{path}.resources[{i}]", resource, "may not contain more than one '/'"))
            continue
        main, _, sub = resource.partition("/")
        if main == "*":
            subs_of_star.add(sub)
        mains.add((main, sub))
    for main, sub in mains:
        if main != "*" and sub in subs_of_star:
            errors.append(
                invalid(
                    f"{path}.resources",
                    resources,
                    f"if '*/{sub}' is present, must not specify {main}/{sub}"
                    if sub
                    else "if '*' is present, must not specify other resources without subresources",
                )
            )
    return errors


def _client_config_errors(config: Any, path: str) -> list[FieldError]:
    if not isinstance(config, dict):
        return [required(path, "")]
    url, service = config.get("url"), config.get("service")
    if bool(url) == (service is not None):
        return [required(path, "exactly one of url or service is required")]
    if url:
        return _url_errors(str(url), f"{path}.url")
    if not isinstance(service, dict):
        return [invalid(f"{path}.service", service, "must be an object")]
    errors = []
    for key in ("name", "namespace"):
        if not service.get(key):
            errors.append(required(f"{path}.service.{key}", f"service {key} is required"))
    service_path = service.get("path")
    if service_path is not None and not str(service_path).startswith("/"):
        errors.append(invalid(f"{path}.service.path", service_path, "must start with a '/'"))
    port = service.get("port")
    if port is not None and (not isinstance(port, int) or not 1 <= port <= 65535):
        errors.append(
            invalid(f"{path}.service.port", port, "port is not valid: must be between 1 and 65535, inclusive")
        )
    return errors


def _url_errors(url: str, path: str) -> list[FieldError]:
    try:
        parts = urlsplit(url)
    except ValueError as err:
        return [invalid(path, url, f"host must be specified: {err}")]
    if parts.scheme != "https":
        return [invalid(path, url, "'https' is the only allowed URL scheme")]
    if not parts.hostname:
        return [invalid(path, url, "host must be specified")]
    if parts.username is not None:
        return [invalid(path, url, "user information is not permitted in the URL")]
    if parts.fragment:
        return [invalid(path, url, "fragments are not permitted in the URL")]
    if parts.query:
        return [invalid(path, url, "query parameters are not permitted in the URL")]
    return []


_EXAMPLE_HOOK = {
    "name": "check.example.com",
    "sideEffects": "None",
    "admissionReviewVersions": ["v1"],
    "clientConfig": {"url": "https://webhook.example.com:8443/check"},
    "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}],
}


def resource_types(naming: Naming) -> list[ResourceType]:
    group = naming.group("admissionregistration")
    return [
        ResourceType(
            group,
            "v1",
            "MutatingWebhookConfiguration",
            "mutatingwebhookconfigurations",
            False,
            categories=("api-extensions",),
            strategy=WebhookConfigurationStrategy(naming, mutating=True),
            example={"webhooks": [_EXAMPLE_HOOK]},
        ),
        ResourceType(
            group,
            "v1",
            "ValidatingWebhookConfiguration",
            "validatingwebhookconfigurations",
            False,
            categories=("api-extensions",),
            strategy=WebhookConfigurationStrategy(naming, mutating=False),
            example={"webhooks": [_EXAMPLE_HOOK]},
        ),
    ]
