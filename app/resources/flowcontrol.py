"""The `flowcontrol.apiserver.<domain>` group: FlowSchema and PriorityLevelConfiguration (API priority and
fairness objects), stored as v1 and served as v1, v1beta2 and v1beta1.

The betas spell `limited.nominalConcurrencyShares` as `limited.assuredConcurrencyShares`, where 0 means "use the
default"; a stored 0 read through a beta carries the reference's preserve-zero annotation so it survives a
write back.
"""

from __future__ import annotations

import copy
import math
from typing import Any, ClassVar

from ..catalog import Conversion, Deprecation, Obj, ResourceType, status_subresource
from ..errors import FieldError, forbidden, invalid, not_supported, required
from ..naming import Naming
from ..registry.meta import name_errors
from .common import KindStrategy, child, dig, items, part, setdefault

STORAGE_VERSION = "v1"
BETAS = ("v1beta2", "v1beta1")
MAX_MATCHING_PRECEDENCE = 10000
DEFAULT_MATCHING_PRECEDENCE = 1000
DEFAULT_NOMINAL_SHARES = 30
QUEUING_DEFAULTS = {"queues": 64, "handSize": 8, "queueLengthLimit": 50}
MAX_HAND_ENTROPY_BITS = 60
DISTINGUISHER_METHODS = ["ByNamespace", "ByUser"]
SUBJECT_KINDS = ["Group", "ServiceAccount", "User"]
PRIORITY_LEVEL_TYPES = ["Exempt", "Limited"]
LIMIT_RESPONSE_TYPES = ["Queue", "Reject"]
EXEMPT = "exempt"
#: the stanza each subject kind fills (`kind: ServiceAccount` -> `serviceAccount: {...}`).
SUBJECT_FIELDS = {"User": "user", "Group": "group", "ServiceAccount": "serviceAccount"}
SUPPORTED_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"]
NAMESPACE_INTRO = "each member of this list must be '*' or a DNS-1123 label; "
MAX_QUEUES = 10_000_000


def group(naming: Naming) -> str:
    return naming.group("flowcontrol.apiserver")


# ------------------------------------------------------------------------------------ conversions


class FlowcontrolConversions:
    """Beta <-> v1. FlowSchemas only change apiVersion; priority levels rename the concurrency shares."""

    def __init__(self, naming: Naming, version: str) -> None:
        self.group = group(naming)
        self.version = version
        #: the reference's `flowcontrol.<upstream domain>/v1beta3-preserve-zero-concurrency-shares`, for this beta.
        self.preserve_zero = f"{naming.group('flowcontrol')}/{version}-preserve-zero-concurrency-shares"

    def _relabel(self, obj: Obj, version: str) -> Obj:
        out = copy.deepcopy(obj)
        out["apiVersion"] = f"{self.group}/{version}"
        return out

    def flow_schema_from_storage(self, obj: Obj) -> Obj:
        return self._relabel(obj, self.version)

    def flow_schema_to_storage(self, obj: Obj) -> Obj:
        return self._relabel(obj, STORAGE_VERSION)

    def priority_level_from_storage(self, obj: Obj) -> Obj:
        out = self._relabel(obj, self.version)
        limited = dig(out, "spec", "limited")
        if isinstance(limited, dict) and "nominalConcurrencyShares" in limited:
            shares = limited.pop("nominalConcurrencyShares")
            if shares is not None:
                limited["assuredConcurrencyShares"] = shares
            if shares == 0:  # in a beta 0 means "default": say it was meant
                md = child(out, "metadata")
                md["annotations"] = {**(md.get("annotations") or {}), self.preserve_zero: ""}
        return out

    def priority_level_to_storage(self, obj: Obj) -> Obj:
        out = self._relabel(obj, STORAGE_VERSION)
        md = out["metadata"] if isinstance(out.get("metadata"), dict) else {}
        annotations = md["annotations"] if isinstance(md.get("annotations"), dict) else {}
        keep_zero = self.preserve_zero in annotations
        if keep_zero:
            del annotations[self.preserve_zero]
            if not annotations:
                del md["annotations"]
        limited = dig(out, "spec", "limited")
        if isinstance(limited, dict) and "assuredConcurrencyShares" in limited:
            shares = limited.pop("assuredConcurrencyShares")
            if shares is not None and (shares != 0 or keep_zero):
                limited["nominalConcurrencyShares"] = shares
            # an unset (or, without the annotation, zero) share count takes v1's default
        return out

    def validate_priority_level(self, new: Obj, old: Obj | None) -> list[FieldError]:
        shares = dig(new, "spec", "limited", "assuredConcurrencyShares")
        if isinstance(shares, int) and shares < 0:
            return [invalid("spec.limited.assuredConcurrencyShares", shares, "must be positive")]
        return []


