"""The RBAC authorizer: allows what some binding of the user grants, has no opinion otherwise."""

from __future__ import annotations

from ..authz import Attributes, Decision
from .policy import PolicySource, Resolver, subject_matches  # noqa: F401  (re-exported)


class RBACAuthorizer:
    def __init__(self, resolver: Resolver):
        self.resolver = resolver

    def authorize(self, attributes: Attributes) -> Decision:
        binding = self.resolver.allowed_by(attributes)
        if binding is None:
            return Decision.abstain()
        return Decision.allow(f'RBAC: allowed by {binding.describe()} to user "{attributes.user.username}"')
