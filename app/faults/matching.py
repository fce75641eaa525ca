"""What a request is, in the terms of a Fault's spec.match, and whether a Fault selects it."""

from __future__ import annotations

from dataclasses import dataclass

from .spec import FaultSpec


@dataclass(frozen=True)
class RequestFacts:
    verb: str
    group: str
    resource: str
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    user: str = ""
    groups: tuple[str, ...] = ()
    user_agent: str = ""
    field_manager: str = ""

    @property
    def group_resource(self) -> str:
        """`pods`, `deployments.apps`, `widgets.example.com`: how spec.match.resources names a resource."""
        return f"{self.resource}.{self.group}" if self.group else self.resource


def matches(fault: FaultSpec, facts: RequestFacts) -> bool:
    """Every list spec.match sets names the request (an empty or missing list means any); userAgents are
    prefixes."""
    allowed = fault.verbs_allowed
    if allowed is not None and facts.verb not in allowed:
        return False
    match = fault.match
    single = (
        ("verbs", facts.verb),
        ("resources", facts.group_resource),
        ("subresources", facts.subresource),
        ("namespaces", facts.namespace),
        ("names", facts.name),
        ("users", facts.user),
        ("fieldManagers", facts.field_manager),
    )
    for key, value in single:
        wanted = match.get(key)
        if wanted and value not in wanted:
            return False
    groups = match.get("groups")
    if groups and not set(groups) & set(facts.groups):
        return False
    agents = match.get("userAgents")
    return not agents or any(facts.user_agent.startswith(prefix) for prefix in agents)