# ------------------------------------------------------------------------------------ strategies


class FlowcontrolStrategy(KindStrategy):
    """Generation is kept (set on create, bumped on spec changes); status starts empty."""

    initial_status: ClassVar[Obj] = {}


def _wildcard_errors(path: str, values: Any, noun: str) -> list[FieldError]:
    if isinstance(values, list) and "*" in values and len(values) > 1:
        return [invalid(path, values, f"if '*' is present, must not specify other {noun}")]
    return []


def _verbs_errors(path: str, verbs: Any) -> list[FieldError]:
    if not isinstance(verbs, list) or not verbs:
        return [required(path, "verbs must contain at least one value")]
    if "*" in verbs:
        return _wildcard_errors(path, verbs, "verbs")
    if not set(verbs) <= set(SUPPORTED_VERBS):
        return [not_supported(path, verbs, SUPPORTED_VERBS)]
    return []


def _subject_errors(subject: Obj, path: str) -> list[FieldError]:
    kind = subject.get("kind")
    if kind not in SUBJECT_KINDS:
        return [not_supported(f"{path}.kind", kind, SUBJECT_KINDS)]
    own = SUBJECT_FIELDS[kind]
    errors: list[FieldError] = []
    stanza = subject.get(own)
    if not isinstance(stanza, dict):
        errors.append(required(f"{path}.{own}", f"{own} is required when subject kind is '{kind}'"))
    else:
        name = stanza.get("name")
        if not name:
            errors.append(required(f"{path}.{own}.name"))
        elif kind == "ServiceAccount" and name != "*":
            errors += name_errors(str(name), "subdomain", f"{path}.{own}.name")
        if kind == "ServiceAccount":
            namespace = stanza.get("namespace")
            if not namespace:
                errors.append(required(f"{path}.{own}.namespace", "must specify namespace for service account"))
            else:
                errors += name_errors(str(namespace), "label", f"{path}.{own}.namespace")
    for other_kind, key in SUBJECT_FIELDS.items():
        if key != own and subject.get(key) is not None:
            errors.append(forbidden(f"{path}.{key}", f"{key} is forbidden when subject kind is not '{other_kind}'"))
    return errors


def _resource_rule_errors(rule: Obj, path: str) -> list[FieldError]:
    errors = _verbs_errors(f"{path}.verbs", rule.get("verbs"))
    for key, noun, what in (("apiGroups", "api groups", "api group"), ("resources", "resources", "resource")):
        values = rule.get(key)
        if not isinstance(values, list) or not values:
            errors.append(required(f"{path}.{key}", f"resource rules must supply at least one {what}"))
        else:
            errors += _wildcard_errors(f"{path}.{key}", values, noun)
    namespaces = rule.get("namespaces")
    if not namespaces and rule.get("clusterScope") is not True:
        errors.append(
            required(
                f"{path}.namespaces", "resource rules that are not cluster scoped must supply at least one namespace"
            )
        )
    elif isinstance(namespaces, list) and "*" in namespaces:
        errors += _wildcard_errors(f"{path}.namespaces", namespaces, "namespaces")
    else:
        for i, namespace in enumerate(namespaces or []):
            for error in name_errors(str(namespace), "label", f"{path}.namespaces[{i}]"):
                errors.append(invalid(error.field, namespace, NAMESPACE_INTRO + error.detail))
    return errors


