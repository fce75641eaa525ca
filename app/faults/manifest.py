"""A Fault object from keyword arguments: what the pytest fixture (`orch_apiserver.fault(...)`) and
`orchctl fault add` send."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..naming import Naming
from ..resources.testing import PLURAL, VERSION, fault_group

#: keyword -> spec.match field
MATCH_KEYWORDS = {
    "verbs": "verbs",
    "resources": "resources",
    "subresources": "subresources",
    "namespaces": "namespaces",
    "names": "names",
    "users": "users",
    "groups": "groups",
    "user_agents": "userAgents",
    "field_managers": "fieldManagers",
}


def fault_api_version(naming: Naming) -> str:
    return f"{fault_group(naming)}/{VERSION}"


def faults_path(naming: Naming) -> str:
    """The Faults' collection URL path."""
    return f"/apis/{fault_api_version(naming)}/{PLURAL}"


def _strings(value: str | Iterable[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _error(value: int | dict, reason: str | None, message: str | None, retry_after: int | None) -> dict:
    error = dict(value) if isinstance(value, dict) else {"code": value}
    extra = {"reason": reason, "message": message, "retryAfterSeconds": retry_after}
    error.update({key: v for key, v in extra.items() if v is not None})
    return error


def _delay(value: float | str) -> str:
    return value if isinstance(value, str) else f"{value:g}s"


def fault_manifest(
    name: str,
    api_version: str,
    *,
    error: int | dict | None = None,
    reason: str | None = None,
    message: str | None = None,
    retry_after: int | None = None,
    delay: float | str | None = None,
    after_write: int | dict | None = None,
    expire_after_events: int | None = None,
    close_after_events: int | None = None,
    conflict_once: bool = False,
    times: int | None = None,
    probability: float | None = None,
    seed: int | None = None,
    **match: str | Iterable[str] | None,
) -> dict[str, Any]:
    """The Fault `name`: spec.match from the match keywords (verbs=["update"], resources="configmaps", ...),
    spec.action from the one action keyword given (the server refuses none or several with 422). `error` and
    `after_write` take a code or a whole error object; reason, message and retry_after refine either."""
    unknown = sorted(set(match) - set(MATCH_KEYWORDS))
    if unknown:
        raise TypeError(f"unknown Fault keywords: {', '.join(unknown)}")
    action: dict[str, Any] = {}
    if error is not None:
        action["error"] = _error(error, reason, message, retry_after)
    if after_write is not None:
        action["afterWrite"] = {"error": _error(after_write, reason, message, retry_after)}
    if delay is not None:
        action["delay"] = _delay(delay)
    watch = {"expireAfterEvents": expire_after_events, "closeAfterEvents": close_after_events}
    if any(v is not None for v in watch.values()):
        action["watch"] = {key: v for key, v in watch.items() if v is not None}
    if conflict_once:
        action["conflictOnce"] = True
    spec: dict[str, Any] = {"action": action}
    selected = {MATCH_KEYWORDS[key]: _strings(v) for key, v in match.items() if v is not None}
    if selected:
        spec["match"] = selected
    for key, value in (("times", times), ("probability", probability), ("seed", seed)):
        if value is not None:
            spec[key] = value
    return {"apiVersion": api_version, "kind": "Fault", "metadata": {"name": name}, "spec": spec}
