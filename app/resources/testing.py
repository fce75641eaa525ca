"""The `testing.<domain>/v1alpha1` group: Fault, a failure the server injects on demand (issue 58,
docs/testing.md). Declared here like every kind (discovery, OpenAPI, table, RBAC follow); served only when
the server runs with --enable-fault-injection. What a Fault does is app/faults."""

from __future__ import annotations

from typing import Any, ClassVar

from ..catalog import Obj, ResourceType, status_subresource
from ..durations import parse_duration
from ..errors import FieldError, forbidden, invalid, not_supported, required
from ..naming import Naming
from .common import KindStrategy, non_negative, part, positive

GROUP_PREFIX = "testing"
VERSION = "v1alpha1"
PLURAL = "faults"
#: the actions of spec.action, exactly one of which a Fault sets
ACTIONS = ("error", "delay", "afterWrite", "watch", "conflictOnce")
#: the verbs spec.match.verbs may name (the API verbs of resource requests)
VERBS = ("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection")
MATCH_FIELDS = (
    "verbs",
    "resources",
    "subresources",
    "namespaces",
    "names",
    "users",
    "groups",
    "userAgents",
    "fieldManagers",
)


def fault_group(naming: Naming) -> str:
    return naming.group(GROUP_PREFIX)


class FaultStrategy(KindStrategy):
    initial_status: ClassVar[Obj | None] = {"matched": 0}

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = part(obj, "spec")
        errors = _match_errors(spec.get("match"))
        errors += _action_errors(spec.get("action"))
        errors += positive("spec.times", spec.get("times"))
        probability = spec.get("probability")
        if probability is not None and (
            isinstance(probability, bool) or not isinstance(probability, (int, float)) or not 0 <= probability <= 1
        ):
            errors.append(invalid("spec.probability", probability, "must be between 0 and 1"))
        seed = spec.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            errors.append(invalid("spec.seed", seed, "must be an integer"))
        return errors


def _match_errors(match: Any) -> list[FieldError]:
    if match is None:
        return []
    if not isinstance(match, dict):
        return [invalid("spec.match", match, "must be an object")]
    errors: list[FieldError] = []
    for key, values in match.items():
        path = f"spec.match.{key}"
        if key not in MATCH_FIELDS:
            errors.append(not_supported(path, key, list(MATCH_FIELDS)))
        elif not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
            errors.append(invalid(path, values, "must be a list of non-empty strings"))
        elif key == "verbs":
            errors += [not_supported(f"{path}[{i}]", v, list(VERBS)) for i, v in enumerate(values) if v not in VERBS]
    return errors


def _action_errors(action: Any) -> list[FieldError]:
    if not isinstance(action, dict):
        return [required("spec.action", "exactly one of " + ", ".join(ACTIONS))]
    errors = [not_supported(f"spec.action.{key}", key, list(ACTIONS)) for key in action if key not in ACTIONS]
    chosen = [key for key in ACTIONS if action.get(key) not in (None, False)]
    if not chosen and not errors:
        return [required("spec.action", "exactly one of " + ", ".join(ACTIONS))]
    if len(chosen) > 1:
        errors.append(forbidden("spec.action", "only one action may be set, found " + ", ".join(chosen)))
    if "error" in chosen:
        errors += _error_errors("spec.action.error", action["error"])
    if "delay" in chosen:
        errors += _delay_errors(action["delay"])
    if "afterWrite" in chosen:
        errors += _error_errors("spec.action.afterWrite.error", part(action, "afterWrite").get("error"))
    if "watch" in chosen:
        errors += _watch_errors(action["watch"])
    if "conflictOnce" in chosen and action["conflictOnce"] is not True:
        errors.append(invalid("spec.action.conflictOnce", action["conflictOnce"], "must be true"))
    return errors


def _error_errors(path: str, error: Any) -> list[FieldError]:
    if not isinstance(error, dict):
        return [required(path)]
    code = error.get("code")
    if code is None:
        return [required(f"{path}.code")]
    if isinstance(code, bool) or not isinstance(code, int) or not 400 <= code <= 599:
        return [invalid(f"{path}.code", code, "must be between 400 and 599")]
    return non_negative(f"{path}.retryAfterSeconds", error.get("retryAfterSeconds"))


def _delay_errors(delay: Any) -> list[FieldError]:
    try:
        seconds = parse_duration(delay) if isinstance(delay, str) else None
    except ValueError:
        seconds = None
    if seconds is None:
        return [invalid("spec.action.delay", delay, "must be a duration such as 500ms or 2s")]
    if seconds < 0:
        return [invalid("spec.action.delay", delay, "must be greater than or equal to 0")]
    return []


def _watch_errors(watch: Any) -> list[FieldError]:
    keys = ("expireAfterEvents", "closeAfterEvents")
    if not isinstance(watch, dict) or sum(watch.get(k) is not None for k in keys) != 1:
        return [required("spec.action.watch", "exactly one of " + ", ".join(keys))]
    return [e for k in keys for e in non_negative(f"spec.action.watch.{k}", watch.get(k))]


def resource_types(naming: Naming) -> list[ResourceType]:
    return [
        ResourceType(
            fault_group(naming),
            VERSION,
            "Fault",
            PLURAL,
            False,
            subresources=(status_subresource(),),
            strategy=FaultStrategy(naming),
            has_status=True,
            example={"spec": {"match": {"verbs": ["update"], "resources": ["configmaps"]}, "action": {"delay": "0s"}}},
        )
    ]


def action_summary(obj: Obj) -> str:
    """A Fault's action in a few words (`error 409`, `delay 2s`, `watch expireAfterEvents=3`): tables, orchctl."""
    action = part(part(obj, "spec"), "action")
    for key in ACTIONS:
        value = action.get(key)
        if value in (None, False):
            continue
        if key == "error":
            return f"error {part(action, 'error').get('code', '')}"
        if key == "afterWrite":
            return f"afterWrite {part(part(action, 'afterWrite'), 'error').get('code', '')}"
        if key == "watch":
            return "watch " + ",".join(f"{k}={v}" for k, v in part(action, "watch").items())
        if key == "delay":
            return f"delay {value}"
        return key
    return "<none>"