def _url_error(url: Any, path: str) -> FieldError | None:
    """ValidateNonResourceURLPath: a leading slash, no blanks or `//`, `*` only as a `/*` suffix."""
    if not isinstance(url, str) or not url:
        return invalid(path, url, "must not be empty")
    if url == "/":
        return None
    if not url.startswith("/"):
        return invalid(path, url, "must start with slash")
    if " " in url:
        return invalid(path, url, "must not contain white-space")
    if "//" in url:
        return invalid(path, url, "must not contain double slash")
    stars = url.count("*")
    if stars > 1 or (stars == 1 and not url.endswith("/*")):
        return invalid(path, url, "wildcard can only do suffix matching")
    return None


def _non_resource_rule_errors(rule: Obj, path: str) -> list[FieldError]:
    errors = _verbs_errors(f"{path}.verbs", rule.get("verbs"))
    urls = rule.get("nonResourceURLs")
    if not isinstance(urls, list) or not urls:
        errors.append(required(f"{path}.nonResourceURLs", "nonResourceURLs must contain at least one value"))
    elif "*" in urls:
        errors += _wildcard_errors(f"{path}.nonResourceURLs", urls, "non-resource URLs")
    else:
        errors += [e for i, url in enumerate(urls) if (e := _url_error(url, f"{path}.nonResourceURLs[{i}]"))]
    return errors


def _conditions_errors(obj: Obj) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[Any] = set()
    for i, condition in enumerate(items(part(obj, "status"), "conditions")):
        kind = condition.get("type")
        if not kind:
            errors.append(required(f"status.conditions[{i}].type", "must not be empty"))
        elif kind in seen:
            errors.append(FieldError("FieldValueDuplicate", f"status.conditions[{i}].type", "", kind))
        seen.add(kind)
    return errors


class FlowSchemaStrategy(FlowcontrolStrategy):
    def default(self, obj: Obj) -> None:
        spec = child(obj, "spec")
        if not spec.get("matchingPrecedence"):
            spec["matchingPrecedence"] = DEFAULT_MATCHING_PRECEDENCE

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = part(obj, "spec")
        errors: list[FieldError] = []
        precedence = spec.get("matchingPrecedence")
        if not isinstance(precedence, int) or isinstance(precedence, bool) or precedence <= 0:
            errors.append(invalid("spec.matchingPrecedence", precedence, "must be a positive value"))
        elif precedence > MAX_MATCHING_PRECEDENCE:
            errors.append(
                invalid("spec.matchingPrecedence", precedence, f"must not be greater than {MAX_MATCHING_PRECEDENCE}")
            )
        elif precedence == 1 and dig(obj, "metadata", "name") != EXEMPT:
            errors.append(
                invalid(
                    "spec.matchingPrecedence",
                    precedence,
                    "only the schema named 'exempt' may have matchingPrecedence 1",
                )
            )
        method = spec.get("distinguisherMethod")
        if isinstance(method, dict) and method.get("type") not in DISTINGUISHER_METHODS:
            errors.append(not_supported("spec.distinguisherMethod.type", method.get("type"), DISTINGUISHER_METHODS))
        level = dig(spec, "priorityLevelConfiguration", "name")
        if not level:
            errors.append(required("spec.priorityLevelConfiguration.name", "must reference a priority level"))
        else:
            errors += name_errors(str(level), "subdomain", "spec.priorityLevelConfiguration.name")
        for i, rule in enumerate(items(spec, "rules")):
            path = f"spec.rules[{i}]"
            subjects = items(rule, "subjects")
            if not subjects:
                errors.append(required(f"{path}.subjects", "subjects must contain at least one value"))
            for j, subject in enumerate(subjects):
                errors += _subject_errors(subject, f"{path}.subjects[{j}]")
            resource_rules, other_rules = items(rule, "resourceRules"), items(rule, "nonResourceRules")
            if not resource_rules and not other_rules:
                errors.append(required(path, "at least one of resourceRules and nonResourceRules has to be non-empty"))
            for j, r in enumerate(resource_rules):
                errors += _resource_rule_errors(r, f"{path}.resourceRules[{j}]")
            for j, r in enumerate(other_rules):
                errors += _non_resource_rule_errors(r, f"{path}.nonResourceRules[{j}]")
        return errors + _conditions_errors(obj)


