"""Authorization: the attributes of a request, the decision of an authorizer, and the mode list.

Every request (resource or not), impersonation and the access reviews go through the one
`Authorizer` built here from `--authorization-mode`; `system:masters` is always allowed first, as the
reference's privileged-group authorizer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..errors import Forbidden
from ..user import UserInfo

SUPPORTED_MODES = ("AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook")
KNOWN_MODES = ("AlwaysAllow", "AlwaysDeny", "ABAC", "Webhook", "RBAC", "Node")


def parse_modes(value: str) -> list[str]:
    """The ordered, comma-separated --authorization-mode list; ValueError names what is wrong."""
    modes = [m.strip() for m in value.split(",")]
    for mode in modes:
        if mode not in KNOWN_MODES:
            raise ValueError(f"unknown authorization mode {mode!r}; supported: {', '.join(SUPPORTED_MODES)}")
        if mode not in SUPPORTED_MODES:
            raise ValueError(f"authorization mode {mode!r} is not supported yet; use {', '.join(SUPPORTED_MODES)}")
    if len(set(modes)) != len(modes):
        raise ValueError(f"{value!r} names a mode twice")
    return modes


@dataclass(frozen=True)
class Attributes:
    """What is asked, by whom (the reference's authorizer.Attributes)."""

    user: UserInfo
    verb: str  # get, list, watch, create, update, patch, delete, deletecollection, impersonate, ...
    resource_request: bool = True
    group: str = ""  # API group, "" for core
    version: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""  # for non-resource requests (/healthz, /version, ...)


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str = ""
    #: the authorizer has no opinion: the next mode decides (all silent means denied).
    no_opinion: bool = False

    @classmethod
    def allow(cls, reason: str = "") -> Decision:
        return cls(True, reason)

    @classmethod
    def deny(cls, reason: str = "") -> Decision:
        return cls(False, reason)

    @classmethod
    def abstain(cls, reason: str = "") -> Decision:
        return cls(False, reason, no_opinion=True)


class Authorizer(Protocol):
    def authorize(self, attributes: Attributes) -> Decision: ...


class AlwaysAllow:
    def authorize(self, attributes: Attributes) -> Decision:
        return Decision.allow()


class AlwaysDeny:
    def authorize(self, attributes: Attributes) -> Decision:
        return Decision.deny("Everything is forbidden.")


@dataclass(frozen=True)
class PrivilegedGroups:
    """Members of these groups may do anything; no opinion on everyone else."""

    groups: tuple[str, ...]

    def authorize(self, attributes: Attributes) -> Decision:
        if any(g in self.groups for g in attributes.user.groups):
            return Decision.allow()
        return Decision.abstain()


@dataclass(frozen=True)
class ModeChain:
    """The modes of --authorization-mode in order: the first that allows or denies decides."""

    authorizers: tuple[Authorizer, ...]

    def authorize(self, attributes: Attributes) -> Decision:
        return self.evaluate(attributes)[0]

    def evaluate(self, attributes: Attributes) -> tuple[Decision, bool]:
        """The decision, and whether some authorizer had an opinion (a review's `denied` needs it)."""
        reasons: list[str] = []
        for authorizer in self.authorizers:
            decision = authorizer.authorize(attributes)
            if not decision.no_opinion:
                return decision, True
            if decision.reason:
                reasons.append(decision.reason)
        return Decision.deny(", ".join(reasons)), False

    @property
    def modes(self) -> tuple[str, ...]:
        return tuple(type(a).__name__ for a in self.authorizers)


def forbidden_message(attributes: Attributes) -> str:
    """The reference's wording (notes §1.4), before the `<resource> "<name>" is forbidden: ` wrapper."""
    who = attributes.user.username
    if not attributes.resource_request:
        return f'User "{who}" cannot {attributes.verb} path "{attributes.path}"'
    resource = attributes.resource + (f"/{attributes.subresource}" if attributes.subresource else "")
    where = f'in the namespace "{attributes.namespace}"' if attributes.namespace else "at the cluster scope"
    return f'User "{who}" cannot {attributes.verb} resource "{resource}" in API group "{attributes.group}" {where}'


def _escape(text: str) -> str:
    # nothing in an error may look like HTML
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def forbidden(attributes: Attributes, reason: str = "") -> Forbidden:
    """The 403 for a denied request, worded and detailed like the reference's."""
    message = _escape(forbidden_message(attributes)) + (f": {reason}" if reason else "")
    group_resource = f"{attributes.resource}.{attributes.group}" if attributes.group else attributes.resource
    if not attributes.resource_request or not group_resource:
        prefix = "forbidden"
    elif attributes.name:
        prefix = f'{group_resource} "{attributes.name}" is forbidden'
    else:
        prefix = f"{group_resource} is forbidden"
    return Forbidden(f"{prefix}: {message}", attributes.resource, attributes.group, attributes.name)