def _queuing_errors(queuing: Obj, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    values = {key: queuing.get(key) for key in QUEUING_DEFAULTS}
    for key, value in values.items():
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            errors.append(invalid(f"{path}.{key}", value, "must be positive"))
    queues, hand = values["queues"], values["handSize"]
    if isinstance(queues, int) and queues > MAX_QUEUES:
        errors.append(invalid(f"{path}.queues", queues, f"must not be greater than {MAX_QUEUES}"))
    if errors or not isinstance(queues, int) or not isinstance(hand, int):
        return errors
    if hand > queues:
        errors.append(invalid(f"{path}.handSize", hand, f"should not be greater than queues ({queues})"))
    elif math.ceil(math.log2(queues) * hand) > MAX_HAND_ENTROPY_BITS:
        errors.append(
            invalid(
                f"{path}.handSize",
                hand,
                f"required entropy bits of deckSize {queues} and handSize "
                f"{hand} should not be greater than {MAX_HAND_ENTROPY_BITS}",
            )
        )
    return errors


def _percent_errors(path: str, value: Any, *, at_most_100: bool) -> list[FieldError]:
    if value is None:
        return []
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        return [
            invalid(
                path,
                value,
                "must be between 0 and 100, inclusive"
                if at_most_100
                else "if specified, must be a non-negative integer",
            )
        ]
    if at_most_100 and value > 100:
        return [invalid(path, value, "must be between 0 and 100, inclusive")]
    return []


class PriorityLevelConfigurationStrategy(FlowcontrolStrategy):
    def default(self, obj: Obj) -> None:
        spec = child(obj, "spec")
        limited = spec.get("limited")
        if isinstance(limited, dict):
            setdefault(limited, "nominalConcurrencyShares", DEFAULT_NOMINAL_SHARES)
            setdefault(limited, "lendablePercent", 0)
            queuing = dig(limited, "limitResponse", "queuing")
            if isinstance(queuing, dict):
                for key, value in QUEUING_DEFAULTS.items():
                    if not queuing.get(key):
                        queuing[key] = value
        exempt = spec.get("exempt")
        if isinstance(exempt, dict):
            setdefault(exempt, "nominalConcurrencyShares", 0)
            setdefault(exempt, "lendablePercent", 0)

    def validate(self, obj: Obj) -> list[FieldError]:
        return self._spec_errors(obj) + _conditions_errors(obj)

    def _spec_errors(self, obj: Obj) -> list[FieldError]:
        spec = part(obj, "spec")
        kind = spec.get("type")
        name = dig(obj, "metadata", "name")
        errors: list[FieldError] = []
        if kind not in PRIORITY_LEVEL_TYPES:
            return [not_supported("spec.type", kind, PRIORITY_LEVEL_TYPES)]
        if (kind == "Exempt") != (name == EXEMPT):
            errors.append(invalid("spec.type", kind, "type must be 'Exempt' if and only if name is 'exempt'"))
        if kind == "Exempt":
            if spec.get("limited") is not None:
                errors.append(forbidden("spec.limited", "must be nil if the type is not Limited"))
            exempt = part(spec, "exempt")
            errors += _percent_errors(
                "spec.exempt.nominalConcurrencyShares", exempt.get("nominalConcurrencyShares"), at_most_100=False
            )
            errors += _percent_errors("spec.exempt.lendablePercent", exempt.get("lendablePercent"), at_most_100=True)
            return errors
        if spec.get("exempt") is not None:
            errors.append(forbidden("spec.exempt", "must be nil if the type is Limited"))
        limited = spec.get("limited")
        if not isinstance(limited, dict):
            return errors + [required("spec.limited", "must not be empty when type is Limited")]
        shares = limited.get("nominalConcurrencyShares")
        if shares is not None and (not isinstance(shares, int) or shares < 0):
            errors.append(invalid("spec.limited.nominalConcurrencyShares", shares, "must be a non-negative integer"))
        errors += _percent_errors("spec.limited.lendablePercent", limited.get("lendablePercent"), at_most_100=True)
        errors += _percent_errors(
            "spec.limited.borrowingLimitPercent", limited.get("borrowingLimitPercent"), at_most_100=False
        )
        response = part(limited, "limitResponse")
        response_type = response.get("type")
        if response_type not in LIMIT_RESPONSE_TYPES:
            errors.append(not_supported("spec.limited.limitResponse.type", response_type, LIMIT_RESPONSE_TYPES))
        elif response_type == "Queue":
            queuing = response.get("queuing")
            if not isinstance(queuing, dict):
                errors.append(
                    required(
                        "spec.limited.limitResponse.queuing",
                        "must not be empty if limited.limitResponse.type is Limited",
                    )
                )
            else:
                errors += _queuing_errors(queuing, "spec.limited.limitResponse.queuing")
        elif response.get("queuing") is not None:
            errors.append(
                forbidden(
                    "spec.limited.limitResponse.queuing", "must be nil if limited.limitResponse.type is not Limited"
                )
            )
        return errors


# ------------------------------------------------------------------------------------- the group

FLOW_SCHEMA_EXAMPLE: Obj = {
    "spec": {
        "priorityLevelConfiguration": {"name": "workload-low"},
        "matchingPrecedence": 500,
        "distinguisherMethod": {"type": "ByUser"},
        "rules": [
            {
                "subjects": [{"kind": "Group", "group": {"name": "system:authenticated"}}],
                "resourceRules": [
                    {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": True, "namespaces": ["*"]}
                ],
            }
        ],
    }
}
QUEUING = {"queues": 16, "handSize": 4, "queueLengthLimit": 50}


def _plc_example(shares_field: str) -> Obj:
    return {
        "spec": {
            "type": "Limited",
            "limited": {shares_field: 10, "limitResponse": {"type": "Queue", "queuing": dict(QUEUING)}},
        }
    }


def resource_types(naming: Naming) -> list[ResourceType]:
    name = group(naming)
    flow_strategy, level_strategy = FlowSchemaStrategy(naming), PriorityLevelConfigurationStrategy(naming)
    out: list[ResourceType] = []
    # declaration order is discovery order: v1 first (preferred), then the betas, newest first
    for version in (STORAGE_VERSION, *BETAS):
        flow_conv = level_conv = None
        flow_dep = level_dep = None
        if version != STORAGE_VERSION:
            conv = FlowcontrolConversions(naming, version)
            flow_conv = Conversion(
                name, STORAGE_VERSION, "flowschemas", conv.flow_schema_to_storage, conv.flow_schema_from_storage
            )
            level_conv = Conversion(
                name,
                STORAGE_VERSION,
                "prioritylevelconfigurations",
                conv.priority_level_to_storage,
                conv.priority_level_from_storage,
                conv.validate_priority_level,
            )
        if version == "v1beta1":  # v1beta2 was not deprecated at the v1.23 API level (the reference: 1.26)
            flow_dep = Deprecation("1.23", "1.26", f"{name}/v1beta2 FlowSchema")
            level_dep = Deprecation("1.23", "1.26", f"{name}/v1beta2 PriorityLevelConfiguration")
        shares = "nominalConcurrencyShares" if version == STORAGE_VERSION else "assuredConcurrencyShares"
        out += [
            ResourceType(
                name,
                version,
                "FlowSchema",
                "flowschemas",
                False,
                subresources=(status_subresource(),),
                strategy=flow_strategy,
                has_status=True,
                example=copy.deepcopy(FLOW_SCHEMA_EXAMPLE),
                conversion=flow_conv,
                deprecation=flow_dep,
            ),
            ResourceType(
                name,
                version,
                "PriorityLevelConfiguration",
                "prioritylevelconfigurations",
                False,
                subresources=(status_subresource(),),
                strategy=level_strategy,
                has_status=True,
                example=_plc_example(shares),
                conversion=level_conv,
                deprecation=level_dep,
            ),
        ]
    return out
